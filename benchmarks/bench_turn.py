"""Inputs per take at the table: the first turn design against the quick turn.

Run: ``.venv/bin/python -m benchmarks.bench_turn [--games N] [--players P] [--bot random|greedy] [--json]``

Whole games are played through `companion.table.Table` (the mock dealer reveals the
cards) in each turn style, by the same bot with the same seeds, and every input a
person makes for a take is counted:

- "confirm" (the first design): tap the card; a player holding any crystal then
  sees the preview and presses Crystal once per crystal to spend and Confirm;
- "quick" (the default now): Crystal once per crystal to spend *before* the tap;
  the tap commits the take.

At a real table the new deck top must also be tapped after a take that leaves a
gap in the row (the mock dealer does it here); that count is the same in both
styles and reported on its own line.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from companion.coach.bots import greedy_bot, random_bot
from companion.engine import ChooseItinerary, Take
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table import Table
from companion.table.game_setup import new_game
from companion.util.config import Config

BOTS = {"random": random_bot, "greedy": greedy_bot}


def play(style: str, games: int, players: int, bot_name: str, seed: int) -> dict[str, Any]:
    """Play ``games`` whole games in ``style``; return inputs per take and reveal taps."""
    bot = BOTS[bot_name]
    per_take: list[int] = []
    reveals = 0
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp), TREKKING)
        for g in range(games):
            game_id = new_game(store, names, Config(), seed=seed + g, mock=True)
            table = Table(store, store.load(game_id), log=lambda _: None, turn=style)
            rng = random.Random(seed + g)
            while not table.board.finished:
                event = bot(table.board, rng)
                if isinstance(event, ChooseItinerary):
                    assert table.tap(event.itinerary).accepted
                    continue
                assert isinstance(event, Take)
                inputs = 0
                before = table.seq
                if style == "quick":
                    for _ in range(event.crystals):
                        assert table.press("crystal").accepted
                        inputs += 1
                outcome = table.tap(event.card)
                assert outcome.accepted, outcome
                inputs += 1
                if table.pending is not None:
                    for _ in range(event.crystals - table.pending.crystals):
                        assert table.press("crystal").accepted
                        inputs += 1
                    assert table.press("confirm").accepted
                    inputs += 1
                per_take.append(inputs)
                reveals += table.seq - before - 1  # the dealer's reveals after this take
        store.close()
    counts = collections.Counter(per_take)
    return {
        "style": style,
        "takes": len(per_take),
        "mean_inputs_per_take": round(statistics.fmean(per_take), 3),
        "histogram": {str(k): counts[k] for k in sorted(counts)},
        "reveal_taps_per_take_at_a_real_table": round(reveals / len(per_take), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--bot", choices=sorted(BOTS), default="random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [play(style, args.games, args.players, args.bot, args.seed) for style in ("confirm", "quick")]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"{args.games} games, {args.players} players, {args.bot} bot, "
        f"seeds {args.seed}..{args.seed + args.games - 1}"
    )
    for r in results:
        hist = ", ".join(f"{k} input{'s' if k != '1' else ''}: {v}" for k, v in r["histogram"].items())
        print(
            f"{r['style']:>8}: {r['mean_inputs_per_take']:.2f} inputs per take "
            f"over {r['takes']} takes ({hist})"
        )
    print(
        f"at a real table, add {results[0]['reveal_taps_per_take_at_a_real_table']:.2f} reveal taps "
        "per take in both styles"
    )


if __name__ == "__main__":
    main()
