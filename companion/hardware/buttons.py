"""The three buttons: Crystal, Confirm and Undo (held), through gpiozero.

gpiozero chooses how to reach the pins through its pin factory: on a Raspberry
Pi its default (lgpio), on a PC its ``MockFactory``, whose pins the page and the
tests drive (`MockButtons.press`). The buttons go to GND and use the Pi's
internal pull-ups. Undo reacts only to a hold, so a brush against it does nothing.
Each button times its hold on a thread that lives only while it is pressed
(`companion.hardware.button_hold`): an idle table's buttons cost no CPU.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.util.config import ButtonSettings

if TYPE_CHECKING:
    from companion.hardware.button_hold import HeldButton

NAMES = ("crystal", "confirm", "undo")
#: How long past its hold time a mock Undo is held at most, waiting for the hold to be handled.
HOLD_GRACE = 10.0


class Buttons:
    """The buttons wired to ``press(name)``."""

    def __init__(
        self,
        settings: ButtonSettings,
        press: Callable[[str], Any],
        factory: Any = None,
        on_confirm_held: Callable[[], Any] | None = None,
    ) -> None:
        # gpiozero is imported here, not at the top: it is a third of `companion.app`'s
        # import time under emulation, and commands that touch no pin never pay it.
        from companion.hardware.button_hold import HeldButton

        if factory is None:
            # gpiozero warns, one multi-line warning each, of every pin library it falls back
            # from; when none works our own fault line names the cause and the fix, and when
            # one does, the fallbacks are nothing to act on: keep them out of the journal.
            import warnings

            from gpiozero.exc import PinFactoryFallback

            warnings.filterwarnings("ignore", category=PinFactoryFallback)
        self.settings = settings
        self.factory = factory
        bounce = settings.bounce or None
        self.buttons: dict[str, HeldButton] = {}
        for name in NAMES:
            hold = {"undo": settings.undo_hold, "confirm": settings.pin_hold}.get(name, 1.0)
            on_press = None if name == "undo" else functools.partial(press, name)  # Undo: a hold only
            # Confirm held: the host's way back in with no screen, the PIN on the ring (`hardware.ring_pin`)
            on_held = {"undo": functools.partial(press, "undo"), "confirm": on_confirm_held}.get(name)
            self.buttons[name] = HeldButton(getattr(settings, name), hold, bounce, factory, on_press, on_held)

    def check(self) -> None:
        """Read each button's pin once: a pin that can no longer be read (its chip gone, the
        line taken by another program, the device closed) raises a `HardwareFault` naming it."""
        from companion.hardware.health import HardwareFault

        for name, button in self.buttons.items():
            pin = getattr(self.settings, name)
            try:
                button.value  # noqa: B018 - the read is the check
            except Exception as exc:
                detail = f"{type(exc).__name__}: {exc}"
                raise HardwareFault(
                    "button_unreadable",
                    button=name,
                    pin=f"GPIO{pin}",
                    detail=detail,
                ) from exc

    def pressed(self) -> list[str]:
        """The buttons whose pin reads pressed now: at rest, a stuck one (the pull-up holds a
        released button's pin high; a switch wired across its joined legs holds it low)."""
        return [name for name, button in self.buttons.items() if button.is_pressed]

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()


class MockButtons(Buttons):
    """Buttons on gpiozero's mock pins, pressed by driving those pins like a finger would."""

    def __init__(
        self,
        settings: ButtonSettings,
        press: Callable[[str], Any],
        on_confirm_held: Callable[[], Any] | None = None,
    ) -> None:
        from gpiozero.pins.mock import MockFactory

        #: Set once Undo's hold has been handled: the hold is timed on a thread of its
        #: own, which a loaded machine may wake late, so a mock finger holds until the table has
        #: answered (as a person holds until the ring reacts) instead of for a fixed time.
        self.undone = threading.Event()

        def handled(name: str) -> Any:
            try:
                return press(name)
            finally:
                if name == "undo":
                    self.undone.set()

        super().__init__(settings, handled, MockFactory(), on_confirm_held)

    def hold(self, name: str, seconds: float) -> None:
        """Hold ``name`` down for ``seconds`` (the hold is timed on a thread of its own)."""
        pin = self.factory.pin(getattr(self.settings, name))
        pin.drive_low()
        time.sleep(seconds)
        pin.drive_high()
        pin.clear_states()

    def press(self, name: str) -> None:
        """Press and release ``name`` (handled when ``drive_low`` returns: mock pins call gpiozero's
        handlers in this thread); Undo is held past its hold time until the hold is handled. The
        pin is left alone for the debounce window only (no sleep without one), so gpiozero sees each edge."""
        pin = self.factory.pin(getattr(self.settings, name))
        bounce = self.settings.bounce
        self.undone.clear()
        pin.drive_low()
        if name == "undo":
            # held past the hold time until the hold was handled (bounded: a table that never
            # answers still gets its button back)
            self.undone.wait(self.settings.undo_hold + HOLD_GRACE)
        elif bounce:
            time.sleep(bounce)
        pin.drive_high()
        if bounce:
            time.sleep(bounce)
        # gpiozero's mock pins record every change for test assertions; a table left
        # running in mock mode would keep them all (found by tests/support/soak.py)
        pin.clear_states()
