"""A table's finished games, replayed from its store, with the host's merges applied.

Everything here is derived, never stored: each game is replayed from its events (the log is
the only truth); the host adds only what the log cannot say, that two spellings are one
player (`companion.store.log.Store.aliases`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from companion.records.league import PastGame, holding_merges, player_key, replay, replayed_game, with_aliases
from companion.records.story import story
from companion.store.log import Store, StoreError
from companion.util.config import DEFAULT_PALETTE, MARKERS


def past_game(store: Store, game_id: int, created: str, last: str | None) -> PastGame | None:
    """Replay one stored game; None if replaying it does not end the game (a stale flag).
    Players are keyed by their spelling (`player_key`); `with_aliases` applies merges."""
    stored = store.load(game_id)
    if stored.damage is not None:  # its log stops before the damage: never count a shortened game
        raise StoreError("store_events_checksum", game=game_id)
    board = replay(stored.setup, stored.events)
    colours = list(stored.meta.get("colours") or [])
    markers = stored.meta.get("markers")
    return replayed_game(
        game_id,
        board,
        datetime.fromisoformat(created),
        datetime.fromisoformat(last) if last else None,
        colours,
        markers if isinstance(markers, list) else None,
    )


def game_story(store: Store, game_id: int) -> dict[str, Any]:
    """A stored game's story (`companion.records.story.story`): every player's Clock and points
    after each take, replayed from its events. Raises the store's refusal like `past_game`."""
    stored = store.load(game_id)
    if stored.damage is not None:  # its log stops before the damage: never draw a shortened game
        raise StoreError("store_events_checksum", game=game_id)
    return {"game": game_id, **story(stored.setup, stored.events)}


@dataclass
class History:
    """Every finished game (oldest first) and what the store could not read."""

    games: list[PastGame] = field(default_factory=list)
    unreadable: list[int] = field(default_factory=list)
    #: The host's merges that hold (`holding_merges`): the ones ``games`` are keyed by.
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Games in which the coach gave advice (`Store.assisted`), and whether the host rates them.
    assisted: set[int] = field(default_factory=set)
    rate_assisted: bool = False
    #: Merged spellings a table contradicts (seated beside their player): their own again.
    undone: list[str] = field(default_factory=list)
    #: Each player's own colour and marker (`Store.player_marks`), by player key.
    marks: dict[str, tuple[str, int]] = field(default_factory=dict)


class Replays:
    """Finished games already replayed, by id and event count: a finished game's log only
    grows (an undo is an event too), so a game whose count is unchanged is the same game.
    Memory only: the event log stays the one place anything is stored."""

    def __init__(self) -> None:
        self._games: dict[int, tuple[int, str | None, PastGame | None]] = {}
        self._lock = threading.Lock()

    def get(self, store: Store, game_id: int, created: str, last: str | None, count: int) -> PastGame | None:
        with self._lock:
            known = self._games.get(game_id)
        if known is not None and known[:2] == (count, last):
            return known[2]
        game = past_game(store, game_id, created, last)
        with self._lock:
            self._games[game_id] = (count, last, game)
        return game


def load_history(store: Store, replays: Replays | None = None) -> History:
    """Every finished game of the store, replayed (or taken from ``replays``), with the
    host's merges applied; a damaged game is listed, not fatal."""
    history = History(
        assisted=store.assisted(), rate_assisted=store.rate_assisted(), marks=store.player_marks()
    )
    cache = replays if replays is not None else Replays()
    games: list[PastGame] = []
    for game_id, created, last, count in store.finished_games():
        try:
            game = cache.get(store, game_id, created, last, count)
        except (StoreError, ValueError):
            history.unreadable.append(game_id)
            continue
        if game is not None:
            games.append(game)
    stored = {player_key(alias): (player_key(into), name) for alias, (into, name) in store.aliases().items()}
    history.aliases, history.undone = holding_merges(games, stored)
    history.games = [with_aliases(game, history.aliases) for game in games]
    return history


def shown_marks(history: History, keys: Sequence[str]) -> dict[str, tuple[str, int]]:
    """The colour and marker each player is shown with: their own (`companion.table.marks`);
    a player from before pairs were kept, the one they had in their latest game if no one shown
    has it, else the first pair free: no two players shown together share one."""
    shown: dict[str, tuple[str, int]] = {}
    used: set[tuple[str, int]] = set()
    for key in keys:
        if key in history.marks:
            shown[key] = history.marks[key]
            used.add((shown[key][0].upper(), shown[key][1]))
    last: dict[str, tuple[str, int]] = {}
    for game in history.games:
        for p in game.players:
            last[p.key] = (p.colour, p.marker)
    free = iter([(c, m) for m in range(MARKERS) for c in DEFAULT_PALETTE])
    for key in keys:
        if key in shown:
            continue
        pair = last.get(key)
        if pair is None or (pair[0].upper(), pair[1]) in used:  # more players than pairs: the first
            pair = next((q for q in free if (q[0].upper(), q[1]) not in used), (DEFAULT_PALETTE[0], 0))
        shown[key] = pair
        used.add((pair[0].upper(), pair[1]))
    return shown
