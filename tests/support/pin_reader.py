"""What a person reads from the ring's PIN display (`companion.hardware.ring_pin`): the tests'
proof that the display can be read, the inverse of `pin_frame`."""

from __future__ import annotations

from companion.hardware.ring import RGB, RingLayout
from companion.hardware.ring_pin import DIGIT, digit_leds


def read_pin(frames: list[list[RGB]], layout: RingLayout) -> str:
    """The PIN a person would read from a sequence of frames sampled during one pass."""
    digits: list[str] = []
    previous: list[RGB] | None = None
    for frame in frames:
        if frame == previous:
            continue
        previous = frame
        lit = {i for i, c in enumerate(frame) if c == DIGIT}
        if not lit:
            continue
        for digit in range(10):
            if lit == set(digit_leds(digit, layout)):
                digits.append(str(digit))
                break
    return "".join(digits)
