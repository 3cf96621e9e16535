"""The coach's quality: a bot taking the coach's best card against the greedy bot, with each
playout tried on the same games at the same CPU-time budget.

Run: ``.venv/bin/python -m benchmarks.bench_coach_quality [--games N] [--seeds 1,2,3]
[--players 2,3] [--greedy 0,0.5,0.9] [--budget S]``

For each seed and player count, N games: one coach bot (`tests/support/coach_bot.py`) and
P-1 greedy bots (`companion.coach.bots.greedy_bot`), the coach's seat in the watch stack rotating
from game to game, the decks shuffled from the seed. Every game is played once by each
playout variant (``--greedy``: the share of rollout card choices the cheap greedy heuristic
makes, 0 = the random bot's playouts), alternated on the same deal and the same random
stream, so the variants meet the same games. Each coach choice gets ``--budget`` seconds of
this process's CPU time (``time.process_time``: unlike wall time, it does not move with a
shared machine's load), so a slower playout plays fewer rollouts: the comparison is at equal
cost. Prints each variant's win share (a shared victory counts as a share) with a 95 %
Wilson interval, per player count and over all seeds, what an equal player would get (1/P),
and the rollouts per choice each variant managed. Slow by design: one core, about
``budget`` x 25 choices a game per variant, plus the greedy bots.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from typing import Any

from companion.coach.bots import greedy_bot
from companion.coach.simulate import MAX_EVENTS_PER_GAME
from companion.editions import load_edition
from companion.engine import Board, Event, winners
from companion.engine.state import shuffled_setup
from tests.support.coach_bot import coach_bot


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play(setup: Any, coach: Any, seed: int) -> float:
    """One game from ``setup``: the coach's share of the win."""
    rng = random.Random(seed)
    board = Board(setup)
    for _ in range(MAX_EVENTS_PER_GAME):
        if board.finished:
            break
        bot = coach if board.names[board.turn] == "Coach" else greedy_bot
        rejection = board.push(bot(board, rng))
        assert rejection is None, rejection
    won = winners(board.standings())
    return 1 / len(won) if "Coach" in won else 0.0


def _counted(bot: Any, greedy: float, tallies: dict[float, list[float]]) -> Any:
    """``bot``, counting its choices, their rollouts and their CPU time in ``tallies[greedy]``."""

    def counted(board: Board, rng: random.Random) -> Event:
        start, before = time.process_time(), _ROLLOUTS[0]
        event: Event = bot(board, rng)
        if _ROLLOUTS[0] != before:  # a choice the coach made (not a greedy Itinerary)
            tally = tallies[greedy]
            tally[0] += 1
            tally[1] += _ROLLOUTS[0] - before
            tally[2] += time.process_time() - start
        return event

    return counted


def main() -> int:
    from benchmarks.medians import options

    parser = options(__doc__)
    parser.add_argument("--games", type=int, default=40, help="games per seed and player count")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--players", default="2,3")
    parser.add_argument("--greedy", default="0,0.5,0.9", help="playout variants (greedy share)")
    parser.add_argument("--budget", type=float, default=0.03, help="CPU seconds per coach choice")
    parser.add_argument("--rollouts", type=int, default=10_000, help="cap per candidate (the budget binds)")
    args = parser.parse_args()
    edition = load_edition("reference")
    seeds = [int(s) for s in args.seeds.split(",")]
    counts = [int(p) for p in args.players.split(",")]
    variants = [float(g) for g in args.greedy.split(",")]
    rows: list[dict[str, Any]] = []
    for players in counts:
        names = ["Coach", "Greedy1", "Greedy2", "Greedy3"][:players]
        share = dict.fromkeys(variants, 0.0)
        #: per variant: coach choices, rollouts, CPU seconds
        tallies: dict[float, list[float]] = {g: [0, 0, 0.0] for g in variants}
        n = 0
        for seed in seeds:
            deals = random.Random(seed * 1000 + players)
            for game in range(args.games):
                k = game % players
                stack = names[k:] + names[:k]  # the coach's seat in the stack rotates
                setup = shuffled_setup(edition, names, stack, deals)
                stream = deals.randrange(1 << 30)
                n += 1
                for greedy in variants:  # alternated on the same deal and random stream
                    counted = _counted(coach_bot(args.rollouts, args.budget, greedy), greedy, tallies)
                    share[greedy] += play(setup, counted, stream)
            if not args.json:  # a running figure after each seed: a long run says something early
                so_far = ", ".join(f"greedy {g}: {share[g] / n:.1%}" for g in variants)
                print(f"  ({players} players, after seed {seed}, {n} games: {so_far})", flush=True)
        for greedy in variants:
            low, high = wilson(share[greedy], n)
            rows.append(
                {
                    "players": players,
                    "greedy": greedy,
                    "games": n,
                    "seeds": seeds,
                    "win_rate": round(share[greedy] / n, 3),
                    "ci95": [round(low, 3), round(high, 3)],
                    "equal_player": round(1 / players, 3),
                    "rollouts_per_choice": round(tallies[greedy][1] / max(1, tallies[greedy][0])),
                    "cpu_ms_per_choice": round(1000 * tallies[greedy][2] / max(1, tallies[greedy][0]), 1),
                }
            )
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"coach bot vs greedy bots, {args.budget * 1000:g} ms CPU a choice, seeds {args.seeds}")
    for r in rows:
        print(
            f"  {r['players']} players, greedy {r['greedy']:<4}: coach wins {r['win_rate']:.1%} "
            f"(95 % CI {r['ci95'][0]:.1%}-{r['ci95'][1]:.1%}) of {r['games']} games; equal player "
            f"{r['equal_player']:.1%}; {r['rollouts_per_choice']} rollouts in "
            f"{r['cpu_ms_per_choice']} ms CPU a choice"
        )
    return 0


#: Rollouts played so far by this process's coach (counted through `companion.coach.chances.rollouts`).
_ROLLOUTS = [0]


def _count_rollouts() -> None:
    """Wrap the coach's rollouts so the benchmark can say how many each variant played."""
    import companion.coach.chances as coach

    original = coach.rollouts

    def counting(*args: Any, **kwargs: Any) -> Any:
        tally = original(*args, **kwargs)
        _ROLLOUTS[0] += tally.rollouts
        return tally

    coach.rollouts = counting  # type: ignore[assignment]


if __name__ == "__main__":
    _count_rollouts()
    sys.exit(main())
