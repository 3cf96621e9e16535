"""A `companion run --mock` process for the benchmarks and the tests that drive one: a free port,
the table's PIN, start it and wait until it answers, call its API."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

PIN = "9753"


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


def companion(*args: str) -> list[str]:
    return [sys.executable, "-m", "companion", *args]


def start(data: Path, config: Path, port: int, tree: Path | None = None) -> subprocess.Popen[bytes]:
    """``companion run --mock`` on ``port``, once it answers (``tree``: the code of another checkout)."""
    command = companion(
        "run", "--mock", "--data-dir", str(data), "--config", str(config), "--port", str(port), "--pin", PIN
    )
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        cwd=tree, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            call(port, "/api/state", timeout=2)
            return proc
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"companion run exited at start: {err.strip()[-500:]}") from None
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("companion run did not answer")
