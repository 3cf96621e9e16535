"""The table's responsiveness and idle cost, through the whole mocked pipeline.

Run: ``.venv/bin/python -m benchmarks.bench_table [--games N] [--idle SECONDS]``

- tap -> ring frame: a tag reaches the reader loop's callback, is resolved, refereed,
  appended to SQLite (WAL, synchronous=FULL: an fsync per event) and a new ring
  frame is rendered and shown on the simulated ring. Confirm -> frame likewise.
  Reported as p50/p99 in milliseconds over whole games.
  ``--coach``: the same with the host's coach on for everyone (its workers answering after
  every change, the taps back to back: its worst case), to show a take is no slower.
- idle CPU: the reader loop polling an empty reader at the configured interval,
  alone, and with the ring animating at its frame rate (what a Pi does between turns).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.hardware.reader import ReaderLoop, TagDebouncer
from companion.records.trekking import TREKKING
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency(games: int, seed: int, coach: bool = False) -> dict[str, float | None]:
    taps: list[float] = []
    stored: list[float] = []  # taps that appended an event (an fsync) before the frame
    confirms: list[float] = []
    rng = random.Random(seed)
    for g in range(games):
        with tempfile.TemporaryDirectory() as tmp:
            config = Config()
            store = Store(tmp, TREKKING)
            new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=seed + g, mock=True)
            store.close()
            rt = build_runtime(config, Path(tmp), mock=True, pin="0000", say=lambda _: None)
            if coach:
                rt.coach.switch(True, everyone=True)  # answering after every tap, unasked
                time.sleep(5.0)  # its worker processes start (not part of any take)
            while not rt.table.board.finished:
                expect = rt.table.expect()
                assert expect is not None
                events = rt.table.seq
                start = time.perf_counter()
                rt.tap(rng.choice(expect["choices"]))
                rt.driver.draw()
                taps.append(time.perf_counter() - start)
                if rt.table.seq != events:
                    stored.append(taps[-1])
                if rt.table.pending is not None:
                    start = time.perf_counter()
                    rt.table.press("confirm")  # the pin's own debounce is finger time, not ours
                    rt.driver.draw()
                    confirms.append(time.perf_counter() - start)
            rt.stop()
    return {
        "taps": len(taps),
        "tap_to_frame_p50_ms": _ms(taps, 0.5),
        "tap_to_frame_p99_ms": _ms(taps, 0.99),
        "stored_tap_to_frame_p50_ms": _ms(stored, 0.5),
        "stored_tap_to_frame_p99_ms": _ms(stored, 0.99),
        # the quick turn (the default) commits on the tap: no Confirm to time then
        "confirm_to_frame_p50_ms": _ms(confirms, 0.5),
        "confirm_to_frame_p99_ms": _ms(confirms, 0.99),
    }


def _ms(values: list[float], q: float) -> float | None:
    """A percentile in milliseconds (the median for 0.5), None when nothing was timed."""
    if not values:
        return None
    return round((statistics.median(values) if q == 0.5 else percentile(values, q)) * 1000, 2)


def idle_cpu(seconds: float, with_ring: bool) -> float:
    """Percent of one core used while nothing happens at the table."""
    config = Config()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(tmp, TREKKING)
        new_game(store, ["Ann", "Ben"], config, seed=1, mock=True)
        store.close()
        rt = build_runtime(config, Path(tmp), mock=True, pin="0000", say=lambda _: None)
        loop = ReaderLoop(lambda: None, lambda uid: None, config.reader.poll_interval,
                          TagDebouncer(config.reader.debounce))  # fmt: skip
        threads = [threading.Thread(target=loop.run, daemon=True)]
        if with_ring:
            threads.append(threading.Thread(target=rt.driver.run, daemon=True))
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(seconds)
        loop.stop()
        rt.driver.stop()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        for t in threads:
            t.join(2)
        rt.stop()
    return round(100 * cpu / wall, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle to measure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--coach", action="store_true", help="with the host's coach on")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    timed = latency(args.games, args.seed, args.coach)
    result: dict[str, float | bool | None] = {"coach": args.coach, **timed}
    result["idle_cpu_reader_loop_percent"] = idle_cpu(args.idle, with_ring=False)
    result["idle_cpu_reader_and_ring_percent"] = idle_cpu(args.idle, with_ring=True)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:36} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
