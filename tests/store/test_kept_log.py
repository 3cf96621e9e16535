"""The seal reads its log's salts through a descriptor kept open (`KeptLog`, issue 26): at
every point of a log's life it reads what `wal_salts` reads by the log's name, and a store
sealed that way after every commit keeps the seal `seal_now` gives."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from companion.engine import ChooseItinerary
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.store.wal_owner import KeptLog, read_seal, seal_now, wal_salts

SETUP = {"type": "setup", "players": ["Ann", "Ben"], "watch_stack": ["Ann", "Ben"], "edition": "reference"}


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    return db


def test_the_kept_log_reads_what_its_name_holds_through_a_logs_life(tmp_path: Path) -> None:
    database = tmp_path / "x.sqlite3"
    kept = KeptLog(database)
    seen: list[object] = []

    def agree(step: str) -> None:
        now = wal_salts(database)
        assert kept.salts() == now, step
        assert kept.salts() == now, f"{step}, read again"
        seen.append(now)

    agree("no database, no log")
    db = connect(database)
    db.execute("CREATE TABLE t (n INTEGER)")
    agree("a log with its first commit")
    for n in range(3):
        db.execute("INSERT INTO t VALUES (?)", (n,))
        agree(f"commit {n}")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    agree("checkpointed and truncated to nothing")
    db.execute("INSERT INTO t VALUES (9)")
    agree("started afresh: new salts")
    db.close()
    agree("closed: SQLite deleted the log")
    db = connect(database)
    db.execute("INSERT INTO t VALUES (10)")
    agree("a new log file by the same name")
    other = connect(tmp_path / "other.sqlite3")
    other.execute("CREATE TABLE u (n INTEGER)")
    os.replace(tmp_path / "other.sqlite3-wal", tmp_path / "x.sqlite3-wal")
    agree("another log moved over it")
    os.unlink(tmp_path / "x.sqlite3-wal")
    agree("the log removed")
    db.close()
    other.close()
    kept.close()
    assert len({str(s) for s in seen}) >= 4, "the salts changed along the way"


def test_a_store_keeps_the_seal_of_its_log_commit_after_commit(tmp_path: Path) -> None:
    """Through checkpoints that start the log afresh: the seal on disk is `seal_now`'s."""
    store = Store(tmp_path, TREKKING)
    game = store.new_game(SETUP, {})
    salts = set()
    for n in range(40):
        if n % 10 == 9:  # the next commit starts the log afresh
            store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.append(game, n + 1, ChooseItinerary("Ann", f"T{n:02d}"))
        sealed = read_seal(store.path)
        assert sealed is not None and store._id_row is not None, n
        assert sealed == seal_now(store.path, store._id_row), n
        salts.add(str(sealed.wal))
    store.close()
    assert len(salts) >= 4
    assert store._id_row is not None
    assert read_seal(store.path) == seal_now(store.path, store._id_row, closed=True)
