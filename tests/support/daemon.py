"""A `companion run --mock` process for the benchmarks and the tests that drive one: a free port,
the table's PIN, start it and wait until it answers, call its API, and sample it from outside.

`benchmarks.bench_step` and `benchmarks.bench_history_memory` both start it with
`start_daemon` (a port of a range the caller gives, the benchmark's own config) and read its
CPU time and memory from ``/proc`` here, so that their figures are taken alike."""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

PIN = "9753"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """The process's user and system CPU time so far (all its threads, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def threads_cpu_seconds(pid: int) -> float:
    """The CPU time of the process's live threads, to the nanosecond (``schedstat``): for a
    short stretch, where clock ticks are too coarse (a thread that ends in it is missed)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            continue
    return total / 1e9


def rss_mb(pid: int) -> float:
    """The process's resident memory (VmRSS) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def thread_count(pid: int) -> int:
    """The process's threads now."""
    return len(os.listdir(f"/proc/{pid}/task"))


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
    raise SystemExit(f"benchmarks: no free port in {spec}; give another --port-range")


def _ask(conn: http.client.HTTPConnection, method: str, path: str, body: Any) -> tuple[bool, Any]:
    """One request on ``conn``, with the PIN: whether the server closes the connection after
    it, and the JSON answer (a 200 only)."""
    headers = {"X-Table-Pin": PIN}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body), "application/json"
    conn.request(method, path, data, headers)
    response = conn.getresponse()
    answer = response.read()
    if response.status != 200:
        raise RuntimeError(f"{method} {path} answered {response.status}: {answer[:300]!r}")
    return response.will_close, json.loads(answer)


def request(port: int, method: str, path: str, body: Any = None) -> Any:
    """One request on a connection of its own (``http.client``: less of the benchmark's own
    time than `call`), with the PIN; the JSON answer (a 200 only)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        return _ask(conn, method, path, body)[1]
    finally:
        conn.close()


class KeptConnection:
    """`request` on one kept-alive connection, as a phone's browser asks (HTTP/1.1 keep-alive):
    no connection set up and torn down per request. Opened again if the server closed it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def __call__(self, port: int, method: str, path: str, body: Any = None) -> Any:
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                closing, answer = _ask(self.conn, method, path, body)
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt == 2:
                    raise
                continue
            if closing:
                self.close()
            return answer
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(port: int, path: str, body: dict[str, Any] | None = None, timeout: float = 10) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method="GET" if data is None else "POST"
    )
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Table-Pin", PIN)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def page_answers(url: str) -> bool:
    """Whether ``url`` answers 200 now (a page still starting, or gone, does not)."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:  # URLError is one
        return False


def companion(*args: str) -> list[str]:
    return [sys.executable, "-m", "companion", *args]


def start(
    data: Path, config: Path, port: int, tree: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``companion run --mock`` on ``port``, once it answers (``tree``: the code of another
    checkout; ``env``: the daemon's environment, else this process's)."""
    command = companion(
        "run", "--mock", "--data-dir", str(data), "--config", str(config), "--port", str(port), "--pin", PIN
    )
    if tree is not None:
        env = {**(os.environ if env is None else env), "PYTHONPATH": str(tree)}
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        cwd=tree, env=env,
    )  # fmt: skip
    first_state(port, proc)
    return proc


def first_state(port: int, proc: subprocess.Popen[bytes], seconds: float = 120) -> dict[str, Any]:
    """``GET /api/state`` of the daemon ``proc`` once it answers on ``port`` (``seconds``: a
    backstop only, a loaded 2-core machine starts slowly); a RuntimeError if it exits first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            return call(port, "/api/state", timeout=2)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"companion run exited at start: {err.strip()[-500:]}") from None
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("companion run did not answer")


def new_and_start(
    data: Path, config: Path, players: str, tree: Path | None = None, seed: int | None = None
) -> tuple[int, subprocess.Popen[bytes]]:
    """``companion new --mock`` with ``players`` (comma separated) in ``data``, then `start` on a
    free port: the port and the daemon (``tree``: the code of another checkout)."""
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    seeded = ("--seed", str(seed)) if seed is not None else ()
    subprocess.run(companion("new", "--mock", "--data-dir", str(data), "--players", players, *seeded),
                   check=True, capture_output=True, cwd=tree, env=env)  # fmt: skip
    port = free_port()
    return port, start(data, config, port, tree)


def start_daemon(
    tree: Path | None, port: int, data: Path, pages: int = 200, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`start` with a benchmark's config beside ``data``: loopback only, controls unthrottled,
    ``pages`` live pages allowed (0 keeps the table's default)."""
    config = data.parent / "config.toml"
    cap = f"live_pages = {pages}\n" if pages else ""
    config.write_text(f'[table]\nhost = "127.0.0.1"\n{cap}controls_per_minute = 100000\n')
    return start(data, config, port, tree, env)


def stop_daemon(proc: subprocess.Popen[bytes]) -> None:
    """Stop the daemon as the service manager would (SIGTERM) and wait for it."""
    proc.terminate()
    proc.wait(timeout=30)


def acknowledged_step(port: int, rng: random.Random) -> dict[str, Any]:
    """One acknowledged input over the API (a tap of a card the table expects, and its
    confirmation when the table asks for one): the state after it."""
    expect = call(port, "/api/state")["expect"]
    out = call(port, "/api/reader/tap", {"tag": rng.choice(expect["choices"])})
    assert out["outcome"]["accepted"], out
    if out["state"]["pending"] is not None:
        out = call(port, "/api/buttons/confirm", {})
        assert out["outcome"]["accepted"], out
    return dict(out["state"])
