"""The committed stream: what the table stored, told to hooks once, in order, outside the lock.

Listeners hear every input under the table's lock; the stream is for whoever follows the game
from outside (a venue, a league, Home Assistant) and tells only what was committed: each
stored event, a game's start and its result. Items are staged under the lock right after the
commit and flushed once it is released; each hook has its own queue and thread, so a slow or
failing hook delays only itself and no take waits for a hook. This module knows no game.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.store.log import Store, StoredEvent, StoredGame, StoreError
from companion.util.wording import say


@dataclass(frozen=True)
class Committed:
    """One stored event: ``event`` is its JSON as stored, ``sum`` its chained checksum."""

    table: str
    game: int
    seq: int
    at: str
    event: dict[str, Any]
    sum: str

    def to_json(self) -> dict[str, Any]:
        """The venue's message: ``{"table", "game", "seq", "at", "event", "sum"}``."""
        return {"table": self.table, "game": self.game, "seq": self.seq, "at": self.at,
                "event": self.event, "sum": self.sum}  # fmt: skip


@dataclass(frozen=True)
class GameStarted:
    """A game was stored: its setup line (JSON, as stored) in ``format``; before its events.
    ``sum`` is the game's own checksum, where its events' chain starts: a follower checks
    each event with ``companion.store.log.event_sum(previous sum, game, seq, json.dumps(event), at)``."""

    table: str
    game: int
    at: str
    format: str
    setup: dict[str, Any]
    sum: str


@dataclass(frozen=True)
class GameFinished:
    """A commit left the game finished: ``result`` is its standings after event ``seq``.
    Told again if an undo reopens the game and a later commit finishes it anew, or a
    correction changes the finished game's standings (the newest one is the result)."""

    table: str
    game: int
    seq: int
    result: dict[str, Any]


StreamItem = Committed | GameStarted | GameFinished
#: A hook: called with each item, on its subscription's own thread.
Hook = Callable[[StreamItem], None]
#: The standings of a finished stored game (JSON), for catching up; None if it cannot tell.
ResultOf = Callable[[StoredGame], dict[str, Any] | None]


def committed(table: str, row: StoredEvent) -> Committed:
    """The stream's item for a stored row."""
    return Committed(table, row.game, row.seq, row.at, json.loads(row.text), row.sum)


class Subscription:
    """One hook's queue and thread. Items it has already been told are never told again:
    it remembers, per game, the last seq and finished result it passed on."""

    def __init__(self, hook: Hook, name: str, log: Callable[[str], None]) -> None:
        self.hook = hook
        self.name = name
        self.log = log
        self._items: deque[StreamItem] = deque()
        self._ready = threading.Condition()
        self._busy = False
        self._closed = False
        self._told: dict[int, int] = {}  # game -> the last seq told
        self._started: set[int] = set()
        self._finished: set[tuple[int, int]] = set()
        #: Live items kept aside while the catch-up is read from the store (None: not catching up).
        self._held: list[StreamItem] | None = None
        self._thread = threading.Thread(target=self._run, name=f"stream:{name}", daemon=True)

    def _fresh(self, item: StreamItem) -> bool:
        """Whether ``item`` is new to this hook (and remember that it is told)."""
        if isinstance(item, Committed):
            if item.seq <= self._told.get(item.game, 0):
                return False
            self._told[item.game] = item.seq
            return True
        if isinstance(item, GameStarted):
            if item.game in self._started:
                return False
            self._started.add(item.game)
            return True
        key = (item.game, item.seq)
        if key in self._finished:
            return False
        self._finished.add(key)
        return True

    def put(self, items: list[StreamItem]) -> None:
        with self._ready:
            if self._held is not None:
                self._held.extend(items)
                return
            self._items.extend(item for item in items if self._fresh(item))
            self._ready.notify_all()

    def caught_up(self, stored: list[StreamItem]) -> None:
        """Queue the catch-up read from the store, then the live items kept aside meanwhile
        (those the store already had are dropped by `_fresh`), and follow live from now on."""
        with self._ready:
            held, self._held = self._held or [], None
            self._items.extend(item for item in [*stored, *held] if self._fresh(item))
            self._ready.notify_all()

    def _run(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._items or self._closed)
                if not self._items:
                    return  # closed, and everything queued was told
                item = self._items.popleft()
                self._busy = True
            try:
                self.hook(item)
            except Exception as exc:  # one hook's failure is logged; the table and the others go on
                self.log(say("journal_hook_failed", hook=self.name, error=f"{type(exc).__name__}: {exc}"))
            finally:
                with self._ready:
                    self._busy = False
                    self._ready.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every item queued so far was told (or ``timeout``); True if it was."""
        with self._ready:
            return self._ready.wait_for(lambda: not self._items and not self._busy, timeout)

    def close(self, timeout: float | None = None) -> None:
        """Tell what is queued, then stop the thread (waiting up to ``timeout`` for it)."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)


class Stream:
    """The committed stream of one table (``table``: its id, as a venue names it), across games."""

    def __init__(self, store: Store, table: str, result: ResultOf, log: Callable[[str], None]) -> None:
        self.store = store
        self.table = table
        self.result = result
        self.log = log
        self.subscriptions: list[Subscription] = []
        self._staged: deque[StreamItem] = deque()
        #: Held while items go to the subscriptions and while one joins: the order is kept.
        self._lock = threading.Lock()

    # --- the table's side ----------------------------------------------------------------

    def stage(self, item: StreamItem) -> None:
        """Called by the table, under its lock, once the store has committed ``item``."""
        self._staged.append(item)

    def flush(self) -> None:
        """Hand the staged items to every hook; called once the table's lock is released.
        Whoever flushes first hands on everyone's items, in the order they were staged."""
        if not self._staged:
            return
        with self._lock:
            items: list[StreamItem] = []
            while self._staged:
                items.append(self._staged.popleft())
            for subscription in self.subscriptions:
                subscription.put(items)

    # --- the hooks' side -------------------------------------------------------------------

    def subscribe(self, hook: Hook, after: tuple[int, int] | None = None, name: str = "") -> Subscription:
        """Tell ``hook`` every item committed from now on, each once, in order per game.

        ``after=(game, seq)``: first every item stored after that place, read from the store
        on this thread (``(0, 0)``: the whole history); the subscription joins the live flow
        before the read, so nothing is missed between the two and nothing is told twice."""
        subscription = Subscription(hook, name or getattr(hook, "__qualname__", repr(hook)), self.log)
        if after is not None:
            game, seq = after
            subscription._started.add(game)  # the caller has that game's start
            subscription._told[game] = seq
            subscription._held = []  # live items wait behind the catch-up
        with self._lock:
            self.subscriptions.append(subscription)
        subscription._thread.start()
        if after is not None:  # read with the stream free: taps go on meanwhile
            subscription.caught_up(self.stored_after(*after))
        return subscription

    def unsubscribe(self, subscription: Subscription, timeout: float | None = None) -> None:
        with self._lock:
            if subscription in self.subscriptions:
                self.subscriptions.remove(subscription)
        subscription.close(timeout)

    def close(self, timeout: float | None = None) -> None:
        """Stop every hook's thread once it has told what is queued."""
        for subscription in list(self.subscriptions):
            self.unsubscribe(subscription, timeout)

    def stored_after(self, game: int, seq: int) -> list[StreamItem]:
        """Every item the store holds after event ``seq`` of ``game``: the catch-up. A game
        that cannot be read (damage, a full disk) is logged and skipped; the rest follow."""
        items: list[StreamItem] = []
        for number in [game, *self.store.games_after(game)]:
            try:
                stored = self.store.load(number)
            except StoreError as exc:
                if number != game or exc.code != "store_no_game":
                    self.log(say("journal_stream_unread", game=number, error=str(exc)))
                continue
            items += self.game_items(stored, number, seq if number == game else None)
        return items

    def game_items(self, stored: StoredGame, number: int, after: int | None = None) -> list[StreamItem]:
        """Game ``number`` as the stream tells it: its start, its events and its result; with
        ``after``, its events after that seq (no start) and its result."""
        items: list[StreamItem] = []
        if after is None:
            items.append(
                GameStarted(
                    self.table, number, stored.created, self.store.codec.format, stored.setup_json, stored.sum
                )
            )
        items += [committed(self.table, row) for row in stored.rows if row.seq > (after or 0)]
        if stored.finished and (result := self.result(stored)) is not None:
            items.append(GameFinished(self.table, number, len(stored.rows), result))
        return items
