"""Server CPU per step of a mocked game, with and without live pages (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_step [--pages 0,20] [--steps 150] [--rounds 3]
[--port-range 18600-18699] [--tree DIR ...] [--json]``

A step is what one move costs the table: the tap (``POST /api/reader/tap``, and Confirm
when the table asks for it, or ``POST /api/game/new`` when the last game ended), then the
page's ``GET /api/state?page=1``, then every live page reading the snapshot that carries
the step's version. Two figures per step are printed: ``cpu_ms_per_step`` is every step as
driven (ours), ``tap_get_cpu_ms`` is issue 26's step, a tap and the page's GET (with the
live pages' copies): the new games and Confirms are timed apart (each thread's CPU time
from ``schedstat``, to the nanosecond, the pages' copies of their change included) and
taken off. With the quick turn (the table's default) a take is one tap: no Confirm. The daemon is
``companion run --mock`` in its own process; the live pages are held by another process
(one per run, each page from its own loopback address, as phones are), so neither the
driver nor the pages spend the server's CPU. Printed per tree and page count: the
daemon's CPU time per step (user + system, from ``/proc/<pid>/stat``, which unlike wall
time does not move with a shared machine's load) beside the wall time per step, the
daemon's idle CPU rate (measured over ``--idle`` seconds with nothing asked: the mock
ring's animation, the streams' heartbeats), its threads and resident memory with the pages
open, and the net CPU of a step (the idle rate
over the step's wall time taken off: on a loaded machine a step's wall time grows, and
with it the idle work counted in it).

``--tree`` runs the daemon from another checkout's source (``PYTHONPATH``), so two
versions of the code are measured in the same run: every round goes through each tree
and page count in turn (A/B alternated), and the medians over rounds are printed.
Ports come from ``--port-range``: the first one free is taken for each daemon.

``--connections``: ``new`` (the default, issue 26's measure) opens a connection per request;
``keep`` asks every request on one kept-alive connection, as a phone's browser does (the
tap and the page's read come from the same page); ``new,keep`` runs both in each round.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.medians import medians, print_rows
from tests.support.daemon import (
    KeptConnection,
    cpu_seconds,
    port_from,
    request,
    rss_mb,
    start_daemon,
    stop_daemon,
    thread_count,
    threads_cpu_seconds,
)

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


class LivePages:
    """``count`` live pages held by their own process (`pages_child`), so that neither the
    driver nor the pages spend the daemon's CPU; none when ``count`` is 0. A context manager:
    the pages' process ends with it. ``who`` names the benchmark in what stops it."""

    def __init__(self, port: int, count: int, who: str) -> None:
        self.who = who
        self.child: subprocess.Popen[str] | None = None
        if count:
            self.child = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.bench_step", "--pages-child", str(count),
                 "--port", str(port)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1],
            )  # fmt: skip
            if self._answer() != "ready":
                self.close()
                raise SystemExit(f"{who}: the pages did not connect")

    def _answer(self) -> str:
        assert self.child is not None and self.child.stdout is not None
        return self.child.stdout.readline().strip()

    def have(self, version: int) -> None:
        """Wait until every page has read a snapshot of at least ``version``."""
        if self.child is None:
            return
        assert self.child.stdin is not None
        self.child.stdin.write(f"{version}\n")
        self.child.stdin.flush()
        if self._answer() != "ok":
            raise SystemExit(f"{self.who}: the pages stopped")

    def close(self) -> None:
        if self.child is not None:
            self.child.kill()
            self.child.wait()
            self.child = None

    def __enter__(self) -> LivePages:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the driver -----------------------------------------------------------------------------


Aside = Callable[[Callable[[], Any]], Any]
Ask = Callable[..., Any]


def step(
    port: int, seed: list[int], state: dict[str, Any], aside: Aside, ask: Ask = request
) -> dict[str, Any]:
    """One move (a new game when the last one ended), as the page makes it: the table's
    answer, then the page's ``GET /api/state?page=1`` (which is returned). What is not the
    issue's step (a new game, a Confirm) goes through ``aside``, which may time it apart."""
    expect = state["expect"]
    if expect is None:
        seed[0] += 1
        body = {"players": ["Ann", "Ben", "Cy", "Dee"], "seed": seed[0]}
        aside(lambda: ask(port, "POST", "/api/game/new", body))
    else:
        choices = expect["choices"]
        tag = str(choices[seed[0] % len(choices)])
        answer = ask(port, "POST", "/api/reader/tap", {"tag": tag})["state"]
        seed[0] = (seed[0] * 1103515245 + 12345) % 2**31
        if answer["pending"] is not None:
            aside(lambda: ask(port, "POST", "/api/buttons/confirm", {}))
    page: dict[str, Any] = ask(port, "GET", "/api/state?page=1")
    return page


def measure(
    tree: Path | None, pages: int, steps: int, port_range: str, idle: float, keep: bool = False
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        port = port_from(port_range)
        daemon = start_daemon(tree, port, Path(tmp) / "data")
        try:
            with LivePages(port, pages, "bench_step") as live:
                pages_have = live.have
                asides = {"new_game": 0, "confirm": 0, "cpu": 0.0}

                def aside(call: Callable[[], Any]) -> Any:
                    """A request that is not a tap, and the pages' copy of its change: timed apart."""
                    before = threads_cpu_seconds(daemon.pid)
                    answer = call()
                    pages_have(answer["state"]["version"])
                    asides["cpu"] += threads_cpu_seconds(daemon.pid) - before
                    asides["new_game" if "game" in answer else "confirm"] += 1
                    return answer

                ask: Ask = KeptConnection(port) if keep else request
                seed, state = [1], ask(port, "GET", "/api/state")
                for _ in range(10):  # warm: the first answers import and build what later ones reuse
                    state = step(port, seed, state, lambda call: call(), ask)
                # the daemon's own pace with nothing asked (the ring's animation, the streams'
                # heartbeats): a step's wall time costs this much besides the step itself
                idle0, idle_wall0 = cpu_seconds(daemon.pid), time.perf_counter()
                time.sleep(idle)
                idle1, idle_wall = cpu_seconds(daemon.pid), time.perf_counter() - idle_wall0
                idle_rate = (sum(idle1) - sum(idle0)) / idle_wall
                cpu0, wall0 = cpu_seconds(daemon.pid), time.perf_counter()
                for _ in range(steps):
                    state = step(port, seed, state, aside, ask)
                    pages_have(state["version"])
                (user1, system1), wall = cpu_seconds(daemon.pid), time.perf_counter() - wall0
                user, system = user1 - cpu0[0], system1 - cpu0[1]
                threads, rss = thread_count(daemon.pid), rss_mb(daemon.pid)  # the pages still open
        finally:
            stop_daemon(daemon)
    taps = steps - asides["new_game"]
    return {
        # ours: every step as the bench drives it (a tap, a Confirm when asked, a new game
        # when one ended, the page's GET, the live pages' copies)
        "cpu_ms_per_step": 1000 * (user + system) / steps,
        # what the step itself cost: the idle pace over the step's wall time taken off
        "net_cpu_ms_per_step": 1000 * (user + system - idle_rate * wall) / steps,
        # the issue's: a tap and the page's GET (and the live pages' copies), the new games'
        # and Confirms' requests timed apart and taken off
        "tap_get_cpu_ms": 1000 * (user + system - asides["cpu"]) / taps,
        "new_games": asides["new_game"],
        "confirms": asides["confirm"],
        "idle_cpu_ms_per_s": 1000 * idle_rate,
        "user_ms": 1000 * user / steps,
        "system_ms": 1000 * system / steps,
        "wall_ms_per_step": 1000 * wall / steps,
        # the daemon with its pages open, after the steps: threads and resident memory
        "threads": threads,
        "rss_mb": rss,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="0,20", help="live page counts, comma separated")
    parser.add_argument("--steps", type=int, default=150, help="measured steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every (tree, pages) run")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds the idle pace is measured over")
    parser.add_argument("--port-range", default="18600-18699", help="ports to choose from, lo-hi")
    parser.add_argument("--tree", action="append", help="a checkout to run the daemon from (repeatable)")
    parser.add_argument(
        "--connections", default="new",
        help="new (a connection per request: the issue's measure), keep (one kept alive, "
        "as a phone's browser does), or both: new,keep",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pages-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pages_child is not None:
        return pages_child(args.port, args.pages_child)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    counts = [int(p) for p in args.pages.split(",")]
    modes = args.connections.split(",")
    if not set(modes) <= {"new", "keep"}:
        parser.error("--connections takes new, keep or new,keep")
    runs: dict[tuple[str, int, str], list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            for pages in counts:
                for connections in modes:
                    key = (str(tree or "installed"), pages, connections)
                    runs.setdefault(key, []).append(
                        measure(tree, pages, args.steps, args.port_range, args.idle, connections == "keep")
                    )
    rows = [
        {"tree": tree, "pages": pages, "connections": connections, "steps": args.steps,
         "rounds": len(results), **medians(results, 2)}
        for (tree, pages, connections), results in runs.items()
    ]  # fmt: skip
    print_rows(rows, args.json, legend=(
        "cpu_ms_per_step: ours, every step as driven (tap [+ Confirm] or new game, + GET, + pages)",
        "tap_get_cpu_ms: issue 26's step (a tap + the page's GET + the pages' copies)",
    ))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
