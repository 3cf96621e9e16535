"""A WS2812B as its datasheet describes it: reads the data line's waveform back into colours.

Timing from the Worldsemi WS2812B datasheet ("Intelligent control LED integrated light
source"), table "Data transfer time (TH+TL = 1.25 us +/- 600 ns)":

======  =========================  =========  ==========
symbol  meaning                    value      tolerance
======  =========================  =========  ==========
T0H     0 code, high time          0.40 us    +/- 150 ns
T1H     1 code, high time          0.80 us    +/- 150 ns
T0L     0 code, low time           0.85 us    +/- 150 ns
T1L     1 code, low time           0.45 us    +/- 150 ns
RES     reset (latch), low time    above 50 us
======  =========================  =========  ==========

Each LED keeps the first 24 bits it receives (32 for an RGBW part), most significant bit
first, in its own colour order, and passes the rest on; a low line held for RES latches.
The model is strict: a high or low time outside its window, or a low longer than a bit's
but shorter than RES, is refused (`OutOfTolerance`), so a decoder that cannot fail proves
nothing. Real chips forgive more (long lows up to several microseconds); only a real
ring shows by how much, which is why the companion stays inside the datasheet's windows.

`mosi_waveform` turns the bytes an SPI controller shifts out (mode 0, most significant bit
first, the line low when idle) into the levels and durations the LED's DIN sees.
"""

from __future__ import annotations

from dataclasses import dataclass

NS = 1e9

T0H = (400 - 150, 400 + 150)
T1H = (800 - 150, 800 + 150)
T0L = (850 - 150, 850 + 150)
T1L = (450 - 150, 450 + 150)
PERIOD = (1250 - 600, 1250 + 600)
RES_NS = 50_000.0


class OutOfTolerance(ValueError):
    """The waveform is not one a WS2812B is specified to read."""


@dataclass(frozen=True)
class Segment:
    """The line at one level for a time (ns)."""

    high: bool
    ns: float


def mosi_waveform(data: bytes, frequency: float) -> list[Segment]:
    """The MOSI line for ``data`` clocked at ``frequency`` Hz: runs of equal bits, merged, with
    the idle low before and after (long enough to count as a latch)."""
    bit_ns = NS / frequency
    segments: list[Segment] = [Segment(False, RES_NS * 10)]
    for byte in data:
        for i in range(7, -1, -1):
            level = bool(byte >> i & 1)
            last = segments[-1]
            if last.high == level:
                segments[-1] = Segment(level, last.ns + bit_ns)
            else:
                segments.append(Segment(level, bit_ns))
    last = segments[-1]
    if last.high:
        segments.append(Segment(False, RES_NS * 10))
    else:
        segments[-1] = Segment(False, last.ns + RES_NS * 10)
    return segments


def _within(ns: float, window: tuple[float, float]) -> bool:
    return window[0] <= ns <= window[1]


def decode_bits(segments: list[Segment], res_ns: float = RES_NS) -> list[list[int]]:
    """The bits of each latched frame on the line (a frame: everything between two resets)."""
    frames: list[list[int]] = []
    bits: list[int] = []
    i = 0
    if segments and segments[0].high:
        raise OutOfTolerance("the line starts high: no reset before the first bit")
    while i < len(segments):
        seg = segments[i]
        if not seg.high:
            if seg.ns < res_ns:
                raise OutOfTolerance(f"a low of {seg.ns:.0f} ns where a reset (>= {res_ns:.0f} ns) was due")
            if bits:
                frames.append(bits)
                bits = []
            i += 1
            continue
        high = seg.ns
        low = segments[i + 1].ns if i + 1 < len(segments) else float("inf")
        if _within(high, T0H):
            bit, low_window = 0, T0L
        elif _within(high, T1H):
            bit, low_window = 1, T1L
        else:
            raise OutOfTolerance(
                f"bit {len(bits)}: a high of {high:.0f} ns is neither T0H {T0H} nor T1H {T1H}"
            )
        bits.append(bit)
        if low >= res_ns:  # the last bit's low is the latch
            frames.append(bits)
            bits = []
        elif not _within(low, low_window):
            name = "T0L" if bit == 0 else "T1L"
            raise OutOfTolerance(f"bit {len(bits) - 1}: a low of {low:.0f} ns is outside {name} {low_window}")
        elif not _within(high + low, PERIOD):
            raise OutOfTolerance(f"bit {len(bits) - 1}: a period of {high + low:.0f} ns is outside {PERIOD}")
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


def decode(data: bytes, frequency: float, order: str, res_ns: float = RES_NS) -> list[list[dict[str, int]]]:
    """Each latched frame of the SPI bytes ``data`` at ``frequency``, as a ring in ``order`` shows it."""
    return [leds(bits, order) for bits in decode_bits(mosi_waveform(data, frequency), res_ns)]
