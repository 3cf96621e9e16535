"""Tap -> live update on every phone: latency to N connected Server-Sent Events clients.

Run: ``.venv/bin/python benchmarks/bench_sse.py [--clients 20] [--taps 60]``

A mock table is served by waitress on loopback; N clients hold ``/api/events``
open. Each measured tap (``POST /api/reader/tap`` with the PIN) is timed from
just before the request to the moment each client has read the snapshot that
carries the new version. Prints p50/p99/max over every (tap, client) pair.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.config import ButtonSettings, Config, TableSettings
from companion.game_setup import new_game
from companion.record import TREKKING
from companion.serving import make_server
from companion.startup import build_runtime
from companion.store import Store


def reader(
    port: int, arrivals: dict[int, list[float]], ready: threading.Barrier, stop: threading.Event, address: str
) -> None:
    # each page from its own loopback address, as phones are (the server caps pages per address)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    ready.wait()
    buffer = b""
    while not stop.is_set():
        chunk = response.read1(65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n\n" in buffer:
            message, buffer = buffer.split(b"\n\n", 1)
            for line in message.split(b"\n"):
                if line.startswith(b"data: "):
                    version = json.loads(line[6:])["version"]
                    arrivals.setdefault(version, []).append(time.perf_counter())
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument(
        "--gap", type=float, default=0.1,
        help="seconds between one step's last change and the next tap (pages are paced to one "
        "snapshot per 40 ms, so a gap below that measures the pacing, not the delivery)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        config = Config(
            buttons=ButtonSettings(bounce=0.0, undo_hold=0.1),
            table=TableSettings(live_pages=max(64, args.clients)),
        )
        store = Store(tmp, TREKKING)
        new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=2, mock=True)
        store.close()
        rt = build_runtime(config, Path(tmp), mock=True, pin="1111", say=lambda _: None)
        server = make_server(rt, "127.0.0.1", 0, threads=args.clients + 8, heartbeat=5.0)
        port = server.socket.getsockname()[1]
        threading.Thread(target=server.run, daemon=True).start()
        arrivals: dict[int, list[float]] = {}
        ready = threading.Barrier(args.clients + 1)
        stop = threading.Event()
        for k in range(args.clients):
            address = f"127.0.{k // 250 + 8}.{k % 250 + 1}"
            threading.Thread(target=reader, args=(port, arrivals, ready, stop, address), daemon=True).start()
        ready.wait()
        time.sleep(0.3)
        rng = random.Random(1)
        latencies: list[float] = []
        for _ in range(args.taps):
            expect = rt.table.expect()
            if expect is None:
                break
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            body = json.dumps({"tag": rng.choice(expect["choices"])})
            start = time.perf_counter()
            conn.request(
                "POST", "/api/reader/tap", body, {"Content-Type": "application/json", "X-Table-Pin": "1111"}
            )
            state = json.loads(conn.getresponse().read())["state"]
            conn.close()
            version = state["version"]
            deadline = time.monotonic() + 5
            while len(arrivals.get(version, [])) < args.clients and time.monotonic() < deadline:
                time.sleep(0.0005)
            got = arrivals.get(version, [])
            if len(got) < args.clients:
                print(f"version {version}: only {len(got)} of {args.clients} clients were told")
            latencies += [t - start for t in got]
            if rt.table.pending is not None:
                rt.table.press("confirm")
            time.sleep(args.gap)
        stop.set()
        server.close()
        rt.stop()
    ordered = sorted(latencies)
    result = {
        "clients": args.clients,
        "gap_s": args.gap,
        "deliveries": len(latencies),
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k:12} {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
