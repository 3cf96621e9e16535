"""The hall's bookkeeping without a broker: messages handed to `Hall.handle` as the broker would.

After a power cut between a game's store (which has the event) and the hall's index (which
does not yet), the event sent again is checked, not stored twice, and the game goes on.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from companion.run.runtime import Runtime
from companion.table.stream import Committed, GameStarted, StreamItem
from companion.venue.hall import Hall
from companion.venue.topics import encode, setup_message
from tests.support.tables import make_runtime, play_turn


def played(tmp_path: Path, seed: int) -> tuple[Runtime, list[tuple[str, bytes]]]:
    """A table that played a whole game, and its setup and events as the hall would receive them."""
    rt = make_runtime(tmp_path / "table")
    heard: list[StreamItem] = []
    subscription = rt.session.subscribe(heard.append, after=(0, 0))
    rng = random.Random(seed)
    while rt.table.expect() is not None:
        play_turn(rt, rng)
    assert subscription.wait_idle(30)
    out = []
    for item in heard:
        if isinstance(item, GameStarted):
            out.append((f"trekking/{item.table}/games/{item.game}/setup", encode(setup_message(item))))
        elif isinstance(item, Committed):
            out.append((f"trekking/{item.table}/games/{item.game}/events", encode(item.to_json())))
    return rt, out


def test_an_event_the_store_kept_but_the_index_lost_is_checked_not_stored_twice(tmp_path: Path) -> None:
    rt, sent = played(tmp_path, seed=3)
    game = rt.table.game_id
    half = len(sent) // 2
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    for topic, payload in sent[:half]:
        hall.handle(topic, payload)
    hall.stop()
    events = [json.loads(p) for _, p in sent if "/events" in _]
    last = hall_seq = half - 1  # the setup is the first message
    with sqlite3.connect(tmp_path / "hall" / "hall.sqlite") as index:  # the index one event behind
        index.execute("UPDATE games SET seq = ?, sum = ?", (hall_seq - 1, events[hall_seq - 2]["sum"]))
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    for topic, payload in sent[last:]:  # the table sends again from its place: the lost one first
        hall.handle(topic, payload)
    assert not hall.problems, list(hall.problems)
    assert hall.record(rt.session.stream.table, game) == rt.store.export(game)
    hall.stop()
    rt.stop()


def test_a_game_whose_index_row_was_lost_is_rebuilt_from_its_store_when_told_again(tmp_path: Path) -> None:
    rt, sent = played(tmp_path, seed=5)
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    for topic, payload in sent[: len(sent) // 2]:
        hall.handle(topic, payload)
    hall.stop()
    with sqlite3.connect(tmp_path / "hall" / "hall.sqlite") as index:
        index.execute("DELETE FROM games")
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    for topic, payload in sent:  # everything again, from the setup on
        hall.handle(topic, payload)
    assert not hall.problems, list(hall.problems)
    game = rt.table.game_id
    assert hall.record(rt.session.stream.table, game) == rt.store.export(game)
    hall.stop()
    rt.stop()
