"""The game log on disk: SQLite, one row per accepted event, nothing else.

The event log is the only truth. Each accepted event is committed (WAL journal,
``synchronous=FULL``: the commit has reached the disk) *before* the ring or the
page shows its effect, so a pulled plug can lose at most an event nobody saw
accepted. At start the unfinished game is rebuilt by replaying its events
through the same engine as ``companion replay``. Finished games are kept.

Writes are transactions: the events of one input (a take and the dealer's
reveals after it, or every undo and replay of a correction) are stored together
or not at all, so what the table shows is exactly what a restart resumes. A full
disk, a database deleted or replaced while running, or a damaged file is a
`StoreError` that says what happened and what to do; nothing is half-written.
The data directory is private (0700) and the database 0600: it holds names and
the session key.

Tag enrolments (RFID UID -> card id) live here too, so a tagged deck keeps
working across games and editions.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.engine import Event, Setup, event_to_json, parse_event
from companion.record import RECORD_FORMAT, parse_setup
from companion.wal import check_wal

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY,
    created  TEXT NOT NULL,
    setup    TEXT NOT NULL,          -- the record's setup line (JSON)
    meta     TEXT NOT NULL,          -- the table's own settings: colours, mock dealer seed (JSON)
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,        -- 1, 2, 3... within the game
    event   TEXT NOT NULL,           -- the record's event line (JSON)
    at      TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS current (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    game_id INTEGER NOT NULL         -- the game on the table: what a restart resumes
);
CREATE TABLE IF NOT EXISTS pending (
    game_id INTEGER PRIMARY KEY,     -- a take being prepared (card tapped, not confirmed)
    take    TEXT NOT NULL            -- its JSON, so a restart resumes it
);
CREATE TABLE IF NOT EXISTS tags (
    uid     TEXT PRIMARY KEY,        -- the tag's UID as the reader reports it
    card    TEXT NOT NULL,           -- a card id, an itinerary id or "ancestor"
    edition TEXT NOT NULL,
    at      TEXT NOT NULL
);
"""


class StoreError(RuntimeError):
    """The data directory or its database cannot be used; the message says what to do."""


class DiskFull(StoreError):
    """The disk of the data directory is full: nothing was written."""


SQLITE_FULL = 13


@dataclass(frozen=True)
class StoredGame:
    id: int
    created: str
    setup: Setup
    setup_json: dict[str, Any]
    meta: dict[str, Any]
    finished: bool
    events: tuple[Event, ...]
    #: A take being prepared when the game was last saved (card tapped, crystals counted).
    pending: dict[str, Any] | None = None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _private(path: Path) -> None:
    """Make an existing file readable by its owner only (the database holds names and sessions)."""
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    except OSError:  # not ours, or gone: SQLite will say so if it matters
        pass


def _private_dir(folder: Path) -> None:
    """Make an existing data directory ours only (0700), as a new one is made: one made
    by hand, or by an older companion, is often 0755. Only a directory we own, and never a
    shared one (a sticky bit, as /tmp has), the home directory or the root."""
    try:
        info = folder.stat()
        if (
            info.st_uid == os.geteuid()
            and info.st_mode & 0o077
            and not info.st_mode & stat.S_ISVTX
            and folder.resolve() not in (Path.home().resolve(), Path("/"))
        ):
            folder.chmod(0o700)
    except (OSError, RuntimeError):  # not ours, or gone, or no home: SQLite will say so if it matters
        pass


class Store:
    """The SQLite event store of one data directory."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / "companion.sqlite3"
        #: Things found at opening that people should hear about (the game still starts).
        self.warnings: list[str] = []
        #: Things that happened while running that the owner should hear of (nothing was lost).
        self.notices: list[str] = []
        self._runner: int | None = None
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _private_dir(self.path.parent)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            for suffix in ("", "-wal", "-shm"):
                _private(self.path.with_name(self.path.name + suffix))
            damaged = check_wal(self.path)
            if damaged is not None:
                self.warnings.append(damaged)
            self._connect()
            problems = [row[0] for row in self._db.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems))
            self._db.executescript(SCHEMA)
            self._identity = self._file_identity()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"the game store {self.path} is damaged ({exc}). Stop the companion, move "
                f"{self.path.name} (and any -wal file beside it) to another folder and keep it "
                "(`sqlite3 FILE .recover` may save its games), then start again with an empty store."
            ) from None
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot open the game store {self.path}: {exc}. Check the --data-dir folder exists "
                "and is writable, or move a damaged companion.sqlite3 aside."
            ) from None
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()
        if self._runner is not None:
            os.close(self._runner)
            self._runner = None

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
        """Before a write: is the file we hold open still the store on disk?

        Deleted (``rm``, a cleaning script): the open connection still reads every game,
        so it is written back whole (``VACUUM INTO``) and the write goes on: nothing is
        lost. Replaced by another file: someone put it there on purpose, so it is not
        overwritten; writing stops with a message (writes into the old file would be lost)."""
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
                _private(self.path)
                self._connect()
                self._identity = self._file_identity()
                self.notices.append(
                    f"the game store {self.path} was deleted while the companion was running; "
                    "it was written back from the copy still open, with every game."
                )
                return
            except (OSError, sqlite3.Error):
                pass
        raise StoreError(
            f"the game store {self.path} was {'replaced' if replaced else 'deleted'} while the companion "
            "was running, so nothing more can be saved. Restart the companion (it opens the store that "
            "is there now)."
        )

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]], durable: bool = True) -> int | None:
        """Run ``statements`` as one transaction; return the first one's row id. On any failure
        nothing of it is stored and the error says what to do.

        ``durable=False`` skips the fsync (``synchronous=NORMAL`` for this commit): it survives
        a crash of the companion but perhaps not a power cut, and costs no SD-card flush."""
        with self._lock:
            self._check_file()
            last: int | None = None
            if not durable:
                self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for sql, args in statements:
                    rowid = self._db.execute(sql, args).lastrowid
                    last = rowid if last is None else last
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL or "full" in str(exc):
                    raise DiskFull(
                        f"the disk holding {self.path.parent} is full, so nothing was saved and nothing "
                        "changed. Free some space on it (delete files you do not need) or move the data "
                        "directory to a bigger disk, then try again."
                    ) from None
                raise StoreError(f"could not save to {self.path} ({exc}); nothing changed") from None
            finally:
                if not durable:
                    self._db.execute("PRAGMA synchronous=FULL")
            return last

    # --- games ------------------------------------------------------------------------

    def new_game(self, setup_json: dict[str, Any], meta: dict[str, Any]) -> int:
        """Store a new game (its setup line and the table's settings), make it the game on
        the table, and return its id."""
        game = self._write(
            [
                (
                    "INSERT INTO games (created, setup, meta) VALUES (?, ?, ?)",
                    (_now(), json.dumps(setup_json), json.dumps(meta)),
                ),
                ("INSERT OR REPLACE INTO current (one, game_id) VALUES (1, last_insert_rowid())", ()),
            ]
        )
        assert game is not None
        return game

    def append(self, game_id: int, seq: int, event: Event) -> None:
        """Durably add the ``seq``-th accepted event (raises if that seq exists)."""
        self.write_events(game_id, seq, [event], None)

    def write_events(
        self,
        game_id: int,
        first_seq: int,
        events: list[Event],
        finished: bool | None,
        pending: dict[str, Any] | None = None,
    ) -> None:
        """Add ``events`` as seq ``first_seq``, ``first_seq + 1``... and the game's finished
        flag and pending take, in one transaction: all of it is stored or none."""
        at = _now()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (
                "INSERT INTO events (game_id, seq, event, at) VALUES (?, ?, ?, ?)",
                (game_id, first_seq + n, json.dumps(event_to_json(event)), at),
            )
            for n, event in enumerate(events)
        ]
        if finished is not None:
            statements.append(("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id)))
        statements += self._pending_statements(game_id, pending)
        self._write(statements)

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
        self._write([("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id))])

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """Every row of a query. Under the lock: on the connection shared by all threads, a
        read in the middle of another thread's transaction would see rows not yet committed."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def load(self, game_id: int) -> StoredGame:
        try:
            rows = self._read("SELECT id, created, setup, meta, finished FROM games WHERE id = ?", (game_id,))
            if not rows:
                raise StoreError(f"there is no game {game_id} in {self.path}")
            row = rows[0]
            setup_json = json.loads(row[2])
            events = tuple(
                parse_event(json.loads(text))
                for (text,) in self._read(
                    "SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
                )
            )
            found = self._read("SELECT take FROM pending WHERE game_id = ?", (game_id,))
            pending = found[0] if found else None
        except (sqlite3.DatabaseError, ValueError) as exc:  # a damaged page or a damaged row
            raise StoreError(
                f"cannot read game {game_id} from {self.path} ({exc}). Stop the companion, move the "
                "file to another folder and keep it, then start again."
            ) from None
        return StoredGame(
            row[0],
            row[1],
            parse_setup(setup_json),
            setup_json,
            json.loads(row[3]),
            bool(row[4]),
            events,
            None if pending is None else json.loads(pending[0]),
        )

    def latest_unfinished(self) -> int | None:
        rows = self._read("SELECT id FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1")
        return int(rows[0][0]) if rows else None

    def current_game(self) -> int | None:
        """The game to resume: the one last put on the table, finished or not (the table
        showed it, and the last take of a game can still be undone), else the newest
        unfinished one (stores older than the `current` table), else None."""
        rows = self._read("SELECT g.id FROM current c JOIN games g ON g.id = c.game_id")
        return int(rows[0][0]) if rows else self.latest_unfinished()

    # --- the one companion running on this store ---------------------------------------

    @property
    def lock_path(self) -> Path:
        return self.path.with_name("companion.lock")

    def claim(self) -> None:
        """Mark this process as the companion running on the store (`companion run`), so that
        other commands that would change the game on the table refuse instead."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(self._running_message(self.runner() or 0)) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._runner = fd

    def runner(self) -> int | None:
        """The process id of a companion running on this store, or None."""
        try:
            fd = os.open(self.lock_path, os.O_RDONLY)
        except OSError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                text = os.read(fd, 32).decode(errors="replace").strip()
                return int(text) if text.isascii() and text.isdigit() else 0
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def _running_message(self, pid: int) -> str:
        who = f" (process {pid})" if pid else ""
        return (
            f"a companion is running on {self.path.parent}{who}. Start a new game from its page "
            "(Host, then New game), or stop it first."
        )

    def refuse_if_running(self) -> None:
        """Raise a `StoreError` when a companion runs on this store (its table would not show
        what this command changes)."""
        pid = self.runner()
        if pid is not None:
            raise StoreError(self._running_message(pid))

    def games(self) -> Iterator[tuple[int, str, bool, int]]:
        """(id, created, finished, event count) of every game, newest first."""
        yield from self._read(
            "SELECT g.id, g.created, g.finished, COUNT(e.seq) FROM games g "
            "LEFT JOIN events e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id DESC"
        )

    def export(self, game_id: int) -> str:
        """The game as a ``trekking/1`` record (setup line plus every stored event)."""
        game = self.load(game_id)
        head = dict(game.setup_json)
        head.setdefault("record", RECORD_FORMAT)
        lines = [json.dumps(head)]
        lines += [json.dumps(event_to_json(e)) for e in game.events]
        return "\n".join(lines) + "\n"

    # --- tags -------------------------------------------------------------------------

    def tags(self) -> dict[str, str]:
        return dict(self._read("SELECT uid, card FROM tags"))

    def enroll(self, uid: str, card: str, edition: str) -> None:
        """Map a tag to a card; a tag already enrolled is refused (unenroll it first)."""
        with self._lock:
            known = self._db.execute("SELECT card FROM tags WHERE uid = ?", (uid,)).fetchone()
        if known is not None:
            raise StoreError(f"tag {uid} is already enrolled as {known[0]}; unenroll it first")
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
        with self._lock:
            return self._db.execute("DELETE FROM tags WHERE uid = ?", (uid,)).rowcount > 0
