"""The coach's quality: a bot taking the coach's best card against the greedy bot.

Run: ``.venv/bin/python benchmarks/bench_coach_quality.py [--games N] [--players P] [--rollouts K]``

Each game seats one coach bot (`companion.coach.coach_bot`, K rollouts per candidate card)
and P-1 greedy bots (`companion.bots.greedy_bot`), the coach's seat in the watch stack
rotating from game to game, the decks shuffled from one seeded generator. It prints the
coach bot's win share (a shared victory counts as a share) with a 95 % Wilson interval, and
what an equal player would get (1/P). Both use the greedy bot's Itinerary choice, so only
the card choice differs. Slow by design (the coach plays K rollouts per card per take):
one core, about a second a game at K = 30 on a PC.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time

from companion.bots import greedy_bot
from companion.coach import coach_bot
from companion.editions import load_edition
from companion.engine import Board, winners
from companion.engine.state import shuffled_setup
from companion.simulate import MAX_EVENTS_PER_GAME


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=30, help="rollouts per candidate card")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    edition = load_edition("reference")
    names = ["Coach", "Greedy1", "Greedy2", "Greedy3"][: args.players]
    coach = coach_bot(args.rollouts)
    rng = random.Random(args.seed)
    share = 0.0
    start = time.perf_counter()
    for game in range(args.games):
        k = game % args.players
        stack = names[k:] + names[:k]  # the coach's seat in the stack rotates
        board = Board(shuffled_setup(edition, names, stack, rng))
        for _ in range(MAX_EVENTS_PER_GAME):
            if board.finished:
                break
            bot = coach if board.names[board.turn] == "Coach" else greedy_bot
            rejection = board.push(bot(board, rng))
            assert rejection is None, rejection
        won = winners(board.standings())
        if "Coach" in won:
            share += 1 / len(won)
    seconds = time.perf_counter() - start
    low, high = wilson(share, args.games)
    result = {
        "games": args.games,
        "players": args.players,
        "rollouts_per_candidate": args.rollouts,
        "seed": args.seed,
        "coach_win_rate": round(share / args.games, 3),
        "ci95": [round(low, 3), round(high, 3)],
        "equal_player": round(1 / args.players, 3),
        "seconds": round(seconds, 1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"coach bot ({args.rollouts} rollouts a card) vs {args.players - 1} greedy bot(s), "
            f"{args.games} games, seed {args.seed}: coach wins {share:g} ({result['coach_win_rate']:.1%}, "
            f"95 % CI {low:.1%}-{high:.1%}); an equal player would win {1 / args.players:.1%} "
            f"({seconds:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
