"""The game's finished flag follows every write (`Store.write_events`): set by the events that
end the game, cleared by an undo of them, left alone when the caller does not say (None);
a write that does not change it leaves the row's value as it is (only a change is written)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from companion.records.trekking import TREKKING
from companion.store.log import Store
from tests.support.tables import make_runtime, play_turn


def stored_flag(folder: Path, game: int) -> object:
    with sqlite3.connect(folder / "companion.sqlite3") as db:
        return db.execute("SELECT finished FROM games WHERE id = ?", (game,)).fetchone()[0]


def test_the_finished_flag_is_stored_as_the_game_ends_and_is_undone(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann")
    rng = random.Random(12)
    game = rt.table.game_id
    while not rt.table.board.finished:
        play_turn(rt, rng)
        assert stored_flag(tmp_path, game) == int(rt.table.board.finished)
    assert rt.press("undo").accepted and not rt.table.board.finished
    assert stored_flag(tmp_path, game) == 0
    rt.stop()


def test_a_write_sets_the_flag_it_is_given_and_leaves_it_without_one(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann")
    game, seq = rt.table.game_id, rt.table.seq
    rt.stop()
    store = Store(tmp_path, TREKKING)
    try:
        for finished, flag in ((True, 1), (None, 1), (True, 1), (False, 0), (None, 0), (False, 0)):
            store.write_events(game, seq + 1, [], finished)
            assert stored_flag(tmp_path, game) == flag, finished
        with sqlite3.connect(tmp_path / "companion.sqlite3") as db:  # a value not 0 or 1 is set right
            db.execute("UPDATE games SET finished = 2 WHERE id = ?", (game,))
        store.write_events(game, seq + 1, [], True)
        assert stored_flag(tmp_path, game) == 1
    finally:
        store.close()
