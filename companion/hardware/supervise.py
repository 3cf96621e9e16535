"""Keeping the real parts going: open, watch, report, retry.

A part that fails at start-up or later costs the table that part only (`health`): the reader
and the buttons are opened through a supervisor here, the ring by `RingDriver` (its frames go
to the page meanwhile).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.hardware.health import RETRY_SECONDS, Health


class Reader(Protocol):
    def check(self) -> int: ...
    def read_uid(self) -> str | None: ...
    def read_text(self) -> str | None: ...
    def close(self) -> None: ...


@dataclass(eq=False)
class SupervisedReader:
    """A reader whose reads never raise ("no tag" while the chip is away): a failure is reported,
    the chip closed and reopened later. Its version is read every ``check_every`` seconds: an
    unplugged MFRC522 does not fail a poll, it just never sees a tag."""

    opener: Callable[[], Reader]
    health: Health
    clock: Callable[[], float] = time.monotonic
    retry: float = RETRY_SECONDS
    check_every: float = 5.0
    reader: Reader | None = field(default=None, init=False)
    next_try: float = field(default=0.0, init=False)
    next_check: float = field(default=0.0, init=False)

    def _open(self, now: float) -> Reader | None:
        if self.reader is not None:
            return self.reader
        if now < self.next_try:
            return None
        try:
            reader = self.opener()
            version = reader.check()
        except Exception as exc:
            self._lost(exc, now)
            return None
        self.reader = reader
        self.next_check = now + self.check_every
        self.health.ok("reader", f"MFRC522 answering (version 0x{version:02x})")
        return reader

    def _lost(self, exc: Exception, now: float) -> None:
        if self.reader is not None:
            self.reader.close()
        self.reader = None
        self.next_try = now + self.retry
        self.health.fail("reader", exc)

    def read_uid(self) -> str | None:
        now = self.clock()
        reader = self._open(now)
        if reader is None:
            return None
        try:
            if now >= self.next_check:
                reader.check()
                self.next_check = now + self.check_every
            return reader.read_uid()
        except Exception as exc:
            self._lost(exc, now)
            return None

    def read_text(self) -> str | None:
        reader = self.reader
        if reader is None:
            return None
        try:
            return reader.read_text()
        except Exception as exc:
            self._lost(exc, self.clock())
            return None


@dataclass(eq=False)
class SupervisedButtons:
    """Opens the buttons, and keeps trying on its own thread until they open; once open, reads
    each pin every ``check_every`` seconds, so that a button that fails later (its chip gone,
    its line taken) is reported, closed and reopened like the reader and the ring."""

    opener: Callable[[], Any]
    health: Health
    retry: float = RETRY_SECONDS
    check_every: float = 5.0
    buttons: Any = field(default=None, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)

    def try_open(self) -> bool:
        try:
            self.buttons = self.opener()
        except Exception as exc:
            self.health.fail("buttons", exc)
            return False
        self.health.ok("buttons", "Crystal, Confirm and Undo ready")
        return True

    def check(self) -> bool:
        """Whether the open buttons still read; if not, report why and close them (to reopen)."""
        buttons = self.buttons
        if buttons is None:
            return False
        try:
            buttons.check()
        except Exception as exc:
            if self._stop.is_set():  # closed by the table stopping, under the check: not a fault
                return False
            self.buttons = None
            # a button on a vanished chip may not close cleanly: it is dropped anyway
            with contextlib.suppress(Exception):
                buttons.close()
            self.health.fail("buttons", exc)
            return False
        return True

    def run(self) -> None:
        """Until the table stops: retry the buttons while they are closed, check them while open."""
        while not self._stop.wait(self.retry if self.buttons is None else self.check_every):
            if self.buttons is None:
                self.try_open()
            else:
                self.check()

    def close(self) -> None:
        self._stop.set()
        if self.buttons is not None:
            self.buttons.close()
