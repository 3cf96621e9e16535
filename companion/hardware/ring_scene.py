"""What the ring shows (its geometry, the view, the colours) and one view prepared for many frames.

The picture's parts live here, below `companion.hardware.ring`, which draws with them and
re-exports them (``from companion.hardware.ring import RGB`` still works).

`companion.hardware.ring.render` draws a whole picture from the view at every frame (30 a
second). A `Scene` walks the same layers once, when the table changes: every LED written by
a layer that does not move with time goes into `Scene.base`, and what moves (the mover's pulse,
a blink, the breathing hours, the comet, a cue) is kept as a list of small writes, in
`render`'s order, each without the LEDs a later still layer covers. A frame is then a copy of
the base and those writes; `Scene.moving` says whether frames change with time at all, so that
the ring can sleep while nothing moves. ``Scene(view, layout).frame(t, view.cue_age)
== render(view, layout, t)`` for every view and time (tests/hardware/test_ring_scene.py).
`Scene.changing` names the LEDs the writes can reach, so that the ring compares and sends only
those between two frames of one scene (the mover's pulse: one LED of 24, 30 times a second).
A view that draws only the watches (most of a game's changes) is made without the walk over
the layers (`Scene._watches_only`): at 20 live pages a tap comes every 40 ms and a scene seldom
lives past its first frame, so its making is most of the ring's work then.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, NamedTuple

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

    def led(self, hour: int) -> int:
        """The LED of ``hour`` (0 and 12 are both 12 o'clock)."""
        step = round((hour % 12) * self.leds / 12)
        return (self.twelve + (step if self.clockwise else -step)) % self.leds

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


def scale(colour: RGB, k: float) -> RGB:
    """``colour`` at ``k`` of its strength (clamped to 0..1); `ring_scene` draws with it too."""
    k = max(0.0, min(1.0, k))
    return (int(colour[0] * k), int(colour[1] * k), int(colour[2] * k))


#: A write that moves: puts the LEDs it is given (for the comet: those it must leave alone) of
#: the frame at time t.
Placed = Callable[[list[RGB], float, Collection[int]], None]
#: A write that moves, with its LEDs: called as ``placed(frame, t, leds)``.
Write = tuple[Placed, Collection[int]]


class Glow(NamedTuple):
    """A colour that moves with time, the one a write puts on all its LEDs: ``colour`` at
    ``middle + depth * sin(2 pi t / period)`` of its strength (the mover's pulse, the breathing
    hours), in `render`'s own arithmetic, so that the ring may compute it without a call."""

    colour: RGB
    middle: float
    depth: float
    period: float

    def at(self, t: float) -> RGB:
        return scale(self.colour, self.middle + self.depth * math.sin(t * 2 * math.pi / self.period))


#: Cues that draw something while they last (others, "accept" say, only name the outcome).
DRAWN_CUES = ("reject", "day_end", "bonus")


#: `hour_leds` of each layout it was asked for, by the layout's identity (a `RingLayout`'s
#: generated hash is Python code, and a table draws with one layout for its whole life).
_HOURS: dict[int, tuple[RingLayout, tuple[int, ...], list[RGB], bool]] = {}


def hour_leds(layout: RingLayout) -> tuple[tuple[int, ...], list[RGB], bool]:
    """The LEDs of the twelve hours, the frame of their faint markers (`render`'s first layer),
    and whether each hour's LEDs are its own: twelve hour LEDs (an 8-LED ring shares some) and,
    on a ring with LEDs to spare, the spare ones between them (`Scene`'s short way needs it)."""
    found = _HOURS.get(id(layout))
    if found is not None and found[0] is layout:
        return found[1], found[2], found[3]
    hours = tuple(layout.led(hour) for hour in range(12))
    markers = [OFF] * layout.leds
    for led in hours:
        markers[led] = MARKER
    own = {layout.after(led, k) for led in hours for k in range(layout.spare + 1)}
    apart = len(own) == 12 * (layout.spare + 1)
    if len(_HOURS) >= 8:
        _HOURS.clear()
    _HOURS[id(layout)] = (layout, hours, markers, apart)
    return hours, markers, apart


def pulse(colour: RGB) -> Glow:
    """The mover's watch, pulsing (`companion.hardware.ring._pulse`)."""
    return Glow(colour, 0.55, 0.45, 1.2)


#: `pulsing` of each colour asked for (a game has one per seat).
_PULSES: dict[RGB, tuple[Glow, Placed]] = {}


def pulsing(colour: RGB) -> tuple[Glow, Placed]:
    """The mover's pulse in ``colour`` and its write (`Scene._glowing`), made once per colour:
    every change of the table makes a new scene with the next mover's pulse."""
    found = _PULSES.get(colour)
    if found is None:
        if len(_PULSES) >= 64:
            _PULSES.clear()
        glow = pulse(colour)
        found = _PULSES[colour] = (glow, Scene._glowing(glow, {}))
    return found


def _height(stacked: tuple[int, Watch]) -> int:
    """A watch's place in its hour's stack, for sorting a stack (0: on top)."""
    return stacked[1].height


class Scene:
    """`render` of one view, split into its still base and its moving writes."""

    #: The frame's still part: what `render` leaves on each LED no moving write reaches.
    base: list[RGB]
    #: The writes that move, in `render`'s order, each with the LEDs it shows.
    writes: list[Write]
    #: The writes as (colour at t, LEDs) when every one is a glow (the mover pulsing, the
    #: hours breathing): a frame of the scene is then any earlier one with those colours put
    #: in that order (`frame_after`), which is what the ring does 30 times a second.
    glows: tuple[tuple[Glow, tuple[int, ...]], ...] | None
    #: The LEDs the writes reach, in order: all that can differ between two frames at
    #: which no cue draws and no winners turn (`changing`).
    reached: tuple[int, ...]

    def __init__(self, view: ClockView, layout: RingLayout) -> None:
        self.view, self.layout = view, layout
        self.n = layout.leds
        self.cue_seconds = CUE_SECONDS.get(view.cue, 0) if view.cue else 0.0
        hours, markers, apart = hour_leds(layout)  # the first layer, under everything: the base's start
        if (
            apart
            and view.preview is None
            and not view.armed
            and view.waiting != "reveal"
            and (view.waiting != "itinerary" or view.waiting_colour is None)
        ):
            self._watches_only(hours, markers)
            return
        #: The writes that put one colour on all their LEDs at every frame, with that colour.
        glows: dict[Placed, Glow] = {}
        self._compose(markers, self._layers(hours, glows), glows)

    def _layers(self, hours: tuple[int, ...], glows: dict[Placed, Glow]) -> list[tuple[Any, Any]]:
        """The scene's layers from the bottom up, as `render` draws them: each (LED, colour), or
        (LEDs, a write), or (None, a write whose LEDs move); the glows' writes go in ``glows``."""
        view, layout = self.view, self.layout
        steps: list[tuple[int | tuple[int, ...] | None, Any]] = []  # (LED, colour) or (LEDs, Placed)
        if view.waiting == "itinerary" and view.waiting_colour is not None:
            steps.append((hours, self._glowing(Glow(view.waiting_colour, 0.15, 0.15, 2.0), glows)))
        elif view.waiting == "reveal":
            steps.append((hours, self._glowing(Glow(WHITE, 0.15, 0.1, 1.5), glows)))
            steps.append((None, self._comet))
        mover = view.watches[view.mover] if view.preview is not None and view.mover is not None else None
        if mover is not None and view.preview is not None:
            start, landing = view.preview
            for hour in range(start + 1, landing):
                steps.append((hours[hour % 12], scale(mover.colour, 0.25)))
            steps.append(((hours[landing % 12],), self._blink(mover.colour, 0.25)))
        if view.armed and view.mover is not None and view.preview is None:
            hour = view.watches[view.mover].hour
            leds = tuple(hours[(hour + k) % 12] for k in range(1, min(view.armed, 11) + 1))
            steps.append((leds, self._blink(CRYSTAL, 0.4)))
        by_hour: dict[int, list[tuple[int, Watch]]] = {}
        for i, w in enumerate(view.watches):
            by_hour.setdefault(w.hour % 12, []).append((i, w))
        spare = layout.spare
        for hour, stack in by_hour.items():
            if len(stack) > 1:
                stack.sort(key=_height)
            led = hours[hour]
            if spare:
                i, w = stack[0]
                if view.mover == i:
                    glow, write = pulsing(w.colour)
                    glows[write] = glow
                    steps.append(((led,), write))
                else:
                    steps.append((led, w.colour))
                for k in range(1, min(len(stack), spare + 1)):
                    steps.append((layout.after(led, k), scale(stack[k][1].colour, 0.4)))
            elif len(stack) > 1:  # one LED per hour: the top watch, then each stacked one in turn
                steps.append(((led,), self._turns(stack)))
            elif view.mover == stack[0][0]:
                glow, write = pulsing(stack[0][1].colour)
                glows[write] = glow
                steps.append(((led,), write))
            else:
                steps.append((led, stack[0][1].colour))
        return steps

    def _compose(self, markers: list[RGB], steps: list[tuple[Any, Any]], glows: dict[Placed, Glow]) -> None:
        """The base (the markers and every still layer) and the writes over it, each without the
        LEDs a later still layer covers; the glows when every write is one."""
        self.base = markers.copy()
        self.writes = []
        #: LEDs a still layer writes after the write being looked at (its own are overwritten)
        later: set[int] = set()
        reached: set[int] = set()
        self.glows = None
        glowing: list[tuple[Glow, tuple[int, ...]]] | None = []
        for where, what in reversed(steps):
            if isinstance(where, int):
                later.add(where)
            elif where is None:  # its LEDs move with time: those a still layer covers are skipped
                self.writes.append((what, frozenset(later)))
                reached.update(led for led in range(self.n) if led not in later)
                glowing = None
            else:
                if len(where) == 1:  # the mover's LED, most often
                    shown = () if where[0] in later else where
                else:
                    shown = tuple(led for led in where if led not in later)
                if shown:
                    self.writes.append((what, shown))
                    reached.update(shown)
                    if glowing is not None:
                        known = glows.get(what)
                        if known is None:
                            glowing = None
                        else:
                            glowing.append((known, shown))
        self.writes.reverse()
        if glowing:
            glowing.reverse()
            self.glows = tuple(glowing)
        self.reached = tuple(sorted(reached))
        for where, what in steps:
            if isinstance(where, int):
                self.base[where] = what

    def _watches_only(self, hours: tuple[int, ...], markers: list[RGB]) -> None:
        """The scene of a view that draws only the watches (no tap awaited, no preview, no
        crystals: most changes in a game) on a ring whose hours' LEDs are their own (`hour_leds`):
        no layer covers another's LEDs there, so each still watch goes straight into the base and
        each write keeps its LED, without the walk over the layers (a third of a change's frame)."""
        view, layout = self.view, self.layout
        mover, spare = view.mover, layout.spare
        base = markers.copy()
        writes: list[Write] = []
        glows: list[tuple[Glow, tuple[int, ...]]] | None = []
        reached: list[int] = []
        by_hour: dict[int, list[tuple[int, Watch]]] = {}
        for i, w in enumerate(view.watches):
            hour = w.hour % 12
            stack = by_hour.get(hour)
            if stack is None:
                by_hour[hour] = [(i, w)]
            else:
                stack.append((i, w))
        for hour, stack in by_hour.items():
            led = hours[hour]
            if len(stack) > 1:
                stack.sort(key=_height)
                if not spare:  # one LED per hour: the top watch, then each stacked one in turn
                    writes.append((self._turns(stack), (led,)))
                    reached.append(led)
                    glows = None
                    continue
                for k in range(1, min(len(stack), spare + 1)):
                    base[layout.after(led, k)] = scale(stack[k][1].colour, 0.4)
            i, w = stack[0]
            if i == mover:
                glow, write = pulsing(w.colour)
                writes.append((write, (led,)))
                reached.append(led)
                if glows is not None:
                    glows.append((glow, (led,)))
            else:
                base[led] = w.colour
        self.base, self.writes = base, writes
        self.glows = tuple(glows) if glows else None
        self.reached = tuple(sorted(reached))

    # --- what a frame is ---------------------------------------------------------------------

    def frame(self, t: float, cue_age: float) -> list[RGB]:
        """The ring's picture at ``t`` with the view's cue ``cue_age`` seconds old (`render`'s)."""
        view, n = self.view, self.n
        cue = view.cue if view.cue and cue_age < self.cue_seconds else None
        if cue == "reject":
            on = int(cue_age / 0.2) % 2 == 0
            return [RED if on else OFF] * n
        if cue == "day_end":
            colours = [w.colour for w in view.watches] or [WHITE]
            lit = int(cue_age / CUE_SECONDS["day_end"] * n * 2)
            return [colours[i % len(colours)] if i < lit % (n + 1) or lit > n else OFF for i in range(n)]
        if view.winners:
            turn = int(t * 8) % n
            return [view.winners[((i + turn) // max(1, n // 12)) % len(view.winners)] for i in range(n)]
        frame = self.base.copy()
        for write, leds in self.writes:
            write(frame, t, leds)
        if cue == "bonus":
            sweep = int(cue_age / CUE_SECONDS["bonus"] * n * 2) % n
            for k in range(4):
                frame[(sweep - k) % n] = scale(GOLD, 1.0 - k * 0.25)
        return frame

    def frame_after(self, earlier: list[RGB], t: float) -> list[RGB]:
        """The frame at ``t``, made from ``earlier``, a frame of this scene at which no cue drew
        and no winners turned (`changing` was not None), when the writes are all glows (`glows`):
        ``frame(t, age)`` for any later ``age``, in fewer steps."""
        frame = earlier.copy()
        for glow, leds in self.glows or ():
            colour = glow.at(t)
            for led in leds:
                frame[led] = colour
        return frame

    def changing(self, cue_age: float) -> tuple[int, ...] | None:
        """The LEDs in which the frame at ``cue_age`` can differ from another such frame of this
        scene: `reached` while no cue draws and no winners turn; None (any LED) while they do."""
        view = self.view
        if view.winners or (view.cue in DRAWN_CUES and cue_age < self.cue_seconds):
            return None
        return self.reached

    def moving(self, cue_age: float) -> bool:
        """Whether frames from now on change with time (else the last one stays until the view does).
        A cue that draws is over once ``cue_age`` passes its time, and it only grows."""
        cue = self.view.cue
        if cue in DRAWN_CUES and cue_age < self.cue_seconds:
            return True
        return bool(self.view.winners or self.writes)

    # --- the writes that move ----------------------------------------------------------------

    @staticmethod
    def _glowing(glow: Glow, glows: dict[Placed, Glow]) -> Placed:
        """The write putting ``glow``'s colour on its LEDs, noted in ``glows``."""
        at = glow.at

        def write(frame: list[RGB], t: float, leds: Collection[int]) -> None:
            colour = at(t)
            for led in leds:
                frame[led] = colour

        glows[write] = glow
        return write

    def _comet(self, frame: list[RGB], t: float, covered: Collection[int]) -> None:
        layout = self.layout
        head = int(t * self.n / 1.5) % self.n
        for k in range(3):
            led = layout.after(layout.led(0), head - k)
            if led not in covered:
                frame[led] = scale(WHITE, 0.9 / (k + 1))

    @staticmethod
    def _blink(colour: RGB, half: float) -> Placed:
        """``colour`` on for ``half`` seconds, then what was under it for as long."""

        def write(frame: list[RGB], t: float, leds: Collection[int]) -> None:
            if int(t / half) % 2 == 0:
                for led in leds:
                    frame[led] = colour

        return write

    def _turns(self, stack: list[tuple[int, Watch]]) -> Placed:
        """A stack on a one-LED hour: the top watch, then each stacked one in turn (the mover pulsing)."""
        mover = self.view.mover

        def write(frame: list[RGB], t: float, leds: Collection[int]) -> None:
            slot = int(t / 0.6) % (len(stack) + 1)
            i, w = stack[0] if slot == 0 or slot > len(stack) - 1 else stack[slot]
            shown = scale(w.colour, 0.55 + 0.45 * math.sin(t * 2 * math.pi / 1.2)) if i == mover else w.colour
            for led in leds:
                frame[led] = shown

        return write
