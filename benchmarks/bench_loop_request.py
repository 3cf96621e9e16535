"""The event loop's CPU per request answered on its thread, to the microsecond (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_loop_request --tree BASE --tree HEAD [--requests 2000]
[--rounds 5] [--port-range 18600-18699] [--json]``

`benchmarks.bench_step` reads the daemon's CPU from ``/proc`` in 10 ms clock ticks: over 300 steps
a change of a few microseconds a request is below its resolution. Here a server of
`companion.web.http_server.create_guarded_server` (each tree's, in a process of its own) answers
``GET /api/state?page=1`` on its event loop's thread, as the daemon answers the page's read (a
kept body of the page's size, the route's headers), to a client in another process that opens a
connection per request as `benchmarks.bench_step` does; printed is the loop thread's own CPU
time per request (``CLOCK_THREAD_CPUTIME_ID``, nanoseconds), its user and system parts (ticks),
medians over ``--rounds``, the trees alternated in each round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

#: The client: ``n`` requests, a connection each, as the page's read (http.client, the PIN sent).
CLIENT = """
import http.client, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
for _ in range(n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/state?page=1", headers={"X-Table-Pin": "2468"})
    conn.getresponse().read()
    conn.close()
"""


def serve_and_measure(port: int, requests: int) -> dict[str, float]:
    """This tree's server on ``port``, asked ``requests`` times: its loop thread's CPU (us/request)."""
    from companion.web.http_server import create_guarded_server
    from companion.web.route_support import SECURITY_HEADERS

    body = b"{" + b"x" * 9000 + b"}"  # about the page's snapshot
    headers = (("Content-Type", "application/json"), ("Content-Length", str(len(body))), *SECURITY_HEADERS)

    def app(environ: dict[str, object], start_response: object) -> list[bytes]:
        start_response("200 OK", list(headers))  # type: ignore[operator]
        return [body]

    server = create_guarded_server(app, "127.0.0.1", port, 4, inline=lambda method, path, headers: True)
    loop = threading.Thread(target=server.run, name="http", daemon=True)
    loop.start()
    clock = time.pthread_getcpuclockid(loop.ident or 0)

    def ticks() -> tuple[int, int]:
        fields = Path(f"/proc/self/task/{loop.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]), int(fields[12])

    subprocess.run([sys.executable, "-c", CLIENT, str(port), "50"], check=True)  # warm
    cpu0, (user0, system0) = time.clock_gettime(clock), ticks()
    subprocess.run([sys.executable, "-c", CLIENT, str(port), str(requests)], check=True)
    cpu1, (user1, system1) = time.clock_gettime(clock), ticks()
    server.close()
    tick = 1e6 / 100  # us per clock tick (USER_HZ)
    return {
        "loop_cpu_us": round(1e6 * (cpu1 - cpu0) / requests, 1),
        "user_us": round(tick * (user1 - user0) / requests, 1),
        "system_us": round(tick * (system1 - system0) / requests, 1),
    }


def in_tree(tree: Path | None, port: int, requests: int) -> dict[str, float]:
    """`serve_and_measure` run with ``tree``'s code in a process of its own (this file run as a
    script: an older tree may not have it)."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(port), str(requests)],
        capture_output=True, text=True, check=True, env=env, cwd=tree or Path(__file__).parents[1],
    ).stdout  # fmt: skip
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--port-range", default="18600-18699")
    parser.add_argument("--tree", action="append", help="a checkout to run the server from (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(serve_and_measure(*args.child)))
        return 0
    from tests.support.daemon import port_from

    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            runs.setdefault(str(tree or "installed"), []).append(
                in_tree(tree, port_from(args.port_range), args.requests)
            )
    rows = {
        name: {k: round(statistics.median(r[k] for r in results), 1) for k in results[0]}
        for name, results in runs.items()
    }
    if args.json:
        print(json.dumps(rows))
    else:
        for name, figures in rows.items():
            print(f"tree={name} " + " ".join(f"{k}={v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
