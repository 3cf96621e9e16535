"""The engine against a naive referee on the same records, in CPU time (issue 26 item 3).

Run: ``.venv/bin/python -m benchmarks.bench_referee [--games 200] [--rounds 5] [--cold] [--tree DIR]...``
(``--json`` for one JSON object)

Games are played by seeded bots (2, 3 and 4 greedy players, and 4 random players) and written
as ``trekking/1`` records twice: naming the shipped edition and carrying it inline (as a
table's stored games and an owner's exports do). Each record is replayed to the contract's
output (what ``companion replay --json`` prints) by the engine (`replay_stream`, the path of
``companion replay``) and by `tests.support.naive_referee`, the two alternated in every round
(which goes first alternates too), timed in CPU time (`time.process_time`, which a shared
machine's load does not move) beside wall time. Every output of every round is checked equal
between the two, after the clock.

Each round runs in a process of its own per tree: ``--tree DIR`` (repeatable) takes the engine
(``companion``) from another checkout, e.g. an export of the base commit, the trees alternated
round by round; without it, this checkout's. The naive referee is always this checkout's file
(loaded by its path), so every tree is measured against the same yardstick.

Printed: games per CPU second of each (median over rounds), engine / naive, and wall-clock
rates. ``--cold`` adds, in every round, the first pass in fresh processes (one per tree for the
engine, one for the naive referee: nothing imported before but the interpreter, the records
read from a file), where the engine's edition loading and memos are paid inside the clock;
medians over the rounds, and each side's import CPU time (outside the clock).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

#: (label, players, bot) of each set of games.
SETS = (
    ("2 players", 2, "greedy"),
    ("3 players", 3, "greedy"),
    ("4 players", 4, "greedy"),
    ("random play", 4, "random"),
)
FORMS = ("named", "inline")


def make_records(games: int, players: int, bot: str, seed: int, inline: bool) -> list[bytes]:
    """``games`` seeded bot games as trekking/1 records (the same games for either form)."""
    from companion.coach.simulate import play_game, random_setup
    from companion.editions import load_edition
    from companion.records.trekking import write_record

    edition = load_edition("reference")
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        setup = random_setup(edition, names, rng)
        board, _, _ = play_game(setup, bot, rng)
        out.append(write_record(setup, board.moves, inline_edition=inline).encode("utf-8"))
    return out


def naive_referee() -> ModuleType:
    """This checkout's `tests.support.naive_referee`, loaded from its file whatever tree the engine
    comes from (it imports nothing from ``companion``)."""
    path = Path(__file__).resolve().parents[1] / "tests" / "support" / "naive_referee.py"
    spec = importlib.util.spec_from_file_location("naive_referee", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def replayers() -> dict[str, Callable[[bytes], dict[str, Any]]]:
    """The two sides: the engine of the ``companion`` this process imports, the naive referee."""
    from companion.records.trekking import replay_stream

    naive = naive_referee()
    editions = naive.shipped_editions()

    def engine_replay(data: bytes) -> dict[str, Any]:
        return replay_stream(io.BytesIO(data)).to_json()

    def naive_replay(data: bytes) -> dict[str, Any]:
        result: dict[str, Any] = naive.replay(data, editions)
        return result

    return {"engine": engine_replay, "naive": naive_replay}


def timed(replay: Callable[[bytes], dict[str, Any]], records: list[bytes]) -> tuple[float, float, list[Any]]:
    """CPU and wall seconds of replaying every record, and the outputs."""
    outputs = []
    cpu, wall = time.process_time(), time.perf_counter()
    for data in records:
        outputs.append(replay(data))
    return time.process_time() - cpu, time.perf_counter() - wall, outputs


def read_set(path: str) -> list[bytes]:
    return [bytes.fromhex(h) for h in json.loads(Path(path).read_text())]


def warm_child(round_: int, paths: list[str]) -> None:
    """One warm round in a process of its own: both sides warmed on every game of every set (the
    edition loaded, the engine's memos built), then each set replayed by each, the first side
    alternating with the round; every output compared. Prints (CPU s, wall s) per set and side."""
    import companion

    sides = replayers()
    sets = [read_set(path) for path in paths]
    for records in sets:
        for replay in sides.values():
            for data in records:  # every game once: the memos hold every step these games take
                replay(data)
    order = ("engine", "naive") if round_ % 2 == 0 else ("naive", "engine")
    times = []
    for number, records in enumerate(sets):
        figures, outputs = {}, {}
        for side in order:
            cpu, wall, outputs[side] = timed(sides[side], records)
            figures[side] = (cpu, wall)
        if outputs["engine"] != outputs["naive"]:
            bad = next(i for i, (a, b) in enumerate(zip(*outputs.values(), strict=True)) if a != b)
            raise SystemExit(f"set {number}: game {bad}: the engine and the naive referee disagree")
        times.append(figures)
    print(json.dumps({"companion": str(Path(companion.__file__).parent), "times": times}))


def cold_child(side: str, path: str) -> None:
    """In a fresh process: read the records, import one side, replay every record once (its
    editions loaded and memos built inside the clock); print the CPU times."""
    records = read_set(path)
    start = time.process_time()
    if side == "engine":
        from companion.records.trekking import replay_stream

        imported = time.process_time()
        for data in records:
            replay_stream(io.BytesIO(data)).to_json()
    else:
        naive = naive_referee()

        imported = time.process_time()
        editions = naive.shipped_editions()
        for data in records:
            naive.replay(data, editions)
    done = time.process_time()
    print(json.dumps({"import_cpu_s": imported - start, "games": len(records), "cpu_s": done - imported}))


def child(tree: Path | None, *args: str) -> dict[str, Any]:
    """This file run as a script in a fresh process, ``companion`` from ``tree`` (``PYTHONPATH``)
    or, without one, this checkout's (its environment's install)."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *args],
        capture_output=True, text=True, check=True, env=env, cwd=tree or Path(__file__).resolve().parents[1],
    ).stdout  # fmt: skip
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


Runs = dict[tuple[int, str, str], list[Any]]


def measure(args: argparse.Namespace, trees: list[Path | None]) -> tuple[Runs, Runs, dict[int, str]]:
    """Every round's warm runs (CPU and wall seconds) and, with ``--cold``, first passes, each
    in child processes, the trees alternated; and which engine each tree is."""
    warm: Runs = {}
    cold: Runs = {}
    engines: dict[int, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        paths: list[str] = []
        for _, players, bot in SETS:
            for form in FORMS:
                records = make_records(args.games, players, bot, args.seed, form == "inline")
                paths.append(str(Path(folder) / f"{len(paths)}.json"))
                Path(paths[-1]).write_text(json.dumps([r.hex() for r in records]))
        for round_ in range(args.rounds):
            order = list(enumerate(trees)) if round_ % 2 == 0 else list(reversed(list(enumerate(trees))))
            if args.cold:  # first passes before this round's warm ones
                for number, path in enumerate(paths):
                    for t, tree in order:
                        engine = child(tree, "--cold-child", "engine", path)
                        cold.setdefault((t, str(number), "engine"), []).append(engine)
                    naive = child(None, "--cold-child", "naive", path)
                    cold.setdefault((-1, str(number), "naive"), []).append(naive)
            for t, tree in order:
                result = child(tree, "--warm-child", str(round_), *paths)
                engines[t] = result["companion"]
                for number, figures in enumerate(result["times"]):
                    for side, (cpu, wall) in figures.items():
                        warm.setdefault((t, str(number), side), []).append((cpu, wall))
    return warm, cold, engines


def row_of(
    args: argparse.Namespace, t: int, number: int, warm: Runs, cold: Runs, engine: str
) -> dict[str, Any]:
    """One set's medians for the tree ``t``: games per second, engine and naive, warm and cold."""
    label, form = [(label, form) for label, _, _ in SETS for form in FORMS][number]

    def rate(side: str, which: int) -> float:
        return float(statistics.median(args.games / f[which] for f in warm[(t, str(number), side)]))

    row: dict[str, Any] = {
        "engine_from": engine,
        "games": label,
        "edition": form,
        "engine_games_per_cpu_s": round(rate("engine", 0)),
        "naive_games_per_cpu_s": round(rate("naive", 0)),
        "engine_over_naive": round(rate("engine", 0) / rate("naive", 0), 2),
        "engine_games_per_wall_s": round(rate("engine", 1)),
        "naive_games_per_wall_s": round(rate("naive", 1)),
    }
    if args.cold:
        for side, key in (("engine", (t, str(number), "engine")), ("naive", (-1, str(number), "naive"))):
            runs = cold[key]
            row[f"{side}_cold_games_per_cpu_s"] = round(
                statistics.median(r["games"] / r["cpu_s"] for r in runs)
            )
            row[f"{side}_import_cpu_ms"] = round(statistics.median(r["import_cpu_s"] for r in runs) * 1000, 1)
        row["cold_engine_over_naive"] = round(
            row["engine_cold_games_per_cpu_s"] / row["naive_cold_games_per_cpu_s"], 2
        )
    return row


def print_rows(args: argparse.Namespace, rows: list[dict[str, Any]], engines: dict[int, str]) -> None:
    print(
        f"{args.games} games a set, {args.rounds} rounds alternated, medians; games per second, "
        f"CPU (wall); Python {sys.version.split()[0]}"
    )
    header = f"{'games':12} {'edition':8} {'engine':>14} {'naive':>14} {'ratio':>6}"
    if args.cold:
        header += f"  {'engine cold':>11} {'naive cold':>10} {'ratio':>6} {'imports ms':>11}"
    for engine in engines.values():
        print(f"\nengine from {engine}")
        print(header)
        for r in (r for r in rows if r["engine_from"] == engine):
            line = (
                f"{r['games']:12} {r['edition']:8} "
                f"{r['engine_games_per_cpu_s']:>6} ({r['engine_games_per_wall_s']:>5}) "
                f"{r['naive_games_per_cpu_s']:>6} ({r['naive_games_per_wall_s']:>5}) "
                f"{r['engine_over_naive']:>6}"
            )
            if args.cold:
                line += (
                    f"  {r['engine_cold_games_per_cpu_s']:>11} {r['naive_cold_games_per_cpu_s']:>10} "
                    f"{r['cold_engine_over_naive']:>6.2f} "
                    f"{r['engine_import_cpu_ms']:>5}/{r['naive_import_cpu_ms']:<5}"
                )
            print(line)


def main() -> int:
    from benchmarks.medians import options

    parser = options(__doc__, rounds=5, seed=1)
    parser.add_argument("--games", type=int, default=200, help="games in each set")
    parser.add_argument("--cold", action="store_true", help="add first passes in fresh processes")
    parser.add_argument("--tree", action="append", help="a checkout to take the engine from (repeatable)")
    parser.add_argument("--warm-child", nargs="+", metavar=("ROUND", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--cold-child", nargs=2, metavar=("SIDE", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold_child:
        cold_child(*args.cold_child)
        return 0
    if args.warm_child:
        warm_child(int(args.warm_child[0]), args.warm_child[1:])
        return 0
    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    warm, cold, engines = measure(args, trees)
    sets = len(SETS) * len(FORMS)
    rows = [row_of(args, t, n, warm, cold, engines[t]) for t in range(len(trees)) for n in range(sets)]
    if args.json:
        print(json.dumps({"games": args.games, "rounds": args.rounds, "seed": args.seed, "rows": rows}))
        return 0
    print_rows(args, rows, engines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
