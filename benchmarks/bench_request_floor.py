"""The server's CPU per request, for what a step's floor is made of (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_request_floor [--requests 500] [--rounds 3]
[--port-range 18800-18899] [--tree DIR ...] [--json]``

Each server runs in its own process and is asked ``--requests`` times, a new connection each
(as `benchmarks.bench_step` asks); printed is its CPU time per request (user + system, from
``/proc``), medians over ``--rounds``, the servers alternated:

- ``waitress``: waitress (with `companion.web.http_server`'s limits) and a WSGI app that
  answers ``{}``: the HTTP server's own share;
- ``waitress+flask``: the same with a one-route Flask app: what Flask adds;
- ``waitress+flask 404``: that app asked for a path it does not have: what Flask's 404
  costs (its exception and error page), the like-for-like figure for the daemon's 404;
- ``companion GET /api/state``, ``?page=1`` and an unknown path (Flask's 404): the daemon
  (`companion run --mock`) answering the page's read, and a request that reaches Flask and
  does nothing.

``--tree`` runs every server from another checkout's source (``PYTHONPATH``), the trees
alternated in each round, so that two versions are compared in one run (figures per tree).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.daemon import cpu_seconds, port_from, start_daemon, stop_daemon

#: The bare servers, run with ``-c`` (their port, then "wsgi" or "flask").
BARE = """
import sys
from companion.web.http_server import create_guarded_server
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "2")])
    return [b"{}"]
if sys.argv[2] == "flask":
    from flask import Flask
    app = Flask("bare")
    app.get("/")(lambda: {})
create_guarded_server(app, "127.0.0.1", int(sys.argv[1]), 8).run()
"""


def ask(port: int, path: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        conn.getresponse().read()
    finally:
        conn.close()


def per_request(pid: int, port: int, path: str, requests: int) -> float:
    """The server's CPU per request, in ms, over ``requests`` (after a few to warm it)."""
    for _ in range(20):
        ask(port, path)
    before = sum(cpu_seconds(pid))
    for _ in range(requests):
        ask(port, path)
    return 1000 * (sum(cpu_seconds(pid)) - before) / requests


def bare(kind: str, port_range: str, requests: int, path: str = "/", tree: Path | None = None) -> float:
    port = port_from(port_range)
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.Popen([sys.executable, "-c", BARE, str(port), kind], cwd=tree, env=env)
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit(f"bench_request_floor: the {kind} server did not start") from None
                time.sleep(0.05)
        return per_request(proc.pid, port, path, requests)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def companion(port_range: str, requests: int, tree: Path | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        port = port_from(port_range)
        daemon = start_daemon(tree, port, Path(tmp) / "data")
        try:
            return {
                f"companion GET {path}": per_request(daemon.pid, port, path, requests)
                for path in ("/api/state", "/api/state?page=1", "/api/no-such-path")
            }
        finally:
            stop_daemon(daemon)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port-range", default="18800-18899")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tree", action="append", help="a checkout to run the servers from (repeatable)")
    args = parser.parse_args()
    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    runs: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            where = "" if tree is None or len(trees) == 1 else f"{tree} "
            for kind in ("wsgi", "flask"):
                name = "waitress" if kind == "wsgi" else "waitress+flask"
                runs.setdefault(where + name, []).append(
                    bare(kind, args.port_range, args.requests, tree=tree)
                )
            runs.setdefault(where + "waitress+flask 404", []).append(
                bare("flask", args.port_range, args.requests, "/api/no-such-path", tree)
            )
            for name, figure in companion(args.port_range, args.requests, tree).items():
                runs.setdefault(where + name, []).append(figure)
    rows = {name: round(statistics.median(figures), 3) for name, figures in runs.items()}
    if args.json:
        print(json.dumps(rows))
    else:
        for name, figure in rows.items():
            print(f"{name}: {figure} ms of CPU per request")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
