"""The console's lines of `companion run`, written at once per input.

A tap said up to three lines (the outcome, the mock dealer's reveal, what the table waits
for), each a `print`: two writes each, and under systemd (``PYTHONUNBUFFERED``) each a
system call to the journal. `ConsoleLines` keeps the lines one thread says while it handles
an input (`ConsoleLines.held`) and writes them in one write when the input is done: the same
text, in the same order. Lines of other threads (the ring's health, the coach) are written
at once, as before.
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType


def write_line(text: str) -> None:
    """``print(text)``: the text and its newline, in one write (nothing without a stdout)."""
    out = sys.stdout
    if out is not None:
        out.write(text + "\n")


class ConsoleLines:
    """``print`` for the console, whose lines a thread holds while it handles an input."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __call__(self, text: str) -> None:
        held: list[str] | None = getattr(self._local, "lines", None)
        if held is None:
            write_line(text)
        else:
            held.append(text)

    def held(self) -> Held:
        """A context in which this thread's lines are kept, then written in one write."""
        return Held(self._local)


class Held:
    """`ConsoleLines.held`: a class, not a generator, as it wraps every tap. Nested, the outer
    one writes."""

    __slots__ = ("_local", "_outer")

    def __init__(self, local: threading.local) -> None:
        self._local = local
        self._outer = False

    def __enter__(self) -> None:
        if getattr(self._local, "lines", None) is None:
            self._local.lines = []
            self._outer = True

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._outer:
            lines: list[str] = self._local.lines
            self._local.lines = None
            if lines:
                write_line("\n".join(lines))
