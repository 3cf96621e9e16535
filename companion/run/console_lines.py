"""The console's lines of `companion run`, written at once per input.

Under systemd each `print` is a system call to the journal, so the lines one thread says while
it handles an input (`ConsoleLines.held`) are written in one write when the input is done;
other threads' lines are written at once. Lines keep the order they were said in across
threads: an input's lines wait behind those other inputs still hold that were said before.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def write_line(text: str) -> None:
    """``print(text)``: the text and its newline, in one write (nothing without a stdout)."""
    out = sys.stdout
    if out is not None:
        out.write(text + "\n")


class ConsoleLines:
    """``print`` for the console, whose lines a thread holds while it handles an input."""

    def __init__(self) -> None:
        self._local = threading.local()
        #: Every thread's held lines, in the order they were said (one list, under ``_lock``).
        self._said: list[tuple[object, str]] = []
        self._lock = threading.Lock()

    def __call__(self, text: str) -> None:
        mine = getattr(self._local, "lines", None)
        with self._lock:
            if mine is None:  # outside any input (the ring's health, the coach): at once
                write_line(text)
            else:
                self._said.append((mine, text))

    @contextmanager
    def held(self) -> Iterator[None]:
        """A context in which this thread's lines are kept, then written in one write; nested,
        the outer one writes."""
        if getattr(self._local, "lines", None) is not None:
            yield
            return
        owner = self._local.lines = object()  # this input's mark on the lines it says
        try:
            yield
        finally:
            self._local.lines = None
            self.release(owner)

    def release(self, owner: object) -> None:
        """``owner``'s input is done: write its lines, after those other inputs said before them."""
        with self._lock:
            last = max((k for k, (who, _line) in enumerate(self._said) if who is owner), default=-1)
            lines = [line for _who, line in self._said[: last + 1]]
            del self._said[: last + 1]
            if lines:
                write_line("\n".join(lines))
