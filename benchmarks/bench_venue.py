"""What a venue absorbs, and what ``[venue]`` costs a table (issue 23 item 6). A benchmark, not a test.

Run: ``.venv/bin/python -m benchmarks.bench_venue [--tables 10 50] [--games 3] [--json]``

1. **Absorb**: N mock tables (in one process, each on its own thread, tapping the first card
   the table expects as fast as the simulator allows, every take committed with
   ``synchronous=FULL``) publish one whole game each to a real Mosquitto (started here on a
   loopback port) and one hall stores them all. Figures: events per second from the first
   commit to the hall storing the last event, and the hall's lag from each commit (the stream
   telling it) to the hall having stored it, p50/p99.
2. **Cost**: one table plays ``--games`` whole games in a child process with ``[venue]`` off,
   then on (the broker running, nobody following): the child's CPU seconds and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion.records.trekking import TREKKING
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.table.stream import Committed, StreamItem
from companion.util.config import Config, TableSettings, VenueSettings

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def broker(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 1000000\n"
                      f"max_inflight_messages 100\n")  # fmt: skip
    proc = subprocess.Popen([MOSQUITTO, "-c", str(config)], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return proc, f"mqtt://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("mosquitto did not start")


def table(folder: Path, url: str, name: str, seed: int) -> Runtime:
    venue = VenueSettings(broker=url, table=name) if url else VenueSettings()
    config = Config(table=TableSettings(turn="confirm"), venue=venue)
    store = Store(folder, TREKKING)
    new_game(store, ["Ann", "Ben", "Cy"], config, seed=seed, mock=True)
    store.close()
    return build_runtime(config, folder, mock=True, pin="2468", say=lambda _: None)


def play(rt: Runtime) -> int:
    """One whole game, the first expected card each time; returns the taps."""
    taps = 0
    while (expect := rt.table.expect()) is not None:
        rt.table.tap(expect["choices"][0])
        if rt.table.pending is not None:
            rt.table.press("confirm")
        taps += 1
    return taps


def absorb(tables: int, work: Path) -> dict[str, Any]:
    from companion.venue.hall import Hall

    proc, url = broker(work / "broker")
    committed: dict[tuple[str, int, int], float] = {}
    stored: dict[tuple[str, int, int], float] = {}
    hall = Hall(work / "hall", log=lambda _: None)
    hall.on_stored = lambda t, g, s: stored.__setitem__((t, g, s), time.monotonic())
    hall.connect(VenueSettings(broker=url), client_id="bench-hall")
    runtimes = [table(work / f"t{i}", url, f"t{i}", seed=i) for i in range(tables)]
    try:
        for rt in runtimes:
            name = rt.session.stream.table

            def seen(item: StreamItem, name: str = name) -> None:
                if isinstance(item, Committed):
                    committed[(name, item.game, item.seq)] = time.monotonic()

            rt.session.subscribe(seen, name="bench")
            rt.venue.start()
        deadline = time.monotonic() + 60
        while not all(rt.venue.reach.connected for rt in runtimes) and time.monotonic() < deadline:
            time.sleep(0.05)
        start = time.monotonic()
        threads = [threading.Thread(target=play, args=(rt,)) for rt in runtimes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        total = sum(len(rt.store.load(rt.table.game_id).rows) for rt in runtimes)
        deadline = time.monotonic() + 600
        while len(stored) < total and time.monotonic() < deadline:
            time.sleep(0.05)
        end = max(stored.values()) if stored else time.monotonic()
        lags = [(stored[k] - committed[k]) * 1000 for k in stored if k in committed]
        rate = round(len(stored) / (end - start), 1)
        p50, p99 = round(percentile(lags, 0.5), 1), round(percentile(lags, 0.99), 1)
        return {"tables": tables, "events": total, "stored": len(stored), "events_per_s": rate,
                "lag_p50_ms": p50, "lag_p99_ms": p99}  # fmt: skip
    finally:
        for rt in runtimes:
            rt.stop()
        hall.stop()
        proc.terminate()
        proc.wait(20)


def cost_child(folder: str, url: str, games: int) -> None:
    """In a child process: play ``games`` games; print CPU seconds and peak RSS (MB)."""
    rt = table(Path(folder), url, "cost", seed=1)
    if rt.venue is not None:
        rt.venue.start()
    begin = time.process_time()
    for number in range(games):
        if number:
            rt.start_game(["Ann", "Ben", "Cy"], None, "reference", number + 1)
        play(rt)
    if rt.venue is not None:
        rt.venue.wait_delivered(120)
    cpu = time.process_time() - begin
    rt.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"cpu_s": round(cpu, 2), "peak_rss_mb": round(peak, 1)}))


def cost(games: int, work: Path) -> dict[str, Any]:
    proc, url = broker(work / "cost-broker")
    try:
        figures = {}
        for label, address in (("off", ""), ("on", url)):
            out = subprocess.run([sys.executable, __file__, "--child", str(work / f"cost-{label}"), address,
                                  str(games)], capture_output=True, text=True, check=True)  # fmt: skip
            figures[label] = json.loads(out.stdout.strip().splitlines()[-1])
        return figures
    finally:
        proc.terminate()
        proc.wait(20)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        cost_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--games", type=int, default=3, help="games for the cost of [venue] on one table")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {"absorb": [], "cost": None}
    with tempfile.TemporaryDirectory() as folder:
        for n in args.tables:
            results["absorb"].append(absorb(n, Path(folder) / f"absorb-{n}"))
        results["cost"] = cost(args.games, Path(folder))
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print("tables  events  stored  events/s  hall lag p50 ms  p99 ms")
    for row in results["absorb"]:
        print(f"{row['tables']:>6}  {row['events']:>6}  {row['stored']:>6}  {row['events_per_s']:>8}  "
              f"{row['lag_p50_ms']:>15}  {row['lag_p99_ms']:>6}")  # fmt: skip
    off, on = results["cost"]["off"], results["cost"]["on"]
    print(f"one table, {args.games} games: CPU {off['cpu_s']} s without [venue], {on['cpu_s']} s with; "
          f"peak RSS {off['peak_rss_mb']} MB without, {on['peak_rss_mb']} MB with")  # fmt: skip


if __name__ == "__main__":
    main()
