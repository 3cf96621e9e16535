"""What the store's checksums cost: checking a game at load, and the one-time upgrade.

Run: ``.venv/bin/python -m benchmarks.bench_checksums [--games N] [--events N]``

- load: `Store.load` of one game of ``--events`` events (read, checksum chain checked,
  events parsed), p50 over the games, and the part of it that is the chain alone.
- write: one event appended (`Store.write_events`: the chain's head read and moved on in
  the same transaction, an fsync), p50.
- upgrade: opening a store of ``--games`` games written before checksums (schema 0),
  which computes every row's checksum once in one transaction.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from companion.engine import ChooseItinerary
from companion.records.trekking import TREKKING
from companion.store.log import Store, event_sum

SETUP = {"type": "setup", "players": ["Ann", "Ben"], "watch_stack": ["Ann", "Ben"], "edition": "reference"}


def fill(folder: Path, games: int, events: int) -> Store:
    store = Store(folder, TREKKING)
    for _ in range(games):
        game = store.new_game(SETUP, {})
        for first in range(1, events + 1, 50):
            batch = [ChooseItinerary("Ann", f"T{(first + n) % 24 + 1:02d}") for n in range(50)]
            store.write_events(game, first, batch[: events - first + 1], None)
    return store


def legacy(source: Path, target: Path) -> None:
    """``source``'s store as a companion before checksums wrote it."""
    target.mkdir()
    with sqlite3.connect(target / "companion.sqlite3") as db:
        db.executescript(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, created TEXT NOT NULL, setup TEXT NOT NULL, "
            "meta TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0);"
            "CREATE TABLE events (game_id INTEGER NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, "
            "at TEXT NOT NULL, PRIMARY KEY (game_id, seq));"
        )
        db.execute("ATTACH ? AS new", (str(source / "companion.sqlite3"),))
        db.execute("INSERT INTO games SELECT id, created, setup, meta, finished FROM new.games")
        db.execute("INSERT INTO events SELECT game_id, seq, event, at FROM new.events")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--events", type=int, default=300, help="events per game (a 4-player game: ~250)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = fill(Path(tmp) / "new", args.games, args.events)
        loads, chains = [], []
        for game in range(1, args.games + 1):
            start = time.perf_counter()
            assert len(store.load(game).events) == args.events
            loads.append(time.perf_counter() - start)
            query = "SELECT seq, event, at FROM events WHERE game_id = ?"
            rows = store._db.execute(query, (game,)).fetchall()
            start = time.perf_counter()
            head = ""
            for seq, event, at in rows:
                head = event_sum(head, game, seq, event, at)
            chains.append(time.perf_counter() - start)
        writes = []
        for seq in range(args.events + 1, args.events + 101):
            start = time.perf_counter()
            store.write_events(1, seq, [ChooseItinerary("Ben", "T01")], False)  # as the table does
            writes.append(time.perf_counter() - start)
        store.close()
        legacy(Path(tmp) / "new", Path(tmp) / "old")
        start = time.perf_counter()
        upgraded = Store(Path(tmp) / "old", TREKKING)
        upgrade = time.perf_counter() - start
        assert upgraded.upgraded is not None
        upgraded.close()
    ms = 1000.0
    print(f"load of a {args.events}-event game, checked: p50 {statistics.median(loads) * ms:.2f} ms "
          f"(the checksum chain alone: {statistics.median(chains) * ms:.2f} ms)")  # fmt: skip
    write = statistics.median(writes) * ms
    print(f"one event written (chain head read and moved, fsync): p50 {write:.2f} ms")
    print(f"upgrade of a store of {args.games} games x {args.events} events: {upgrade * ms:.0f} ms, once")


if __name__ == "__main__":
    main()
