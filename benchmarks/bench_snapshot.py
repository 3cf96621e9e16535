"""The live page's snapshot: what every change costs before the first page sees it.

Run: ``.venv/bin/python -m benchmarks.bench_snapshot [--takes 100] [--repeat 50] [--json]``

A mocked table (4 players, the mock dealer revealing the new deck tops) plays a game by
random taps, a person's Undo after ``--undo`` of the takes (0.6), until ``--takes`` takes are
stored (those undone included) or the game ends; then `Snapshots.page_json` (the state,
the treks, the event log with its undos and the score chart, all derived from the stored
events) is built ``--repeat`` times. Printed: the events stored, the takes, and the
median and 90th percentile of one build in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.engine import Take
from companion.records.trekking import TREKKING
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config


def played(tmp: Path, takes: int, undo: float, seed: int) -> Runtime:
    """A mocked table whose stored log holds ``takes`` takes (or a whole game)."""
    config = Config()
    store = Store(tmp, TREKKING)
    new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=seed, mock=True)
    store.close()
    rt = build_runtime(config, tmp, mock=True, pin="0000", say=lambda _: None)
    rng = random.Random(seed)
    while sum(isinstance(e, Take) for e in rt.table.stored) < takes and not rt.table.board.finished:
        expect = rt.table.expect()
        assert expect is not None
        rt.tap(rng.choice(expect["choices"]))
        if rt.table.pending is not None:
            rt.table.press("confirm")
        if expect["kind"] == "take" and rng.random() < undo:
            rt.table.undo()
    return rt


def measure(takes: int, undo: float, repeat: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        rt = played(Path(tmp), takes, undo, seed)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            rt.table.page_json()
            times.append(time.perf_counter() - start)
        stored = rt.table.stored
        result = {
            "events_stored": len(stored),
            "takes_stored": sum(isinstance(e, Take) for e in stored),
            "moves_in_effect": len(rt.table.board.moves),
            "page_json_p50_ms": round(statistics.median(times) * 1000, 2),
            "page_json_p90_ms": round(sorted(times)[int(0.9 * len(times))] * 1000, 2),
        }
        rt.stop()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--takes", type=int, default=100)
    parser.add_argument("--undo", type=float, default=0.6, help="share of takes undone")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.takes, args.undo, args.repeat, args.seed)
    print(json.dumps(result) if args.json else "\n".join(f"{k:20} {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
