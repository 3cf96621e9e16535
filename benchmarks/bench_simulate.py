"""Engine throughput: random 4-player games per second on one core.

Run: ``.venv/bin/python -m benchmarks.bench_simulate [--games N] [--repeat R]``

Plays N seeded games R times in this one process (one core) and prints the best
and the median rate, plus a replay-only figure (the engine without the bot), so
a change to the rules core can be judged on its own. Tests never time anything;
this script is where speed is measured.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import sys
import time

from companion.coach.simulate import play_game, random_setup, simulate
from companion.editions import load_edition
from companion.engine import Board


def replay_rate(games: int, players: int, seed: int) -> tuple[float, float]:
    """Games and events per second when only the engine runs (the bot's moves recorded first)."""
    ed = load_edition("reference")
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    rng = random.Random(seed)
    logs = []
    for _ in range(games):
        board, _, _ = play_game(random_setup(ed, names, rng), "random", rng)
        logs.append((board.setup, board.moves))
    events = sum(len(moves) for _, moves in logs)
    start = time.perf_counter()
    for setup, moves in logs:
        board = Board(setup)
        push = board.push
        for event in moves:
            push(event)
    seconds = time.perf_counter() - start
    return games / seconds, events / seconds


def main() -> int:
    from benchmarks.medians import options

    args = options(__doc__, games=5000, players=4, repeat=5, seed=1).parse_args()
    simulate(200, args.players, args.seed)  # warm the per-edition caches
    rates = [simulate(args.games, args.players, args.seed + i).games_per_second for i in range(args.repeat)]
    replay_games, replay_events = replay_rate(args.games, args.players, args.seed)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "games": args.games,
        "players": args.players,
        "repeat": args.repeat,
        "games_per_second_best": round(max(rates), 1),
        "games_per_second_median": round(statistics.median(rates), 1),
        "replay_games_per_second": round(replay_games, 1),
        "replay_events_per_second": round(replay_events, 1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"random {args.players}-player games on one core "
            f"(Python {result['python']}, {result['machine']}):"
        )
        print(
            f"  simulate (bot + engine): best {result['games_per_second_best']} games/s, "
            f"median {result['games_per_second_median']} games/s over {args.repeat} x {args.games} games"
        )
        print(
            f"  replay (engine only):    {result['replay_games_per_second']} games/s, "
            f"{result['replay_events_per_second']} events/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
