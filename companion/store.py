"""The game log on disk: SQLite, one row per accepted event, nothing else.

The event log is the only truth. Each accepted event is committed (WAL journal,
``synchronous=FULL``: the commit has reached the disk) *before* the ring or the
page shows its effect, so a pulled plug can lose at most an event nobody saw
accepted. At start the unfinished game is rebuilt by replaying its events
through the same engine as ``companion replay``. Finished games are kept.

Tag enrolments (RFID UID -> card id) live here too, so a tagged deck keeps
working across games and editions.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.engine import Event, Setup, event_to_json, parse_event
from companion.record import RECORD_FORMAT, parse_setup

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
CREATE TABLE IF NOT EXISTS tags (
    uid     TEXT PRIMARY KEY,        -- the tag's UID as the reader reports it
    card    TEXT NOT NULL,           -- a card id, an itinerary id or "ancestor"
    edition TEXT NOT NULL,
    at      TEXT NOT NULL
);
"""


class StoreError(RuntimeError):
    """The data directory or its database cannot be used; the message says what to do."""


@dataclass(frozen=True)
class StoredGame:
    id: int
    created: str
    setup: Setup
    setup_json: dict[str, Any]
    meta: dict[str, Any]
    finished: bool
    events: tuple[Event, ...]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """The SQLite event store of one data directory."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / "companion.sqlite3"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot open the game store {self.path}: {exc}. Check the --data-dir folder exists "
                "and is writable, or move a damaged companion.sqlite3 aside."
            ) from None
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    # --- games ------------------------------------------------------------------------

    def new_game(self, setup_json: dict[str, Any], meta: dict[str, Any]) -> int:
        """Store a new game (its setup line and the table's settings) and return its id."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO games (created, setup, meta) VALUES (?, ?, ?)",
                (_now(), json.dumps(setup_json), json.dumps(meta)),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def append(self, game_id: int, seq: int, event: Event) -> None:
        """Durably add the ``seq``-th accepted event (raises if that seq exists)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO events (game_id, seq, event, at) VALUES (?, ?, ?, ?)",
                (game_id, seq, json.dumps(event_to_json(event)), _now()),
            )

    def mark_finished(self, game_id: int, finished: bool) -> None:
        with self._lock:
            self._db.execute("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id))

    def load(self, game_id: int) -> StoredGame:
        row = self._db.execute(
            "SELECT id, created, setup, meta, finished FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise StoreError(f"there is no game {game_id} in {self.path}")
        setup_json = json.loads(row[2])
        events = tuple(
            parse_event(json.loads(text))
            for (text,) in self._db.execute(
                "SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            )
        )
        return StoredGame(
            row[0], row[1], parse_setup(setup_json), setup_json, json.loads(row[3]), bool(row[4]), events
        )

    def latest_unfinished(self) -> int | None:
        row = self._db.execute("SELECT id FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def games(self) -> Iterator[tuple[int, str, bool, int]]:
        """(id, created, finished, event count) of every game, newest first."""
        yield from self._db.execute(
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
        return dict(self._db.execute("SELECT uid, card FROM tags"))

    def enroll(self, uid: str, card: str, edition: str) -> None:
        """Map a tag to a card; a tag already enrolled is refused (unenroll it first)."""
        with self._lock:
            known = self._db.execute("SELECT card FROM tags WHERE uid = ?", (uid,)).fetchone()
            if known is not None:
                raise StoreError(f"tag {uid} is already enrolled as {known[0]}; unenroll it first")
            self._db.execute(
                "INSERT INTO tags (uid, card, edition, at) VALUES (?, ?, ?, ?)", (uid, card, edition, _now())
            )

    def unenroll(self, uid: str) -> bool:
        with self._lock:
            return self._db.execute("DELETE FROM tags WHERE uid = ?", (uid,)).rowcount > 0
