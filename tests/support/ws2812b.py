"""The ring's data line as a Pi's SPI controller drives it, read back by the LED parts a ring may carry.

Three datasheets, three parts (each window in ns; the period is TH + TL):

============  ==========  ==========  ===========  ==========  ===========  ==========
datasheet     T0H         T1H         T0L          T1L         period       reset
============  ==========  ==========  ===========  ==========  ===========  ==========
WS2812B       250-550     650-950     700-1000     300-600     650-1850     >= 50 us
WS2812B-V5    220-380     580-1000    580-1000     580-1000    (none)       >= 280 us
SK6812        150-450     450-750     750-1050     450-750     650-1850     >= 80 us
============  ==========  ==========  ===========  ==========  ===========  ==========

- WS2812B: Worldsemi, "WS2812B Intelligent control LED integrated light source", table "Data
  transfer time (TH+TL=1.25us +/- 600ns)": 0.4/0.8/0.85/0.45 us +/- 150 ns, RES above 50 us.
- WS2812B-V5: Worldsemi WS2812B-V5 (LCSC C114586, quoted in FastLED/FastLED#1311): T0H 220-380 ns,
  T1H, T0L and T1L 580 ns-1 us, RES above 280 us (no period given).
- SK6812: SK6812 datasheet (SPC/SK6812 Rev 01, the one Adafruit links for its RGBW rings):
  0.3/0.6/0.9/0.6 us +/- 150 ns, period 1.25 us +/- 600 ns, TRST 80 us.

No waveform of 8 SPI bits per LED bit is inside all three at once: T1L must be 580-600 ns and
T1H 650-750 ns, so the bit lasts 1230-1350 ns; on a Pi 3 / Zero 2 W / 4 (9 clocks a bit, below)
that forces a clock of 145-150 ns, where a 0 (2 clocks high, 7 low) has a T0L of 1015 ns or
more, past the WS2812B's and the V5's 1000; on a Pi 5 (8 clocks a bit) T1L is 3 or 4 clocks,
462-506 or 616-676 ns. `violations` says which windows a waveform misses, by datasheet.

What a real part does is looser than its datasheet (`Part`): it decides each bit by its high
time alone (a 0 is well under the part's threshold, a 1 well over it), and a low of more than
about 5 us anywhere latches what it has and starts again at LED 0 (parts latch after 5-6 us
low, measured on real parts; the datasheet's reset is what to send, not where parts latch).

`Controller` is the SPI controller as the line sees it: the clocks it idles after each FIFO
entry (SPI0 of a Pi 3 / Zero 2 W / 4: 1 after every byte, raspberrypi/linux#3844 and
jgarff/rpi_ws281x#499; the auxiliary SPI1: 2 after every 3-byte entry; RP1: none modelled), and
for a controller without DMA the CPU's refills of its FIFO (the auxiliary SPI: 4 entries of 3
bytes, refilled by interrupt), each late by a random time (exponential, 3 us on average),
during which the line stays low. The patterns the companion sends all end low, so an idle clock
is low whatever level the controller holds MOSI at.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

NS = 1e9


@dataclass(frozen=True)
class Datasheet:
    name: str
    t0h: tuple[float, float]
    t1h: tuple[float, float]
    t0l: tuple[float, float]
    t1l: tuple[float, float]
    period: tuple[float, float]
    reset_ns: float


WS2812B = Datasheet("WS2812B", (250, 550), (650, 950), (700, 1000), (300, 600), (650, 1850), 50_000)
WS2812B_V5 = Datasheet(
    "WS2812B-V5", (220, 380), (580, 1000), (580, 1000), (580, 1000), (0, math.inf), 280_000
)
SK6812 = Datasheet("SK6812", (150, 450), (450, 750), (750, 1050), (450, 750), (650, 1850), 80_000)
DATASHEETS = (WS2812B, WS2812B_V5, SK6812)


class OutOfTolerance(ValueError):
    """The waveform is not one the datasheet's part is specified to read."""


@dataclass(frozen=True)
class Segment:
    """The line at one level for a time (ns)."""

    high: bool
    ns: float


@dataclass(frozen=True)
class Controller:
    """An SPI controller as the data line sees it."""

    name: str
    #: Low clocks after every ``entry`` bytes (a FIFO entry).
    idle_clocks: int = 0
    entry: int = 1
    #: Bytes the CPU refills at once (0: DMA feeds the FIFO, no refill waits), and the mean of
    #: how late each refill lands (ns, exponential).
    refill: int = 0
    late_ns: float = 0.0


IDEAL = Controller("a gap-free line")
#: spi-bcm2835 on a Pi 3 / Zero 2 W / 4: DMA for 96 bytes and more, one idle clock per byte.
SPI0 = Controller("SPI0 (spi-bcm2835, DMA)", idle_clocks=1, entry=1)
#: spi-bcm2835aux (SPI1 of a Pi 3 / Zero 2 W / 4): no DMA, 4 entries of 3 bytes, 2 idle clocks
#: per entry, refilled by interrupt 12 bytes at a time.
AUX = Controller("SPI1 (spi-bcm2835aux, no DMA)", idle_clocks=2, entry=3, refill=12, late_ns=3_000)
#: The auxiliary SPI with its idle clocks but refills always on time (what it cannot promise).
AUX_ON_TIME = Controller("SPI1 (spi-bcm2835aux), every refill on time", idle_clocks=2, entry=3)
#: RP1's SPI on a Pi 5 (DMA, no idle clock modelled; SPI0_LIKE_RP1 below checks one anyway).
RP1 = Controller("RP1 SPI (Pi 5, DMA)")
RP1_IDLING = Controller("RP1 SPI with an idle clock per byte (in case it has one)", idle_clocks=1, entry=1)


def spi0_clock(core_hz: float, asked: float) -> float:
    """What spi-bcm2835 gives for ``asked``: the core clock divided by an even divider, rounded up."""
    divider = math.ceil(core_hz / asked)
    return core_hz / (divider + divider % 2)


def aux_clock(core_hz: float, asked: float) -> float:
    """What spi-bcm2835aux gives for ``asked``: core / (2 * (speed + 1)), speed rounded up."""
    speed = math.ceil(core_hz / (2 * asked)) - 1
    return core_hz / (2 * (speed + 1))


def rp1_clock(asked: float, clock_hz: float = 200e6) -> float:
    """What the Pi 5's RP1 SPI (spi-dw) gives for ``asked`` from its fixed 200 MHz: an even divider."""
    divider = (math.ceil(clock_hz / asked) + 1) & ~1
    return clock_hz / divider


def mosi_waveform(
    data: bytes, frequency: float, controller: Controller = IDEAL, rng: random.Random | None = None
) -> list[Segment]:
    """The MOSI line for ``data`` clocked at ``frequency`` Hz by ``controller``: runs of equal
    levels, merged, with a long idle low before and after."""
    bit_ns = NS / frequency
    rng = rng or random.Random(0)
    levels: list[tuple[bool, float]] = [(False, 1e6)]
    for at, byte in enumerate(data, start=1):
        for i in range(7, -1, -1):
            levels.append((bool(byte >> i & 1), bit_ns))
        if controller.idle_clocks and at % controller.entry == 0:
            levels.append((False, controller.idle_clocks * bit_ns))
        if controller.refill and at % controller.refill == 0 and at < len(data):
            levels.append((False, rng.expovariate(1 / controller.late_ns)))
    levels.append((False, 1e6))
    segments: list[Segment] = []
    for high, ns in levels:
        if segments and segments[-1].high == high:
            segments[-1] = Segment(high, segments[-1].ns + ns)
        else:
            segments.append(Segment(high, ns))
    return segments


def _within(ns: float, window: tuple[float, float]) -> bool:
    return window[0] - 1e-6 <= ns <= window[1] + 1e-6


def pulses(segments: list[Segment]) -> list[tuple[float, float]]:
    """Each (high, the low after it) of the line."""
    return [
        (seg.ns, segments[i + 1].ns) for i, seg in enumerate(segments) if seg.high and i + 1 < len(segments)
    ]


def violations(segments: list[Segment], sheet: Datasheet) -> dict[str, tuple[float, float]]:
    """The windows of ``sheet`` the line misses: name -> (the shortest, the longest) time sent
    for it. A low of the reset's length or more is a latch, not a bit's low."""
    seen: dict[str, list[float]] = {}
    for high, low in pulses(segments):
        one = high > (sheet.t0h[1] + sheet.t1h[0]) / 2
        seen.setdefault("T1H" if one else "T0H", []).append(high)
        if low < sheet.reset_ns:
            seen.setdefault("T1L" if one else "T0L", []).append(low)
            seen.setdefault("period", []).append(high + low)
    windows = {"T0H": sheet.t0h, "T1H": sheet.t1h, "T0L": sheet.t0l, "T1L": sheet.t1l, "period": sheet.period}
    missed = {}
    for name, times in seen.items():
        span = (min(times), max(times))
        if not (_within(span[0], windows[name]) and _within(span[1], windows[name])):
            missed[name] = span
    return missed


def decode_bits(segments: list[Segment], sheet: Datasheet = WS2812B) -> list[list[int]]:
    """The datasheet's strict reading: the bits of each latched frame, or `OutOfTolerance` for
    the first high, low or period outside ``sheet``'s windows, or a low neither a bit's nor a reset."""
    frames: list[list[int]] = []
    bits: list[int] = []
    if segments and segments[0].high:
        raise OutOfTolerance("the line starts high: no reset before the first bit")
    i = 0
    while i < len(segments):
        seg = segments[i]
        if not seg.high:
            if seg.ns < sheet.reset_ns:
                raise OutOfTolerance(
                    f"a low of {seg.ns:.0f} ns where a reset (>= {sheet.reset_ns:.0f} ns) was due"
                )
            if bits:
                frames.append(bits)
                bits = []
            i += 1
            continue
        high = seg.ns
        low = segments[i + 1].ns if i + 1 < len(segments) else math.inf
        if _within(high, sheet.t0h) and not _within(high, sheet.t1h):
            bit, low_window, name = 0, sheet.t0l, "T0L"
        elif _within(high, sheet.t1h):
            bit, low_window, name = 1, sheet.t1l, "T1L"
        else:
            raise OutOfTolerance(
                f"bit {len(bits)}: a high of {high:.0f} ns is neither T0H {sheet.t0h} nor T1H {sheet.t1h}"
            )
        bits.append(bit)
        if low >= sheet.reset_ns:  # the last bit's low is the latch
            frames.append(bits)
            bits = []
        elif not _within(low, low_window):
            raise OutOfTolerance(f"bit {len(bits) - 1}: a low of {low:.0f} ns is outside {name} {low_window}")
        elif not _within(high + low, sheet.period):
            period = high + low
            raise OutOfTolerance(
                f"bit {len(bits) - 1}: a period of {period:.0f} ns is outside {sheet.period}"
            )
        i += 2
    if bits:
        frames.append(bits)
    return frames


def leds(bits: list[int], order: str) -> list[dict[str, int]]:
    """What each LED of a chain in colour ``order`` (such as "GRB", "GRBW") takes from one
    frame's bits: its channels by name ("R", "G", "B", and "W" for an RGBW part)."""
    width = 8 * len(order)
    if len(bits) % width:
        raise OutOfTolerance(f"{len(bits)} bits is not a whole number of {width}-bit LEDs")
    chain = []
    for start in range(0, len(bits), width):
        channels = {}
        for k, name in enumerate(order):
            value = 0
            for bit in bits[start + 8 * k : start + 8 * k + 8]:
                value = value << 1 | bit
            channels[name] = value
        chain.append(channels)
    return chain


def decode(
    data: bytes,
    frequency: float,
    order: str,
    sheet: Datasheet = WS2812B,
    controller: Controller = IDEAL,
) -> list[list[dict[str, int]]]:
    """Each latched frame of the SPI bytes ``data`` at ``frequency``, as ``sheet``'s strict part reads it."""
    return [leds(bits, order) for bits in decode_bits(mosi_waveform(data, frequency, controller), sheet)]


@dataclass(frozen=True)
class Part:
    """A real part of ``sheet``'s kind: the bit is decided by the high time against a threshold
    halfway between the datasheet's longest 0 and shortest 1; any low over ``latch_ns`` latches."""

    sheet: Datasheet
    latch_ns: float = 5_000.0

    @property
    def threshold_ns(self) -> float:
        return (self.sheet.t0h[1] + self.sheet.t1h[0]) / 2

    def latches(self, segments: list[Segment], order: str) -> list[list[dict[str, int]]]:
        """What each latch shows: the LEDs that received a whole colour since the last one
        (from LED 0), in the order they sit on the ring."""
        width = 8 * len(order)
        shown: list[list[dict[str, int]]] = []
        bits: list[int] = []
        for seg in segments:
            if seg.high:
                bits.append(1 if seg.ns > self.threshold_ns else 0)
            elif seg.ns > self.latch_ns and bits:
                whole = len(bits) - len(bits) % width
                shown.append(leds(bits[:whole], order))
                bits = []
        return shown


PARTS = tuple(Part(sheet) for sheet in DATASHEETS)
