"""The coach's speed: rollouts per second per core, a full answer's time, a Zero's estimate.

Run: ``.venv/bin/python -m benchmarks.bench_coach [--seconds S] [--workers W] [--budget B]``

Positions: seeded random games of 3 and 4 players stopped after 0, 20 and 40 takes (a
Day's start, mid-game, Day III), the player to move about to take a card.

- *Rollouts per second per core*, one process: from each position, the unseen cards
  dealt again and the game played to its end by the random bot, two ways: the
  undo-recorded path (`Board.from_snapshot` + `Board.push`, what a coach written on the
  engine's usual API would do; ``--baseline-only`` runs just this one, so it can be run
  against an older checkout with ``PYTHONPATH``), the coach's previous path (`Board.fork`
  + `Board.push_unrecorded` of the random bot's events, `standings` + `winners`: issue 18's
  first fast path, kept here so that before and after are measured in the same run on a
  shared machine) and the coach's path as `companion.coach.chances` runs it (`Board.fork` +
  `companion.engine.playout`: the same games in one loop).
- *Answer time*: a full coach evaluation through `CoachPool` (worker processes) with a
  time budget, from the median position: wall time and rollouts done.
- *Zero estimate*: the per-core rate divided by an assumed slowdown (``--zero-ratio``,
  default 11.8: the issue's own "about 3,300 random rollouts/s per core here, about
  280/s on a Zero", i.e. a 1 GHz Cortex-A53 core running this pure-Python code about
  12x slower than one core of this PC). Not measured on a Zero: an assumption, printed.

Every rate is printed twice: per second of wall time, and per second of CPU time (this
process's ``time.process_time``; the workers' user+system time from /proc for the answer),
which does not move with a shared machine's load the way wall time does (issue 26 item 4).
The rates' measurements are alternated in one run, so a change of load hits each alike.

Tests never time anything; this script is where the coach's speed is measured.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from typing import Any

from companion.coach.bots import random_bot
from companion.coach.simulate import random_setup
from companion.editions import load_edition
from companion.engine import Board, GameState, Setup, Take, winners
from companion.engine.state import shuffled_setup

#: One core of this PC over one Cortex-A53 core at 1 GHz (the issue's 3,300 / 280).
ZERO_RATIO = 11.8


def positions(seed: int) -> list[tuple[Setup, GameState]]:
    """Seeded positions: 3 and 4 players, after 0, 20 and 40 takes."""
    edition = load_edition("reference")
    rng = random.Random(seed)
    found = []
    for game in range(8):
        setup = random_setup(edition, ["Ann", "Ben", "Cy", "Dee"][: 3 + game % 2], rng)
        board = Board(setup)
        for stop in (0, 20, 40):
            while board.next_seq - len(setup.players) < stop or board.needs_itinerary():
                board.push(random_bot(board, rng))
            found.append((setup, board.snapshot()))
    return found


#: A rate: rollouts per second of wall time, and per second of this process's CPU time.
Rate = tuple[float, float]


class Clocks:
    """Wall time and this process's CPU time since it was made."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> float:
        return time.perf_counter() - self.wall

    def rate(self, done: int) -> Rate:
        return done / self.elapsed(), done / max(1e-9, time.process_time() - self.cpu)


def rate(rollout: Any, places: list[Any], seconds: float) -> Rate:
    """Rollouts per second over ``places``, round-robin, for about ``seconds``."""
    done, clocks = 0, Clocks()
    while clocks.elapsed() < seconds:
        for place in places:
            rollout(place)
            done += 1
    return clocks.rate(done)


def baseline_rate(places: list[tuple[Setup, GameState]], seconds: float, seed: int) -> Rate:
    """The undo-recorded path: decks shuffled again (as a redeal costs), a board from the
    snapshot, `push` to the end, the winners; only the engine's usual API, so it runs on
    an older checkout too."""
    rng = random.Random(seed)

    def rollout(place: tuple[Setup, GameState]) -> None:
        setup, state = place
        decks = shuffled_setup(setup.edition, setup.players, setup.watch_stack, rng)
        board = Board.from_snapshot(setup, state)
        board.setup = decks  # refills now draw from the shuffled decks (the same cost)
        board.deck = decks.decks[state.day - 1]  # type: ignore[index]
        while not board.finished:
            board.push(random_bot(board, rng))
        winners(board.standings())

    return rate(rollout, places, seconds)


def unrecorded_rate(places: list[tuple[Setup, GameState]], seconds: float, seed: int) -> Rate:
    """The coach's previous path, as `companion.coach.chances.rollouts` ran it before `play_out`:
    for every candidate, redeal, fork, the candidate and then the random bot's events through
    `push_unrecorded`, `standings` and `winners` (the same games, move for move)."""
    from companion.coach.chances import _fill_hidden, candidates, redeal

    boards = [Board.from_snapshot(*place) for place in places]
    for board in boards:
        board.edition.rules.complete()
    rng = random.Random(seed)
    done, clocks = 0, Clocks()
    while clocks.elapsed() < seconds:
        for board in boards:
            moves = candidates(board)
            for _ in range(3):
                for card, spend in moves:
                    setup, hidden = redeal(board, rng)
                    game = board.fork(setup)
                    if hidden:
                        _fill_hidden(game, hidden)
                    game.push_unrecorded(Take(card, None, spend, ()))
                    while not game.finished:
                        game.push_unrecorded(random_bot(game, rng))
                    winners(game.standings())
                    done += 1
    return clocks.rate(done)


def fast_rate(
    places: list[tuple[Setup, GameState]], seconds: float, seed: int, greedy: float | None = None
) -> Rate:
    """The coach's path as it runs: `companion.coach.chances.rollouts` for every candidate take of a
    position, a few rounds at a time (a redeal a round, fork, `play_out`, tally); ``greedy``:
    the playout's greedy share (None: the coach's own, `companion.coach.chances.PLAYOUT_GREEDY`)."""
    from companion.coach.chances import PLAYOUT_GREEDY, candidates, rollouts

    share = PLAYOUT_GREEDY if greedy is None else greedy
    boards = [Board.from_snapshot(*place) for place in places]
    rng = random.Random(seed)
    done, clocks = 0, Clocks()
    while clocks.elapsed() < seconds:
        for board in boards:
            seed_k = rng.randrange(1 << 30)
            done += rollouts(board, candidates(board), 3, seed_k, greedy=share).rollouts
    return clocks.rate(done)


def answer(place: tuple[Setup, GameState], workers: int, budget: float) -> dict[str, Any]:
    """One full evaluation through the worker processes with a time budget (pool warm)."""
    from companion.coach.chances import CoachPool
    from tests.support.processes import cpu_seconds

    board = Board.from_snapshot(*place)
    pool = CoachPool(board.edition, workers)
    try:
        pool.evaluate(board, 4, None, seed=0)  # start the workers and build their memos
        times, counts, cpu = [], [], []
        for k in range(5):
            used = sum(cpu_seconds(p.pid) for p in pool.procs)
            start = time.perf_counter()
            advice = pool.evaluate(board, 100_000, budget, seed=k)
            times.append(time.perf_counter() - start)
            cpu.append(sum(cpu_seconds(p.pid) for p in pool.procs) - used)
            counts.append(advice.rollouts)
    finally:
        pool.release()
    return {
        "workers": workers,
        "budget_s": budget,
        "answer_s_median": round(statistics.median(times), 3),
        "answer_s_max": round(max(times), 3),
        "rollouts_median": statistics.median(counts),
        "workers_cpu_s_median": round(statistics.median(cpu), 3),
        "rollouts_per_cpu_s": round(sum(counts) / max(1e-9, sum(cpu))),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per rate measurement")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=0.8, help="the coach's time budget, seconds")
    parser.add_argument("--zero-ratio", type=float, default=ZERO_RATIO)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--greedy", type=float, default=0.5, help="the greedy playout's share measured")
    parser.add_argument("--baseline-only", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    places = positions(args.seed)
    paths: dict[str, Any] = {"baseline": baseline_rate}
    if not args.baseline_only:
        paths["unrecorded"] = unrecorded_rate
        paths["fast"] = fast_rate
        paths["greedy"] = lambda p, s, k: fast_rate(p, s, k, args.greedy)
    runs: dict[str, list[Rate]] = {name: [] for name in paths}
    for k in range(args.repeat):  # alternated: a change of load hits every path alike
        for name, path in paths.items():
            runs[name].append(path(places, args.seconds, args.seed + k))
    result: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "positions": len(places),
        "greedy_share": args.greedy,
    }
    for name, rates in runs.items():
        result[f"{name}_rollouts_per_wall_s"] = round(statistics.median(r[0] for r in rates))
        result[f"{name}_rollouts_per_cpu_s"] = round(statistics.median(r[1] for r in rates))
        result[f"{name}_cpu_runs"] = [round(r[1]) for r in rates]
    if not args.baseline_only:
        per_core = result["fast_rollouts_per_cpu_s"]
        result["zero_ratio_assumed"] = args.zero_ratio
        result["zero_rollouts_per_s_per_core_estimate"] = round(per_core / args.zero_ratio)
        result["zero_rollouts_in_budget_estimate_3_workers"] = round(
            3 * args.budget * per_core / args.zero_ratio
        )
        result["answer"] = answer(places[len(places) // 2], args.workers, args.budget)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"coach rollouts, {len(places)} positions (Python {result['python']}, {result['machine']}):")
    print("  rollouts per second of wall time | of CPU time (CPU runs)")
    labels = {
        "baseline": "undo-recorded path (from_snapshot + push)",
        "unrecorded": "previous coach path (fork + push_unrecorded)",
        "fast": "coach path now (fork + play_out)",
        "greedy": f"play_out with the greedy heuristic at {args.greedy}",
    }
    for name in runs:
        print(
            f"  {labels[name]:<48} {result[f'{name}_rollouts_per_wall_s']:>6} | "
            f"{result[f'{name}_rollouts_per_cpu_s']:>6}  ({result[f'{name}_cpu_runs']})"
        )
    if not args.baseline_only:
        a = result["answer"]
        print(
            f"  full answer, {a['workers']} worker processes, budget {a['budget_s']} s: median "
            f"{a['answer_s_median']} s wall (max {a['answer_s_max']} s), {a['rollouts_median']} rollouts, "
            f"{a['workers_cpu_s_median']} s of the workers' CPU ({a['rollouts_per_cpu_s']} rollouts/CPU-s)"
        )
        print(
            f"  Pi Zero 2 W estimate: {result['zero_rollouts_per_s_per_core_estimate']} rollouts/s/core, "
            f"{result['zero_rollouts_in_budget_estimate_3_workers']} rollouts in a {args.budget} s "
            f"budget on 3 workers (ASSUMPTION, not measured: a 1 GHz Cortex-A53 core is "
            f"{args.zero_ratio}x slower than one core here, the issue's 3,300 -> 280 figures; "
            f"from the CPU-time rate)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
