"""A button with a hold, over gpiozero's public API: a thread only while it is pressed.

gpiozero's ``Button`` gives every button a hold thread for life, which wakes ten times a second
while nothing is pressed, all evening, on a Pi Zero's slow cores. `HeldButton` is a
``DigitalInputDevice`` (a ``Button``'s pin, pull-up and debounce) whose press starts a short
thread that waits for the release with the hold time as its timeout: still pressed then, the
button is held (``when_held`` runs once). It imports gpiozero: `companion.hardware.buttons` imports it
only when buttons are opened.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

Handler = Callable[[], Any]


class HeldButton:
    """A button to GND on ``pin`` (internal pull-up): ``when_pressed`` at the press,
    ``when_held`` once it has been pressed for ``hold_time`` seconds."""

    def __init__(
        self,
        pin: int,
        hold_time: float,
        bounce_time: float | None = None,
        pin_factory: Any = None,
        when_pressed: Handler | None = None,
        when_held: Handler | None = None,
    ) -> None:
        from gpiozero import DigitalInputDevice

        self.hold_time, self.when_pressed, self.when_held = hold_time, when_pressed, when_held
        self.is_held = False
        self.released = threading.Event()  # this press's; a new press gets a new one
        self.released.set()
        self.device = DigitalInputDevice(pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory)
        self.device.when_activated = self._pressed
        self.device.when_deactivated = self._released

    @property
    def is_pressed(self) -> bool:
        return bool(self.device.is_active)

    @property
    def closed(self) -> bool:
        """Whether its pin was closed (gpiozero's ``Device.closed``), as a ``Button`` says it."""
        return bool(self.device.closed)

    @property
    def value(self) -> int:
        """The pin's reading now (1 pressed); raises when the pin can no longer be read."""
        return int(self.device.value)

    def _pressed(self) -> None:
        released = self.released = threading.Event()
        if self.when_held is not None:
            threading.Thread(target=self._hold, args=(released,), name="button hold", daemon=True).start()
        if self.when_pressed is not None:
            self.when_pressed()

    def _hold(self, released: threading.Event) -> None:
        if not released.wait(self.hold_time) and self.when_held is not None:
            self.is_held = True
            self.when_held()

    def _released(self) -> None:
        self.is_held = False
        self.released.set()

    def close(self) -> None:
        """Close the pin; a hold being timed ends without firing."""
        self.when_held = None
        self.released.set()
        self.device.close()
