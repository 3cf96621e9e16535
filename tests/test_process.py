"""`companion run` as a real process: played over HTTP, killed with SIGKILL, restarted."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

PIN = "1357"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(port: int, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method="GET" if body is None else "POST"
    )
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Table-Pin", PIN)
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def start(data_dir: Path, config: Path, port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "companion", "run", "--mock", "--data-dir", str(data_dir)]
    command += ["--config", str(config), "--port", str(port), "--pin", PIN]
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            call(port, "/api/state")
            return proc
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None:
                raise AssertionError(proc.stdout.read().decode() if proc.stdout else "exited") from None
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("companion run did not answer in 30 s")


def step(port: int, rng: random.Random) -> None:
    expect = call(port, "/api/state")["expect"]
    if expect["kind"] in ("itinerary", "take"):
        out = call(port, "/api/reader/tap", {"tag": rng.choice(expect["choices"])})
        assert out["outcome"]["accepted"], out
        if out["state"]["pending"] is not None:
            assert call(port, "/api/buttons/confirm", {})["outcome"]["accepted"]
    else:
        raise AssertionError(f"unexpected {expect}")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_game_and_restart_resumes_the_same_state(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[buttons]\nbounce = 0.0\nundo_hold = 0.1\n")
    data = tmp_path / "data"
    port = free_port()
    command = [sys.executable, "-m", "companion", "new", "--mock", "--data-dir", str(data)]
    new = subprocess.run(
        [*command, "--players", "Ann,Ben,Cy", "--seed", "11"], capture_output=True, text=True
    )
    assert new.returncode == 0, new.stderr
    proc = start(data, config, port)
    rng = random.Random(5)
    try:
        for _ in range(25):
            step(port, rng)
        before = call(port, "/api/state")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    proc = start(data, config, port)
    try:
        after = call(port, "/api/state")
        for key in ("players", "row", "turn", "expect", "ancestors_left", "events", "day", "winners"):
            assert after[key] == before[key], key
        while not call(port, "/api/state")["finished"]:  # and the game can be finished
            step(port, rng)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    exported = subprocess.run(
        [sys.executable, "-m", "companion", "export", "--data-dir", str(data)], capture_output=True, text=True
    )
    replay = subprocess.run(
        [sys.executable, "-m", "companion", "replay", "-", "--json"],
        input=exported.stdout,
        capture_output=True,
        text=True,
    )
    result = json.loads(replay.stdout)
    assert result["finished"] and result["rejected"] == []
