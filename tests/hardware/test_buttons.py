"""The buttons on gpiozero's mock pins: each press and hold as before, and no hold thread that polls.

gpiozero's own hold thread wakes ten times a second per button to look for a press;
`companion.hardware.button_hold` swaps it for one that sleeps until a press or a stop
(issue 26). These tests hold the buttons' behaviour to gpiozero's and prove the sleep.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware.button_hold import QuietHoldThread
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


def waiting_frame(thread: threading.Thread) -> FrameType | None:
    """The ``Condition.wait`` frame ``thread`` sleeps in, or None while it is not in one."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        if frame.f_code.co_name == "wait" and "waiter" in frame.f_locals:  # threading.Condition.wait
            return frame
        frame = frame.f_back
    return None


def sleeping(thread: threading.Thread) -> FrameType:
    """Wait until ``thread`` sleeps in a ``Condition.wait`` and return that frame."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        frame = waiting_frame(thread)
        if frame is not None:
            return frame
        time.sleep(0.01)
    raise AssertionError(f"{thread.name} never waited")


def test_an_idle_buttons_hold_thread_sleeps_with_no_timeout(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    """The poll gpiozero's HoldThread makes (``holding.wait(0.1)``) is gone: a wait with no timeout."""
    buttons, _, _ = wired
    for name in NAMES:
        thread = buttons.buttons[name]._hold_thread
        assert isinstance(thread, QuietHoldThread), name
        assert sleeping(thread).f_locals["timeout"] is None, f"{name}'s hold thread polls"
    held = [
        t for t in threading.enumerate() if t.name.endswith("(held)") and t.is_alive() and t not in BEFORE
    ]
    assert sorted(map(id, held)) == sorted(id(b._hold_thread) for b in buttons.buttons.values()), (
        "gpiozero's polling hold threads are ended, not left beside ours"
    )


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
    for name in NAMES:  # back to sleep after each hold
        assert sleeping(buttons.buttons[name]._hold_thread).f_locals["timeout"] is None
    assert seen.calls == ["crystal", "undo", "confirm", "confirm held"]


def test_a_hold_is_handled_each_time_the_button_is_held(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    _, factory, seen = wired
    undo = factory.pin(SETTINGS.undo)
    for k in range(3):
        undo.drive_low()
        assert seen.until(k + 1) == ["undo"] * (k + 1)
        undo.drive_high()
    assert seen.calls == ["undo"] * 3


def test_a_stop_wakes_a_sleeping_hold_thread(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    """gpiozero stops its threads at exit by setting ``stopping`` and joining: ours must wake for it."""
    buttons, _, _ = wired
    thread = buttons.buttons["crystal"]._hold_thread
    sleeping(thread)
    thread.stopping.set()
    thread.join(PATIENCE)
    assert not thread.is_alive(), "a hold thread asleep with no timeout must wake when stopped"


def test_closed_buttons_leave_no_hold_thread(wired: tuple[Buttons, MockFactory, Seen]) -> None:
    buttons, _, _ = wired
    threads = [b._hold_thread for b in buttons.buttons.values()]
    buttons.close()
    assert not any(t.is_alive() for t in threads)


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
