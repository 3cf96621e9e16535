"""Issue 36 item 5: no endless resend loop; competing setups decided by whose chain the events follow.

Through a real Mosquitto: a forged retained setup waits for a table's next game number before
the table reaches it, and a table reinstalled with a fresh store reuses game number 1. In both
the table's real game is stored whole, the hall asks the table again only a few times (not
~1,000 messages a second), and a reinstalled table's earlier game is kept apart, intact.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.support.hall_feed import GameTemplate
from tests.support.tables import play_turn
from tests.support.venue import (
    Broker,
    Collector,
    follow,
    hall_has_all,
    play_all,
    raw_client,
    stop_all,
    table,
    wait_until,
)


def asked(collector: Collector, table: str, game: int) -> int:
    """How many acknowledgements the hall sent for ``game`` (each makes the table send again)."""
    with collector.lock:
        return sum(t == f"trekking/{table}/games/{game}/stored" for t, _, _ in collector.messages)


def test_a_forged_retained_setup_loses_to_the_table_s_own_game(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    watcher = Collector(broker)
    rt = table(tmp_path, broker, "t1", seed=41)
    rogue = raw_client(broker, "rogue")
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
        forged = GameTemplate(tmp_path / "forged", ["Mallory", "Trent"], seed=99)
        topic, payload = forged.messages("t1", 2, 0)[0]
        rogue.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)
        wait_until(lambda: ("t1", 2) in hall.games, 30, "the hall to take the forged setup")
        play_all([rt], None, seed=1)
        second = rt.start_game(["Ann", "Ben"], None, "reference", 8)
        assert second == 2
        rng = random.Random(2)
        for _ in range(8):
            play_turn(rt, rng)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the table's own game 2")
        assert hall.record("t1", 2) == rt.store.export(2)
        assert not any(name.startswith("t1~") for name, _ in hall.games), (
            "a forged setup with no event is dropped"
        )
        assert asked(watcher, "t1", 2) < 10, "no resend loop"
        codes = [p["code"] for p in hall.view()["problems"]]
        assert "hall_competing_setup" in codes and "hall_new_epoch" in codes
    finally:
        stop_all(rogue, watcher, rt, hall, broker)


def test_a_reinstalled_table_is_a_new_epoch_and_its_earlier_games_stay(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    watcher = Collector(broker)
    old = table(tmp_path / "before", broker, "t1", seed=51)
    try:
        wait_until(lambda: old.venue_status()["reachable"], 30, "the table connected")
        play_all([old], None, seed=1)
        wait_until(lambda: hall_has_all(hall, [old]), 60, "the hall to store the first install's game")
        before = old.store.export(1)
        old.stop()
        new = table(tmp_path / "after", broker, "t1", seed=52, players="Cy,Dee")  # a fresh store
        try:
            wait_until(lambda: new.venue_status()["reachable"], 30, "the reinstalled table connected")
            play_all([new], None, seed=2)
            assert new.venue.wait_delivered(30)
            wait_until(lambda: hall_has_all(hall, [new]), 60, "the hall to store the new install's game 1")
            assert hall.record("t1", 1) == new.store.export(1)
        finally:
            new.stop()
        earlier = [name for name, game in hall.games if name.startswith("t1~") and game == 1]
        assert len(earlier) == 1 and hall.record(earlier[0], 1) == before
        assert len(hall.view()["finished"]) == 2 and len(hall.league_games()) == 2
        assert asked(watcher, "t1", 1) < 10, "no resend loop"
    finally:
        watcher.close()
        hall.stop()
        broker.stop()
