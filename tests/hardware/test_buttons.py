"""The buttons on gpiozero's mock pins: each press and hold as before, and no thread while idle.

gpiozero's ``Button`` keeps a hold thread per button that wakes ten times a second to look
for a press; `companion.hardware.button_hold` times a hold on a thread that lives only while
the button is pressed, over gpiozero's public ``DigitalInputDevice``. These tests hold the
buttons' behaviour to gpiozero's ``Button`` and prove that an idle button has no thread.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from companion.hardware.buttons import NAMES, Buttons
from companion.util.config import ButtonSettings

SETTINGS = ButtonSettings(bounce=0.0, undo_hold=0.15, pin_hold=0.2)
#: A bound on waits for another thread, never a measure (a loaded CI machine may be slow).
PATIENCE = 30.0


class Seen:
    """What the buttons called, in order, and a way to wait for the next calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, name: str) -> None:
        with self.changed:
            self.calls.append(name)
            self.changed.notify_all()

    def until(self, count: int) -> list[str]:
        """The calls once there are ``count`` of them (bounded by `PATIENCE`)."""
        with self.changed:
            self.changed.wait_for(lambda: len(self.calls) >= count, PATIENCE)
            return list(self.calls)


#: The threads alive before a test's buttons were made: `wired` records them, so that a test
#: looks at the threads its own buttons started, not at another test's left running.
BEFORE: set[threading.Thread] = set()


@pytest.fixture
def wired() -> Iterator[tuple[Buttons, MockFactory, Seen]]:
    seen = Seen()
    BEFORE.clear()
    BEFORE.update(threading.enumerate())
    buttons = Buttons(SETTINGS, seen, MockFactory(), on_confirm_held=lambda: seen("confirm held"))
    yield buttons, buttons.factory, seen
    buttons.close()


def own_threads() -> list[threading.Thread]:
    """The threads alive now that were not before the test's buttons were made."""
    return [t for t in threading.enumerate() if t.is_alive() and t not in BEFORE]


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.01)


def test_idle_buttons_have_no_thread(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    """gpiozero's ``Button`` starts a hold thread per button that polls ten times a second."""
    _, factory, seen = wired
    assert own_threads() == [], "an idle button runs no thread"
    undo = factory.pin(SETTINGS.undo)
    undo.drive_low()
    assert seen.until(1) == ["undo"]
    undo.drive_high()
    wait_until(lambda: own_threads() == [])  # the hold's thread ends with the hold


def test_gpiozero_buttons_hold_thread_polls() -> None:
    """What the test above guards against, on gpiozero's own ``Button`` (if gpiozero stops polling,
    `companion.hardware.button_hold` may go back to ``Button``)."""
    BEFORE.clear()
    BEFORE.update(threading.enumerate())
    button = Button(5, pull_up=True, hold_time=0.1, pin_factory=MockFactory())
    try:
        assert any(t.name.endswith("(held)") for t in own_threads())
    finally:
        button.close()


def test_presses_and_holds_do_what_they_did(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    buttons, factory, seen = wired
    crystal, confirm, undo = (factory.pin(getattr(SETTINGS, n)) for n in NAMES)
    crystal.drive_low()
    crystal.drive_high()
    assert seen.calls == ["crystal"], "a press is handled at once, in the pin's thread"
    undo.drive_low()  # a brush against Undo: released before its hold time does nothing
    undo.drive_high()
    undo.drive_low()  # held: "undo" once its hold time has passed, once only (no repeat)
    assert seen.until(2) == ["crystal", "undo"]
    assert buttons.buttons["undo"].is_held
    undo.drive_high()
    assert not buttons.buttons["undo"].is_held
    confirm.drive_low()
    assert seen.calls[-1] == "confirm", "Confirm presses on the press"
    assert seen.until(4)[-1] == "confirm held", "held: the PIN on the ring"
    confirm.drive_high()
    wait_until(lambda: own_threads() == [])  # no thread left after the holds
    assert seen.calls == ["crystal", "undo", "confirm", "confirm held"]


def test_a_hold_is_handled_each_time_the_button_is_held(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    _, factory, seen = wired
    undo = factory.pin(SETTINGS.undo)
    for k in range(3):
        undo.drive_low()
        assert seen.until(k + 1) == ["undo"] * (k + 1)
        undo.drive_high()
    assert seen.calls == ["undo"] * 3


def test_closing_a_held_button_ends_its_hold_unfired(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    buttons, factory, seen = wired
    buttons.buttons["undo"].hold_time = PATIENCE
    factory.pin(SETTINGS.undo).drive_low()
    assert own_threads(), "the hold is being timed"
    buttons.close()
    wait_until(lambda: own_threads() == [])
    assert seen.calls == []


def test_a_process_with_open_buttons_exits_cleanly() -> None:
    """gpiozero's exit handler joins every thread it knows, with a timeout that raises."""
    code = (
        "from gpiozero.pins.mock import MockFactory\n"
        "from companion.hardware.buttons import Buttons\n"
        "from companion.util.config import ButtonSettings\n"
        "b = Buttons(ButtonSettings(bounce=0.0), print, MockFactory())\n"
        "print('open')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "open\n", out
    assert "Zombie" not in out.stderr and "Exception" not in out.stderr, out.stderr
