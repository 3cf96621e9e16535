"""The ring's thread: asleep while the picture is still, at ``fps`` while it moves, and every frame
what `render` draws (issue 26: the idle daemon's ring woke 30 times a second to draw the same picture)."""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Any

import adafruit_pixelbuf
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import companion.hardware.ring as ring_module
from companion.hardware.ring import (
    ClockView,
    RingDriver,
    RingLayout,
    SimulatedRing,
    Watch,
    dimmed,
    pixels,
    render,
    view_of,
)
from companion.run.runtime import Runtime
from companion.util.config import RingSettings
from tests.support.tables import make_runtime

#: A bound on waits for the ring's thread, never a measure (a loaded CI machine may be slow).
PATIENCE = 30.0
LAYOUT = RingLayout(24)
FULL = RingSettings(brightness=1.0, night_brightness=1.0)
STILL = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(7, (0, 0, 255), 0)))
#: 12:00:30 local time: the wall clock's minute turns in 30 s, never while a test runs.
NOON = datetime(2026, 11, 26, 12, 0, 30).timestamp()


def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def sleeping_for(thread: threading.Thread) -> float | None:
    """The timeout of the ``Condition.wait`` ``thread`` sleeps in, once it sleeps in one, or of
    its `time.sleep` between two frames (`RingDriver.rest` on top: only that C call is below it)."""
    found: list[float | None] = []

    def asleep() -> bool:
        gc.disable()  # a collection inside `_current_frames`, which holds the interpreter's
        try:  # thread list, can run a finalizer waiting on a thread that needs it: a hang (3.11)
            frame: FrameType | None = sys._current_frames().get(thread.ident or -1)
        finally:
            gc.enable()
        if frame is not None and frame.f_code.co_name == "rest":
            found.append(frame.f_locals["wait"])
            return True
        while frame is not None:
            if frame.f_code.co_name == "wait" and "waiter" in frame.f_locals:
                found.append(frame.f_locals["timeout"])
                return True
            frame = frame.f_back
        return False

    until(asleep, f"{thread.name} never slept")
    return found[0]


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[Runtime]:
    runtime = make_runtime(tmp_path)
    yield runtime
    runtime.stop()


def still_driver(rt: Runtime, monkeypatch: pytest.MonkeyPatch, ring: Any, **options: Any) -> RingDriver:
    """A driver on ``rt``'s table whose game shows `STILL` (the table's own views always move)."""
    views = [STILL]
    monkeypatch.setattr(ring_module, "view_of", lambda table, now: views[-1])
    driver = RingDriver(rt.table, ring, LAYOUT, FULL, time.monotonic, **options)
    driver.wall = lambda: NOON
    driver.views = views
    driver.notify(rt.table)
    return driver


def running(driver: RingDriver) -> threading.Thread:
    thread = threading.Thread(target=driver.run, name="ring", daemon=True)
    thread.start()
    return thread


def test_a_still_picture_is_drawn_once_and_the_thread_sleeps_until_a_change(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    ring = SimulatedRing(24)
    driver = still_driver(rt, monkeypatch, ring)
    thread = running(driver)
    try:
        until(lambda: ring.shows == 1, "the still picture is shown")
        assert ring.shown == render(STILL, LAYOUT, 0.0)
        timeout = sleeping_for(thread)
        assert timeout is not None and timeout > 10, f"a still picture polls every {timeout} s"
        assert ring.shows == 1
        moved = ClockView(watches=(Watch(4, (255, 0, 0), 0), Watch(7, (0, 0, 255), 0)))
        driver.views.append(moved)  # type: ignore[attr-defined]
        driver.notify(rt.table)  # the table changed: drawn at once, not at the next minute
        until(lambda: ring.shown == render(moved, LAYOUT, 0.0), "a change is drawn")
        pin = [(0, 60, 160)] * 24
        driver.overlay = lambda now: pin  # Confirm held: the PIN display starts at once
        until(lambda: ring.shown == pin, "an overlay is drawn")
        driver.overlay = None
        driver.notify(rt.table)
        until(lambda: ring.shown == render(moved, LAYOUT, 0.0), "the game again")
    finally:
        driver.stop()
        thread.join(PATIENCE)
    assert not thread.is_alive(), "stop wakes a sleeping ring thread"


def test_a_moving_picture_is_drawn_at_fps(rt: Runtime) -> None:
    """The table's new game: the ring breathes in the first player's colour, the mover pulses."""
    thread = running(rt.driver)
    until(lambda: rt.driver.ring.shows >= 3, "frames are drawn")
    assert sleeping_for(thread) == pytest.approx(1 / rt.config.ring.fps)


def test_a_failed_ring_is_retried_while_the_picture_is_still(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[int] = []
    works = threading.Event()
    real = SimulatedRing(24)

    def opener() -> Any:
        attempts.append(1)
        if not works.is_set():
            raise FileNotFoundError(2, "No such file or directory", "/dev/spidev1.0")
        return real

    driver = still_driver(rt, monkeypatch, SimulatedRing(24), opener=opener, retry=0.02)
    driver.failed = True
    thread = running(driver)
    try:
        until(lambda: len(attempts) >= 3, "the ring is retried every `retry` s, the picture still")
        assert driver.ring is not real and driver.ring.shown == render(STILL, LAYOUT, 0.0), (
            "the page's ring shows the Clock meanwhile"
        )
        works.set()
        until(lambda: real.shows >= 1, "the real ring takes over")
        assert real.shown == render(STILL, LAYOUT, 0.0)
    finally:
        driver.stop()
        thread.join(PATIENCE)


def test_a_still_picture_is_shown_again_when_the_night_brightness_starts(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    ring = SimulatedRing(24)
    night = RingSettings(brightness=1.0, night_brightness=0.5, night_from="22:00", night_until="07:00")
    driver = still_driver(rt, monkeypatch, ring)
    driver.settings = night
    wall = [datetime(2026, 11, 26, 21, 59, 59, 500000).timestamp()]
    driver.wall = lambda: wall[0]
    driver.step()
    assert driver.level == 1.0 and ring.shows == 1
    assert 0.4 < driver.pause(1 / 30) < 0.6, "it sleeps until 22:00, when the brightness switches"
    wall[0] += 0.6
    driver.step()
    assert driver.level == 0.5 and ring.shows == 2
    assert ring.shown == dimmed(render(STILL, LAYOUT, 0.0), 0.5)
    assert 59 < driver.pause(1 / 30) < 60.1, "then until the next minute"


class RGBWRing(adafruit_pixelbuf.PixelBuf):  # type: ignore[misc]
    """An RGBW ring that keeps the bytes of its last show."""

    def __init__(self, leds: int) -> None:
        super().__init__(leds, byteorder="GRBW", auto_write=False)
        self.sent = b""

    def _transmit(self, buffer: bytearray) -> None:
        self.sent = bytes(buffer)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0, 30, allow_nan=False), min_size=1, max_size=25), st.sampled_from([1.0, 0.3, 0.08])
)
def test_only_the_changed_leds_are_sent_and_the_ring_holds_the_whole_frame(
    tmp_path_factory: pytest.TempPathFactory, times: list[float], level: float
) -> None:
    """The ring's bytes after each frame are those of the whole frame sent afresh."""
    rt = make_runtime(tmp_path_factory.mktemp("ring"))
    now = [0.0]
    try:
        for ring in (SimulatedRing(24), RGBWRing(24)):
            settings_ = RingSettings(brightness=level, night_brightness=level)
            driver = RingDriver(rt.table, ring, rt.layout, settings_, lambda: now[0])
            for t in times:
                now[0] = t
                frame = driver.draw()
                view = view_of(rt.table, rt.table.last.at)
                assert frame == render(replace(view, cue_age=t - rt.table.last.at), rt.layout, t)
                fresh = type(ring)(24)
                fresh[:] = pixels(frame, level, ring.bpp == 4)
                fresh.show()
                if isinstance(ring, SimulatedRing):
                    assert ring.shown == fresh.shown
                else:
                    assert ring.sent == fresh.sent
    finally:
        rt.stop()


def test_a_change_is_read_at_once_and_a_moving_pictures_thread_is_not_woken(rt: Runtime) -> None:
    """The table's listener only reads the view (under the table's lock, not the frame's work),
    and a moving picture's thread is not woken for it: its next frame is due anyway."""
    driver = rt.driver
    driver.draw()
    before = driver.view
    refused = rt.tap("not-a-card")
    assert not refused.accepted and driver.view is not before and driver.view is not None
    assert driver.view.cue == "reject"
    assert not driver._wake.is_set(), "a moving picture's thread is not woken by a change"


colours = st.tuples(*(st.integers(0, 255),) * 3)
shown_views = st.builds(
    ClockView,
    watches=st.lists(st.builds(Watch, st.integers(0, 11), colours, st.integers(0, 2)), max_size=4).map(tuple),
    mover=st.none() | st.integers(0, 3),
    preview=st.none() | st.tuples(st.integers(0, 6), st.integers(3, 11)),
    waiting=st.sampled_from([None, "reveal", "itinerary"]),
    waiting_colour=st.none() | colours,
    cue=st.sampled_from([None, "reject", "bonus", "day_end", "accept"]),
    cue_age=st.just(0.0),
    winners=st.sampled_from([(), (), ((255, 0, 0), (0, 0, 255))]),
    armed=st.integers(0, 3),
).filter(lambda v: v.mover is None or v.mover < len(v.watches))
#: One frame: a view (the same object as before, an equal copy, or another), how long after the
#: last, the brightness, whether the PIN display is on, and whether the other ring took over.
moments = st.tuples(
    st.integers(0, 3),
    st.sampled_from([0.0, 0.1, 0.3, 1.0, 2.5]) | st.floats(0, 3, allow_nan=False),
    st.sampled_from([1.0, 1.0, 0.3]),
    st.sampled_from([False, False, False, True]),
    st.sampled_from([False] * 7 + [True]),
)
REJECTED = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(5, (0, 0, 255), 0)), mover=1, cue="reject")


@settings(max_examples=400, deadline=None)
@given(st.lists(shown_views, min_size=1, max_size=3), st.lists(moments, min_size=1, max_size=30))
@example([REJECTED], [(0, 0.0, 1.0, False, False), (0, 1.0, 1.0, False, False)])  # the flash over: all again
def test_every_frame_leaves_the_ring_as_the_whole_frame_sent_afresh(
    seen: list[ClockView], frames: list[tuple[int, float, float, bool, bool]]
) -> None:
    """Only the LEDs that changed are written between two frames: across views, cues, the
    winners, brightness changes, the PIN display and an RGBW ring taking over from an RGB one,
    the ring's bytes after every frame are those of `render`'s frame sent whole to a new ring."""
    now, level = [100.0], [1.0]
    pin = [(0, 60, 160)] * 24
    for rings in ((SimulatedRing(24), RGBWRing(24)), (RGBWRing(24), SimulatedRing(24))):
        ring = rings[0]
        driver = RingDriver(None, ring, LAYOUT, FULL, lambda: now[0])  # the view is set here, not read
        driver.brightness = lambda: level[0]  # type: ignore[method-assign]
        driver.view, driver.view_at = seen[0], now[0]
        for which, later, k, overlay, other in frames:
            now[0] += later
            level[0] = k
            if other:  # as `reopen` does when the real ring opens again
                ring = driver.ring = rings[1] if ring is rings[0] else rings[0]
            if which < len(seen) and seen[which] is not driver.view:
                driver.view, driver.view_at = seen[which], now[0]  # a change: its cue starts
            elif which == len(seen):  # the table told again, the same picture
                driver.view = replace(driver.view)
            driver.overlay = (lambda _: pin) if overlay else None
            drawn = driver.draw()
            aged = replace(driver.view, cue_age=now[0] - driver.view_at)
            expected = pin if overlay else render(aged, LAYOUT, now[0])
            assert drawn == expected
            fresh = type(ring)(24)
            fresh[:] = pixels(expected, k, ring.bpp == 4)
            fresh.show()
            assert ring.sent == fresh.sent


def test_a_ring_failing_mid_frame_is_sent_whole_after(rt: Runtime) -> None:
    class Failing(SimulatedRing):
        def _transmit(self, buffer: bytearray) -> None:
            if self.shows >= 3:
                raise OSError(5, "Input/output error")
            super()._transmit(buffer)

    now = [100.0]
    ring = Failing(24)
    driver = RingDriver(rt.table, ring, LAYOUT, FULL, lambda: now[0])
    driver.wall = lambda: NOON
    driver.view = ClockView(watches=(Watch(3, (255, 0, 0), 0),), mover=0)
    driver.view_at = now[0]
    with pytest.raises(OSError):
        for _ in range(20):
            now[0] += 0.05
            driver.draw()
    assert ring.shows == 3 and driver.last == [], "the next frame is sent whole"


def test_a_cue_over_is_not_aged_again_at_every_frame(tmp_path: Path) -> None:
    """After a refusal's flash, the turn goes on for as long as the player thinks: the frames
    draw the view without its cue, made once at the change, not a new view each frame; and
    draw what the cue's age would (no flash)."""
    rt = make_runtime(tmp_path)
    now = [0.0]
    driver = RingDriver(rt.table, SimulatedRing(24), rt.layout, FULL, lambda: now[0])
    try:
        assert not rt.tap("no-such-card").accepted  # a refusal: the red flash
        driver.notify(rt.table)
        view, at = driver.view, driver.view_at
        assert view is not None and view.cue == "reject"
        now[0] = at + 0.1
        assert driver.aged(now[0]).cue_age == pytest.approx(0.1), "the flash is drawn while it lasts"
        shown = []
        for k in range(3):
            now[0] = at + 1.0 + k / 30
            shown.append(driver.aged(now[0]))
            assert driver.draw() == render(replace(view, cue_age=now[0] - at), rt.layout, now[0])
        assert shown[0] is shown[1] is shown[2], "the same view, frame after frame"
    finally:
        rt.stop()
