"""The session: the current game at the table, and what outlives it.

A `Session` holds the store and the `Table` of the game being played. Starting a new game
(from the page) puts a new `Table` in place; whatever was registered on the session
rather than on one table carries over by itself: the listeners (the ring, the console, a
coach) and the snapshot's extras (`annotations`: name -> function of the table, merged into
every state). The page's live streams are woken on the old table, so they move to the new
one, and versions keep counting up across games within the process, so a page never takes
a new game's first snapshot for an old one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from companion.store import Store
from companion.table import Listener, Outcome, Table

#: Stores a new game and returns its id (players, colours, edition, seed): `companion.game_setup.new_game`
#: with the table's settings bound.
GameStarter = Callable[[list[str], list[str] | None, str, int | None], int]


class Session:
    """The current game (`table`) on its store, with the hooks that outlive a game."""

    def __init__(self, store: Store, table: Table, starter: GameStarter, turn: str = "confirm") -> None:
        self.store = store
        self.turn = turn
        self.starter = starter
        self.log: Callable[[str], None] = table.log
        #: Told of every outcome of whatever game is on the table (shared with each table).
        self.listeners: list[Listener] = table.listeners
        #: Told when another game is put on the table (the ring draws the new one at once).
        self.on_table: list[Callable[[Table], None]] = []
        #: Extras of every state snapshot: name -> function of the table (shared with each table).
        self.annotations: dict[str, Callable[[Table], Any]] = table.annotations
        self.table = table
        #: One new game at a time: two pages pressing Start together must not leave the table
        #: on one game while the store's current game (what a restart resumes) is the other.
        self.games_lock = threading.Lock()

    def listen(self, listener: Listener) -> None:
        """Tell ``listener`` of every outcome, in this game and the next ones."""
        self.listeners.append(listener)

    def annotate(self, name: str, extra: Callable[[Table], Any]) -> None:
        """Add ``extra(table)`` to every snapshot as ``name``, in this game and the next ones."""
        self.annotations[name] = extra

    def start_game(
        self, players: list[str], colours: list[str] | None, edition: str, seed: int | None
    ) -> int:
        """Store a new game and put it on the table; raises what the starter raises (a
        `companion.ports.GameSetupError`, an edition error) with nothing changed."""
        with self.games_lock:
            game = self.starter(players, colours, edition, seed)
            self.switch(game)
            return game

    def switch(self, game_id: int) -> Table:
        """Put a stored game on the table, carrying the listeners and extras over."""
        old = self.table
        table = Table(self.store, self.store.load(game_id), log=self.log, turn=self.turn)
        table.listeners = self.listeners
        table.annotations = self.annotations
        with old.lock:
            table.version = old.version + 1
            self.table = table
            old.version += 1  # wake live pages waiting on the old game: they move to this one
        old.wake()
        for watcher in list(self.on_table):
            watcher(table)
        return table

    def emit(self, outcome: Outcome) -> Outcome:
        """Show listeners an outcome the table's inputs did not make (an unknown tag)."""
        table = self.table
        with table.lock:
            return table.emit(outcome)
