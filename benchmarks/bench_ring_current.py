"""What the ring draws: an estimate from the frames the companion really renders.

Run: ``.venv/bin/python -m benchmarks.bench_ring_current``

Each frame comes from `companion.hardware.ring.render` for scenes of a four-player game
(a turn with the mover pulsing, the deck waiting to be revealed, a stacked hour, a refused
tap flashing red, the end of a day, the winners) and the table PIN shown on the ring
(`companion.hardware.ring_pin`, a 9 lights nine LEDs white). A frame's current is estimated with the
usual WS2812B budget: 20 mA per colour channel at full value, scaled by the value and the
brightness setting (Adafruit's "60 mA per LED at full white"), plus 1 mA per LED for its
controller (PJRC measured "just under 1 mA" per dark LED). Real LEDs vary (PJRC measured
33.5-52.5 mA at full white on two kinds of "WS2812B"), so this is a budget, not a
measurement: docs/builders/power.md says how to measure yours.
"""

from __future__ import annotations

import argparse
import json

from companion.hardware.ring import RGB, ClockView, RingLayout, Watch, render
from companion.hardware.ring_pin import pin_frame, pin_seconds

CHANNEL_MA = 20.0
IDLE_MA = 1.0
PALETTE: list[RGB] = [(0x00, 0x72, 0xB2), (0xE6, 0x9F, 0x00), (0x00, 0x9E, 0x73), (0xCC, 0x79, 0xA7)]
STEP = 1 / 30  # the ring's 30 frames a second


def scenes() -> dict[str, tuple[ClockView, float]]:
    """Scenes of a four-player game, each with how long to sample it (seconds)."""
    spread = tuple(Watch(h, c, 0) for h, c in zip((0, 3, 5, 8), PALETTE, strict=True))
    stacked = (
        Watch(4, PALETTE[0], 0),
        Watch(4, PALETTE[1], 1),
        Watch(7, PALETTE[2], 0),
        Watch(9, PALETTE[3], 0),
    )
    return {
        "turn (mover pulsing)": (ClockView(watches=spread, mover=0), 2.4),
        "turn, crystals armed": (ClockView(watches=spread, mover=1, armed=3), 2.4),
        "move preview": (ClockView(watches=spread, mover=2, preview=(5, 9)), 2.4),
        "stacked hour": (ClockView(watches=stacked, mover=0), 2.4),
        "waiting for a reveal": (ClockView(watches=spread, mover=0, waiting="reveal"), 3.0),
        "refused tap (red flash)": (ClockView(watches=spread, mover=0, cue="reject", cue_age=0.0), 0.8),
        "end of a day": (ClockView(watches=spread, mover=0, cue="day_end", cue_age=0.0), 2.4),
        "winners": (ClockView(watches=spread, winners=(PALETTE[0], PALETTE[2])), 3.0),
    }


def frames(view: ClockView, layout: RingLayout, seconds: float) -> list[list[RGB]]:
    out = []
    for k in range(int(seconds / STEP)):
        t = k * STEP
        shown = view
        if view.cue:  # a cue plays once from its start: age it with the clock
            shown = ClockView(**{**view.__dict__, "cue_age": t})
        out.append(render(shown, layout, t))
    return out


def milliamps(frame: list[RGB], brightness: float) -> float:
    lit = sum(int(v * brightness) for rgb in frame for v in rgb) / 255 * CHANNEL_MA
    return IDLE_MA * len(frame) + lit


def sampled_frames(leds: int) -> dict[str, list[list[RGB]]]:
    """Every scene's frames on a ``leds``-LED ring, the table PIN display included."""
    layout = RingLayout(leds=leds)
    sampled = {name: frames(v, layout, s) for name, (v, s) in scenes().items()}
    pin = "909909"
    sampled["table PIN on the ring"] = [
        f for k in range(int(pin_seconds(pin) / STEP)) if (f := pin_frame(pin, layout, k * STEP)) is not None
    ]
    return sampled


def figures(
    leds: int, brightness: float, sampled: dict[str, list[list[RGB]]] | None = None
) -> dict[str, float]:
    """The ring's estimated current, mA: dark, a turn (mean), the brightest frame, full white."""
    sampled = sampled or sampled_frames(leds)
    turn = [
        milliamps(f, brightness) for name in ("turn (mover pulsing)", "stacked hour") for f in sampled[name]
    ]
    peak = max(milliamps(f, brightness) for fs in sampled.values() for f in fs)
    return {
        "dark": IDLE_MA * leds,
        "turn": sum(turn) / len(turn),
        "peak": peak,
        "white": milliamps([(255, 255, 255)] * leds, brightness),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brightness", type=float, nargs="*", default=[1.0, 0.3, 0.08])
    parser.add_argument("--json", action="store_true", help="the figures by ring size, then brightness")
    args = parser.parse_args()
    if args.json:
        sizes = {leds: sampled_frames(leds) for leds in (12, 16, 24)}
        print(json.dumps({n: {b: figures(n, b, s) for b in args.brightness} for n, s in sizes.items()}))
        return
    print(f"model: {CHANNEL_MA:g} mA per channel at full value, {IDLE_MA:g} mA per LED controller")
    print("ring  brightness  dark  typical(mean of turn scenes)  peak frame  full white")
    for leds in (12, 16, 24):
        sampled = sampled_frames(leds)
        for b in args.brightness:
            f = figures(leds, b, sampled)
            peak_name = max(sampled, key=lambda name: max(milliamps(fr, b) for fr in sampled[name]))
            print(
                f"{leds:>4}  {b:>10.2f}  {f['dark']:>4.0f}  {f['turn']:>28.0f}  "
                f"{f['peak']:>10.0f}  {f['white']:>10.0f}   mA  (peak: {peak_name})"
            )


if __name__ == "__main__":
    main()
