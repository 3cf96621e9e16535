"""The checksums every stored row carries, and the damage they find.

A game's row has one (`game_sum`), the start of a chain: each event's covers the event, its
place and the checksum before it (`event_sum`), so a changed byte, a deleted or a reordered
row is found when the game is read (`chain_damage`). They find damage, they do not stop
forgery: whoever can write the file can recompute them. Only the standard library: the
store and `companion backup`'s check of its copy use them alike.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: A query on the database: its SQL and arguments to every row (`companion.store.log.Store`'s
#: ``_read``, or a plain connection's).
Rows = Callable[[str, tuple[Any, ...]], list[Any]]


def digest(parts: list[Any]) -> str:
    """A row's checksum: SHA-256 of its fields (as stored) in a JSON list, 128 bits in hex.

    It finds damage, it does not stop forgery: whoever can write the file can recompute it."""
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def game_sum(game_id: int, created: str, setup: str, meta: str) -> str:
    """The checksum of a game's row: the start of its events' chain."""
    return digest(["game", game_id, created, setup, meta])


#: JSON's own string encoder (the C one where there is one), as `json.dumps` uses it with
#: ``ensure_ascii=False``.
_quote = json.encoder.encode_basestring


def event_sum(previous: str, game_id: int, seq: int, event: str, at: str) -> str:
    """The checksum of an event row, chained to the one before it (``previous``): `digest` of
    the same list, its JSON written directly rather than through an encoder per row."""
    text = f"[{_quote(previous)},{int(game_id)},{int(seq)},{_quote(event)},{_quote(at)}]"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


#: The code of each kind of damage (`Damage.kind`): its sentence in the catalogues (web/static/i18n/).
DAMAGE_CODES = {
    "event": "store_event_damaged",
    "missing": "store_events_missing",
    "setup": "store_setup_damaged",
    "journal": "store_journal_damaged",  # the WAL (`companion.store.wal`), found before opening
    "foreign": "store_journal_foreign",  # a WAL not this store's (`companion.store.wal_owner.stranger`)
    "restored": "store_journal_restored",  # this store's WAL beside a database replaced since
    "finished": "store_finished_damaged",  # a finished game's rows (not the one on the table)
    "empty": "store_was_empty",  # a zero-length database file, kept aside
}


@dataclass(frozen=True)
class Damage:
    """What a game's checksums found wrong when it was loaded.

    ``kind``: "event" (a row changed, missing or out of place: it and every row after it
    are set aside), "missing" (rows missing at the end of the log), "setup" (the game's
    setup line changed: the game is not resumed)."""

    game: int
    kind: str
    #: The events before the damage: checked, and kept.
    kept: int
    #: Rows stored from the first damaged one on (set aside, not deleted).
    withheld: int
    #: The checksum of the last kept event (the game's own for none): the chain's new head.
    head: str

    @property
    def code(self) -> str:
        return DAMAGE_CODES[self.kind]


def chain_damage(rows: Rows, game_id: int) -> Damage | None:
    """The damage in game ``game_id``'s rows by their checksums alone (no event is parsed),
    read with ``rows``; None when every row checks (or there is no such game)."""
    found = rows("SELECT id, created, setup, meta, sum, head FROM games WHERE id = ?", (game_id,))
    if not found:
        return None
    row = found[0]
    stored = rows("SELECT seq, event, at, sum FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
    head = game_sum(row[0], row[1], row[2], row[3])
    if row[4] != head:
        return Damage(game_id, "setup", 0, len(stored), head)
    for n, (seq, text, at, checksum) in enumerate(stored):
        expected = event_sum(head, game_id, seq, text, at)
        if seq != n + 1 or checksum != expected:
            return Damage(game_id, "event", n, len(stored) - n, head)
        head = expected
    return None if row[5] == head else Damage(game_id, "missing", len(stored), 0, head)
