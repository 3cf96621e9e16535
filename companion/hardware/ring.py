"""The NeoPixel Clock: pure frame functions, and the rings that show them.

`render` is a pure function of what the table shows (`ClockView`), the ring's
geometry (`RingLayout`) and the time: it returns one RGB triple per LED, so
every picture is tested without hardware. What it draws:

- each hour's LED faintly lit, so the ring reads as a clock face;
- every watch at its hour in its player's colour; stacked watches: the top one
  on the hour's LED, the others on the LEDs just after it (rings with LEDs to
  spare) or in turn on the same LED (12- and 16-LED rings);
- the player to move pulsing;
- while crystals are chosen, the path to the landing hour and the landing LED blinking;
- crystals chosen before the tap (the quick turn): one crystal-blue LED per crystal on
  the hours just after the mover's watch, blinking (the hours the next card will cost less);
- cues for a moment after an input: a red flash for a rejection, a gold sweep for
  the Punctuality Bonus, a colour wipe at the end of a Day;
- waiting for a reveal tap (the new deck top): every hour breathing white under a
  bright white comet; for an itinerary tap: the ring
  breathing in that player's colour; the game won: the winners' colours turning.

Two rings show frames: `SimulatedRing` (the PC: a terminal line and the page)
and the NeoPixel ring of a Raspberry Pi over SPI1 (`open_ring`,
`companion.hardware.ring_spi`), both ``adafruit_pixelbuf.PixelBuf`` subclasses kept
at full scale: `pixels` dims a frame itself, so that a channel meant to show never
truncates to black at night, and moves the grey part of a colour to an RGBW ring's white LED.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import adafruit_pixelbuf

# the picture's parts (companion.hardware.ring_scene), re-exported: `from companion.hardware.ring import RGB`
from companion.hardware.ring_scene import CRYSTAL as CRYSTAL
from companion.hardware.ring_scene import CUE_SECONDS as CUE_SECONDS
from companion.hardware.ring_scene import GOLD as GOLD
from companion.hardware.ring_scene import MARKER as MARKER
from companion.hardware.ring_scene import OFF as OFF
from companion.hardware.ring_scene import RED as RED
from companion.hardware.ring_scene import RGB as RGB
from companion.hardware.ring_scene import WHITE as WHITE
from companion.hardware.ring_scene import ClockView as ClockView
from companion.hardware.ring_scene import RingLayout as RingLayout
from companion.hardware.ring_scene import Scene
from companion.hardware.ring_scene import Watch as Watch
from companion.hardware.ring_scene import scale as scale
from companion.util.config import RingSettings, colour_rgb


def whole_ring(view: ClockView, n: int, t: float) -> list[RGB] | None:
    """A picture that takes the whole ring (`render`'s): a refusal's red blink, a Day's end
    sweeping the players' colours, the winners' colours turning; else None."""
    cue = view.cue if view.cue and view.cue_age < CUE_SECONDS.get(view.cue, 0) else None
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
        for hour in range(12):
            frame[layout.led(hour)] = glow
    elif view.waiting == "reveal":
        glow = scale(WHITE, 0.15 + 0.1 * math.sin(t * 2 * math.pi / 1.5))
        for hour in range(12):
            frame[layout.led(hour)] = glow
        head = int(t * n / 1.5) % n
        for k in range(3):
            led = layout.after(layout.led(0), head - k)
            frame[led] = scale(WHITE, 0.9 / (k + 1))


def render(view: ClockView, layout: RingLayout, t: float) -> list[RGB]:
    """The ring's picture at time ``t`` (seconds, any origin)."""
    n = layout.leds
    frame: list[RGB] = [OFF] * n
    for hour in range(12):
        frame[layout.led(hour)] = MARKER

    whole = whole_ring(view, n, t)
    if whole is not None:
        return whole
    waiting_glow(frame, view, layout, t)
    cue = view.cue if view.cue and view.cue_age < CUE_SECONDS.get(view.cue, 0) else None

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

    by_hour: dict[int, list[tuple[int, Watch]]] = {}
    for i, w in enumerate(view.watches):
        by_hour.setdefault(w.hour % 12, []).append((i, w))
    for hour, stack in by_hour.items():
        stack.sort(key=lambda iw: iw[1].height)
        led = layout.led(hour)
        if layout.spare:
            shown = stack[: layout.spare + 1]
            for k, (i, w) in enumerate(shown):
                frame[layout.after(led, k)] = _pulse(view, i, w.colour, t) if k == 0 else scale(w.colour, 0.4)
        else:  # one LED per hour: the top watch, then each stacked one in turn
            slot = int(t / 0.6) % (len(stack) + 1)
            i, w = stack[0] if slot == 0 or slot > len(stack) - 1 else stack[slot]
            frame[led] = _pulse(view, i, w.colour, t)

    if cue == "bonus":
        sweep = int(view.cue_age / CUE_SECONDS["bonus"] * n * 2) % n
        for k in range(4):
            frame[(sweep - k) % n] = scale(GOLD, 1.0 - k * 0.25)
    return frame


def _pulse(view: ClockView, i: int, colour: RGB, t: float) -> RGB:
    if view.mover == i:
        return scale(colour, 0.55 + 0.45 * math.sin(t * 2 * math.pi / 1.2))
    return colour


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


#: Each seat's colour as the ring shows it, by the table's colours and seat count (`seat_colours`).
_SEAT_COLOURS: dict[tuple[tuple[str, ...], int], tuple[RGB, ...]] = {}


def seat_colours(table: Any, seats: int) -> tuple[RGB, ...]:
    """``table.colour(seat)`` of every seat, as RGB: a function of the table's stored colours
    and its seat count, so kept by them (it checked every colour's spelling at each change)."""
    key = (tuple(table.colours), seats)
    found = _SEAT_COLOURS.get(key)
    if found is None:
        if len(_SEAT_COLOURS) >= 64:
            _SEAT_COLOURS.clear()
        found = _SEAT_COLOURS[key] = tuple(rgb(table.colour(seat)) for seat in range(seats))
    return found


#: Every `Watch` made, by its fields: most watches stay where they were from one change to the next.
_WATCHES: dict[tuple[int, RGB, int], Watch] = {}


def watch(hour: int, colour: RGB, height: int) -> Watch:
    """``Watch(hour, colour, height)``, the one made before for the same fields if there is one."""
    key = (hour, colour, height)
    found = _WATCHES.get(key)
    if found is None:
        if len(_WATCHES) >= 1024:
            _WATCHES.clear()
        found = _WATCHES[key] = Watch(hour, colour, height)
    return found


def waiting_for(table: Any) -> tuple[str | None, str | None]:
    """The tap the table waits for, when the ring shows it: ("reveal", None), ("itinerary", the
    player), else (None, None). ``table.awaited()``: `expect`'s kind and player without the
    choices it lists (the take's options: a third of reading the view)."""
    awaited: tuple[str, str | None] | None = table.awaited()
    if awaited is None or awaited[0] not in ("reveal", "itinerary"):
        return None, None
    return awaited


def watches_of(hours: list[int], seqs: list[int], colours: tuple[RGB, ...]) -> tuple[Watch, ...]:
    """Each seat's `Watch` (one per colour): its hour, colour and `stack_height`, the height
    counted in one loop, and only at an hour another watch shares (read at every change)."""
    made = []
    for seat, hour in enumerate(hours[: len(colours)]):
        height = 0
        if hours.count(hour) > 1:
            seq = seqs[seat]
            for other, at in enumerate(hours):
                if at == hour and (seqs[other] > seq or (seqs[other] == seq and other < seat)):
                    height += 1
        made.append(watch(hour, colours[seat], height))
    return tuple(made)


def view_of(table: Any, now: float) -> ClockView:
    """Read a `companion.table.Table` into a `ClockView` (call with the table's lock held)."""
    board = table.board
    hours, seqs, names = board.hour, board.seq, board.names
    colours = seat_colours(table, len(names))
    watches = watches_of(hours, seqs, colours)
    waiting, player = waiting_for(table)
    pending = table.pending
    winners: tuple[RGB, ...] = ()
    if board.finished:
        winners = tuple(colours[names.index(w)] for w in board.winners())
    last = table.last
    return ClockView(
        watches=watches,
        mover=None if board.finished else board.turn,
        preview=(pending.from_hour, pending.landing) if pending is not None else None,
        waiting=waiting,
        waiting_colour=None if player is None else colours[names.index(player)],
        cue=last.cue,
        cue_age=now - last.at,
        winners=winners,
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


def open_ring(settings: RingSettings) -> Any:
    """The Raspberry Pi's NeoPixel ring, over SPI1 on every supported board (Pi-only imports there)."""
    from companion.hardware.ring_spi import open_spi_ring

    return open_spi_ring(settings)


def dim(channel: int, k: float) -> int:
    """``channel`` at brightness ``k``, never 0 when it was meant to show and ``k`` is above 0:
    a night brightness of 0.08 would truncate the hour markers (10, 10, 10) to black."""
    if channel <= 0 or k <= 0:
        return 0
    return max(1, min(255, int(channel * min(k, 1.0))))


@functools.lru_cache(maxsize=8)
def dim_table(k: float) -> tuple[int, ...]:
    """`dim` of every channel value 0..255 at brightness ``k``: a frame is dimmed by looking
    its channels up (the ring draws 30 frames a second while a cue plays)."""
    return tuple(dim(channel, k) for channel in range(256))


def dimmed(frame: list[RGB], k: float) -> list[RGB]:
    """``frame`` at brightness ``k``, each channel by `dim` (what an RGB ring shows)."""
    table = dim_table(k)
    try:
        return [(table[r], table[g], table[b]) if r >= 0 and g >= 0 and b >= 0 else
                (dim(r, k), dim(g, k), dim(b, k)) for r, g, b in frame]  # fmt: skip
    except (IndexError, TypeError):  # a channel past 255, or not an int: `dim` itself
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


def raw_layout(ring: Any) -> tuple[bytearray, int, int] | None:
    """Where ``ring`` keeps the bytes it sends, as (buffer, offset of LED 0, bytes per LED), when
    it is a PixelBuf that puts each LED's pixel in its own ``bpp`` bytes there and nowhere else
    (full scale, no DotStar brightness byte, no auto-write): then a colour's bytes, written once
    by the ring itself, are copied into another LED's place with one slice assignment instead of
    `PixelBuf.__setitem__`'s parsing, the larger part of a frame's work. None otherwise."""
    if not isinstance(ring, adafruit_pixelbuf.PixelBuf):
        return None
    buffer = getattr(ring, "_post_brightness_buffer", None)
    offset, bpp = getattr(ring, "_offset", None), getattr(ring, "_bpp", None)
    if (
        not isinstance(buffer, bytearray)
        or not isinstance(offset, int)
        or not isinstance(bpp, int)
        or getattr(ring, "_pre_brightness_buffer", True) is not None
        or getattr(ring, "_dotstar_mode", True) is not False
        or ring.auto_write
        or len(buffer) < offset + bpp * len(ring)
    ):
        return None
    return buffer, offset, bpp


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
    only when it can change while it does not (a Pi Zero's idle CPU).

    A still picture (nothing pulsing, blinking or playing) is drawn when the table changes
    (`notify`), when an overlay starts, when the wall clock's minute turns (the only moments the
    night brightness can switch), and when a failed ring is due to be retried; in between the
    thread sleeps. A moving one is drawn ``fps`` times a second, each frame only what moves
    (`companion.hardware.ring_scene.Scene`) and only the LEDs that changed sent to the ring.

    A ring that fails (no /dev/spidev1.0 without the SPI1 overlay, a user not in
    group spi, a driver missing) is reported to ``health`` and replaced by a
    `SimulatedRing`, so the page still shows the Clock; ``opener`` is tried again
    every ``retry`` seconds and the real ring takes over when it opens.
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
    #: `view` prepared for drawing (its still part drawn once), by `current_scene`.
    scene: Scene | None = None
    #: The thread sleeps past the next frame (a still picture): a change must wake it.
    sleeping: bool = False
    #: When the cue of `view` was given (the table's latest outcome): its age grows per frame.
    view_at: float = 0.0
    #: The wall clock (seconds since the epoch) the night brightness is read from.
    wall: Callable[[], float] = time.time
    #: The ring `last` was written to: only its changed LEDs are sent again.
    drawn_on: Any = None
    #: The brightness of the wall clock's current minute, and that minute's span on `wall`.
    _brightness: tuple[float, float, float] = (0.0, 0.0, -1.0)
    #: The scene `last` was drawn from while no cue drew on it: a frame of it differs from
    #: `last` only in the LEDs `Scene.changing` names.
    drawn_scene: Scene | None = None
    #: What `pixels` gives for each colour sent since `level` or `drawn_on` last changed (the
    #: pulse's colours repeat every period): a frame's changed LEDs are looked up here.
    pixel_of: dict[RGB, tuple[int, ...]] = field(default_factory=dict)
    #: `raw_layout` of `drawn_on`: where its LEDs' bytes are (None: written through the library).
    raw: tuple[bytearray, int, int] | None = None
    #: The bytes each colour sent since `level` or `drawn_on` last changed takes in `raw`.
    bytes_of: dict[RGB, bytes] = field(default_factory=dict)
    #: `stop` was called: `tick` hands back to the thread's loop, which ends.
    stopping: bool = False

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
            self.view, self.view_at = view_of(table, table.last.at), table.last.at
        if self.sleeping:
            self._wake.set()

    def current_scene(self) -> Scene:
        """The `Scene` of `view`, prepared at its first frame (on the ring's thread, not the
        table's listener), and kept when a change leaves the view as it was (a refused tap)."""
        view = self.view
        if view is None:
            self.notify(self.table)
            view = self.view
            assert view is not None
        scene = self.scene
        if scene is None or scene.view is not view:
            if scene is not None and scene.view == view:
                scene.view = view
            else:
                scene = self.scene = Scene(view, self.layout)
        return scene

    def game_frame(self, now: float | None = None) -> list[RGB]:
        """The game's picture at ``now``, whatever overlay is shown."""
        now = self.clock() if now is None else now
        return self.current_scene().frame(now, now - self.view_at)

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
        """Render and show one frame now (only pushed to the LEDs when it changed): of a frame
        of the scene drawn last, only the LEDs its writes reach are compared (`Scene.changing`)."""
        now = self.clock()
        overlay = self._overlay
        frame = overlay(now) if overlay is not None else None
        scene: Scene | None = None
        leds: tuple[int, ...] | None = None
        if frame is None:
            if overlay is not None and self._overlay is overlay:
                self.overlay = None  # the display is over
            scene = self.current_scene()
            age = now - self.view_at
            frame = scene.frame(now, age)
            leds = scene.changing(age)
        k = self.brightness()
        ring, last = self.ring, self.last
        if k != self.level or self.drawn_on is not ring or len(last) != len(frame):
            changed = None  # the whole frame afresh
        elif leds is not None and scene is self.drawn_scene:
            changed = [i for i in leds if frame[i] != last[i]]
        elif frame == last:  # a cue's frame held (a flash lasts 0.2 s), a change that left the picture
            changed = []
        else:
            changed = [i for i, colour in enumerate(frame) if colour != last[i]]
        if changed == []:
            self.drawn_scene = scene if leds is not None else None
            return frame
        try:
            if changed is None:
                self.pixel_of, self.bytes_of, self.raw = {}, {}, raw_layout(ring)
                show(ring, frame, k)
            else:
                self.put(ring, frame, changed, k)
                ring.show()
        except BaseException:
            self.last = []  # the ring holds part of a frame: the next one is sent whole
            self.drawn_scene = None
            raise
        self.last, self.level, self.drawn_on = frame, k, ring
        self.drawn_scene = scene if leds is not None else None
        if self.on_frame is not None:
            self.on_frame(frame)
        return frame

    def put(self, ring: Any, frame: list[RGB], changed: list[int], k: float) -> None:
        """Write the LEDs ``changed`` of ``frame`` into ``ring`` (shown at brightness ``k``): each
        colour's pixel computed once (`pixel_of`), and on a ring whose bytes are known (`raw`)
        written by the ring once and then copied (`bytes_of`), as `PixelBuf.__setitem__` would."""
        raw = self.raw
        if raw is None:
            known = self.pixel_of
            if len(known) > 4096:  # colours never seen again (cues, other scenes): bounded
                known.clear()
            for i in changed:
                colour = frame[i]
                pixel = known.get(colour)
                if pixel is None:
                    pixel = known[colour] = pixels([colour], k, has_white(ring))[0]
                ring[i] = pixel
            return
        buffer, offset, bpp = raw
        known_bytes = self.bytes_of
        if len(known_bytes) > 4096:
            known_bytes.clear()
        for i in changed:
            colour = frame[i]
            at = offset + i * bpp
            data = known_bytes.get(colour)
            if data is None:
                ring[i] = pixels([colour], k, has_white(ring))[0]
                known_bytes[colour] = bytes(buffer[at : at + bpp])
            else:
                buffer[at : at + bpp] = data

    def tick(self) -> bool:
        """The next frame of a moving picture, when it is one of the scene drawn last (the mover
        pulsing): `draw`'s result with none of its checks that cannot change between two such
        frames. False, having drawn nothing, when the view, the overlay, the ring, the brightness's
        minute or a stop say that `step` must draw instead."""
        scene = self.drawn_scene
        ring = self.ring
        if (
            scene is None
            or scene.view is not self.view
            or self._overlay is not None
            or self.stopping
            or self.failed
            or ring is not self.drawn_on
        ):
            return False
        start, end, k = self._brightness
        if not start <= self.wall() < end or k != self.level:
            return False
        now = self.clock()
        last = self.last
        frame = scene.frame(now, now - self.view_at) if scene.glows is None else scene.frame_after(last, now)
        changed = [i for i in scene.reached if frame[i] != last[i]]
        if changed:
            try:
                self.put(ring, frame, changed, k)
                ring.show()
            except BaseException:
                self.last = []  # the ring holds part of a frame: the next one is sent whole
                self.drawn_scene = None
                raise
            self.last = frame
            if self.on_frame is not None:
                self.on_frame(frame)
        return True

    def frames(self, period: float) -> None:
        """Frames of the scene drawn last, one per ``period`` (sleeping first), for as long as
        they can be drawn without `step`: by `glow_frames` when it can, else by `tick`."""
        if self.glow_frames(period):
            return
        tick, rest = self.tick, self.rest
        while True:
            rest(period, period)
            if not tick():
                return

    def glow_frames(self, period: float) -> bool:
        """`tick` for a scene whose only motion is one glow (the mover's watch pulsing, a game's
        usual picture) on a ring whose bytes are known (`raw`): each frame, the glow's colour at
        that time (`Glow.at`'s arithmetic, without its calls); when it is not the colour shown,
        the frame and bytes made for that colour the first time (a pulse has some dozens)
        are put back, and the ring's buffer sent as `PixelBuf.show` sends it. False (nothing
        drawn) when it does not apply; else True once a change, the overlay, the brightness's
        minute or `stop` ends it."""
        scene, raw, ring, view = self.drawn_scene, self.raw, self.ring, self.view
        if (
            scene is None
            or raw is None
            or scene.glows is None
            or len(scene.glows) != 1
            or scene.view is not view
            or ring is not self.drawn_on
            or self._overlay is not None
            or self.failed
        ):
            return False
        start, end, level = self._brightness
        if level != self.level:
            return False
        glow, leds = scene.glows[0]
        (red, green, blue), middle, depth, cycle = glow.colour, glow.middle, glow.depth, glow.period
        buffer, offset, bpp = raw
        spans = tuple((offset + led * bpp, offset + (led + 1) * bpp) for led in leds)
        # `show` is PixelBuf's unless the ring's class has its own: then that one is called
        send = ring._transmit if type(ring).show is adafruit_pixelbuf.PixelBuf.show else None
        made: dict[RGB, tuple[list[RGB], bytes]] = {}
        rest, wall, clock, sin, pi = self.rest, self.wall, self.clock, math.sin, math.pi
        shown = self.last[leds[0]]
        while True:
            rest(period, period)
            if self.view is not view or self._overlay is not None or self.stopping:
                return True
            if not start <= wall() < end:
                return True
            k = middle + depth * sin(clock() * 2 * pi / cycle)
            if k > 1.0:  # `scale`'s clamp
                k = 1.0
            elif k < 0.0:
                k = 0.0
            colour = (int(red * k), int(green * k), int(blue * k))
            if colour == shown:
                continue
            try:
                known = made.get(colour)
                if known is None:
                    frame = self.last.copy()
                    for led in leds:
                        frame[led] = colour
                    self.put(ring, frame, list(leds), level)
                    first, after = spans[0]
                    made[colour] = (frame, bytes(buffer[first:after]))
                else:
                    frame, data = known
                    for first, after in spans:
                        buffer[first:after] = data
                if send is not None:
                    send(buffer)
                else:
                    ring.show()
            except BaseException:
                self.last = []  # the ring holds part of a frame: the next one is sent whole
                self.drawn_scene = None
                raise
            self.last, shown = frame, colour
            if self.on_frame is not None:
                self.on_frame(frame)

    def broken(self, exc: Exception) -> None:
        """The ring failed: say so once, show the frames on a simulated ring, retry later."""
        if self.health is not None:
            self.health.fail("ring", exc)
        elif not self.failed and self.on_error is not None:
            from companion.hardware.health import explain

            message, fix = explain("ring", exc)
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
            self.fault(exc)
            return
        if self.unconfirmed and not self.failed:
            self.unconfirmed = False
            if self.health is not None:
                self.health.ok("ring", f"{self.settings.leds} LEDs on GPIO{self.settings.pin}")

    def fault(self, exc: Exception) -> None:
        """A frame failed: the ring is `broken`; with nothing to reopen, wait before the same error again."""
        self.broken(exc)
        if self.opener is None:
            self._stop.wait(self.retry)

    def pause(self, period: float) -> float:
        """How long the thread may sleep after a frame: ``period`` while the picture moves (or
        nothing is shown on the ring yet); else until the wall clock's next minute (a night
        brightness switch) or the failed ring's retry, whichever comes first, unless woken."""
        scene = self.scene
        now = self.clock()
        if (
            self.overlay is not None
            or scene is None
            or scene.view is not self.view
            or not self.last
            or scene.moving(now - self.view_at)
        ):
            return period
        wait = self._brightness[1] - self.wall() + 0.001
        if self.failed and self.opener is not None:
            wait = min(wait, self.next_open - now)
        return max(period, wait)

    def rest(self, wait: float, period: float) -> None:
        """Sleep ``wait`` seconds between two frames: on `_wake` past a frame's ``period`` (a still
        picture: a change must wake the thread), else in `time.sleep`: a moving picture's next
        frame is due within ``period`` anyway (a change, an overlay or `stop` is seen then), and a
        bare loop of `time.sleep` costs less CPU than `Event.wait` at 30 frames a second."""
        if wait > period:
            self._wake.wait(wait)
        else:
            time.sleep(wait)

    def run(self) -> None:
        """Draw until stopped; a failing ring never stops the table."""
        period = 1.0 / self.settings.fps
        wait, shown = period, None
        drawn: Scene | None = None  # the scene the last step drew from (`drawn_scene`)
        while True:
            if wait > period:
                self.sleeping = True  # from now on `notify` wakes the thread...
                if self.view is not shown:  # ...and a change that came before is drawn now
                    wait = period
            if wait > 0.0:  # (0: `frames` slept and found a change: drawn now, no sleep(0))
                self.rest(wait, period)
            self.sleeping = False
            if self._stop.is_set():
                return
            if self._wake.is_set():  # (`clear` takes the event's lock: not 30 times a second for nothing)
                self._wake.clear()
            shown = self.view
            self.step()
            wait = self.pause(period)
            scene, drawn = drawn, self.drawn_scene
            if wait == period and drawn is not None and drawn is scene:
                # a moving picture whose frames differ only in the LEDs of the scene drawn by
                # the last two steps: its frames by `glow_frames` or `tick`, until they cannot,
                # then `step`. (A scene drawn once may be gone by the next frame, as when taps
                # come every 40 ms: preparing `glow_frames` for one frame costs more than `step`.)
                try:
                    self.frames(period)
                except Exception as exc:
                    self.fault(exc)
                wait = 0.0

    def stop(self) -> None:
        self.stopping = True
        self._stop.set()
        self._wake.set()
