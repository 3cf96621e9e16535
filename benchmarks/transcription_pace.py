"""Minutes to transcribe a whole box on the page, from the taps the browser test counted.

``tests/test_browser_edition.py`` transcribes the 108 cards, 24 itineraries,
playmat, trek table and Ancestor through the page and writes every tap and key
it made to ``test-artifacts/transcription-counts.json``. This script turns those
counts into minutes at a stated pace:

    python benchmarks/transcription_pace.py [--tap 0.6] [--key 0.3] [--card 3] [--itinerary 5]

``--tap``: seconds per on-screen tap (big buttons, value already read);
``--key``: seconds per key typed; ``--card``/``--itinerary``: seconds to pick the
card up, read it and put its sticker on the reader.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

COUNTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "transcription-counts.json"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tap", type=float, default=0.6)
    parser.add_argument("--key", type=float, default=0.3)
    parser.add_argument("--card", type=float, default=3.0)
    parser.add_argument("--itinerary", type=float, default=5.0)
    parser.add_argument("--counts", type=Path, default=COUNTS)
    args = parser.parse_args()
    counts = json.loads(args.counts.read_text(encoding="utf-8"))
    handling = {"cards": args.card, "itineraries": args.itinerary}
    total = 0.0
    print(
        f"pace: {args.tap} s a tap, {args.key} s a key, {args.card} s a card, {args.itinerary} s an itinerary"
    )
    for part, c in counts.items():
        if part == "total":
            continue
        n = c.get("count", 1)
        seconds = c["taps"] * args.tap + c["keys"] * args.key + c.get("count", 0) * handling.get(part, 0.0)
        seconds += c["stickers"] * (0 if part in handling else 2.0)
        total += seconds
        per = f" ({c['taps'] / n:.2f} taps, {c['keys'] / n:.2f} keys, {c['stickers'] / n:.0f} sticker each)"
        print(f"{part:<18} {c['taps']:>5} taps {c['keys']:>4} keys {c['stickers']:>4} stickers"
              f" {seconds / 60:6.1f} min" + (per if "count" in c else ""))  # fmt: skip
    print(f"{'whole box':<18} {counts['total']['taps']:>5} taps {counts['total']['keys']:>4} keys "
          f"{counts['total']['stickers']:>4} stickers {total / 60:6.1f} min")  # fmt: skip


if __name__ == "__main__":
    main()
