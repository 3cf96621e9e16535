"""Many games for a hall, made fast: one whole game played once, told again as game after game.

The hall checks every event against its game's checksum chain, which starts at the setup's
``sum`` and chains the game's number (`companion.store.log.event_sum`). So one game played
by the greedy bot, re-chained for each (table, game), is a new legal game to the hall: a
benchmark or a test reaches thousands of games without playing each.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from companion.records.trekking import TREKKING
from companion.store.log import Store, event_sum
from companion.table.stream import Committed, GameStarted, Stream
from companion.venue.topics import encode, setup_message
from tests.support.games import finished_game


class GameTemplate:
    """One whole game's setup and events, to tell as any table's game number."""

    def __init__(self, folder: Path, names: list[str], seed: int) -> None:
        store = Store(folder, TREKKING)
        finished_game(store, names, seed)
        items = Stream(store, "template", lambda _stored: None, lambda _: None).stored_after(0, 0)
        store.close()
        self.setup = next(i for i in items if isinstance(i, GameStarted))
        self.events = [i for i in items if isinstance(i, Committed)]

    def messages(self, table: str, game: int, events: int | None = None, prefix: str = "trekking") -> list[
        tuple[str, bytes]
    ]:  # fmt: skip
        """The setup and the first ``events`` events (None: all, the game finished) of game
        ``game`` of ``table``, as that table would publish them."""
        setup: dict[str, Any] = {**setup_message(self.setup), "table": table, "game": game}
        out = [(f"{prefix}/{table}/games/{game}/setup", encode(setup))]
        chain = self.setup.sum
        for item in self.events[:events]:
            chain = event_sum(chain, game, item.seq, json.dumps(item.event), item.at)
            message = {**item.to_json(), "table": table, "game": game, "sum": chain}
            out.append((f"{prefix}/{table}/games/{game}/events", encode(message)))
        return out


def open_under(folder: Path) -> int:
    """This process's descriptors open on files under ``folder`` (the test's own files)."""
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            found += os.readlink(f"/proc/self/fd/{fd}").startswith(str(folder))
    return found
