"""Replaying records: an edition named against the same edition carried inline (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_replay [--games 200] [--players 4] [--rounds 5] [--json]``

The same ``--games`` games (random bots, seeded) are written twice as trekking/1 records:
once naming the shipped edition, once carrying it inline (as a table's stored games and an
owner's exports do). Each round replays every record of both kinds through
`companion.records.trekking.replay_text`, the kinds alternated, and times them in this process's CPU
time (`time.process_time`, which a shared machine's load does not move). Printed: records
per second for each kind (medians over rounds) and inline / named.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.records.trekking import replay_text, write_record


def records(games: int, players: int, seed: int, inline: bool) -> list[str]:
    edition = load_edition("reference")
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        setup = random_setup(edition, names, rng)
        board, _, _ = play_game(setup, "random", rng)
        out.append(write_record(setup, board.moves, inline_edition=inline))
    return out


def rate(texts: list[str]) -> float:
    start = time.process_time()
    for text in texts:
        replay_text(text)
    return len(texts) / (time.process_time() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    named = records(args.games, args.players, args.seed, inline=False)
    inline = records(args.games, args.players, args.seed, inline=True)
    rate(named[:5]), rate(inline[:5])  # warm: the shipped edition loaded once
    rates: dict[str, list[float]] = {"named": [], "inline": []}
    for _ in range(args.rounds):
        rates["named"].append(rate(named))
        rates["inline"].append(rate(inline))
    named_rate, inline_rate = (statistics.median(rates[k]) for k in ("named", "inline"))
    result = {
        "games": args.games,
        "players": args.players,
        "rounds": args.rounds,
        "named_records_per_cpu_s": round(named_rate),
        "inline_records_per_cpu_s": round(inline_rate),
        "inline_over_named": round(inline_rate / named_rate, 2),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k:26} {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
