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

from tests.support.daemon import call, free_port, new_and_start, start


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
    port, proc = new_and_start(data, config, "Ann,Ben,Cy", seed=11)
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


def test_a_port_in_use_at_start_is_retried_and_served_once_free(tmp_path: Path) -> None:
    """At boot the port may still be held a moment (an old companion stopping): no exit, a retry."""
    import socket
    import time
    import urllib.error

    config = tmp_path / "config.toml"
    config.write_text('[table]\nhost = "127.0.0.1"\n')
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--mock", "--data-dir", str(tmp_path / "data"),
         "--config", str(config), "--port", str(port), "--pin", "2468"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "is in use" in line:
                break
        assert f"Port {port} is in use" in seen[-1] and "trying again" in seen[-1], seen
        assert proc.poll() is None, "it waits for the port rather than exit"
        holder.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                assert "expect" in call(port, "/api/state", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
                time.sleep(0.1)
    finally:
        holder.close()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert f"Port {port} is free: serving the page." in out


def test_a_port_in_use_for_the_whole_window_exits_with_a_status_systemd_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    import companion.run.serving
    from companion.run.cli import EXIT_RETRY, EXIT_USAGE, main

    monkeypatch.setattr(companion.run.serving, "BIND_RETRY_SECONDS", 0.3)
    monkeypatch.setattr(companion.run.serving, "BIND_RETRY_EVERY", 0.05)
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # cmd_run's SIGTERM handler stays out of pytest
    config = tmp_path / "config.toml"
    config.write_text('[table]\nhost = "127.0.0.1"\n')
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        args = ["run", "--mock", "--data-dir", str(tmp_path / "data"), "--config", str(config)]
        assert main([*args, "--port", str(port), "--pin", "2468"]) == EXIT_RETRY
    out, err = capsys.readouterr()
    assert out.count(f"Port {port} is in use") == 1, (out[-500:], err)
    assert f"port {port} is still in use after 0 s" in err and "ss -ltnp" in err and "--port" in err
    unit = (Path(__file__).resolve().parents[2] / "systemd" / "trekking-companion.service").read_text()
    prevented = next(line for line in unit.splitlines() if line.startswith("RestartPreventExitStatus="))
    assert str(EXIT_RETRY) not in prevented.split("=", 1)[1].split() and "Restart=on-failure" in unit
    assert str(EXIT_USAGE) in prevented, "a setting error still is not restarted"
    # a setting (an address this machine does not have) is not retried: exit 2 at once
    config.write_text('[table]\nhost = "192.0.2.1"\n')
    assert main([*args, "--port", str(port), "--pin", "2468"]) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert "is in use" not in out and f"cannot serve on port {port}" in err


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_host_stays_logged_in_when_companion_run_is_killed_and_restarted(tmp_path: Path) -> None:
    """Issue 16: a restart, clean or a crash, logged every host out mid-game."""
    import http.client

    from tests.support.daemon import PIN

    config = tmp_path / "config.toml"
    config.write_text('[table]\nhost = "127.0.0.1"\n')
    data = tmp_path / "data"
    port = free_port()

    def send(path: str, headers: dict[str, str]) -> tuple[int, dict[str, object], str]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            body = json.dumps({"pin": PIN}) if path == "/api/login" else "{}"
            conn.request("POST" if path != "/api/session" else "GET", path, body, headers)
            response = conn.getresponse()
            return response.status, json.loads(response.read()), response.getheader("Set-Cookie") or ""
        finally:
            conn.close()

    proc = start(data, config, port)
    try:
        _, answer, cookie = send("/api/login", {"Content-Type": "application/json"})
        host = {"Cookie": cookie.split(";", 1)[0], "X-CSRF-Token": str(answer["csrf"])}
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    proc = start(data, config, port)
    try:
        assert send("/api/session", host)[1]["host"] is True
        assert send("/api/undo", host)[0] == 200
        assert send("/api/logout", host)[0] == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    proc = start(data, config, port)
    try:
        assert send("/api/session", host)[1]["host"] is False, "the logout is kept too"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
