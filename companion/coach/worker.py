"""A coach worker process: rollouts for the positions its parent sends, until its parent goes.

Started by `CoachPool` as ``python -m companion.coach.worker PARENT_PID``: pickled requests on
stdin (the edition first, then positions), pickled answers on stdout. It ends when its stdin
closes and, on Linux, at once when its parent dies (``PR_SET_PDEATHSIG``), so a SIGKILLed
daemon leaves no worker behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
from typing import Any, BinaryIO

#: prctl's option: a signal this process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1
#: The worker's niceness: below the table's priority, so the table is never kept waiting for a core.
NICE = 10


def die_with(parent: int) -> None:
    """Ask the kernel to kill this process when its parent dies; exit now if it already has.

    Checked after asking: a parent that died just before the ask left this process
    re-parented, and no signal would ever come."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer requests until stdin ends: ("edition", Edition) then ("work", args) many times."""
    from companion.coach.chances import work

    edition: Any = None
    while True:
        try:
            kind, payload = pickle.load(requests)
        except EOFError:
            return
        if kind == "edition":
            edition = payload
            edition.rules.complete()
            continue
        try:
            answer: tuple[str, Any] = ("tally", work(edition, *payload))
        except Exception as exc:  # told to the parent, which reports it as the coach's failure
            answer = ("error", f"{type(exc).__name__}: {exc}")
        pickle.dump(answer, answers)
        answers.flush()


def main() -> None:
    die_with(int(sys.argv[1]))
    with contextlib.suppress(AttributeError, OSError):  # no nice() here: the coach still answers
        os.nice(NICE)
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
