"""The game log on disk: SQLite, one row per accepted event, nothing else.

The event log is the only truth: each accepted event is committed (WAL, ``synchronous=FULL``)
*before* the ring or the page shows it, and the events of one input are stored together or not
at all, so what the table shows is exactly what a restart resumes. Every row carries a checksum
(`companion.store.checksums`); damage is set aside and shown until the host acknowledges it, so
the standings never change without a word. The store knows no game: a `GameCodec` turns its
setup and events to and from JSON. Only the standard library and stdlib-only helpers.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from companion.store.checksums import DAMAGE_CODES, Damage, chain_damage, event_sum, game_sum
from companion.store.codec import GameCodec, StoredEvent, StoredGame
from companion.store.damage import DamageNotice, GameDamaged
from companion.store.errors import DiskFull, StoreError, disk_full, no_room
from companion.store.private_files import make_private, make_private_dir
from companion.store.runner import RunnerLock
from companion.store.schema import LEGACY_FORMAT, SCHEMA, SCHEMA_VERSION
from companion.store.wal import check_wal
from companion.store.wal_owner import (
    Identity,
    Seal,
    read_identity,
    rebase,
    salts_text,
    seal_now,
    set_stranger_aside,
    wal_salts,
    write_seal,
)
from companion.util.wording import say

#: What callers import from here, kept in the modules named for them.
__all__ = [
    "DAMAGE_CODES",
    "LEGACY_FORMAT",
    "SCHEMA_VERSION",
    "Damage",
    "DamageNotice",
    "DiskFull",
    "GameCodec",
    "GameDamaged",
    "Store",
    "StoreError",
    "StoredEvent",
    "StoredGame",
    "disk_full",
    "event_sum",
    "no_room",
]

T = TypeVar("T")


def _now() -> str:
    """Now, as rows keep it: "2026-11-26T15:50:22.839+00:00"."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """The SQLite event store of one data directory."""

    def __init__(self, data_dir: str | Path, codec: GameCodec) -> None:
        self.path = Path(data_dir) / "companion.sqlite3"
        #: The game this store keeps: its format's name, its setup and events to and from JSON.
        self.codec = codec
        #: Things found at opening that people should hear about (the game still starts).
        self.warnings: list[str] = []
        #: Things that happened while running that the owner should hear of (nothing was lost).
        self.notices: list[str] = []
        self._runner = RunnerLock(self.path.parent)
        #: Said once at opening when the store was upgraded (checksums computed), else None.
        self.upgraded: str | None = None
        #: Damage found in games' rows and not yet acknowledged by the host (oldest first).
        self.damage: list[DamageNotice] = []
        #: Moves on with every write that changes the history (a game finishing or finished,
        #: a merge, damage set aside): the history page is computed again only then.
        self.history_version = 0
        self._lock = threading.Lock()
        #: The tie kept between the database and its log (`companion.store.wal_owner`), as last
        #: written; the database's identity row (None: a store that has none yet); the salts of
        #: its log after this store's last commit (a change: that commit started a new log).
        self._seal: Seal | None = None
        self._id_row: Identity | None = None
        self._salts: tuple[int, int] | None = None
        #: Each game's chain head and finished flag (0 or 1) as this store last committed them:
        #: `write_events` moves them on without reading them first, and checks that the row
        #: still holds them in the same statement (another writer's change is then read).
        self._heads: dict[int, tuple[str, int]] = {}
        self._opened = False
        self._closed = False
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            make_private_dir(self.path.parent)
            empty = self._empty_aside()
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            for suffix in ("", "-wal", "-shm"):
                make_private(self.path.with_name(self.path.name + suffix))
            stranger = set_stranger_aside(self.path)  # before SQLite could apply it
            journal = check_wal(self.path)
            if journal is not None:
                self.warnings.append(str(journal))
            self._connect()
            problems = [row[0] for row in self._db.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems))
            self._db.executescript(SCHEMA)
            self._identity = self._file_identity()
            self._migrate()
            # a new base, straight into the file; not on a disk with no room (no write it need not make)
            self._id_row = (None if no_room(self.path.parent) else rebase(self._db)) or read_identity(
                self._db
            )
            if journal is not None:  # shown like the rows' damage, until the host has seen it
                self._record_damage(
                    self._current(),
                    "store_journal_damaged",
                    {"dropped": journal.dropped, "copy": str(journal.kept)},
                )
            if empty is not None:  # said at every start, and shown, until the host has seen it
                self._record_damage(0, DAMAGE_CODES["empty"], {"store": str(self.path), "copy": str(empty)})
            if stranger is not None:
                self._record_damage(
                    self._current(),
                    DAMAGE_CODES[stranger.kind],
                    {"journal": str(stranger.journal), "copy": str(stranger.copy), "store": str(self.path)},
                )
            self._reseal()
            self._opened = True
            self.damage = self._damage_notices()
        except (OSError, sqlite3.Error) as exc:
            if hasattr(self, "_db"):  # nothing of a failed opening stays open for the next try
                self._db.close()
            if disk_full(exc, self.path.parent):  # no damage: the data is fine, space is needed
                raise DiskFull("store_full_open", folder=str(self.path.parent)) from None
            if isinstance(exc, sqlite3.DatabaseError):
                raise StoreError(
                    "store_open_damaged", path=str(self.path), file=self.path.name, cause=str(exc)
                ) from None
            raise StoreError("store_open_failed", path=str(self.path), cause=str(exc)) from None

    def _empty_aside(self) -> Path | None:
        """A zero-length database file with no log to rebuild it from, which SQLite would
        silently make a new, empty store: kept aside (``companion.sqlite3.empty-…``) and said."""
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            if self.path.stat().st_size != 0 or (wal.exists() and wal.stat().st_size > 32):
                return None
        except FileNotFoundError:
            return None
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        kept = self.path.with_name(f"{self.path.name}.empty-{stamp}")
        os.replace(self.path, kept)
        for suffix in ("-wal", "-shm"):  # an empty log and its index belong to nothing now
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        return kept

    def _migrate(self) -> None:
        """Bring a store written by an older companion to `SCHEMA_VERSION`, once, in one
        transaction: version 1 adds the checksums and computes them for the rows there
        (damage done before the upgrade cannot be told; from now on it is); version 2
        records each game's format (`LEGACY_FORMAT` for the games already there)."""
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version >= SCHEMA_VERSION:
            return

        def add_column(table: str, column: str) -> None:
            names = [row[1] for row in self._db.execute(f"PRAGMA table_info({table})")]
            if column not in names:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")

        def upgrade() -> tuple[int, int]:
            games: list[Any] = []
            events = 0
            if version < 1:
                for table, column in (("games", "sum"), ("games", "head"), ("events", "sum")):
                    add_column(table, column)
                games = self._db.execute("SELECT id, created, setup, meta FROM games").fetchall()
                for game_id, created, setup, meta in games:
                    head = game_sum(game_id, created, setup, meta)
                    self._db.execute("UPDATE games SET sum = ? WHERE id = ?", (head, game_id))
                    rows = self._db.execute(
                        "SELECT seq, event, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
                    ).fetchall()
                    for seq, event, at in rows:
                        head = event_sum(head, game_id, seq, event, at)
                        self._db.execute(
                            "UPDATE events SET sum = ? WHERE game_id = ? AND seq = ?", (head, game_id, seq)
                        )
                    self._db.execute("UPDATE games SET head = ? WHERE id = ?", (head, game_id))
                    events += len(rows)
            add_column("games", "format")
            self._db.execute("UPDATE games SET format = ? WHERE format IS NULL", (LEGACY_FORMAT,))
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return len(games), events

        games, events = self._transaction(upgrade)
        if games:
            self.upgraded = say("store_upgraded", path=self.path, games=games, events=events)

    def _reseal(self, committed: bool = False) -> None:
        """Keep the tie between the database and its log (`companion.store.wal_owner`): after a
        commit that started a log afresh, the identity row is written into the new log first."""
        if self._id_row is None:
            return
        salts = wal_salts(self.path)
        if committed and salts is not None and salts != self._salts:
            with contextlib.suppress(sqlite3.Error):  # a full disk: the seal alone ties this log
                self._db.execute("UPDATE identity SET log = ? WHERE one = 1", (salts_text(salts),))
        self._salts = salts
        seal = Seal(self._id_row.store, self._id_row.base, "open" if salts is None else salts)
        if seal != self._seal:
            self._seal = seal if write_seal(self.path, seal) else None

    def close(self) -> None:
        with self._lock:  # not in the middle of another thread's read (the finished games' check)
            self._closed = True
            self._db.close()
        if (
            self._opened and self._id_row is not None
        ):  # SQLite removed the log if this was its last connection
            write_seal(self.path, seal_now(self.path, self._id_row, closed=True))
        self._runner.release()

    # --- writing: one transaction each, or nothing -------------------------------------

    def _file_identity(self) -> tuple[int, int]:
        info = os.stat(self.path)
        return info.st_dev, info.st_ino

    def _connect(self) -> None:
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")

    def _check_file(self) -> None:
        """Before a write: is the file we hold open still the store on disk? Deleted: the open
        connection still reads every game, so it is written back whole (``VACUUM INTO``) and
        the write goes on. Replaced: someone put it there on purpose, so writing stops."""
        try:
            if self._file_identity() == self._identity:
                return
            replaced = True
        except FileNotFoundError:
            replaced = False
        if not replaced:
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                self._db.execute("VACUUM INTO ?", (str(self.path),))
                self._db.close()
                make_private(self.path)
                self._connect()
                self._identity = self._file_identity()
                self.notices.append(say("store_written_back", path=self.path))
                return
            except (OSError, sqlite3.Error):
                pass
        if replaced:  # someone put it there on purpose: not overwritten
            raise StoreError("store_replaced", path=str(self.path))
        raise StoreError("store_deleted", path=str(self.path))

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]], durable: bool = True) -> None:
        """Run ``statements`` as one transaction: on any failure nothing of it is stored and the
        error says what to do. ``durable=False`` skips the fsync (``synchronous=NORMAL`` for this
        commit): it survives a crash of the companion but perhaps not a power cut, and costs no
        SD-card flush."""

        def run() -> None:
            for sql, args in statements:
                self._db.execute(sql, args)

        self._transaction(run, durable)

    def _transaction(self, work: Callable[[], T], durable: bool = True) -> T:
        """Run ``work`` (statements on ``self._db``) as one transaction, and return what it
        returns; on any failure nothing of it is stored and the error says what to do."""
        with self._lock:
            self._check_file()
            if not durable:
                self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._db.execute("BEGIN IMMEDIATE")
                result = work()
                self._db.execute("COMMIT")
                self._reseal(committed=True)
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if disk_full(exc, self.path.parent) or "full" in str(exc):
                    raise DiskFull("store_full_write", folder=str(self.path.parent)) from None
                raise StoreError("store_write_failed", path=str(self.path), cause=str(exc)) from None
            finally:
                if not durable:
                    self._db.execute("PRAGMA synchronous=FULL")
            return result

    # --- games ------------------------------------------------------------------------

    def new_game(
        self,
        setup_json: dict[str, Any],
        meta: dict[str, Any],
        marks: dict[str, tuple[str, int]] | None = None,
    ) -> int:
        """Store a new game (its setup line, in the codec's format, and the table's settings,
        with their checksum), make it the game on the table, and return its id. ``marks``:
        players' colours and markers given or changed by this game, kept in the same transaction."""
        created, setup, settings = _now(), json.dumps(setup_json), json.dumps(meta)

        def insert() -> int:
            game = self._db.execute(
                "INSERT INTO games (created, setup, meta, format) VALUES (?, ?, ?, ?)",
                (created, setup, settings, self.codec.format),
            ).lastrowid
            assert game is not None
            start = game_sum(game, created, setup, settings)
            self._db.execute("UPDATE games SET sum = ?, head = ? WHERE id = ?", (start, start, game))
            self._db.execute("INSERT OR REPLACE INTO current (one, game_id) VALUES (1, ?)", (game,))
            for player, (colour, marker) in (marks or {}).items():
                self._db.execute(
                    "INSERT OR REPLACE INTO player_marks (player, colour, marker) VALUES (?, ?, ?)",
                    (player, colour, marker),
                )
            return game

        return self._transaction(insert)

    def player_marks(self) -> dict[str, tuple[str, int]]:
        """Each known player's colour and marker, by player key (`Store.new_game` keeps them)."""
        rows = self._read("SELECT player, colour, marker FROM player_marks")
        return {player: (colour, int(marker)) for player, colour, marker in rows}

    def append(self, game_id: int, seq: int, event: Any) -> StoredEvent:
        """Durably add the ``seq``-th accepted event (raises if that seq exists)."""
        return self.write_events(game_id, seq, [event], None)[0]

    def write_events(
        self,
        game_id: int,
        first_seq: int,
        events: list[Any],
        finished: bool | None,
        pending: dict[str, Any] | None = None,
    ) -> list[StoredEvent]:
        """Add ``events`` as seq ``first_seq``, ``first_seq + 1``... and the game's finished
        flag and pending take, in one transaction: all of it is stored or none. Returns the
        rows as committed (their time, JSON and checksums): what the committed stream tells."""
        at = _now()
        texts = [json.dumps(self.codec.event_to_json(event)) for event in events]
        statements = self._pending_statements(game_id, pending)

        def chain(head: str) -> list[StoredEvent]:
            rows = []
            for n, text in enumerate(texts):
                head = event_sum(head, game_id, first_seq + n, text, at)
                rows.append(StoredEvent(game_id, first_seq + n, at, text, head))
            return rows

        def move_on(known: tuple[str, int]) -> tuple[list[StoredEvent], bool, tuple[str, int]] | None:
            """The rows chained from the head this store last committed (`_heads`), the game's
            row moved on by one UPDATE that holds only if it still has that head and flag; None
            when it has not (another writer's change): nothing was written."""
            rows = chain(known[0])
            after = (rows[-1].sum, known[1] if finished is None else int(finished))
            moved = self._db.execute(
                "UPDATE games SET head = ?, finished = ? WHERE id = ? AND head = ? AND finished = ?",
                (*after, game_id, *known),
            ).rowcount
            return (rows, bool(finished) or bool(known[1]), after) if moved == 1 else None

        def read_on() -> tuple[list[StoredEvent], bool, tuple[str, int] | None]:
            """The rows chained from the game's head read inside this transaction (no other
            writer can come between), and the game's row moved on with them."""
            found = self._db.execute("SELECT head, finished FROM games WHERE id = ?", (game_id,)).fetchone()
            head = str(found[0]) if found and found[0] is not None else ""
            rows = chain(head)
            history = bool(finished) or bool(found and found[1])  # a finished game, or one ending
            if rows:
                self._db.execute("UPDATE games SET head = ? WHERE id = ?", (rows[-1].sum, game_id))
            if finished is not None and (found is None or found[1] != int(finished)):  # only a change
                self._db.execute("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id))
            if found is None or (not rows and found[0] is None):
                return rows, history, None
            return rows, history, (rows[-1].sum if rows else str(found[0]), int(bool(
                finished if finished is not None else found[1])))  # fmt: skip

        def write() -> tuple[list[StoredEvent], bool, tuple[str, int] | None]:
            # The statements' order inside the transaction changes nothing of what is stored.
            known = self._heads.get(game_id) if texts else None
            done = move_on(known) if known is not None else None
            rows, history, after = done if done is not None else read_on()
            self._db.executemany(
                "INSERT INTO events (game_id, seq, event, at, sum) VALUES (?, ?, ?, ?, ?)",
                [(game_id, row.seq, row.text, at, row.sum) for row in rows],
            )
            for sql, args in statements:
                self._db.execute(sql, args)
            return rows, history, after

        rows, history, after = self._transaction(write)
        if after is None:
            self._heads.pop(game_id, None)
        else:
            self._heads[game_id] = after
        if history:
            self.history_version += 1
        return rows

    def save_pending(self, game_id: int, pending: dict[str, Any] | None) -> None:
        """Keep (or clear) the take being prepared, so a restart resumes it.

        Not fsynced: a take being prepared is no accepted event, and every tap and Crystal
        press would otherwise wait for an SD-card flush. The next event's commit flushes it."""
        self._write(self._pending_statements(game_id, pending), durable=False)

    @staticmethod
    def _pending_statements(
        game_id: int, pending: dict[str, Any] | None
    ) -> list[tuple[str, tuple[Any, ...]]]:
        if pending is None:
            return [("DELETE FROM pending WHERE game_id = ?", (game_id,))]
        return [
            ("INSERT OR REPLACE INTO pending (game_id, take) VALUES (?, ?)", (game_id, json.dumps(pending)))
        ]

    def mark_finished(self, game_id: int, finished: bool) -> None:
        self._heads.pop(game_id, None)
        self._write([("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id))])
        self.history_version += 1

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """Every row of a query. Under the lock: on the connection shared by all threads, a
        read in the middle of another thread's transaction would see rows not yet committed."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def load(self, game_id: int) -> StoredGame:
        """A stored game, its events checked against their checksums: ``events`` stops before
        the first damaged row, and ``damage`` says what was found (see `set_aside`). A damaged
        setup line raises `GameDamaged`; a game in a format this store's codec does not read,
        a `StoreError`."""
        codec = self.codec
        try:
            rows = self._read(
                "SELECT id, created, setup, meta, finished, sum, head, format FROM games WHERE id = ?",
                (game_id,),
            )
            if not rows:
                raise StoreError("store_no_game", game=game_id, path=str(self.path))
            row = rows[0]
            stored = self._read(
                "SELECT seq, event, at, sum FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            )
            start = game_sum(row[0], row[1], row[2], row[3])
            if row[5] != start:
                damage = Damage(game_id, "setup", 0, len(stored), start)
                raise GameDamaged("store_setup_checksum", game=game_id, path=str(self.path), damage=damage)
            if row[7] != codec.format:
                raise StoreError(
                    "store_game_format", game=game_id, format=str(row[7]), reads=codec.format,
                    path=str(self.path),
                )  # fmt: skip
            setup_json = json.loads(row[2])
            events: list[Any] = []
            checked: list[StoredEvent] = []
            head, damage_found = start, None
            for seq, text, at, checksum in stored:
                expected = event_sum(head, game_id, seq, text, at)
                readable = False
                if seq == len(events) + 1 and checksum == expected:
                    try:
                        event = codec.event_from_json(json.loads(text))
                        readable = True
                    except ValueError:  # its checksum holds: a faulty program wrote it so
                        pass
                if not readable:
                    damage_found = Damage(game_id, "event", len(events), len(stored) - len(events), head)
                    break
                events.append(event)
                checked.append(StoredEvent(game_id, seq, at, text, expected))
                head = expected
            if damage_found is None and row[6] != head:  # rows missing after the last one here
                damage_found = Damage(game_id, "missing", len(events), 0, head)
            found = self._read("SELECT take FROM pending WHERE game_id = ?", (game_id,))
            pending = found[0] if found else None
        except (sqlite3.DatabaseError, ValueError) as exc:  # a damaged page or a damaged row
            raise StoreError("store_read_failed", game=game_id, path=str(self.path), cause=str(exc)) from None
        return StoredGame(
            row[0],
            row[1],
            codec.setup_from_json(setup_json),
            setup_json,
            json.loads(row[3]),
            bool(row[4]),
            tuple(events),
            None if pending is None or damage_found is not None else json.loads(pending[0]),
            damage_found,
            tuple(checked),
            start,
        )

    def games_after(self, game_id: int) -> list[int]:
        """The ids of the games stored after ``game_id``, oldest first (a stream's catch-up)."""
        return [
            int(row[0]) for row in self._read("SELECT id FROM games WHERE id > ? ORDER BY id", (game_id,))
        ]

    # --- damage found by the checksums -------------------------------------------------

    def chain_damage(self, game_id: int) -> Damage | None:
        """The damage in game ``game_id``'s rows by their checksums alone (no event is parsed):
        what `load` finds, at a fraction of its cost, for checking every game at start."""
        return chain_damage(self._read, game_id)

    def finished_damage(self) -> list[DamageNotice]:
        """Check every finished game but the one on the table (which `load` checks) at start, so
        that damage in one is copied aside and said as for the game on the table. Its rows stay
        as they are; each damaged game is recorded once."""
        current = self.current_game()
        known = {int(r[0]) for r in self._read("SELECT game_id FROM damage WHERE code = ?",
                                               (DAMAGE_CODES["finished"],))}  # fmt: skip
        found = []
        for (game_id,) in self._read("SELECT id FROM games WHERE finished = 1 ORDER BY id"):
            if game_id == current or game_id in known:
                continue
            if self._closed:  # the companion is stopping: the next start checks again
                break
            damage = self.chain_damage(int(game_id))
            if damage is not None:
                found.append(self.set_aside(damage, keep_rows=True))
        return found

    def set_aside(self, damage: Damage, keep_rows: bool = False) -> DamageNotice:
        """Deal with ``damage`` so that the game goes on from its last good event, losing nothing:
        a copy of the whole database is kept beside it, then in one transaction the damaged rows
        move to the ``set_aside`` table, the chain's head goes back to the last good event and a
        damage record is written, shown until the host acknowledges it.

        ``keep_rows``: a finished game not on the table: only the copy and the record."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        copy = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        try:
            target = sqlite3.connect(copy)
            try:
                self.copy_to(target)
            finally:
                target.close()
            make_private(copy)
        except (OSError, sqlite3.Error) as exc:
            copy.unlink(missing_ok=True)
            if disk_full(exc):
                raise DiskFull("store_full_copy", folder=str(self.path.parent)) from None
            raise StoreError("store_copy_failed", copy=str(copy), cause=str(exc)) from None
        params = {"kept": damage.kept, "withheld": damage.withheld, "copy": str(copy)}
        at = _now()

        code = DAMAGE_CODES["finished"] if keep_rows else damage.code

        def record() -> int:
            notice = self._record_damage(damage.game, code, params, at)
            if damage.kind != "setup" and not keep_rows:
                self._db.execute(
                    "INSERT INTO set_aside (damage, game_id, seq, event, at, sum) SELECT ?, game_id, seq, "
                    "event, at, sum FROM events WHERE game_id = ? AND seq > ?",
                    (notice, damage.game, damage.kept),
                )
                self._db.execute(
                    "DELETE FROM events WHERE game_id = ? AND seq > ?", (damage.game, damage.kept)
                )
                self._db.execute("UPDATE games SET head = ? WHERE id = ?", (damage.head, damage.game))
                self._db.execute("DELETE FROM pending WHERE game_id = ?", (damage.game,))
            return notice

        self._heads.pop(damage.game, None)  # its head moves back (`write_events` would find it too)
        found = DamageNotice(self._transaction(record), at, damage.game, code, params)
        self.damage.append(found)
        self.history_version += 1
        return found

    def copy_to(self, target: sqlite3.Connection) -> None:
        """Copy the whole database into ``target`` with SQLite's online backup, all pages in
        one step: one consistent snapshot of what was committed, while anyone writes."""
        with self._lock:
            self._db.backup(target)

    def _record_damage(self, game: int, code: str, params: dict[str, Any], at: str = "") -> int:
        """Keep a damage notice (shown until acknowledged); inside a transaction or as one."""
        sql = "INSERT INTO damage (at, game_id, code, params) VALUES (?, ?, ?, ?)"
        args = (at or _now(), game, code, json.dumps(params))
        if self._db.in_transaction:
            notice = self._db.execute(sql, args).lastrowid
        else:
            notice = self._transaction(lambda: self._db.execute(sql, args).lastrowid)
        assert notice is not None
        return notice

    def _current(self) -> int:
        """`current_game` before the lock exists (at opening): 0 for none."""
        row = self._db.execute("SELECT game_id FROM current WHERE one = 1").fetchone()
        return int(row[0]) if row else 0

    def _damage_notices(self) -> list[DamageNotice]:
        rows = self._db.execute(
            "SELECT id, at, game_id, code, params FROM damage WHERE acknowledged = 0 ORDER BY id"
        ).fetchall()
        return [DamageNotice(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def acknowledge(self) -> int:
        """The host has seen the damage shown: stop showing it. Returns how many notices."""
        shown = [notice.id for notice in self.damage]
        if shown:
            self._write([(f"UPDATE damage SET acknowledged = 1 WHERE id IN ({','.join('?' * len(shown))})",
                          tuple(shown))])  # fmt: skip
            self.damage = [notice for notice in self.damage if notice.id not in shown]
        return len(shown)

    def current_game(self) -> int | None:
        """The game to resume: the one last put on the table, finished or not (the table
        showed it, and the last take of a game can still be undone), else the newest
        unfinished one (stores older than the `current` table), else None."""
        rows = self._read("SELECT g.id FROM current c JOIN games g ON g.id = c.game_id")
        rows = rows or self._read("SELECT id FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1")
        return int(rows[0][0]) if rows else None

    # --- the one companion running on this store (`companion.store.runner`) ----------------

    def claim(self) -> None:
        """Mark this process as the companion running on the store (`companion run`), so that
        other commands that would change the game on the table refuse instead."""
        self._runner.claim()

    def refuse_if_running(self) -> None:
        """Raise a `StoreError` when a companion runs on this store (its table would not show
        what this command changes)."""
        self._runner.refuse_if_held()

    def games(self) -> Iterator[tuple[int, str, bool, int]]:
        """(id, created, finished, event count) of every game, newest first."""
        yield from self._read(
            "SELECT g.id, g.created, g.finished, COUNT(e.seq) FROM games g "
            "LEFT JOIN events e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id DESC"
        )

    def finished_games(self) -> list[tuple[int, str, str | None, int]]:
        """(id, created, time of its last event, event count) of every finished game, oldest
        first: what the history page replays (scores are never stored, only the events)."""
        return [
            (int(row[0]), str(row[1]), row[2], int(row[3]))
            for row in self._read(
                "SELECT g.id, g.created, MAX(e.at), COUNT(e.seq) FROM games g "
                "LEFT JOIN events e ON e.game_id = g.id "
                "WHERE g.finished = 1 GROUP BY g.id ORDER BY g.created, g.id"
            )
        ]

    # --- where a follower of the committed stream is (`companion.table.stream`) ---------------

    def save_cursor(self, name: str, game: int, seq: int) -> None:
        """Keep ``name``'s place in the committed stream: it has delivered event ``seq`` of
        ``game`` (and everything before). Not fsynced, like a take being prepared: a place
        lost to a power cut only means some events are delivered twice."""
        self._write(
            [
                (
                    "INSERT OR REPLACE INTO stream_cursors (name, game_id, seq) VALUES (?, ?, ?)",
                    (name, game, seq),
                )
            ],
            durable=False,
        )

    def cursor(self, name: str) -> tuple[int, int] | None:
        """``name``'s last saved place in the committed stream (game, seq), or None."""
        rows = self._read("SELECT game_id, seq FROM stream_cursors WHERE name = ?", (name,))
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    # --- player merges: the host's decision that two spellings are one player ---------

    def aliases(self) -> dict[str, tuple[str, str]]:
        """Every merged spelling's key -> (the key of the player it joins, that player's name)."""
        return {
            str(a): (str(p), str(n))
            for a, p, n in self._read("SELECT alias, player, name FROM player_aliases")
        }

    def merge_player(self, alias: str, player: str, name: str) -> None:
        """Merge the spelling ``alias`` (a key) into ``player`` (a key, shown as ``name``), in
        one transaction: spellings already merged into ``alias`` follow it, so no chain forms."""
        self._write(
            [
                ("UPDATE player_aliases SET player = ?, name = ? WHERE player = ?", (player, name, alias)),
                (
                    "INSERT OR REPLACE INTO player_aliases (alias, player, name) VALUES (?, ?, ?)",
                    (alias, player, name),
                ),
            ]
        )
        self.history_version += 1

    def unmerge_player(self, alias: str) -> bool:
        """Undo a merge: ``alias`` is a player of its own again. False if it was not merged."""
        known = self._read("SELECT 1 FROM player_aliases WHERE alias = ?", (alias,))
        if not known:
            return False
        self._write([("DELETE FROM player_aliases WHERE alias = ?", (alias,))])
        self.history_version += 1
        return True

    # --- games played with the coach's help ---------------------------------------------

    def mark_assisted(self, game_id: int) -> None:
        """Mark a game *assisted*: the coach gave advice in it (kept beside the game, not in
        its checksummed rows; a second mark keeps the first one's time)."""
        self._write([("INSERT OR IGNORE INTO assisted (game_id, at) VALUES (?, ?)", (game_id, _now()))])
        self.history_version += 1  # the history's cache shows the mark and leaves it out of ratings

    def assisted(self) -> set[int]:
        """The games in which the coach gave advice."""
        return {int(g) for (g,) in self._read("SELECT game_id FROM assisted")}

    def rate_assisted(self) -> bool:
        """Whether the host includes assisted games in the ratings (not unless they say so)."""
        return self.option("rate_assisted") == "true"

    def set_rate_assisted(self, include: bool) -> None:
        self.set_option("rate_assisted", "true" if include else "false")

    def option(self, name: str) -> str | None:
        """A host's choice kept with the games (the hall's seasons), or None when never set."""
        found = self._read("SELECT value FROM options WHERE name = ?", (name,))
        return str(found[0][0]) if found else None

    def set_option(self, name: str, value: str) -> None:
        """Keep a host's choice (JSON text) under ``name``, in one transaction."""
        self._write([("INSERT OR REPLACE INTO options (name, value) VALUES (?, ?)", (name, value))])
        self.history_version += 1

    def export(self, game_id: int) -> str:
        """The game as a record in its format (setup line, naming the format under "record"
        when it does not, plus every stored event as the codec writes it)."""
        game = self.load(game_id)
        head = dict(game.setup_json)
        head.setdefault("record", self.codec.format)
        lines = [json.dumps(head)]
        lines += [json.dumps(self.codec.event_to_json(e)) for e in game.events]
        return "\n".join(lines) + "\n"

    # --- tags -------------------------------------------------------------------------

    def tags(self) -> dict[str, str]:
        return dict(self._read("SELECT uid, card FROM tags"))

    def enroll(self, uid: str, card: str, edition: str) -> None:
        """Map a tag to a card; a tag already enrolled is refused (unenroll it first)."""
        with self._lock:
            known = self._db.execute("SELECT card FROM tags WHERE uid = ?", (uid,)).fetchone()
        if known is not None:
            raise StoreError("store_tag_enrolled", tag=uid, known=str(known[0]))
        self._write(
            [("INSERT INTO tags (uid, card, edition, at) VALUES (?, ?, ?, ?)", (uid, card, edition, _now()))]
        )

    def rebind(self, uid: str, card: str, edition: str) -> None:
        """Map a tag to a card, whatever it was bound to, in one transaction: when the write
        fails (a full disk) the tag keeps its old card."""
        self._write(
            [
                ("DELETE FROM tags WHERE uid = ?", (uid,)),
                (
                    "INSERT INTO tags (uid, card, edition, at) VALUES (?, ?, ?, ?)",
                    (uid, card, edition, _now()),
                ),
            ]
        )

    def unenroll(self, uid: str) -> bool:
        """Free a tag; False when it was bound to nothing. A write like any other (one
        transaction), so a full disk is a `DiskFull` that says what to do, not a raw error."""
        if uid not in self.tags():
            return False
        self._write([("DELETE FROM tags WHERE uid = ?", (uid,))])
        return True
