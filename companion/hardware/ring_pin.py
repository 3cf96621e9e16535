"""The table PIN shown on the ring, for a host with no screen at hand.

Holding Confirm for a few seconds (``[buttons] pin_hold``) makes the ring show the PIN, read
like a clock face: the whole ring blue for a second (the PIN starts), then each digit 1-9 as
the hours from 1 o'clock up to it lit (3: 1, 2 and 3 o'clock), 0 as 12 o'clock alone, each for
`DIGIT_SECONDS` and a dark `GAP_SECONDS`; the whole PIN `REPEATS` times, then the game again.
`pin_frame` is a pure function of the PIN, the ring's geometry and the time since the hold, like
`companion.hardware.ring.render`, so every picture is tested without hardware.
"""

from __future__ import annotations

from companion.hardware.ring import OFF, RGB, RingLayout

START_SECONDS = 1.0
DIGIT_SECONDS = 1.6
GAP_SECONDS = 0.6
REPEATS = 2
START: RGB = (0, 60, 160)
DIGIT: RGB = (255, 255, 255)


def pin_seconds(pin: str) -> float:
    """How long the whole display lasts."""
    return REPEATS * (START_SECONDS + len(pin) * (DIGIT_SECONDS + GAP_SECONDS))


def digit_leds(digit: int, layout: RingLayout) -> list[int]:
    """The LEDs that show ``digit``: hours 1..digit, or 12 o'clock alone for 0."""
    return [layout.led(hour) for hour in range(1, digit + 1)] if digit else [layout.led(0)]


def pin_frame(pin: str, layout: RingLayout, elapsed: float) -> list[RGB] | None:
    """The ring's picture ``elapsed`` seconds after the hold, or None once the display is over."""
    if elapsed < 0 or elapsed >= pin_seconds(pin):
        return None
    frame: list[RGB] = [OFF] * layout.leds
    t = elapsed % (pin_seconds(pin) / REPEATS)
    if t < START_SECONDS:
        return [START] * layout.leds
    t -= START_SECONDS
    index, within = divmod(t, DIGIT_SECONDS + GAP_SECONDS)
    if within >= DIGIT_SECONDS:
        return frame
    for led in digit_leds(int(pin[int(index)]), layout):
        frame[led] = DIGIT
    return frame
