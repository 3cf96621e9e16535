"""Issue 21 item 6: a write-ahead log that is not the store's own is never applied.

SQLite applies any `-wal` beside a database whose frames check against the log's own header;
nothing ties a log to its database. A log copied from another companion's store turned the
owner's store into the other one, and a restored backup beside a crashed run's log was rolled
forward silently. The companion keeps the tie itself (`companion.store.wal`'s seal); a log that does
not belong is moved aside with a copy of the store, and the owner is told what to do.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from companion.engine import ChooseItinerary
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.store.wal_owner import read_seal, seal_now, seal_path

SETUP = {"type": "setup", "players": ["Ann", "Ben"], "watch_stack": ["Ann", "Ben"], "edition": "reference"}
FILES = ("companion.sqlite3", "companion.sqlite3-wal", "companion.sqlite3-seal")


def store_with(folder: Path, players: list[str], events: int) -> tuple[Store, int]:
    """A store whose game has ``events`` events, its log never checkpointed (as a crash leaves it)."""
    store = Store(folder, TREKKING)
    store._db.execute("PRAGMA wal_autocheckpoint=0")
    game = store.new_game({**SETUP, "players": players, "watch_stack": players}, {})
    for n in range(events):
        store.append(game, n + 1, ChooseItinerary(players[0], f"T{n:02d}"))
    return store, game


def crash_copy(live: Path, folder: Path) -> Path:
    """The data directory as a crash leaves it (files copied with their times, the index not)."""
    folder.mkdir()
    for name in FILES:
        if (live / name).exists():
            shutil.copy2(live / name, folder / name)
    return folder


def test_a_crashed_runs_own_log_is_applied_and_warns_of_nothing(tmp_path: Path) -> None:
    live, game = store_with(tmp_path / "live", ["Ann", "Ben"], 12)
    copy = crash_copy(tmp_path / "live", tmp_path / "copy")
    live.close()
    store = Store(copy, TREKKING)
    assert len(store.load(game).events) == 12 and store.damage == []
    assert not list(copy.glob("*foreign*")) and not list(copy.glob("*restored*"))
    store.close()


def test_another_stores_log_beside_a_store_closed_cleanly_is_set_aside_and_said(tmp_path: Path) -> None:
    """The audit: the other store's log made the owner's games vanish, integrity "ok"."""
    owner, _ = store_with(tmp_path / "owner", ["Ann", "Ben"], 5)
    owner.close()  # cleanly: its own log is gone, the seal says so
    other, _ = store_with(tmp_path / "other", ["Zed", "Yan", "Xu"], 30)
    wal = tmp_path / "owner" / "companion.sqlite3-wal"
    shutil.copyfile(tmp_path / "other" / "companion.sqlite3-wal", wal)
    other.close()
    before = (tmp_path / "owner" / "companion.sqlite3").read_bytes()

    store = Store(tmp_path / "owner", TREKKING)
    try:
        assert [store.load(g).setup.players for g, *_ in store.games()] == [("Ann", "Ben")]
        [notice] = store.damage
        assert notice.code == "store_journal_foreign"
        kept, copy = Path(notice.params["journal"]), Path(notice.params["copy"])
        assert kept.name.startswith("companion.sqlite3-wal.foreign-") and kept.stat().st_size > 0
        assert copy.read_bytes() == before, "the store as found is kept too"
        assert "was not written for it" in notice.message and "Seen" in notice.fix
        assert notice.to_json()["params"]["journal"] == str(kept)
    finally:
        store.close()


def test_another_stores_log_beside_a_crashed_store_is_set_aside(tmp_path: Path) -> None:
    """The owner's own log was copied over (its moves since the last checkpoint are in the
    kept copy of the owner's data only); the other store's is not applied either."""
    owner, game = store_with(tmp_path / "owner", ["Ann", "Ben"], 5)
    owner._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # Ann and Ben's game in the file itself
    owner.append(game, 6, ChooseItinerary("Ann", "T99"))  # and a move in the log: the crash
    copy = crash_copy(tmp_path / "owner", tmp_path / "copy")
    owner.close()
    other, _ = store_with(tmp_path / "other", ["Zed", "Yan"], 30)
    shutil.copyfile(tmp_path / "other" / "companion.sqlite3-wal", copy / "companion.sqlite3-wal")
    other.close()
    store = Store(copy, TREKKING)
    try:
        assert [store.load(g).setup.players for g, *_ in store.games()] == [("Ann", "Ben")]
        assert [d.code for d in store.damage] == ["store_journal_foreign"]
    finally:
        store.close()


def test_a_restored_backup_beside_a_crashed_runs_log_is_said_and_not_rolled_forward(
    tmp_path: Path,
) -> None:
    live = tmp_path / "live"
    store, game = store_with(live, ["Ann", "Ben"], 4)
    store.close()
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(live / "companion.sqlite3", backup)
    store = Store(live, TREKKING)  # the next evening: moves, then a crash
    store._db.execute("PRAGMA wal_autocheckpoint=0")
    for n in range(4, 20):
        store.append(game, n + 1, ChooseItinerary("Ann", f"T{n:02d}"))
    crashed = crash_copy(live, tmp_path / "crashed")
    store.close()
    shutil.copyfile(backup, crashed / "companion.sqlite3")  # the owner restores the backup

    again = Store(crashed, TREKKING)
    try:
        assert len(again.load(game).events) == 4, "the backup as restored"
        [notice] = again.damage
        assert notice.code == "store_journal_restored" and "restored backup" in notice.message
        assert Path(notice.params["journal"]).name.startswith("companion.sqlite3-wal.restored-")
    finally:
        again.close()


@pytest.mark.parametrize("owner_left", ["closed", "crashed"])
def test_another_stores_log_with_the_seal_deleted_is_set_aside_and_said(
    tmp_path: Path, owner_left: str
) -> None:
    """Issue 33 item 2: with no seal, the log is compared with the database before SQLite
    applies it (Ann and Ben's store showed Zed and Yan's game, no word)."""
    owner, game = store_with(tmp_path / "owner", ["Ann", "Ben"], 5)
    folder = tmp_path / "owner"
    if owner_left == "crashed":  # Ann and Ben's game in the file itself, a move in the log
        owner._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        owner.append(game, 6, ChooseItinerary("Ann", "T99"))
        folder = crash_copy(tmp_path / "owner", tmp_path / "copy")
    owner.close()
    other, game = store_with(tmp_path / "other", ["Zed", "Yan"], 30)
    other._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # a later log of the other's run
    other.append(game, 31, ChooseItinerary("Zed", "T99"))
    shutil.copyfile(tmp_path / "other" / "companion.sqlite3-wal", folder / "companion.sqlite3-wal")
    other.close()
    seal_path(folder / "companion.sqlite3").unlink()
    before = (folder / "companion.sqlite3").read_bytes()

    store = Store(folder, TREKKING)
    try:
        assert [store.load(g).setup.players for g, *_ in store.games()] == [("Ann", "Ben")]
        [notice] = store.damage
        assert notice.code == "store_journal_foreign" and "Seen" in notice.fix
        assert Path(notice.params["journal"]).stat().st_size > 0, "the log is kept"
        assert Path(notice.params["copy"]).read_bytes() == before, "and the store as found"
    finally:
        store.close()


def test_a_restored_backup_is_told_by_content_with_the_seal_deleted(tmp_path: Path) -> None:
    """The backup and the database the crashed run's log was written on are the same bytes:
    only the base drawn at each opening, kept in the file and in the log, tells them apart."""
    live = tmp_path / "live"
    store, game = store_with(live, ["Ann", "Ben"], 4)
    store.close()
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(live / "companion.sqlite3", backup)
    store = Store(live, TREKKING)
    store._db.execute("PRAGMA wal_autocheckpoint=0")
    for n in range(4, 20):
        store.append(game, n + 1, ChooseItinerary("Ann", f"T{n:02d}"))
    crashed = crash_copy(live, tmp_path / "crashed")
    store.close()
    shutil.copyfile(backup, crashed / "companion.sqlite3")
    seal_path(crashed / "companion.sqlite3").unlink()

    again = Store(crashed, TREKKING)
    try:
        assert len(again.load(game).events) == 4, "the backup as restored"
        assert [d.code for d in again.damage] == ["store_journal_restored"]
    finally:
        again.close()


def test_a_crashed_stores_own_log_with_the_seal_deleted_is_applied(tmp_path: Path) -> None:
    live, game = store_with(tmp_path / "live", ["Ann", "Ben"], 12)
    copy = crash_copy(tmp_path / "live", tmp_path / "copy")
    live.close()
    seal_path(copy / "companion.sqlite3").unlink()
    store = Store(copy, TREKKING)
    try:
        assert len(store.load(game).events) == 12 and store.damage == []
    finally:
        store.close()


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
