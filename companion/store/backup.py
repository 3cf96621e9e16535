"""`companion backup DEST`: a copy of the game store that can be put back, made while it runs.

SQLite's online backup reads one consistent snapshot whatever the companion writes meanwhile;
the copy is checked as the store checks its own rows before it gets DEST's name (an existing
DEST is refused), and it has a base of its own (`wal_owner`), so a later run's log is not
applied on top of it when it is put back.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from pathlib import Path
from typing import NamedTuple

from companion.store.checksums import chain_damage
from companion.store.log import Store, StoreError, disk_full
from companion.store.wal_owner import new_token


class Backup(NamedTuple):
    """A backup written and checked: where, and what it holds."""

    dest: Path
    games: int
    finished: int
    events: int


def _refuse_dest(dest: Path) -> None:
    """Refuse a DEST that exists, or whose folder cannot take the file, before copying."""
    if dest.exists() or dest.is_symlink():
        raise StoreError("store_backup_exists", dest=str(dest))
    folder = dest.parent
    if not folder.is_dir():
        raise StoreError("store_backup_folder", folder=str(folder), cause=os.strerror(errno.ENOENT))


def _check(copy: sqlite3.Connection, store: Store) -> tuple[int, int, int]:
    """The copy checked as the store checks itself: (games, finished, events). A game whose
    rows fail their checksums in the copy but not in the store is a bad copy; one that fails
    in both was damaged before (the store has said so) and is copied as it is."""
    problems = [row[0] for row in copy.execute("PRAGMA integrity_check(5)")]
    if problems != ["ok"]:
        raise StoreError("store_backup_unchecked", cause="; ".join(problems))

    def rows(sql: str, args: tuple[object, ...]) -> list[object]:
        return copy.execute(sql, args).fetchall()

    found = copy.execute("SELECT id, finished FROM games ORDER BY id").fetchall()
    for game, _ in found:
        damage = chain_damage(rows, int(game))
        if damage is not None and damage != store.chain_damage(int(game)):
            raise StoreError("store_backup_unchecked", cause=f"game {game}: {damage.code}")
    (events,) = copy.execute("SELECT COUNT(*) FROM events").fetchone()
    return len(found), sum(1 for _, finished in found if finished), int(events)


def backup(store: Store, dest: Path) -> Backup:
    """Copy ``store`` to ``dest`` (a new file), checked; a `StoreError` says what went wrong
    (DEST exists, its folder cannot be written, the disk is full, the copy did not check),
    and nothing of the copy is left."""
    dest = Path(os.path.abspath(dest))
    _refuse_dest(dest)
    temp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:  # made private before a byte is written: names and the hosts' sessions
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:  # the folder cannot take a file: not ours, read-only, or full
        if disk_full(exc, dest.parent):
            raise StoreError("store_backup_full", folder=str(dest.parent)) from None
        raise StoreError(
            "store_backup_folder", folder=str(dest.parent), cause=exc.strerror or str(exc)
        ) from None
    try:
        with contextlib.closing(sqlite3.connect(temp, isolation_level=None)) as copy:
            store.copy_to(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one file, no log beside it
            with contextlib.suppress(sqlite3.OperationalError):  # a store from before identities
                copy.execute("UPDATE identity SET base = ?, log = '' WHERE one = 1", (new_token(),))
            games, finished, events = _check(copy, store)
        with open(temp, "rb") as written:
            os.fsync(written.fileno())
        try:
            os.link(temp, dest)  # never over a file that appeared meanwhile
        except FileExistsError:
            raise StoreError("store_backup_exists", dest=str(dest)) from None
        except OSError:  # a file system without hard links (a FAT USB stick)
            if dest.exists():
                raise StoreError("store_backup_exists", dest=str(dest)) from None
            os.rename(temp, dest)
        with contextlib.suppress(OSError):
            folder = os.open(dest.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    except (OSError, sqlite3.Error) as exc:
        if disk_full(exc, dest.parent):
            raise StoreError("store_backup_full", folder=str(dest.parent)) from None
        raise StoreError("store_backup_failed", dest=str(dest), cause=str(exc)) from None
    finally:
        for leftover in (temp, temp.with_name(temp.name + "-journal")):
            with contextlib.suppress(OSError):
                leftover.unlink()
    return Backup(dest, games, finished, events)
