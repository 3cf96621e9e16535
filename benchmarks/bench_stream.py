"""What the committed stream costs a tap, and how soon a hook hears of it.

Run: ``.venv/bin/python -m benchmarks.bench_stream [--games N] [--json]``

Whole mock games (two players, the dealer revealing, every take committed with
``synchronous=FULL`` to a temporary folder) are played by tapping the first card the
table expects, three times:

- no hook (the stream stages and drops: what every table pays);
- one recording hook (what a venue's outbox adds);
- one hook that takes 20 ms per item (a slow broker client): the taps must not slow down.

For each: the time of a tap (call to return) p50/p99, and the lag from the start of a
tap to its last event reaching the hook p50/p99 (the hook runs on its own thread).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table import Table
from companion.table.game_setup import new_game
from companion.table.session import Session
from companion.table.stream import Committed, StreamItem
from companion.util.config import Config


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(games: int, hook: str) -> dict[str, Any]:
    taps: list[float] = []
    lags: list[float] = []
    told = 0
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder), TREKKING)
        for seed in range(games):
            game = new_game(store, ["Ann", "Ben"], Config(), seed=seed, mock=True)
            table = Table(store, store.load(game), log=lambda _: None, turn="quick")
            session = Session(store, table, lambda *_: 0, turn="quick", table_id="bench")
            heard: dict[int, float] = {}

            def record(item: StreamItem, heard: dict[int, float] = heard) -> None:
                if isinstance(item, Committed):
                    heard[item.seq] = time.perf_counter()

            def slow(item: StreamItem, record: Callable[[StreamItem], None] = record) -> None:
                time.sleep(0.02)
                record(item)

            subscription = None
            if hook != "none":
                subscription = session.subscribe(record if hook == "recording" else slow)
            started: dict[int, float] = {}
            while (expect := table.expect()) is not None:
                begin = time.perf_counter()
                table.tap(expect["choices"][0])
                taps.append(time.perf_counter() - begin)
                started[table.seq] = begin
            if subscription is not None:
                assert subscription.wait_idle(600)
                lags += [heard[seq] - begin for seq, begin in started.items() if seq in heard]
                told += len(heard)
            session.stream.close()
        store.close()
    return {
        "hook": hook,
        "taps": len(taps),
        "events_told": told,
        "tap_ms_p50": round(1000 * statistics.median(taps), 2),
        "tap_ms_p99": round(1000 * percentile(taps, 0.99), 2),
        "lag_ms_p50": round(1000 * statistics.median(lags), 2) if lags else None,
        "lag_ms_p99": round(1000 * percentile(lags, 0.99), 2) if lags else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [run(args.games, hook) for hook in ("none", "recording", "slow")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'hook':<10} {'taps':>5} {'told':>5} {'tap p50':>8} {'tap p99':>8} {'lag p50':>8} {'lag p99':>9}")
    for r in rows:
        lag50 = "-" if r["lag_ms_p50"] is None else f"{r['lag_ms_p50']:.2f}"
        lag99 = "-" if r["lag_ms_p99"] is None else f"{r['lag_ms_p99']:.2f}"
        print(f"{r['hook']:<10} {r['taps']:>5} {r['events_told']:>5} {r['tap_ms_p50']:>8.2f} "
              f"{r['tap_ms_p99']:>8.2f} {lag50:>8} {lag99:>9}  (ms)")  # fmt: skip


if __name__ == "__main__":
    main()
