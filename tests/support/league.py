"""A venue's finished games for the league's tests: two tables over two nights, handed to a
hall as the broker would hand them (`Hall.handle`), and one store holding the same games in
the same order (a table's history of the whole venue, for the history code to rate)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table.stream import Committed, GameStarted, Stream
from companion.venue.hall import Hall
from companion.venue.league import LeagueBook
from companion.venue.topics import encode, setup_message
from tests.support.games import finished_game

PIN = "4321"
#: (night, table, players, seed): the games of the venue, in the order they were played.
PLAYED = [
    ("2026-10-02T19:00:00+00:00", "t1", ["Ann", "Ben", "Cy"], 1),
    ("2026-10-02T19:05:00+00:00", "t2", ["marc", "Dee"], 2),
    ("2026-10-02T21:00:00+00:00", "t1", ["Ann", "marc"], 3),
    ("2026-11-05T19:00:00+00:00", "t1", ["Marc D.", "Ann", "Dee"], 4),
    ("2026-11-05T19:30:00+00:00", "t2", ["Ben", "Cy", "Dee", "Marc D."], 5),
]


def table_messages(store: Store, table: str, nights: list[str]) -> list[tuple[str, bytes]]:
    """Every message a table whose store is ``store`` publishes, its games set up on ``nights``
    (the setup's time is what the league dates a game by; the checksum chain does not hold it)."""
    items = Stream(store, table, lambda _stored: None, lambda _: None).stored_after(0, 0)
    out = []
    for item in items:
        if isinstance(item, GameStarted):
            message = {**setup_message(item), "at": nights[item.game - 1]}
            out.append((f"trekking/{table}/games/{item.game}/setup", encode(message)))
        elif isinstance(item, Committed):
            out.append((f"trekking/{table}/games/{item.game}/events", encode(item.to_json())))
    return out


@contextmanager
def fed_hall(tmp_path: Path) -> Iterator[tuple[Hall, LeagueBook, Store]]:
    """A hall fed the games of ``PLAYED``, its league book, and one store holding the same games
    in the same order (a table's history of the whole venue)."""
    together = Store(tmp_path / "together", TREKKING)
    tables = {name: Store(tmp_path / name, TREKKING) for name in ("t1", "t2")}
    nights: dict[str, list[str]] = {"t1": [], "t2": []}
    for night, table, names, seed in PLAYED:
        finished_game(tables[table], names, seed)
        finished_game(together, names, seed)
        nights[table].append(night)
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    for name, store in tables.items():
        for topic, payload in table_messages(store, name, nights[name]):
            hall.handle(topic, payload)
        store.close()
    assert not hall.problems, list(hall.problems)
    book = LeagueBook(tmp_path / "hall" / "league")
    yield hall, book, together
    hall.stop()
    book.close()
    together.close()
