"""The session: the current game at the table, and what outlives it.

A new game puts a new `Table` in place; what is registered on the session (listeners, the
snapshot's extras, the committed stream's hooks) carries over, and versions keep counting up
across games, so a page never takes a new game's first snapshot for an old one.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

from companion.store.log import Store
from companion.table import Listener, Outcome, Table, stored_result
from companion.table.stream import Hook, Stream, Subscription

#: Stores a new game and returns its id (players, colours, edition, seed):
#: `companion.table.game_setup.new_game` with the table's settings bound.
GameStarter = Callable[[list[str], list[str] | None, str, int | None], int]


class Session:
    """The current game (`table`) on its store, with the hooks that outlive a game."""

    def __init__(
        self,
        store: Store,
        table: Table,
        starter: GameStarter,
        turn: str = "confirm",
        table_id: str | None = None,
    ) -> None:
        """``table_id``: the table's name in the stream's items (a venue's ``[venue] table``);
        the machine's host name by default."""
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
        #: What every game on the table commits, told to hooks (`subscribe`) outside the lock.
        self.stream = Stream(store, table_id or socket.gethostname(), stored_result, table.log)
        table.stream = self.stream
        self.table = table
        #: One new game at a time: two pages pressing Start together must not leave the table
        #: on one game while the store's current game (what a restart resumes) is the other.
        self.games_lock = threading.Lock()

    def listen(self, listener: Listener) -> None:
        """Tell ``listener`` of every outcome, in this game and the next ones."""
        self.listeners.append(listener)

    def subscribe(self, hook: Hook, after: tuple[int, int] | None = None, name: str = "") -> Subscription:
        """Tell ``hook`` each event committed in this game and the next ones, once, after the
        commit, on its own thread (`companion.table.stream.Stream.subscribe`; ``after``: catch up
        from the store first)."""
        return self.stream.subscribe(hook, after, name)

    def annotate(self, name: str, extra: Callable[[Table], Any]) -> None:
        """Add ``extra(table)`` to every snapshot as ``name``, in this game and the next ones."""
        self.annotations[name] = extra

    def start_game(
        self, players: list[str], colours: list[str] | None, edition: str, seed: int | None
    ) -> int:
        """Store a new game and put it on the table; raises what the starter raises (a
        `companion.table.game_setup.GameSetupError`, an edition error) with nothing changed."""
        with self.games_lock:
            game = self.starter(players, colours, edition, seed)
            self.switch(game, started=True)
            return game

    def switch(self, game_id: int, started: bool = False) -> Table:
        """Put a stored game on the table, carrying the listeners, extras and stream over
        (``started``: it was just stored, so the stream tells its start)."""
        old = self.table
        table = Table(
            self.store,
            self.store.load(game_id),
            log=self.log,
            turn=self.turn,
            stream=self.stream,
            started=started,
        )
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
