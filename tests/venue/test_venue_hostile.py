"""Issue 36 item 4: no hostile payload kills a thread, and a table whose link is dead says so.

Against a real Mosquitto: ~1 KB of nested JSON on the table's ``…/games/G/stored`` (which it
reads in paho's network thread) and on every topic the hall reads; then the broker frozen
(SIGSTOP: the TCP link stays up, nothing is acknowledged) while the table plays.
"""

from __future__ import annotations

import random
import signal
from pathlib import Path

from tests.support.tables import play_turn
from tests.support.venue import Broker, follow, hall_has_all, raw_client, stop_all, table, wait_until

NESTED = b"[" * 1000 + b"]" * 1000  # 2 KB: past the depth at which json.loads raises RecursionError


def test_nested_json_kills_no_thread_of_the_table_or_the_hall(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    rt = table(tmp_path, broker, "t1", seed=5)
    lines: list[str] = []
    rt.venue.log = lines.append
    rogue = raw_client(broker, "hostile")
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
        game = rt.table.game_id
        for suffix in (f"games/{game}/stored", f"games/{game}/setup", f"games/{game}/events",
                       f"games/{game}/result", "state"):  # fmt: skip
            rogue.publish(f"trekking/t1/{suffix}", NESTED, qos=1).wait_for_publish(10)
        wait_until(lambda: hall.counts["refused"] >= 4, 30, "the hall to refuse the nested messages")
        rng = random.Random(8)
        for _ in range(5):  # the table plays on: its events still reach the broker and the hall
            play_turn(rt, rng)
        assert rt.venue.wait_delivered(30), "the outbox stopped: paho's network thread is dead"
        wait_until(lambda: hall_has_all(hall, [rt]), 30, "the hall to store the new events")
        assert rt.venue_status()["reachable"]
        codes = {p["code"] for p in hall.view()["problems"]}
        assert "hall_bad_message" in codes and "hall_failed" not in codes, codes
        assert not any("RecursionError" in line for line in lines), lines
    finally:
        stop_all(rogue, rt, hall, broker)


def test_a_table_whose_broker_stopped_answering_says_its_link_is_dead(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    rt = table(tmp_path, broker, "t1", seed=6)
    rt.venue.stall_after = 1.0
    assert broker.process is not None
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
        assert rt.venue.wait_delivered(30)
        broker.process.send_signal(signal.SIGSTOP)  # the link stays up; nothing is acknowledged
        rng = random.Random(9)
        play_turn(rt, rng)
        status = wait_until(lambda: (s := rt.venue_status())["problem"] and s, 20, "the link said dead")
        assert status["reachable"] is False and status["problem"] == "venue_stalled"
        assert status["waiting"] >= 1 and "acknowledged nothing" in status["words"]
        broker.process.send_signal(signal.SIGCONT)
        assert rt.venue.wait_delivered(60), "what waited went once the broker answered"
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected again")
    finally:
        if broker.process is not None:
            broker.process.send_signal(signal.SIGCONT)
        rt.stop()
        broker.stop()
