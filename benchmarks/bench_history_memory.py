"""The daemon's memory after serving the history page, with and without ``MALLOC_ARENA_MAX=2``.

Run: ``.venv/bin/python -m benchmarks.bench_history_memory [--games 500] [--requests 100]
[--clients 4] [--rounds 2] [--port-range 18700-18799] [--json]``

A data directory is filled with ``--games`` finished games (`bench_history.fill`), then
``companion run --mock`` is started on it in its own process and ``GET /api/history`` is
asked ``--requests`` times by ``--clients`` clients at once (phones opening the page
together, so the server's threads share the work). Printed: the daemon's resident memory
(VmRSS) at its first answer and after the requests, once with glibc's default arenas and
once with ``MALLOC_ARENA_MAX=2`` (what systemd/trekking-companion.service sets), the two
alternated ``--rounds`` times (medians).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from benchmarks.bench_history import fill
from benchmarks.medians import medians, print_rows
from companion.records.trekking import TREKKING
from companion.store.log import Store
from tests.support.daemon import port_from, request, rss_mb, start_daemon, stop_daemon


def measure(
    games_dir: Path, arenas: str | None, requests: int, clients: int, port_range: str
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(games_dir, data)
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
        if arenas is not None:
            env["MALLOC_ARENA_MAX"] = arenas
        port = port_from(port_range)
        daemon = start_daemon(None, port, data, pages=0, env=env)  # the table's own cap on live pages
        try:
            start = rss_mb(daemon.pid)
            left = list(range(requests))
            lock = threading.Lock()

            def client() -> None:
                while True:
                    with lock:
                        if not left:
                            return
                        left.pop()
                    request(port, "GET", "/api/history")

            threads = [threading.Thread(target=client) for _ in range(clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            after = rss_mb(daemon.pid)
            threads_now = len(os.listdir(f"/proc/{daemon.pid}/task"))
        finally:
            stop_daemon(daemon)
    return {"rss_first_answer_mb": start, "rss_after_mb": after, "threads": threads_now}


def main() -> int:
    from benchmarks.medians import options

    parser = options(__doc__, games=500, requests=100, clients=4, rounds=2, port_range="18700-18799")
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"glibc default": [], "MALLOC_ARENA_MAX=2": []}
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games"
        store = Store(games, TREKKING)
        fill(store, args.games, seed=1)
        store.close()
        for _ in range(args.rounds):
            runs["glibc default"].append(measure(games, None, args.requests, args.clients, args.port_range))
            runs["MALLOC_ARENA_MAX=2"].append(
                measure(games, "2", args.requests, args.clients, args.port_range)
            )
    rows: list[dict[str, Any]] = [
        {"malloc": name, "games": args.games, "requests": args.requests, "clients": args.clients,
         **medians(results, 1)}
        for name, results in runs.items()
    ]  # fmt: skip
    print_rows(rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
