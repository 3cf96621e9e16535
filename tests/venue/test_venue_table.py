"""Issue 23 item 1: a table publishes what it commits to a real Mosquitto, and loses nothing.

The events of a whole game arrive in seq order and rebuild the record exactly as
``companion export`` writes it; a broker down at the start and restarted mid-game, and a
table SIGKILLed mid-game, still end with every event delivered (duplicates dropped by seq);
a table with wrong credentials says so and keeps refereeing. Without ``[venue]`` nothing of
the venue (nor paho) is imported.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.run.runtime import Runtime
from companion.table.stream import GameFinished
from companion.util.config import Config, TableSettings, VenueSettings
from tests.support.daemon import call, start
from tests.support.tables import FAST_BUTTONS, make_runtime, play_turn
from tests.support.venue import Broker, Collector, free_port, wait_until


def venue_config(url: str, **venue: object) -> Config:
    settings = VenueSettings(broker=url, table=str(venue.pop("table", "t1")), **venue)  # type: ignore[arg-type]
    return Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=settings)


def delivered(rt: Runtime) -> bool:
    return bool(rt.venue.wait_delivered(30))


def finish(rt: Runtime, rng: random.Random) -> None:
    while rt.table.expect() is not None:
        play_turn(rt, rng)


def test_without_a_venue_nothing_of_it_is_imported_and_the_state_says_none(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from tests.support.tables import make_runtime\n"
        f"rt = make_runtime(__import__('pathlib').Path({str(tmp_path)!r}))\n"
        "assert rt.venue is None and rt.venue_status() is None\n"
        "rt.stop()\n"
        "loaded = [m for m in sys.modules if m.startswith(('paho', 'companion.venue'))]\n"
        "assert not loaded, loaded\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert ran.returncode == 0, ran.stderr


def test_a_whole_game_arrives_in_order_and_rebuilds_the_export(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    collector = Collector(broker)
    rt = make_runtime(tmp_path / "t1", "Ann,Ben,Cy", config=venue_config(broker.url))
    try:
        rt.venue.start()
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table to reach the broker")
        assert rt.venue_status()["table"] == "t1"
        began = time.monotonic()
        finish(rt, random.Random(4))
        played = time.monotonic() - began
        assert delivered(rt)
        game = rt.table.game_id
        wait_until(lambda: len(collector.of(f"t1/games/{game}/events")) == len(rt.store.load(game).rows))
        events = collector.of(f"t1/games/{game}/events")
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), "in seq order, once each"
        assert set(events[0]) == {"table", "game", "seq", "at", "event", "sum"}
        assert collector.record("t1", game) == rt.store.export(game)
        result = wait_until(lambda: collector.of(f"t1/games/{game}/result"))[-1]
        assert result["result"]["winners"] == rt.state()["winners"]
        state = wait_until(lambda: [s for s in collector.of("t1/state") if s["finished"]])[-1]
        assert state["table"] == "t1" and state["winners"] == rt.state()["winners"]
        states = len(collector.of("t1/state"))
        taps = len(rt.store.load(game).rows)
        assert states <= played / 0.2 + 3, f"{states} states for {taps} events in {played:.1f} s: ~5 a second"
        text = json.dumps(state)
        assert "2468" not in text and "csrf" not in text, "never the PIN or a host's session"
        assert rt.store.cursor("venue") == (game, len(events)), "the store keeps the last acknowledged"
    finally:
        rt.stop()
    statuses = [p for t, p, _ in collector.messages if t == "trekking/t1/status"]
    assert statuses[0] == b"online" and statuses[-1] == b"offline", "a clean stop says offline"
    collector.close()
    broker.stop()


def test_a_broker_down_at_start_and_restarted_mid_game_gets_every_event_in_order(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker")  # not running yet
    said: list[str] = []
    rt = make_runtime(tmp_path / "t1", "Ann,Ben", config=venue_config(broker.url))
    rt.say = said.append
    rng = random.Random(9)
    try:
        rt.venue.start()
        for _ in range(8):  # the table referees while the venue is down
            play_turn(rt, rng)
        status = rt.venue_status()
        assert status["reachable"] is False and status["problem"] in ("venue_unreachable", "venue_connecting")
        broker.start()
        collector = Collector(broker, persistent=True)
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table to reconnect")
        for _ in range(8):
            play_turn(rt, rng)
        broker.stop()  # restarted mid-game
        for _ in range(8):
            play_turn(rt, rng)
        broker.start()
        finish(rt, rng)
        assert delivered(rt)
        game = rt.table.game_id
        rows = len(rt.store.load(game).rows)
        wait_until(
            lambda: {e["seq"] for e in collector.of(f"t1/games/{game}/events")} >= set(range(1, rows + 1))
        )
        assert collector.record("t1", game) == rt.store.export(game)
        assert any("cannot be reached" in line for line in said), "the console said the venue was down"
    finally:
        rt.stop()
        broker.stop()


def test_a_table_sigkilled_mid_game_sends_the_rest_after_its_restart(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    collector = Collector(broker, persistent=True)
    data, config, port = tmp_path / "data", tmp_path / "config.toml", free_port()
    config.write_text(f'[buttons]\nbounce = 0.0\n[venue]\nbroker = "{broker.url}"\ntable = "t9"\n')
    new = [
        sys.executable,
        "-m",
        "companion",
        "new",
        "--mock",
        "--data-dir",
        str(data),
        "--players",
        "Ann,Ben",
    ]
    assert subprocess.run([*new, "--seed", "5"], capture_output=True).returncode == 0
    rng = random.Random(2)

    def step() -> None:
        expect = call(port, "/api/state")["expect"]
        out = call(port, "/api/reader/tap", {"tag": rng.choice(expect["choices"])})
        assert out["outcome"]["accepted"], out
        if out["state"]["pending"] is not None:
            assert call(port, "/api/buttons/confirm", {})["outcome"]["accepted"]

    proc = start(data, config, port)
    try:
        wait_until(
            lambda: call(port, "/api/state")["venue"]["reachable"], 30, "the table to reach the broker"
        )
        for _ in range(15):
            step()
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # a power cut: paho's queue in memory is lost
        proc.wait(10)
    proc = start(data, config, port)
    try:
        while call(port, "/api/state")["expect"] is not None:
            step()
        game = call(port, "/api/state")["game"]
        wait_until(lambda: call(port, "/api/state")["venue"]["waiting"] == 0, 60, "the outbox to empty")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    exported = subprocess.run(
        [sys.executable, "-m", "companion", "export", str(game), "--data-dir", str(data)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    rows = len(exported.splitlines()) - 1
    wait_until(lambda: {e["seq"] for e in collector.of(f"t9/games/{game}/events")} >= set(range(1, rows + 1)))
    assert collector.record("t9", game) == exported
    broker.stop()


def test_wrong_credentials_are_said_and_the_table_keeps_refereeing(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", users={"t1": "right-password"}).start()
    secret = tmp_path / "password"
    secret.write_text("wrong-password\n")
    said: list[str] = []
    config = venue_config(broker.url, username="t1", password_file=str(secret))
    rt = make_runtime(tmp_path / "t1", "Ann,Ben", config=config)
    rt.say = said.append
    rng = random.Random(1)
    try:
        rt.venue.start()
        wait_until(lambda: rt.venue_status()["problem"] == "venue_refused", 30, "the broker's refusal")
        finish(rt, rng)  # every take is refereed and stored as without a venue
        assert rt.state()["finished"]
        status = rt.venue_status()
        assert status["reachable"] is False and "password_file" in status["words"]
        assert any("refused this table" in line for line in said)
        assert rt.store.cursor("venue") is None, "nothing was delivered, so nothing is marked so"
    finally:
        rt.stop()
        broker.stop()


def test_finished_results_are_told_in_the_stream_shape() -> None:
    from companion.venue.topics import result_message

    item = GameFinished("t1", 3, 40, {"finished": True, "winners": ["Ann"]})
    assert result_message(item) == {
        "table": "t1",
        "game": 3,
        "seq": 40,
        "result": item.result,
        "assisted": False,
    }
    assert result_message(item, assisted=True)["assisted"] is True


def test_the_doctor_says_whether_the_venue_accepts_the_table(tmp_path: Path) -> None:
    from companion.run.doctor import Doctor

    broker = Broker(tmp_path / "broker", users={"t1": "right"}).start()
    secret = tmp_path / "password"
    lines: list[str] = []
    doctor = Doctor(None, tmp_path / "data", say=lines.append)
    try:
        for password, ok, words in (("right", True, "accepts this table"), ("wrong", False, "refused")):
            secret.write_text(password + "\n")
            doctor.check_venue(venue_config(broker.url, username="t1", password_file=str(secret)))
            assert doctor.checks[-1].ok is ok and words in lines[-1], lines[-1]
    finally:
        broker.stop()
    doctor.check_venue(venue_config(broker.url))  # the broker is down
    assert not doctor.checks[-1].ok and "cannot be reached" in lines[-1]
    assert "[venue]" in lines[-1], "with its fix"
