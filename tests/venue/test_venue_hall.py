"""Issue 23 items 3 and 5: one hall follows ten tables through a real Mosquitto.

Ten simulated tables (mocked hardware, players tapping through `play_turn`) play whole
games at once into one hall, through a broker restarted mid-game and a hall stopped for
part of the games; afterwards the hall's record of every game equals the table's
``companion export``, with no event lost or doubled. A hostile publisher (wrong checksums,
a gap, oversized and malformed messages, a table the hall does not follow) is logged and
shown, never trusted; the page is read-only and its CSV has every finished game.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from companion.venue.hall import Hall
from companion.venue.hall_web import create_hall_app
from tests.support.tables import play_turn
from tests.support.venue import (
    Broker,
    follow,
    hall_has_all,
    hall_keeps_every_game,
    play_all,
    raw_client,
    stop_all,
    table,
    wait_until,
)

TABLES = 10


def test_ten_tables_play_whole_games_into_one_hall_through_a_broker_restart_and_a_hall_stop(
    tmp_path: Path,
) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    tables = [table(tmp_path, broker, f"t{i}", seed=i, players="Ann,Ben,Cy" if i % 2 else "Dee,Eve")
              for i in range(TABLES)]  # fmt: skip
    try:
        wait_until(lambda: all(rt.venue_status()["reachable"] for rt in tables), 60, "every table connected")
        play_all(tables, 6, seed=100)
        broker.stop()  # the broker restarts mid-game
        play_all(tables, 6, seed=200)
        broker.start()
        wait_until(lambda: all(rt.venue_status()["reachable"] for rt in tables), 60, "the tables reconnected")
        wait_until(lambda: all(rt.venue.pending() == 0 for rt in tables), 60, "the outboxes to empty")
        hall.stop()  # the hall is stopped for part of the games: the broker queues for it
        play_all(tables, 8, seed=300)
        hall = follow(tmp_path / "hall", broker)
        play_all(tables, None, seed=400)
        hall_keeps_every_game(hall, tables)
        assert all(rt.state()["finished"] for rt in tables)
        exports = {rt.venue.table: (rt.table.game_id, rt.store.export(rt.table.game_id)) for rt in tables}
        view = hall.view()
        assert len(view["finished"]) == TABLES and all(entry["agrees"] for entry in view["finished"])
        codes = {p["code"] for p in view["problems"]}
        assert not codes & {"hall_bad_sum", "hall_bad_event", "hall_bad_message", "hall_failed"}, codes
        names = {row["name"] for row in view["standings"]}
        assert names == {"Ann", "Ben", "Cy", "Dee", "Eve"}
        assert sum(row["games"] for row in view["standings"]) == 5 * 3 + 5 * 2
    finally:
        stop_all(*tables, hall, broker)
    # after a restart of the hall, its index and stores still give every game back
    again = Hall(tmp_path / "hall", log=lambda _: None)
    for name, (game, exported) in exports.items():
        assert again.record(name, game) == exported
    again.stop()


def test_a_hostile_publisher_is_logged_and_shown_never_trusted(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker, tables={"t1", "t2"})
    rt = table(tmp_path, broker, "t1", seed=3)
    hostile = raw_client(broker, "hostile")
    try:
        rng = random.Random(6)
        for _ in range(4):
            play_turn(rt, rng)
        assert rt.venue.wait_delivered(30)
        game = rt.table.game_id
        wait_until(lambda: hall_has_all(hall, [rt]), 30, "the hall to store the first events")
        events = f"trekking/t1/games/{game}/events"
        following = len(rt.store.load(game).rows) + 1
        forged = {"table": "t1", "game": game, "seq": following, "at": "2026-01-01T00:00:00+00:00",
                  "event": {"type": "undo"}, "sum": "0" * 64}  # fmt: skip
        sends = [
            (events, json.dumps(forged).encode()),  # a checksum that does not follow the chain
            (events, json.dumps({**forged, "seq": following + 40}).encode()),  # a gap
            (events, b"{not json"),
            (events, b"x" * 70_000),  # over the size limit
            ("trekking/t3/games/1/events", json.dumps({**forged, "table": "t3"}).encode()),  # not followed
            ("trekking/t1/games/1/nonsense", b"{}"),
            (f"trekking/t1/games/{game}/setup", json.dumps({"table": "t1", "game": game + 1}).encode()),
        ]
        for topic, payload in sends:
            hostile.publish(topic, payload, qos=1).wait_for_publish(10)
        wanted = {"hall_bad_sum", "hall_gap", "hall_bad_message", "hall_too_big", "hall_unknown_table",
                  "hall_bad_topic"}  # fmt: skip
        shown = lambda: {p["code"] for p in hall.view()["problems"]}  # noqa: E731
        wait_until(lambda: wanted <= shown(), 30, "every refusal shown")
        while rt.table.expect() is not None:  # the real table goes on and its record stays whole
            play_turn(rt, rng)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the real events")
        assert hall.record("t1", game) == rt.store.export(game)
        page = create_hall_app(hall).test_client()
        html = page.get("/").get_data(as_text=True)
        assert "t1" in html and "checksum" in html, "the page shows the refusals"
        assert "chaîne de sommes de contrôle" in page.get("/?lang=fr").get_data(as_text=True)
        assert page.post("/").status_code == 405, "read-only"
        rows = page.get("/results.csv").get_data(as_text=True).splitlines()
        assert rows[0] == "table,game,started,player,points,rank,winner" and len(rows) == 1 + 2
    finally:
        hostile.disconnect()
        hostile.loop_stop()
        rt.stop()
        hall.stop()
        broker.stop()
