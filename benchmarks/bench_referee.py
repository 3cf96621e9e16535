"""The engine against a naive referee on the same records, in CPU time (issue 26 item 3).

Run: ``.venv/bin/python -m benchmarks.bench_referee [--games 200] [--rounds 5] [--json]``

Games are played by seeded bots (2, 3 and 4 greedy players, and 4 random players) and written
as ``trekking/1`` records twice: naming the shipped edition and carrying it inline (as a
table's stored games and an owner's exports do). Each record is replayed to the contract's
output (what ``companion replay --json`` prints) by the engine (`replay_stream`, the path of
``companion replay``) and by `benchmarks.naive_referee`, the two alternated in every round
(which goes first alternates too), timed in this process's CPU time (`time.process_time`,
which a shared machine's load does not move) beside wall time. Every output of every round is
checked equal between the two, after the clock.

Printed: games per CPU second of each (median over rounds), engine / naive, and wall-clock
rates. ``--cold`` adds the first pass in fresh processes (one for the engine, one for the
naive referee: nothing imported before but the interpreter, the records read from a file),
where the engine's edition loading and memos are paid inside the clock, and each side's
import CPU time.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
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


def engine_replay(data: bytes) -> dict[str, Any]:
    from companion.records.trekking import replay_stream

    return replay_stream(io.BytesIO(data)).to_json()


def timed(replay: Callable[[bytes], dict[str, Any]], records: list[bytes]) -> tuple[float, float, list[Any]]:
    """CPU and wall seconds of replaying every record, and the outputs."""
    outputs = []
    cpu, wall = time.process_time(), time.perf_counter()
    for data in records:
        outputs.append(replay(data))
    return time.process_time() - cpu, time.perf_counter() - wall, outputs


def cold_child(side: str, path: str) -> None:
    """In a fresh process: read the records, import one side, replay every record once (its
    editions loaded and memos built inside the clock); print the CPU times."""
    records = [bytes.fromhex(h) for h in json.loads(Path(path).read_text())]
    start = time.process_time()
    if side == "engine":
        from companion.records.trekking import replay_stream

        imported = time.process_time()
        for data in records:
            replay_stream(io.BytesIO(data)).to_json()
    else:
        from benchmarks.naive_referee import replay as naive
        from benchmarks.naive_referee import shipped_editions

        imported = time.process_time()
        editions = shipped_editions()
        for data in records:
            naive(data, editions)
    done = time.process_time()
    print(json.dumps({"import_cpu_s": imported - start, "games": len(records), "cpu_s": done - imported}))


def cold(records: list[bytes], side: str) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([r.hex() for r in records], f)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_referee", "--cold-child", side, f.name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        Path(f.name).unlink()
    result: dict[str, float] = json.loads(out)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games in each set")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cold", action="store_true", help="add first passes in fresh processes")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cold-child", nargs=2, metavar=("SIDE", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold_child:
        cold_child(*args.cold_child)
        return 0

    from benchmarks.naive_referee import replay as naive
    from benchmarks.naive_referee import shipped_editions

    editions = shipped_editions()

    def naive_replay(data: bytes) -> dict[str, Any]:
        return naive(data, editions)

    sides = {"engine": engine_replay, "naive": naive_replay}
    games = {
        (label, form): make_records(args.games, players, bot, args.seed, form == "inline")
        for label, players, bot in SETS
        for form in FORMS
    }
    cold_figures: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    if args.cold:  # before anything here has replayed a record in another process's place
        for key, records in games.items():
            cold_figures[key] = {side: cold(records, side) for side in sides}
    for records in games.values():  # warm: the shipped edition loaded, the engine's memos built
        for replay in sides.values():
            for data in records[:20]:
                replay(data)
    cpu: dict[tuple[str, str, str], list[float]] = {}
    wall: dict[tuple[str, str, str], list[float]] = {}
    for round_ in range(args.rounds):
        for key, records in games.items():
            order = ("engine", "naive") if round_ % 2 == 0 else ("naive", "engine")
            outputs = {}
            for side in order:
                c, w, outputs[side] = timed(sides[side], records)
                cpu.setdefault((*key, side), []).append(len(records) / c)
                wall.setdefault((*key, side), []).append(len(records) / w)
            if outputs["engine"] != outputs["naive"]:
                bad = next(i for i, (a, b) in enumerate(zip(*outputs.values(), strict=True)) if a != b)
                raise SystemExit(f"{key}: game {bad}: the engine and the naive referee disagree")
    rows = []
    for label, form in games:
        engine, naive_rate = (statistics.median(cpu[(label, form, s)]) for s in ("engine", "naive"))
        row: dict[str, Any] = {
            "games": label,
            "edition": form,
            "engine_games_per_cpu_s": round(engine),
            "naive_games_per_cpu_s": round(naive_rate),
            "engine_over_naive": round(engine / naive_rate, 2),
            "engine_games_per_wall_s": round(statistics.median(wall[(label, form, "engine")])),
            "naive_games_per_wall_s": round(statistics.median(wall[(label, form, "naive")])),
        }
        if (label, form) in cold_figures:
            figures = cold_figures[(label, form)]
            for side in sides:
                row[f"{side}_cold_games_per_cpu_s"] = round(figures[side]["games"] / figures[side]["cpu_s"])
                row[f"{side}_import_cpu_ms"] = round(figures[side]["import_cpu_s"] * 1000, 1)
        rows.append(row)
    if args.json:
        print(json.dumps({"games": args.games, "rounds": args.rounds, "seed": args.seed, "rows": rows}))
        return 0
    print(
        f"{args.games} games a set, {args.rounds} rounds alternated, medians; games per second, "
        f"CPU (wall); Python {sys.version.split()[0]}"
    )
    header = f"{'games':12} {'edition':8} {'engine':>14} {'naive':>14} {'ratio':>6}"
    if args.cold:
        header += f"  {'engine cold':>11} {'naive cold':>10} {'ratio':>6} {'imports ms':>11}"
    print(header)
    for r in rows:
        line = (
            f"{r['games']:12} {r['edition']:8} "
            f"{r['engine_games_per_cpu_s']:>6} ({r['engine_games_per_wall_s']:>5}) "
            f"{r['naive_games_per_cpu_s']:>6} ({r['naive_games_per_wall_s']:>5}) {r['engine_over_naive']:>6}"
        )
        if args.cold:
            ec, nc = r["engine_cold_games_per_cpu_s"], r["naive_cold_games_per_cpu_s"]
            line += (
                f"  {ec:>11} {nc:>10} {ec / nc:>6.2f} "
                f"{r['engine_import_cpu_ms']:>5}/{r['naive_import_cpu_ms']:<5}"
            )
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
