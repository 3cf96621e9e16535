"""``companion hall`` as a process: it serves the venue's read-only page, and a bad broker
address is a clear sentence, never a traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
from html import unescape
from pathlib import Path

from tests.support.venue import Broker, free_port, page_text, wait_until


def hall(*args: str) -> list[str]:
    return [sys.executable, "-m", "companion", "hall", *args]


def test_a_bad_broker_address_is_said_plainly() -> None:
    ran = subprocess.run(hall("--broker", "http://x:1"), capture_output=True, text=True)
    assert ran.returncode != 0 and "Traceback" not in ran.stderr
    assert "mqtt://broker.local:1883" in ran.stderr + ran.stdout


def test_a_bad_hall_pin_is_said_plainly(tmp_path: Path) -> None:
    ran = subprocess.run(hall("--broker", "mqtt://127.0.0.1:1", "--data-dir", str(tmp_path), "--pin", "12"),
                         capture_output=True, text=True)  # fmt: skip
    assert ran.returncode != 0 and "Traceback" not in ran.stderr
    assert "4 to 8 digits" in ran.stderr + ran.stdout


def test_the_hall_serves_its_page_and_csv_and_stops_on_sigterm(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    port = free_port()
    proc = subprocess.Popen(
        hall("--broker", broker.url, "--data-dir", str(tmp_path / "hall"), "--port", str(port), "--host",
             "127.0.0.1"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip

    try:
        html = wait_until(lambda: page_text(port, "/"), 30, "the hall's page")
        assert "The venue" in html and "Standings across the tables" in html
        assert "Le lieu" in (page_text(port, "/?lang=fr") or "")
        assert (page_text(port, "/results.csv") or "").startswith(
            "table,game,started,player,points,rank,winner"
        )
        league = page_text(port, "/league") or ""
        assert "The venue's league" in unescape(league) and "/league/login" in league, "the host's login"
        assert (tmp_path / "hall" / "pin").read_text().strip().isdigit(), "a PIN drawn and kept"
        assert (page_text(port, "/league.csv") or "").startswith("season,place,name")
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
        broker.stop()
    assert proc.returncode == 0, err
    assert b"Traceback" not in err
