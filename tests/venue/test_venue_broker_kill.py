"""Issue 23, the broker SIGKILLed mid-game (persistence on, as docs/venue.md configures it).

Mosquitto saves its persistence on a clean stop and every ``autosave_interval`` (30 minutes
by default); killed outright it loses what it held in memory: the messages it had
acknowledged to the tables (so they moved their place on) but queued for a hall that was
away, and retained messages newer than its last save. The hall's per-game acknowledgement
(``P/T/games/G/stored``, retained) makes the tables send again from the hall's place, so the
hall still ends with every game whole, equal to each table's ``companion export``.
"""

from __future__ import annotations

from pathlib import Path

from companion.util.config import Config, TableSettings, VenueSettings
from companion.venue.hall import Hall
from tests.support.tables import FAST_BUTTONS, make_runtime
from tests.support.venue import (
    Broker,
    docs_acl,
    follow,
    hall_has_all,
    hall_keeps_every_game,
    play_all,
    stop_all,
    table,
    wait_until,
)


def test_a_broker_killed_mid_game_while_the_hall_was_away_loses_nothing(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    tables = [table(tmp_path, broker, f"k{i}", seed=20 + i, players="Ann,Ben,Cy") for i in range(3)]
    try:
        wait_until(lambda: all(rt.venue_status()["reachable"] for rt in tables), 60, "every table connected")
        play_all(tables, 5, seed=1)
        wait_until(lambda: hall_has_all(hall, tables), 60, "the hall to store the first moves")
        hall.stop()  # away: the broker queues for its persistent session, in memory
        play_all(tables, 6, seed=2)
        wait_until(lambda: all(rt.venue.pending() == 0 for rt in tables), 60, "the broker to acknowledge")
        broker.kill()  # SIGKILL: what it queued for the hall since its last save is gone
        play_all(tables, 3, seed=3)  # moves made while the broker is down wait in the outboxes
        broker.start()
        hall = follow(tmp_path / "hall", broker)
        play_all(tables, None, seed=4)
        hall_keeps_every_game(hall, tables)
        codes = {p["code"] for p in hall.view()["problems"]}
        assert not codes & {"hall_bad_sum", "hall_bad_event", "hall_bad_message", "hall_failed"}, codes
    finally:
        stop_all(*tables, hall, broker)


def test_a_game_set_up_while_the_hall_was_away_is_sent_whole_when_the_broker_lost_its_setup(
    tmp_path: Path,
) -> None:
    """The retained setup of a game begun while the hall was away dies with the broker: the
    hall, given events of a game it has no setup for, asks (``setup`` false) and the table
    sends the game again from its setup on."""
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    rt = table(tmp_path, broker, "s1", seed=7)
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 60, "the table connected")
        play_all([rt], None, seed=1)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the first game")
        first = rt.table.game_id
        hall.stop()
        second = rt.start_game(["Cy", "Dee"], None, "reference", 4)
        play_all([rt], 4, seed=2)
        assert rt.venue.wait_delivered(30)
        broker.kill()  # the second game's retained setup and its queued events are gone
        broker.start()
        hall = follow(tmp_path / "hall", broker)
        play_all([rt], None, seed=3)
        assert rt.venue.wait_delivered(60)
        wait_until(lambda: hall_has_all(hall, [rt]), 120, "the hall to store the second game")
        for game in (first, second):
            assert hall.record("s1", game) == rt.store.export(game)
    finally:
        rt.stop()
        hall.stop()
        broker.stop()


def test_under_the_docs_acl_the_hall_s_acknowledgements_reach_the_table(tmp_path: Path) -> None:
    """The ACL docs/venue.md gives lets the hall write its acknowledgements and each table read
    its own: a broker killed while the hall was away still ends with the game whole."""
    users = {"hall": "hall-secret", "a1": "a1-secret"}
    broker = Broker(tmp_path / "broker", users=users, acl=docs_acl()).start()
    (tmp_path / "hall-password").write_text("hall-secret\n")
    (tmp_path / "a1-password").write_text("a1-secret\n")
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    hall_settings = VenueSettings(
        broker=broker.url, username="hall", password_file=str(tmp_path / "hall-password")
    )
    hall.connect(hall_settings, client_id="hall-under-acl")
    venue = VenueSettings(
        broker=broker.url, table="a1", username="a1", password_file=str(tmp_path / "a1-password")
    )
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "a1", "Ann,Ben", seed=9, config=config)
    rt.venue.start()
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 60, "the table connected")
        play_all([rt], 4, seed=1)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the first moves")
        hall.stop()
        play_all([rt], 6, seed=2)
        assert rt.venue.wait_delivered(30)
        broker.kill()
        broker.start()
        hall = Hall(tmp_path / "hall", log=lambda _: None)
        hall.connect(hall_settings, client_id="hall-under-acl")
        play_all([rt], None, seed=3)
        assert rt.venue.wait_delivered(60)
        wait_until(lambda: hall_has_all(hall, [rt]), 120, "the hall to store every event")
        game = rt.table.game_id
        assert hall.record("a1", game) == rt.store.export(game)
    finally:
        rt.stop()
        hall.stop()
        broker.stop()
