"""gpiozero's hold timer without its poll: a button's hold thread that sleeps until a press.

gpiozero gives every `Button` a ``HoldThread`` that waits for a press with
``holding.wait(0.1)`` in a loop: ten wake-ups a second per button while nothing is
pressed, all evening, on a Pi Zero's slow cores.
`quiet_hold` swaps that thread for a `QuietHoldThread`, which runs gpiozero's own
``HoldThread.held`` unchanged but whose wait for a press has no timeout: a press (gpiozero
sets ``holding``) or a stop (``stopping``, set by ``close`` and at interpreter exit) wakes
it. Everything after the press (the hold time measured on the device's own release event,
``when_held``, ``is_held``, ``held_time``, ``hold_repeat``) is gpiozero's code as it was.

Imported only by `companion.hardware.buttons` when buttons are opened (it imports gpiozero).
"""

from __future__ import annotations

import threading
from typing import Any

from gpiozero.mixins import HoldThread


class Doorbell(threading.Event):
    """An event whose ``wait`` ignores its timeout: the hold thread sleeps until it is set."""

    def wait(self, timeout: float | None = None) -> bool:
        return super().wait()


class Stopping(threading.Event):
    """A thread's ``stopping`` that also rings its `Doorbell`, so that a stop wakes it."""

    def __init__(self, bell: Doorbell) -> None:
        super().__init__()
        self.bell = bell

    def set(self) -> None:
        super().set()
        self.bell.set()


class QuietHoldThread(HoldThread):  # type: ignore[misc]
    """gpiozero's ``HoldThread`` whose wait for a press sleeps until a press or a stop."""

    def start(self) -> None:
        # HoldThread.__init__ made ``holding`` and calls start() at once: swap both events
        # before the thread first waits on them
        self.holding = Doorbell()
        self.stopping = Stopping(self.holding)
        super().start()


def quiet_hold(button: Any) -> None:
    """Give ``button`` a `QuietHoldThread` in place of the polling one gpiozero started.

    The old thread is woken and ended at once (``stopping`` first, so it leaves before its
    hold loop looks at the pin), and joined, which takes it out of gpiozero's thread list."""
    old = button._hold_thread
    button._hold_thread = QuietHoldThread(button)
    if old is not None:
        old.stopping.set()
        old.holding.set()
        old.stop()
