"""Server CPU per step of a mocked game, with and without live pages (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_step [--pages 0,20] [--steps 150] [--rounds 3]
[--port-range 18600-18699] [--tree DIR ...] [--json]``

A step is what one move costs the table: the tap (``POST /api/reader/tap``, and Confirm
when the table asks for it), then the page's ``GET /api/state?page=1``, then every live
page reading the snapshot that carries the step's version. The daemon is
``companion run --mock`` in its own process; the live pages are held by another process
(one per run, each page from its own loopback address, as phones are), so neither the
driver nor the pages spend the server's CPU. Printed per tree and page count: the
daemon's CPU time per step (user + system, from ``/proc/<pid>/stat``, which unlike wall
time does not move with a shared machine's load) beside the wall time per step, the
daemon's idle CPU rate (measured over ``--idle`` seconds with nothing asked: the mock
ring's animation, the streams' heartbeats) and the net CPU of a step (the idle rate
over the step's wall time taken off: on a loaded machine a step's wall time grows, and
with it the idle work counted in it).

``--tree`` runs the daemon from another checkout's source (``PYTHONPATH``), so two
versions of the code are measured in the same run: every round goes through each tree
and page count in turn (A/B alternated), and the medians over rounds are printed.
Ports come from ``--port-range``: the first one free is taken for each daemon.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PIN = "2468"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """The process's user and system CPU time so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def port_from(spec: str) -> int:
    """The first port of ``spec`` ("lo-hi") that nobody listens on."""
    lo, hi = (int(p) for p in spec.split("-"))
    for port in range(lo, hi + 1):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"bench_step: no free port in {spec}; give another --port-range")


def request(port: int, method: str, path: str, body: Any = None) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"X-Table-Pin": PIN}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body), "application/json"
        conn.request(method, path, data, headers)
        response = conn.getresponse()
        answer = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path} answered {response.status}: {answer[:300]!r}")
        return json.loads(answer)
    finally:
        conn.close()


# --- the pages' process ---------------------------------------------------------------------


def pages_child(port: int, count: int) -> int:
    """Hold ``count`` live pages; after each line on stdin (a version), answer "ok" on stdout
    once every page has read a snapshot of at least that version."""
    streams: dict[socket.socket, bytes] = {}
    seen: dict[socket.socket, int] = {}
    selector = selectors.DefaultSelector()
    for k in range(count):
        address = f"127.0.{9 + k // 250}.{k % 250 + 1}"
        stream = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(address, 0))
        stream.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        stream.setblocking(False)
        streams[stream], seen[stream] = b"", -1
        selector.register(stream, selectors.EVENT_READ)

    def pump(timeout: float) -> None:
        for key, _ in selector.select(timeout):
            stream = key.fileobj
            assert isinstance(stream, socket.socket)
            chunk = stream.recv(1 << 20)
            if not chunk:
                raise SystemExit("bench_step pages: a live stream closed")
            buffer = streams[stream] + chunk
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                for line in message.split(b"\n"):
                    if line.startswith(b"data: "):
                        seen[stream] = max(seen[stream], json.loads(line[6:])["version"])
            streams[stream] = buffer

    while min(seen.values(), default=0) < 0:
        pump(1.0)
    print("ready", flush=True)
    for line in sys.stdin:
        version = int(line)
        while min(seen.values(), default=version) < version:
            pump(1.0)
        print("ok", flush=True)
    return 0


# --- the driver -----------------------------------------------------------------------------


def start_daemon(tree: Path | None, port: int, data: Path, pages: int = 200) -> subprocess.Popen[bytes]:
    """``companion run --mock`` on ``data``, answering; ``pages``: the live pages' cap (each
    is a server thread, so the default of the table's settings for a memory figure)."""
    config = data.parent / "config.toml"
    cap = f"live_pages = {pages}\n" if pages else ""
    config.write_text(f'[table]\nhost = "127.0.0.1"\n{cap}controls_per_minute = 100000\n')
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    command = [sys.executable, "-m", "companion", "run", "--mock", "--data-dir", str(data),
               "--config", str(config), "--port", str(port), "--pin", PIN]  # fmt: skip
    # run from the data's directory: ``-m`` puts the working directory first on the path
    proc = subprocess.Popen(command, env=env, cwd=data.parent, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    while True:
        try:
            request(port, "GET", "/api/state")
            return proc
        except (OSError, http.client.HTTPException):
            if proc.poll() is not None:
                raise SystemExit(proc.stderr.read().decode() if proc.stderr else "exited") from None
            time.sleep(0.02)


def step(port: int, seed: list[int], state: dict[str, Any]) -> dict[str, Any]:
    """One move (a new game when the last one ended), as the page makes it: the table's
    answer, then the page's ``GET /api/state?page=1`` (which is returned)."""
    expect = state["expect"]
    if expect is None:
        seed[0] += 1
        body = {"players": ["Ann", "Ben", "Cy", "Dee"], "seed": seed[0]}
        request(port, "POST", "/api/game/new", body)
    else:
        choices = expect["choices"]
        tag = str(choices[seed[0] % len(choices)])
        answer = request(port, "POST", "/api/reader/tap", {"tag": tag})["state"]
        seed[0] = (seed[0] * 1103515245 + 12345) % 2**31
        if answer["pending"] is not None:
            request(port, "POST", "/api/buttons/confirm", {})
    page: dict[str, Any] = request(port, "GET", "/api/state?page=1")
    return page


def measure(tree: Path | None, pages: int, steps: int, port_range: str, idle: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        port = port_from(port_range)
        daemon = start_daemon(tree, port, Path(tmp) / "data")
        child = None
        try:
            if pages:
                child = subprocess.Popen(
                    [sys.executable, __file__, "--pages-child", str(pages), "--port", str(port)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                )  # fmt: skip
                assert child.stdout is not None and child.stdin is not None
                if child.stdout.readline().strip() != "ready":
                    raise SystemExit("bench_step: the pages did not connect")
            seed, state = [1], request(port, "GET", "/api/state")
            for _ in range(10):  # warm: the first answers import and build what later ones reuse
                state = step(port, seed, state)
            # the daemon's own pace with nothing asked (the ring's animation, the streams'
            # heartbeats): a step's wall time costs this much besides the step itself
            idle0, idle_wall0 = cpu_seconds(daemon.pid), time.perf_counter()
            time.sleep(idle)
            idle1, idle_wall = cpu_seconds(daemon.pid), time.perf_counter() - idle_wall0
            idle_rate = (sum(idle1) - sum(idle0)) / idle_wall
            cpu0, wall0 = cpu_seconds(daemon.pid), time.perf_counter()
            for _ in range(steps):
                state = step(port, seed, state)
                if child is not None:
                    assert child.stdin is not None and child.stdout is not None
                    child.stdin.write(f"{state['version']}\n")
                    child.stdin.flush()
                    if child.stdout.readline().strip() != "ok":
                        raise SystemExit("bench_step: the pages stopped")
            (user1, system1), wall = cpu_seconds(daemon.pid), time.perf_counter() - wall0
            user, system = user1 - cpu0[0], system1 - cpu0[1]
        finally:
            if child is not None:
                child.kill()
                child.wait()
            daemon.terminate()
            daemon.wait(timeout=30)
    return {
        "cpu_ms_per_step": 1000 * (user + system) / steps,
        # what the step itself cost: the idle pace over the step's wall time taken off
        "net_cpu_ms_per_step": 1000 * (user + system - idle_rate * wall) / steps,
        "idle_cpu_ms_per_s": 1000 * idle_rate,
        "user_ms": 1000 * user / steps,
        "system_ms": 1000 * system / steps,
        "wall_ms_per_step": 1000 * wall / steps,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="0,20", help="live page counts, comma separated")
    parser.add_argument("--steps", type=int, default=150, help="measured steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every (tree, pages) run")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds the idle pace is measured over")
    parser.add_argument("--port-range", default="18600-18699", help="ports to choose from, lo-hi")
    parser.add_argument("--tree", action="append", help="a checkout to run the daemon from (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pages-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pages_child is not None:
        return pages_child(args.port, args.pages_child)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    counts = [int(p) for p in args.pages.split(",")]
    runs: dict[tuple[str, int], list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            for pages in counts:
                key = (str(tree or "installed"), pages)
                runs.setdefault(key, []).append(measure(tree, pages, args.steps, args.port_range, args.idle))
    rows = [
        {"tree": tree, "pages": pages, "steps": args.steps, "rounds": len(results),
         **{k: round(statistics.median(r[k] for r in results), 2) for k in results[0]}}
        for (tree, pages), results in runs.items()
    ]  # fmt: skip
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print("  ".join(f"{k}={v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
