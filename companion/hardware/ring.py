"""The NeoPixel Clock: pure frame functions, and the rings that show them.

`render` is a pure function of what the table shows (`ClockView`), the ring's geometry
(`RingLayout`) and the time: one RGB triple per LED, so every picture is tested without hardware.
It draws the hours faintly lit (a clock face); each watch at its hour in its player's colour
(stacked ones on the LEDs after it, or in turn on one LED of a 12- or 16-LED ring), the mover's
pulsing; the path to the landing hour while crystals are chosen, and crystals armed before the
tap blinking on the hours after the mover's watch; cues for a moment (a refusal's red flash, the
Punctuality Bonus' gold sweep, a Day's end wipe); while the table waits, a white comet over the
hours breathing (a reveal) or the chooser's colour breathing (an itinerary); the winners' colours
turning.

`SimulatedRing` (the PC: a terminal line and the page) and the Pi's ring over SPI0
(`companion.hardware.ring_spi.open_spi_ring`) are ``adafruit_pixelbuf.PixelBuf`` subclasses kept at
full scale: `pixels` dims a frame itself, so that a channel meant to show never truncates to black
at night, and moves the grey part of a colour to an RGBW ring's white LED.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import adafruit_pixelbuf

from companion.util.config import RingSettings, colour_rgb

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
RED: RGB = (255, 0, 0)
GOLD: RGB = (255, 170, 0)
WHITE: RGB = (255, 255, 255)
CRYSTAL: RGB = (86, 180, 233)  # Okabe-Ito sky blue, the Crystal button's colour
MARKER: RGB = (10, 10, 10)

#: How long a cue stays on the ring, seconds.
CUE_SECONDS = {"reject": 0.8, "bonus": 1.5, "day_end": 2.4}


@dataclass(frozen=True)
class RingLayout:
    """Where the hours are: LED count, the LED at 12 o'clock, and the direction."""

    leds: int = 24
    twelve: int = 0
    clockwise: bool = True

    @functools.cached_property
    def hours(self) -> tuple[int, ...]:
        """The LED of each hour, 12 o'clock first: worked out once, read at every frame."""
        steps = (round(hour * self.leds / 12) for hour in range(12))
        return tuple((self.twelve + (step if self.clockwise else -step)) % self.leds for step in steps)

    @functools.cached_property
    def face(self) -> tuple[RGB, ...]:
        """The clock face every game frame starts from: the hours faintly lit."""
        frame = [OFF] * self.leds
        for led in self.hours:
            frame[led] = MARKER
        return tuple(frame)

    def led(self, hour: int) -> int:
        """The LED of ``hour`` (0 and 12 are both 12 o'clock)."""
        return self.hours[hour % 12]

    @property
    def spare(self) -> int:
        """LEDs between two hour LEDs (0 on a 12- or 16-LED ring)."""
        return self.leds // 12 - 1 if self.leds % 12 == 0 else 0

    def after(self, led: int, k: int) -> int:
        """The LED ``k`` steps after ``led`` in clock direction."""
        return (led + (k if self.clockwise else -k)) % self.leds


@dataclass(frozen=True)
class Watch:
    hour: int
    colour: RGB
    height: int  # 0 = top of the stack at that hour


@dataclass(frozen=True)
class ClockView:
    """Everything the ring shows, taken from the table at one moment."""

    watches: tuple[Watch, ...] = ()
    mover: int | None = None  # index into watches
    preview: tuple[int, int] | None = None  # (from hour, landing hour) of the mover
    waiting: str | None = None  # "reveal" or "itinerary"
    waiting_colour: RGB | None = None
    cue: str | None = None
    cue_age: float = 99.0  # seconds since the cue
    winners: tuple[RGB, ...] = ()
    armed: int = 0  # crystals the mover chose before tapping a card

    @functools.cached_property
    def stacks(self) -> tuple[tuple[int, tuple[tuple[int, Watch], ...]], ...]:
        """The watches by hour, each hour's stack top first, with their indexes: sorted once
        per view, drawn at every frame."""
        by_hour: dict[int, list[tuple[int, Watch]]] = {}
        for i, w in enumerate(self.watches):
            by_hour.setdefault(w.hour % 12, []).append((i, w))
        return tuple((hour, tuple(sorted(s, key=lambda iw: iw[1].height))) for hour, s in by_hour.items())


def scale(colour: RGB, k: float) -> RGB:
    """``colour`` at ``k`` of its strength (clamped to 0..1)."""
    k = max(0.0, min(1.0, k))
    return (int(colour[0] * k), int(colour[1] * k), int(colour[2] * k))


def drawn_cue(view: ClockView) -> str | None:
    """The cue the ring still draws (one of `CUE_SECONDS`: others, "accept" say, only name the outcome)."""
    return view.cue if view.cue_age < CUE_SECONDS.get(view.cue or "", 0) else None


def whole_ring(view: ClockView, n: int, t: float) -> list[RGB] | None:
    """A picture that takes the whole ring (`render`'s): a refusal's red blink, a Day's end
    sweeping the players' colours, the winners' colours turning; else None."""
    cue = drawn_cue(view)
    if cue == "reject":
        on = int(view.cue_age / 0.2) % 2 == 0
        return [RED if on else OFF] * n
    if cue == "day_end":
        colours = [w.colour for w in view.watches] or [WHITE]
        lit = int(view.cue_age / CUE_SECONDS["day_end"] * n * 2)
        return [colours[i % len(colours)] if i < lit % (n + 1) or lit > n else OFF for i in range(n)]
    if view.winners:
        turn = int(t * 8) % n
        return [view.winners[((i + turn) // max(1, n // 12)) % len(view.winners)] for i in range(n)]
    return None


def waiting_glow(frame: list[RGB], view: ClockView, layout: RingLayout, t: float) -> None:
    """`render`'s hours breathing while the table waits: the chooser's colour for an Itinerary,
    white under a running comet for a reveal (tap the deck top)."""
    n = layout.leds
    if view.waiting == "itinerary" and view.waiting_colour is not None:
        glow = scale(view.waiting_colour, 0.15 + 0.15 * math.sin(t * 2 * math.pi / 2.0))
        for led in layout.hours:
            frame[led] = glow
    elif view.waiting == "reveal":
        glow = scale(WHITE, 0.15 + 0.1 * math.sin(t * 2 * math.pi / 1.5))
        for led in layout.hours:
            frame[led] = glow
        head = int(t * n / 1.5) % n
        for k in range(3):
            led = layout.after(layout.led(0), head - k)
            frame[led] = scale(WHITE, 0.9 / (k + 1))


def render(view: ClockView, layout: RingLayout, t: float) -> list[RGB]:
    """The ring's picture at time ``t`` (seconds, any origin)."""
    n = layout.leds
    whole = whole_ring(view, n, t)
    if whole is not None:
        return whole
    frame = list(layout.face)
    waiting_glow(frame, view, layout, t)

    if view.preview is not None and view.mover is not None:
        colour = view.watches[view.mover].colour
        start, landing = view.preview
        for hour in range(start + 1, landing):
            frame[layout.led(hour)] = scale(colour, 0.25)
        if int(t / 0.25) % 2 == 0:
            frame[layout.led(landing)] = colour

    if view.armed and view.mover is not None and view.preview is None and int(t / 0.4) % 2 == 0:
        hour = view.watches[view.mover].hour
        for k in range(1, min(view.armed, 11) + 1):
            frame[layout.led(hour + k)] = CRYSTAL

    for hour, stack in view.stacks:
        led = layout.led(hour)
        if layout.spare:
            shown = stack[: layout.spare + 1]
            for k, (i, w) in enumerate(shown):
                frame[layout.after(led, k)] = _pulse(view, i, w.colour, t) if k == 0 else scale(w.colour, 0.4)
        else:  # one LED per hour: the top watch, then each stacked one in turn
            slot = int(t / 0.6) % (len(stack) + 1)
            i, w = stack[0] if slot == 0 or slot > len(stack) - 1 else stack[slot]
            frame[led] = _pulse(view, i, w.colour, t)

    if drawn_cue(view) == "bonus":
        sweep = int(view.cue_age / CUE_SECONDS["bonus"] * n * 2) % n
        for k in range(4):
            frame[(sweep - k) % n] = scale(GOLD, 1.0 - k * 0.25)
    return frame


def _pulse(view: ClockView, i: int, colour: RGB, t: float) -> RGB:
    if view.mover == i:
        return scale(colour, 0.55 + 0.45 * math.sin(t * 2 * math.pi / 1.2))
    return colour


def moving(view: ClockView, layout: RingLayout) -> bool:
    """Whether `render`'s frames of ``view`` change with time (else the ring may sleep until
    the view changes): a cue that draws while it lasts (its age only grows), the winners
    turning, a pulse, a blink, the hours breathing, stacked watches taking turns on one LED."""
    if (
        drawn_cue(view)
        or view.winners
        or view.waiting == "reveal"
        or (view.waiting == "itinerary" and view.waiting_colour is not None)
    ):
        return True
    if view.mover is not None and view.mover < len(view.watches):  # its watch pulses (or blinks)
        return True
    hours = [w.hour % 12 for w in view.watches]
    return not layout.spare and len(set(hours)) < len(hours)


#: `colour_rgb`, each colour parsed once (the ring reads every seat's colour at each change).
rgb = functools.lru_cache(maxsize=64)(colour_rgb)


def stack_height(hours: list[int], seqs: list[int], seat: int) -> int:
    """Where ``seat``'s watch is in its hour's stack, 0 on top: the watches at its hour that
    arrived later (a higher ``seq``) are above it, and of equal ones those of lower seats."""
    hour, seq = hours[seat], seqs[seat]
    return sum(
        1
        for j, other in enumerate(hours)
        if other == hour and (seqs[j] > seq or (seqs[j] == seq and j < seat))
    )


def view_of(table: Any, now: float) -> ClockView:
    """Read a `companion.table.Table` into a `ClockView` (call with the table's lock held).
    ``table.awaited()`` is `expect`'s kind and player without the choices it lists."""
    board = table.board
    hours, names = board.hour, board.names
    colours = [rgb(table.colour(seat)) for seat in range(len(names))]
    awaited = table.awaited()
    waiting, player = (
        awaited if awaited is not None and awaited[0] in ("reveal", "itinerary") else (None, None)
    )
    pending = table.pending
    return ClockView(
        watches=tuple(
            Watch(hours[s], colours[s], stack_height(hours, board.seq, s)) for s in range(len(names))
        ),
        mover=None if board.finished else board.turn,
        preview=(pending.from_hour, pending.landing) if pending is not None else None,
        waiting=waiting,
        waiting_colour=None if player is None else colours[names.index(player)],
        cue=table.last.cue,
        cue_age=now - table.last.at,
        winners=tuple(colours[names.index(w)] for w in board.winners()) if board.finished else (),
        armed=table.armed_crystals(),
    )


class SimulatedRing(adafruit_pixelbuf.PixelBuf):  # type: ignore[misc]
    """A ring with no hardware: keeps the last frame shown, for the terminal and the page."""

    def __init__(self, leds: int, brightness: float = 1.0) -> None:
        super().__init__(leds, byteorder="RGB", brightness=brightness, auto_write=False)
        self.sent = bytes(3 * leds)
        self.shows = 0

    def _transmit(self, buffer: bytearray) -> None:
        self.sent = bytes(buffer)  # read as colours only when asked (`shown`), not 30 times a second
        self.shows += 1

    @property
    def shown(self) -> list[RGB]:
        """The last frame shown, one RGB triple per LED."""
        sent = self.sent
        return list(zip(sent[0::3], sent[1::3], sent[2::3], strict=True))


def ansi(frame: list[RGB]) -> str:
    """A frame as one terminal line of coloured blocks (24-bit ANSI colour)."""
    return "".join(f"\x1b[38;2;{r};{g};{b}m●" for r, g, b in frame) + "\x1b[0m"


def dim(channel: int, k: float) -> int:
    """``channel`` at brightness ``k``, never 0 when it was meant to show and ``k`` is above 0:
    a night brightness of 0.08 would truncate the hour markers (10, 10, 10) to black."""
    if channel <= 0 or k <= 0:
        return 0
    return max(1, min(255, int(channel * min(k, 1.0))))


def dimmed(frame: list[RGB], k: float) -> list[RGB]:
    """``frame`` at brightness ``k``, each channel by `dim` (what an RGB ring shows)."""
    return [(dim(r, k), dim(g, k), dim(b, k)) for r, g, b in frame]


def pixels(frame: list[RGB], k: float, white: bool = False) -> list[tuple[int, ...]]:
    """What to put in a full-scale ring for ``frame`` at brightness ``k``: each channel dimmed
    (`dim`); on an RGBW ring (``white``) the part common to red, green and blue goes to the
    white LED, which shows that grey truer and draws less current than three LEDs."""
    if not white:
        return list(dimmed(frame, k))
    out: list[tuple[int, ...]] = []
    for r, g, b in frame:
        w = min(r, g, b)
        out.append((dim(r - w, k), dim(g - w, k), dim(b - w, k), dim(w, k)))
    return out


def has_white(ring: Any) -> bool:
    """Whether ``ring`` has a white channel (4 bytes per pixel)."""
    return getattr(ring, "bpp", 3) == 4


def show(ring: Any, frame: list[RGB], k: float) -> None:
    """Put ``frame`` on ``ring`` at brightness ``k`` (`pixels`) and send it."""
    ring[:] = pixels(frame, k, has_white(ring))
    ring.show()


def brightness_now(settings: RingSettings, now: datetime | None = None) -> float:
    """Day or night brightness, by the clock on the wall."""
    clock = (now or datetime.now()).strftime("%H:%M")
    start, end = settings.night_from, settings.night_until
    night = (start <= clock or clock < end) if start > end else (start <= clock < end)
    return settings.night_brightness if night else settings.brightness


@dataclass
class RingDriver:
    """Shows the table on a ring, on its own thread: at ``fps`` while the picture moves, and
    only when it can change while it does not (`pause`: a Pi Zero's idle CPU); only the LEDs that
    changed are written (`draw`).

    A ring that fails (no /dev/spidev0.0 without SPI0 on, a user not in group spi, a driver
    missing) is reported to ``health`` and replaced by a `SimulatedRing`, so the page still
    shows the Clock; ``opener`` is tried again every ``retry`` seconds and the real ring takes
    over when it opens.
    """

    table: Any
    ring: Any
    layout: RingLayout
    settings: RingSettings
    clock: Callable[[], float]
    on_frame: Callable[[list[RGB]], None] | None = None
    on_error: Callable[[str], None] | None = None
    health: Any = None
    opener: Callable[[], Any] | None = None
    retry: float = 5.0
    _stop: threading.Event = field(default_factory=threading.Event)
    #: Set by a change the thread must draw at once (`notify`, an overlay, `stop`).
    _wake: threading.Event = field(default_factory=threading.Event)
    last: list[RGB] = field(default_factory=list)
    #: The brightness `last` was shown at (a new one re-sends the frame).
    level: float = -1.0
    failed: bool = False
    #: The picture shown instead of the game (`overlay`).
    _overlay: Callable[[float], list[RGB] | None] | None = None
    next_open: float = 0.0
    unconfirmed: bool = False

    #: What the ring shows of the game, read from the table when it changed (`notify`) and
    #: drawn from here at every frame: the frames never wait for the table's lock.
    view: ClockView | None = None
    #: The thread sleeps past the next frame (a still picture): a change must wake it.
    sleeping: bool = False
    #: When the cue of `view` was given (the table's latest outcome): its age grows per frame.
    view_at: float = 0.0
    #: A view and the same once its cue is over (no cue drawn): made once per change, not at
    #: every frame of the turn that follows a refusal, a bonus or a Day's end.
    after_cue: tuple[ClockView, ClockView] | None = None
    #: The wall clock (seconds since the epoch) the night brightness is read from.
    wall: Callable[[], float] = time.time
    #: The ring `last` was written to: only its changed LEDs are sent again.
    drawn_on: Any = None
    #: The brightness of the wall clock's current minute, and that minute's span on `wall`.
    _brightness: tuple[float, float, float] = (0.0, 0.0, -1.0)

    @property
    def overlay(self) -> Callable[[float], list[RGB] | None] | None:
        """A picture shown instead of the game while it returns frames (the PIN display);
        setting it wakes the thread."""
        return self._overlay

    @overlay.setter
    def overlay(self, value: Callable[[float], list[RGB] | None] | None) -> None:
        self._overlay = value
        if value is not None:
            self._wake.set()  # the PIN display starts now, not at the next minute

    def notify(self, table: Any, outcome: Any = None) -> None:
        """A listener of the table (and of a new game put on it): read what the ring shows
        now, once per change, and wake the thread if it sleeps on a still picture (a moving one
        is drawn within a frame anyway). Called with the table's lock held (listeners are)."""
        with table.lock:
            self.table = table
            view = view_of(table, table.last.at)
            self.after_cue = (view, replace(view, cue=None)) if view.cue in CUE_SECONDS else None
            self.view, self.view_at = view, table.last.at
        if self.sleeping:
            self._wake.set()

    def game_frame(self, now: float | None = None) -> list[RGB]:
        """The game's picture at ``now``, whatever overlay is shown: `view` (read from the table if
        no change was told yet) with its cue's age at ``now``."""
        now = self.clock() if now is None else now
        if self.view is None:
            self.notify(self.table)
        assert self.view is not None
        return render(self.aged(now), self.layout, now)

    def aged(self, now: float) -> ClockView:
        """`view` with its cue's age at ``now``: only a cue the ring draws reads its age, and
        only while it lasts (`replace` costs a third of a frame between turns); after it, the
        view without its cue (`after_cue`), and other views as they are."""
        view = self.view
        assert view is not None
        if view.cue not in CUE_SECONDS:
            return view
        age, after = now - self.view_at, self.after_cue
        if age >= CUE_SECONDS[view.cue] and after is not None and after[0] is view:
            return after[1]
        return replace(view, cue_age=age)

    def brightness(self) -> float:
        """`brightness_now`, read once per minute of the wall clock (it only changes on a minute)."""
        now = self.wall()
        start, end, k = self._brightness
        if not start <= now < end:
            wall = datetime.fromtimestamp(now)
            k = brightness_now(self.settings, wall)
            start = now - wall.second - wall.microsecond / 1e6
            self._brightness = (start, start + 60.0, k)
        return k

    def draw(self) -> list[RGB]:
        """Render and show one frame now: the whole frame on a new ring or brightness, else
        only the LEDs that changed, and nothing when none did."""
        now = self.clock()
        overlay = self._overlay
        frame = overlay(now) if overlay is not None else None
        if frame is None:
            if overlay is not None and self._overlay is overlay:
                self.overlay = None  # the display is over
            frame = self.game_frame(now)
        k = self.brightness()
        ring, last = self.ring, self.last
        whole = k != self.level or self.drawn_on is not ring or len(last) != len(frame)
        changed = [] if whole else [i for i, colour in enumerate(frame) if colour != last[i]]
        if not whole and not changed:
            return frame
        try:
            if whole:
                show(ring, frame, k)
            else:
                for i in changed:
                    ring[i] = pixels([frame[i]], k, has_white(ring))[0]
                ring.show()
        except BaseException:
            self.last = []  # the ring holds part of a frame: the next one is sent whole
            raise
        self.last, self.level, self.drawn_on = frame, k, ring
        if self.on_frame is not None:
            self.on_frame(frame)
        return frame

    def broken(self, exc: Exception) -> None:
        """The ring failed: say so once, show the frames on a simulated ring, retry later."""
        if self.health is not None:
            self.health.fail("ring", exc)
        elif not self.failed and self.on_error is not None:
            from companion.hardware.health import diagnose

            message, fix, *_ = diagnose("ring", exc)
            self.on_error(f"{message}: {fix}")
        self.failed = True
        self.next_open = self.clock() + self.retry
        if type(self.ring) is not SimulatedRing:  # the failed ring, not the stand-in already
            self.ring = SimulatedRing(self.settings.leds)
            self.last = []

    def reopen(self) -> None:
        """Try the real ring again (when it failed and an opener is known)."""
        if self.opener is None or self.clock() < self.next_open:
            return
        try:
            ring = self.opener()
        except Exception as exc:
            self.broken(exc)
            return
        # Declared working only once a frame went out: rpi_ws281x, say, opens fine and
        # fails at the first show, which must not read as "working again" every retry.
        self.ring, self.last, self.failed, self.unconfirmed = ring, [], False, True

    def step(self) -> None:
        """One tick of the thread: reopen a failed ring when due, then draw."""
        if self.failed:
            self.reopen()
        try:
            self.draw()
        except Exception as exc:
            self.broken(exc)
            if self.opener is None:  # nothing to reopen: wait before the same error again
                self._stop.wait(self.retry)
            return
        if self.unconfirmed and not self.failed:
            self.unconfirmed = False
            if self.health is not None:
                self.health.ok("ring", f"{self.settings.leds} LEDs on GPIO{self.settings.pin}")

    def pause(self, period: float) -> float:
        """How long the thread may sleep after a frame: ``period`` while the picture moves (or
        nothing is shown on the ring yet); else until the wall clock's next minute (a night
        brightness switch) or the failed ring's retry, whichever comes first, unless woken."""
        now = self.clock()
        if self.overlay is not None or self.view is None or not self.last:
            return period
        if moving(self.aged(now), self.layout):
            return period
        wait = self._brightness[1] - self.wall() + 0.001
        if self.failed and self.opener is not None:
            wait = min(wait, self.next_open - now)
        return max(period, wait)

    def rest(self, wait: float, period: float) -> None:
        """Sleep ``wait`` seconds between two frames: on `_wake` past a frame's ``period`` (a still
        picture: a change must wake the thread), else in `time.sleep`: a moving picture's next
        frame is due within ``period`` anyway, and a bare loop of `time.sleep` costs less CPU
        than `Event.wait` at 30 frames a second."""
        if wait > period:
            self._wake.wait(wait)
        else:
            time.sleep(wait)

    def run(self) -> None:
        """Draw until stopped; a failing ring never stops the table."""
        period = 1.0 / self.settings.fps
        wait, shown = period, None
        while True:
            if wait > period:
                self.sleeping = True  # from now on `notify` wakes the thread...
                if self.view is not shown:  # ...and a change that came before is drawn now
                    wait = period
            self.rest(wait, period)
            self.sleeping = False
            if self._stop.is_set():
                return
            if self._wake.is_set():  # (`clear` takes the event's lock: not 30 times a second for nothing)
                self._wake.clear()
            shown = self.view
            self.step()
            wait = self.pause(period)

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
