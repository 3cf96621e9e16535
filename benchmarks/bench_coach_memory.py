"""The coach's memory: the daemon and its workers (PSS and RSS from /proc/PID/smaps_rollup).

Run: ``.venv/bin/python -m benchmarks.bench_coach_memory [--workers 3]``

1. ``companion run --mock`` on a 3-player game, its process tree read with the coach off,
   on for everyone (a teaching game: it answers unasked, so its workers start and work),
   and off again. The daemon sizes its own pool (`companion.coach.chances.pool_size`: cores and
   MemAvailable), so on this machine it may start fewer workers than a Pi's 3.
2. A `companion.coach.chances.CoachPool` of ``--workers`` started from this script and asked once:
   each worker's PSS, which is what a Pi's pool of that size adds to the daemon.

PSS shares each page among the processes that map it, so the figures add up to what the
tree really costs (RSS counts shared pages once per process). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.daemon import call, new_and_start
from tests.support.processes import Memory, descendants, memory, tree_memory

CONFIG = '[table]\nhost = "127.0.0.1"\n'


def mb(kb: int) -> float:
    return round(kb / 1024, 1)


def settle(pid: int, want: int, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and (len(descendants(pid)) > 0) != (want > 0):
        time.sleep(0.05)


def figures(pid: int) -> dict[str, Any]:
    total, count = tree_memory(pid)
    own = memory(pid)
    return {
        "processes below the daemon": count,
        "daemon PSS / RSS MB": f"{mb(own.pss)} / {mb(own.rss)}",
        "tree PSS / RSS MB": f"{mb(total.pss)} / {mb(total.rss)}",
    }


def daemon_tree() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data, config = Path(tmp) / "data", Path(tmp) / "config.toml"
        config.write_text(CONFIG)
        port, daemon = new_and_start(data, config, "Ann,Ben,Cy")
        try:
            time.sleep(1.0)
            results["coach off (start)"] = figures(daemon.pid)
            call(port, "/api/coach", {"on": True, "everyone": True})
            end = time.monotonic() + 60
            while time.monotonic() < end:  # its first answer: the workers have started and worked
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/coach", timeout=10) as r:
                        answer = json.loads(r.read())
                except urllib.error.URLError:
                    answer = {}
                if answer.get("coach", {}).get("status") == "ready":
                    break
                time.sleep(0.2)
            time.sleep(1.0)  # a second answer's worth of work
            results["coach on (for everyone, answered)"] = figures(daemon.pid)
            call(port, "/api/coach", {"on": False})
            settle(daemon.pid, 0)
            results["coach off again"] = figures(daemon.pid)
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    return results


def pool_of(workers: int) -> dict[str, Any]:
    from companion.coach.chances import CoachPool
    from companion.coach.simulate import random_setup
    from companion.editions import load_edition
    from companion.engine import Board

    edition = load_edition("reference")
    board = Board(random_setup(edition, ["Ann", "Ben", "Cy"], random.Random(1)))
    pool = CoachPool(edition, workers)
    try:
        pool.evaluate(board, 60, 0.8, seed=1)
        each = [memory(p.pid) for p in pool.procs]
    finally:
        pool.release()
    total = sum(each, Memory())
    return {
        "workers": workers,
        "each worker PSS MB": [mb(m.pss) for m in each],
        "each worker RSS MB": [mb(m.rss) for m in each],
        "pool PSS / RSS MB": f"{mb(total.pss)} / {mb(total.rss)}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=3, help="the pool measured on its own (a Pi's 3)")
    args = parser.parse_args()
    results = {"daemon": daemon_tree(), "pool": pool_of(args.workers)}
    for name, block in results["daemon"].items():
        print(f"--- {name}")
        for key, value in block.items():
            print(f"  {key:<30} {value}")
    print(f"--- a pool of {args.workers} started from this script, after one answer")
    for key, value in results["pool"].items():
        print(f"  {key:<30} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
