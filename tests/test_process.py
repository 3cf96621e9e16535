"""`companion run` as a real process: played over HTTP, killed with SIGKILL, restarted."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from powercut import call, free_port, start


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
