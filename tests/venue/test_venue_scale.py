"""Issue 36 item 3: a hall that runs all season.

Through a real Mosquitto, 300 games of 10 tables reach one hall (most of them a setup and
two events, a few whole): the hall keeps at most `HOT_GAMES` stores open, whatever the number
of games, and a finished game keeps neither its store nor its board. The hall's page server
uses ``poll()``, so descriptors past 1023 are served. A finished game the hall stored whole
leaves nothing retained on the broker: the table clears its setup and result, the hall its
acknowledgement.
"""

from __future__ import annotations

import gc
import os
import random
import threading
import urllib.request
from pathlib import Path

from companion.venue.hall import HOT_GAMES
from companion.venue.hall_web import create_hall_app, hall_server
from tests.support.hall_feed import GameTemplate, open_under
from tests.support.tables import play_turn
from tests.support.venue import (
    Broker,
    follow,
    free_port,
    hall_has_all,
    raw_client,
    retained,
    table,
    wait_until,
)

TABLES, GAMES_EACH, WHOLE = 10, 30, 4


def test_a_hall_following_300_games_keeps_a_bounded_number_of_stores_open(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    template = GameTemplate(tmp_path / "template", ["Ann", "Ben", "Cy"], seed=7)
    sender = raw_client(broker, "tables", queued=False)
    try:
        expected = 0
        last = None
        for number in range(1, GAMES_EACH + 1):
            for t in range(TABLES):
                whole = number <= WHOLE and t == 0
                for topic, payload in template.messages(f"t{t}", number, None if whole else 2):
                    last = sender.publish(topic, payload, qos=1, retain=topic.endswith("/setup"))
                    expected += topic.endswith("/events")
        assert last is not None
        last.wait_for_publish(120)
        wait_until(lambda: hall.counts["stored"] == expected, 300, f"the hall to store {expected} events")
        folder = tmp_path / "hall"
        with hall.lock:
            assert len(hall.games) == TABLES * GAMES_EACH
            held = open_under(folder)
            assert held <= 4 * HOT_GAMES + 4, f"{held} descriptors open for {len(hall.games)} games"
            finished = [g for g in hall.games.values() if g.result is not None]
            assert len(finished) == WHOLE
            assert all(g.store is None and g.board is None and not g.setup for g in finished)
        assert len(hall.league_games()) == WHOLE
        assert open_under(folder) <= 4 * HOT_GAMES + 4, "the league opened stores and left them open"
        exported = hall.record("t0", 1)  # a cooled game is opened for its record, then closed again
        assert exported.count("\n") == len(template.events) + 1
    finally:
        sender.loop_stop()
        hall.stop()
        broker.stop()


def test_the_hall_s_page_is_served_past_descriptor_1023(tmp_path: Path) -> None:
    from companion.venue.hall import Hall

    gc.collect()
    gc.disable()  # no descriptor freed below 1023 by a collection while the page is served
    spare = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # a busy hall's descriptors
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    server = hall_server(create_hall_app(hall), "127.0.0.1", free_port())
    assert server.socket.fileno() > 1023
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.effective_port}/api/hall"
        with urllib.request.urlopen(url, timeout=20) as answer:
            assert answer.status == 200
    finally:
        server.close()
        thread.join(10)
        hall.stop()
        for fd in spare:
            os.close(fd)
        gc.enable()


def test_a_finished_game_stored_whole_leaves_nothing_retained_on_the_broker(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    rt = table(tmp_path, broker, "t1", seed=12)
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
        rng = random.Random(4)
        while rt.table.expect() is not None:
            play_turn(rt, rng)
        game = rt.table.game_id
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the game")

        def nothing_kept() -> bool:
            with retained(broker) as kept:
                return not [t for t in kept if f"/games/{game}/" in t]

        wait_until(nothing_kept, 60, "the finished game's retained messages to be cleared")
        with retained(broker) as kept:
            assert {"trekking/t1/status", "trekking/t1/state"} <= set(kept), "the table's own stay"
        assert hall.record("t1", game) == rt.store.export(game)
        assert not {p["code"] for p in hall.view()["problems"]}, "an empty retained message is no problem"
    finally:
        rt.stop()
        hall.stop()
        broker.stop()
