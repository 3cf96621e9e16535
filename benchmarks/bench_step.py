"""Server CPU per step on the paths real taps take, at 0, 20 and 60 live pages (issue 35).

Run: ``.venv/bin/python -m benchmarks.bench_step [--paths reader,browser] [--pages 0,20,60]
[--steps 100] [--rounds 3] [--port-range 18600-18699] [--tree DIR ...] [--json]``

A step is one move at the table and every live page getting it. Two paths, each with the
server in a process of its own, from the tree's code (``--tree``: another checkout, run with
its ``PYTHONPATH``; trees and page counts alternate within each round, medians over rounds):

- **reader**: the tap comes from the reader's thread, as on a Pi: `companion run --mock`'s
  runtime and page server, with a `ReaderLoop` over the emulated MFRC522
  (tests/support/fake_mfrc522.py, the real ``mfrc522`` driver against it) attached as start-up
  attaches a Pi's (`attach_reader`); each card's sticker is enrolled, and the driver puts the
  next one in the chip's field (`serve_reader`);
- **browser**: a logged-in page's tap, as a phone's browser sends it: ``POST /api/reader/tap``
  with its session cookie and CSRF token on one kept-alive connection, through Flask
  (`companion run --mock`); then, from a tree whose page fetches the state after each control
  (`PAGE_FETCH` in its web/static/api.js: before issue 35), that ``GET /api/state?page=1``.
  Today's page gets the new snapshot on its live stream, as every other page does.

The live pages are held by another process (`pages_child`, each page from its own loopback
address). A new game when one ends is asked apart and its CPU taken off. Printed per path,
tree and page count: the server's CPU time per step (its threads', from ``schedstat``),
``net_cpu_ms``: that less the server's idle pace (the reader's polls, the ring's animation, the
streams' heartbeats, measured over ``--idle`` seconds) over the step's wall time; the wall time,
threads and resident memory with the pages open.
"""

from __future__ import annotations

import argparse
import http.client
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
from typing import Any, ClassVar

from tests.support.daemon import port_from as free_port
from tests.support.daemon import threads_cpu_seconds

PIN = "9753"
#: The line of a tree's web/static/api.js by which its page fetched the state after each control.
PAGE_FETCH = "saw(data.state); fetchState();"
CONFIG = '[table]\nhost = "127.0.0.1"\nlive_pages = 200\ncontrols_per_minute = 100000\n'

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


class Child:
    """A process spoken to by lines: a command on its stdin, one line of answer on its stdout."""

    def __init__(self, command: list[str], **options: Any) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, **options
        )

    def ask(self, line: str | None = None) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if line is not None:
            self.proc.stdin.write(f"{line}\n")
            self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if not answer:
            raise SystemExit(f"bench_step: {self.proc.args[-1]!r} stopped")
        return answer

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def live_pages(port: int, count: int) -> Callable[[int], None]:
    """Open ``count`` live pages (`pages_child`); what waits until all have a version."""
    if not count:
        return lambda version: None
    child = Child(
        [sys.executable, "-m", "benchmarks.bench_step", "--pages-child", str(count), "--port", str(port)],
        cwd=Path(__file__).parents[1],
    )
    CLOSING.append(child)
    if child.ask() != "ready":
        raise SystemExit("bench_step: the pages did not connect")

    def have(version: int) -> None:
        if child.ask(str(version)) != "ok":
            raise SystemExit("bench_step: the pages stopped")

    return have


#: What `measure` closes at its end (the children it started).
CLOSING: list[Child] = []

# --- the reader's server process --------------------------------------------------------------


def serve_reader(data: Path, config_path: Path, port: int) -> int:
    """`companion run --mock`'s runtime and page server, with a `ReaderLoop` over the emulated
    chip attached as a Pi's is. Reads "UID" lines: puts that sticker in the field, waits for
    the table to take it, clears the field and answers the table's version and expectation
    as JSON. "uids" answers every card's sticker UID (card id -> UID), enrolled at start."""
    from companion.hardware.reader import open_mfrc522
    from companion.run.serving import serve
    from companion.run.startup import attach_reader, build_runtime
    from companion.util.config import load_config
    from tests.support.fake_mfrc522 import Chip, Tag, install

    config = load_config(config_path)
    runtime = build_runtime(config, data, True, PIN, say=lambda _: None, claim=True)
    chip = Chip()
    install(chip)
    reader = open_mfrc522(config.reader.rst_pin, config.reader.gain_db)
    attach_reader(runtime, reader.read_uid, reader.read_text)
    edition = runtime.edition()
    ids = [c.id for c in edition.cards] + [i.id for i in edition.itineraries]
    ids += ["ancestor"] if edition.ancestor is not None else []
    tags: dict[str, Tag] = {}
    uids: dict[str, str] = {}
    for k, card in enumerate(ids):
        tag = Tag([0x04, 0x10 + k // 256, k % 256, 0x42])
        tags[tag.uid_text], uids[card] = tag, tag.uid_text
        runtime.rebind_tag(tag.uid_text, card, edition.name)
    runtime.start()
    serve(runtime, "127.0.0.1", port)
    print("ready", flush=True)
    for line in sys.stdin:
        asked = line.strip()
        if asked == "uids":
            print(json.dumps(uids), flush=True)
            continue
        debouncer = runtime.reader.debouncer
        while debouncer.current == asked:  # the same sticker again (a new game's first card):
            time.sleep(0.05)  # it counts once it has been away for the debounce window
        version = runtime.version()
        chip.put(tags[asked])
        runtime.wait_for_change(version, 30)
        chip.clear()
        table = runtime.table
        print(json.dumps({"version": table.version, "expect": table.expect()}), flush=True)
    runtime.stop()
    return 0


# --- the driver -----------------------------------------------------------------------------


class Browser:
    """A phone's browser logged in as the host: one kept-alive connection, its cookie and CSRF
    token on each control, the headers a browser sends."""

    HEADERS: ClassVar[dict[str, str]] = {
        "User-Agent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36",
        "Accept": "*/*",
        "Accept-Language": "en-GB,en;q=0.9",
        "Accept-Encoding": "gzip, deflate",
    }

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookie, self.csrf = "", ""
        self.csrf = self("POST", "/api/login", {"pin": PIN})["csrf"]

    def __call__(self, method: str, path: str, body: Any = None) -> Any:
        headers = dict(self.HEADERS)
        if self.cookie:
            headers["Cookie"] = self.cookie
        data = None
        if method == "POST":
            data = json.dumps(body)
            headers.update(
                {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{self.conn.port}"}
            )
            if self.csrf:
                headers["X-CSRF-Token"] = self.csrf
        self.conn.request(method, path, data, headers)
        response = self.conn.getresponse()
        answer = response.read()
        if response.status != 200:
            raise SystemExit(f"bench_step: {method} {path} answered {response.status}: {answer[:300]!r}")
        set_cookie = response.getheader("Set-Cookie")
        if set_cookie:
            self.cookie = set_cookie.split(";", 1)[0]
        return json.loads(answer)


def pin_request(port: int, method: str, path: str, body: Any = None) -> Any:
    """A script's request (the PIN in its header) on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, json.dumps(body), {"X-Table-Pin": PIN, "Content-Type": "application/json"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def memory(pid: int) -> tuple[int, float]:
    """The process's threads and resident memory (MB)."""
    rss = next(
        line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS:")
    )
    return len(os.listdir(f"/proc/{pid}/task")), int(rss.split()[1]) / 1024


def wait_answering(port: int, proc: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            pin_request(port, "GET", "/api/state")
            return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("bench_step: the server exited at start") from None
            time.sleep(0.05)
    raise SystemExit("bench_step: the server did not answer")


def start_server(path: str, tree: Path | None, port: int, tmp: Path) -> tuple[int, Callable[[str], Any]]:
    """The path's server process from ``tree``; its pid and what takes one step's tap."""
    data, config = tmp / "data", tmp / "config.toml"
    config.write_text(CONFIG)
    env = {**os.environ, **({"PYTHONPATH": str(tree)} if tree is not None else {})}
    cwd = tree or Path(__file__).parents[1]
    subprocess.run(
        [sys.executable, "-m", "companion", "new", "--data-dir", str(data), "--players", "Ann,Ben,Cy,Dee",
         "--mock", "--seed", "1"],
        env=env, cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip
    if path == "browser":
        command = [sys.executable, "-m", "companion", "run", "--mock", "--data-dir", str(data), "--config",
                   str(config), "--port", str(port), "--pin", PIN]  # fmt: skip
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env, cwd=cwd
        )
        CLOSING.append(Child.__new__(Child))
        CLOSING[-1].proc = proc
        wait_answering(port, proc)
        browser = Browser(port)
        fetches = PAGE_FETCH in (cwd / "web" / "static" / "api.js").read_text(encoding="utf-8")

        def browser_tap(card: str) -> Any:
            state = browser("POST", "/api/reader/tap", {"tag": card})["state"]
            if fetches:
                browser("GET", "/api/state?page=1")
            return state

        return proc.pid, browser_tap
    here = str(Path(__file__).resolve())  # run as a file: an older tree may not have this module
    run_here = (
        f"import runpy,sys; sys.argv=[{here!r}]+sys.argv[1:]; runpy.run_path({here!r}, run_name='__main__')"
    )
    server = Child(
        [sys.executable, "-c", run_here, "--serve-reader", str(data), str(config), str(port)],
        env=env,
        cwd=cwd,
    )
    CLOSING.append(server)
    if server.ask() != "ready":
        raise SystemExit("bench_step: the reader's server did not start")
    uids = json.loads(server.ask("uids"))
    return server.proc.pid, lambda card: json.loads(server.ask(uids[card]))


def measure(
    path: str, tree: Path | None, pages: int, steps: int, port_range: str, idle: float
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port(port_range)
        try:
            pid, tap = start_server(path, tree, port, Path(tmp))
            have = live_pages(port, pages)
            seed, aside_cpu, new_games = [1], 0.0, 0

            def step(state: dict[str, Any]) -> dict[str, Any]:
                nonlocal aside_cpu, new_games
                expect = state["expect"]
                if expect is None:  # the game ended: a new one, timed apart
                    before = threads_cpu_seconds(pid)
                    seed[0] += 1
                    body = {"players": ["Ann", "Ben", "Cy", "Dee"], "seed": seed[0]}
                    state = pin_request(port, "POST", "/api/game/new", body)["state"]
                    have(state["version"])
                    aside_cpu += threads_cpu_seconds(pid) - before
                    new_games += 1
                    return state
                choices = expect["choices"]
                seed[0] = (seed[0] * 1103515245 + 12345) % 2**31
                state = tap(str(choices[seed[0] % len(choices)]))
                have(state["version"])
                return state

            state = pin_request(port, "GET", "/api/state")
            for _ in range(10):  # warm: the first answers import and build what later ones reuse
                state = step(state)
            idle0, idle_wall0 = threads_cpu_seconds(pid), time.perf_counter()
            time.sleep(idle)
            idle_rate = (threads_cpu_seconds(pid) - idle0) / (time.perf_counter() - idle_wall0)
            cpu0, wall0 = threads_cpu_seconds(pid), time.perf_counter()
            for _ in range(steps):
                state = step(state)
            cpu, wall = threads_cpu_seconds(pid) - cpu0 - aside_cpu, time.perf_counter() - wall0
            taps = steps - new_games
            threads, rss = memory(pid)
        finally:
            while CLOSING:
                CLOSING.pop().close()
    return {
        "cpu_ms": 1000 * cpu / taps,
        "net_cpu_ms": 1000 * (cpu - idle_rate * wall) / taps,
        "wall_ms": 1000 * wall / steps,
        "idle_cpu_ms_per_s": 1000 * idle_rate,
        "new_games": new_games,
        "threads": threads,
        "rss_mb": rss,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", default="reader,browser", help="reader, browser or both")
    parser.add_argument("--pages", default="0,20,60", help="live page counts, comma separated")
    parser.add_argument("--steps", type=int, default=100, help="measured steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every (path, tree, pages) run")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds the idle pace is measured over")
    parser.add_argument("--port-range", default="18600-18699", help="ports to choose from, lo-hi")
    parser.add_argument("--tree", action="append", help="a checkout to run the server from (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pages-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-reader", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pages_child is not None:
        return pages_child(args.port, args.pages_child)
    if args.serve_reader is not None:
        data, config, port = args.serve_reader
        return serve_reader(Path(data), Path(config), int(port))
    from benchmarks.medians import medians, print_rows

    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    runs: dict[tuple[str, str, int], list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for path in args.paths.split(","):
            for tree in trees:
                for pages in (int(p) for p in args.pages.split(",")):
                    key = (path, str(tree or "installed"), pages)
                    runs.setdefault(key, []).append(
                        measure(path, tree, pages, args.steps, args.port_range, args.idle)
                    )
    rows = [
        {"path": path, "tree": tree, "pages": pages, "steps": args.steps, "rounds": len(results),
         **medians(results, 2)}
        for (path, tree, pages), results in runs.items()
    ]  # fmt: skip
    print_rows(rows, args.json, legend=(
        "cpu_ms: the server's CPU per tap (reader: the sticker read and taken, the pages' copies; "
        "browser: the tap through Flask, and the page's GET where its tree's page makes one, the pages' "
        "copies); new games taken off",
        "net_cpu_ms: cpu_ms less the server's idle pace over the step's wall time",
    ))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
