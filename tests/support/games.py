"""Finished games for the tests of history, ratings and the pages that show them: one played
whole by the greedy bot and stored as the table stores it, or one made up from its places."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.engine import Board
from companion.records.league import PastGame, PastPlayer
from companion.records.trekking import write_record
from companion.store.log import Store


def finished_game(store: Store, names: list[str], seed: int) -> tuple[int, Board]:
    """A whole game played by the greedy bot, stored as the table stores one: setup, events."""
    rng = random.Random(seed)
    setup = random_setup(load_edition("reference"), names, rng)
    board, _, _ = play_game(setup, "greedy", rng)
    head = json.loads(write_record(setup, []).splitlines()[0])
    game = store.new_game(head, {"colours": ["#0072B2", "#E69F00", "#009E73", "#CC79A7"][: len(names)]})
    store.write_events(game, 1, list(board.moves), finished=True)
    return game, board


def made_up_game(game_id: int, places: dict[str, int], day: int = 0) -> PastGame:
    """A finished game with the given places (for the ratings, which only read places)."""
    started = datetime(2026, 1, 1, 20, tzinfo=UTC) + timedelta(days=day)
    players = tuple(
        PastPlayer(n, n.casefold(), 50 - 10 * r, 0, 0, 0, (3,), r, r == 1, "#000000")
        for n, r in places.items()
    )
    return PastGame(
        game_id, started, started + timedelta(minutes=40), "reference", players, next(iter(places)), ""
    )
