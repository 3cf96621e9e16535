"""Minutes to transcribe a whole box on the page, from the taps the browser test counted.

``tests/browser/test_browser_edition.py`` transcribes the 108 cards, 24 itineraries,
playmat, trek table and Ancestor (its 12 copies' stickers) through the page and
writes every tap and key it made to ``test-artifacts/transcription-counts.json``.
This script turns those counts into minutes at a stated pace:

    python -m tests.support.transcription_pace [--tap 0.6] [--key 0.3] [--card 3] [--itinerary 5]

``--tap``: seconds per on-screen tap (big buttons, value already read);
``--key``: seconds per key typed; ``--card``/``--itinerary``: seconds to pick the
card up, read it and put its sticker on the reader; any other sticker (the
Ancestor copies) takes ``--sticker`` seconds. The browser test asserts the whole
box stays within `BUDGET_MINUTES` at the default pace (the counts are exact, so
that is no wall-clock assertion).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

COUNTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "transcription-counts.json"
#: The issue's goal: a whole box in at most 20 minutes at a plausible pace.
BUDGET_MINUTES = 20.0


#: Seconds per tap, per key typed, per card and per itinerary handled, per other sticker.
PACE = {"tap": 0.6, "key": 0.3, "card": 3.0, "itinerary": 5.0, "sticker": 2.0}


def seconds(counts: dict[str, Any], pace: dict[str, float] = PACE) -> dict[str, float]:
    """Seconds each part of the transcription takes at ``pace`` (not "total")."""
    handling = {"cards": pace["card"], "itineraries": pace["itinerary"]}
    out = {}
    for part, c in counts.items():
        if part == "total":
            continue
        s = c["taps"] * pace["tap"] + c["keys"] * pace["key"] + c.get("count", 0) * handling.get(part, 0.0)
        s += c["stickers"] * (0 if part in handling else pace["sticker"])
        out[part] = s
    return out


def minutes(counts: dict[str, Any], pace: dict[str, float] = PACE) -> float:
    """The whole box, in minutes, at ``pace``."""
    return sum(seconds(counts, pace).values()) / 60


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for name, default in PACE.items():
        parser.add_argument(f"--{name}", type=float, default=default)
    parser.add_argument("--counts", type=Path, default=COUNTS)
    args = parser.parse_args()
    counts = json.loads(args.counts.read_text(encoding="utf-8"))
    pace = {name: getattr(args, name) for name in PACE}
    print(
        f"pace: {pace['tap']} s a tap, {pace['key']} s a key, {pace['card']} s a card, "
        f"{pace['itinerary']} s an itinerary, {pace['sticker']} s another sticker"
    )
    for part, s in seconds(counts, pace).items():
        c = counts[part]
        n = c.get("count", 1)
        per = f" ({c['taps'] / n:.2f} taps, {c['keys'] / n:.2f} keys, {c['stickers'] / n:.0f} sticker each)"
        print(f"{part:<18} {c['taps']:>5} taps {c['keys']:>4} keys {c['stickers']:>4} stickers"
              f" {s / 60:6.1f} min" + (per if "count" in c else ""))  # fmt: skip
    print(f"{'whole box':<18} {counts['total']['taps']:>5} taps {counts['total']['keys']:>4} keys "
          f"{counts['total']['stickers']:>4} stickers {minutes(counts, pace):6.1f} min"
          f" (goal: at most {BUDGET_MINUTES:.0f} min)")  # fmt: skip


if __name__ == "__main__":
    main()
