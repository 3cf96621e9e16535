"""Tap -> live update on every phone: latency to N connected Server-Sent Events clients.

Run: ``.venv/bin/python -m benchmarks.bench_sse [--clients 20] [--taps 60] [--port-range 18800-18899]``

A mock table is served by waitress on loopback; N clients hold ``/api/events``
open, in a process of their own (so reading them costs the server nothing), each
from its own loopback address. Each measured tap (``POST /api/reader/tap`` with the
PIN) is timed from just before the request to the moment each client has read the
snapshot that carries the new version (both processes read the same monotonic clock).
Prints p50/p95/p99/max over every (tap, client) pair, and this process's CPU time per tap
(the server's and the tapping driver's; wall latencies move with a shared machine's load,
CPU time much less). `bench_step.py` measures the server alone.
The port is the first free one of ``--port-range``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from companion.records.trekking import TREKKING
from companion.run.serving import make_server
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import ButtonSettings, Config, TableSettings
from tests.support.daemon import port_from


def readers_child(port: int, count: int) -> int:
    """Hold ``count`` live pages; print "<version> <perf_counter>" as each page reads a snapshot."""
    selector = selectors.DefaultSelector()
    buffers: dict[socket.socket, bytes] = {}
    for k in range(count):
        # each page from its own loopback address, as phones are (the server caps pages per address)
        address = f"127.0.{k // 250 + 8}.{k % 250 + 1}"
        stream = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(address, 0))
        stream.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        stream.setblocking(False)
        buffers[stream] = b""
        selector.register(stream, selectors.EVENT_READ)
    print("ready", flush=True)
    while True:
        for key, _ in selector.select(1.0):
            page = key.fileobj
            assert isinstance(page, socket.socket)
            chunk = page.recv(1 << 20)
            if not chunk:
                return 0
            now = time.perf_counter()
            buffer = buffers[page] + chunk
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                for line in message.split(b"\n"):
                    if line.startswith(b"data: "):
                        print(json.loads(line[6:])["version"], now, flush=True)
            buffers[page] = buffer


def collect(lines: IO[str], arrivals: dict[int, list[float]]) -> None:
    for line in lines:
        version, at = line.split()
        arrivals.setdefault(int(version), []).append(float(at))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument(
        "--gap", type=float, default=0.1,
        help="seconds between one step's last change and the next tap (pages are paced to one "
        "snapshot per 40 ms, so a gap below that measures the pacing, not the delivery)",
    )  # fmt: skip
    parser.add_argument("--port-range", default="18800-18899", help="ports to choose from, lo-hi")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--readers-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.readers_child is not None:
        return readers_child(args.port, args.readers_child)

    with tempfile.TemporaryDirectory() as tmp:
        config = Config(
            buttons=ButtonSettings(bounce=0.0, undo_hold=0.1),
            table=TableSettings(live_pages=max(64, args.clients)),
        )
        store = Store(tmp, TREKKING)
        new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=2, mock=True)
        store.close()
        rt = build_runtime(config, Path(tmp), mock=True, pin="1111", say=lambda _: None)
        port = port_from(args.port_range)
        server = make_server(rt, "127.0.0.1", port, threads=args.clients + 8, heartbeat=5.0)
        threading.Thread(target=server.run, daemon=True).start()
        arrivals: dict[int, list[float]] = {}
        child = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bench_sse", "--readers-child", str(args.clients),
             "--port", str(port)],
            stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1],
        )  # fmt: skip
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise SystemExit("bench_sse: the clients did not connect")
        threading.Thread(target=collect, args=(child.stdout, arrivals), daemon=True).start()
        # every client has its first snapshot before the first tap
        deadline = time.monotonic() + 10
        while len(arrivals.get(rt.table.version, [])) < args.clients and time.monotonic() < deadline:
            time.sleep(0.005)
        rng = random.Random(1)
        latencies: list[float] = []
        cpu_start = time.process_time()  # this process is the server's, the clients are not in it
        taps = 0
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
            taps += 1
            if rt.table.pending is not None:
                rt.table.press("confirm")
            time.sleep(args.gap)
        cpu = time.process_time() - cpu_start
        child.kill()
        child.wait()
        server.close()
        rt.stop()
    ordered = sorted(latencies)
    result = {
        "clients": args.clients,
        "gap_s": args.gap,
        "deliveries": len(latencies),
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
        # the server's and the tapping driver's (one process); the clients' is not in it
        "process_cpu_ms_per_tap": round(1000 * cpu / max(taps, 1), 2),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k:12} {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
