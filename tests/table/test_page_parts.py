"""The page's per-player parts (`companion.table.view`): an Itinerary's view (its columns
covered, the next spaces, the rows complete) and a player's used Itineraries from their bits.
Over random games, each must equal what the rules' formulas (kept here) give for every player
after every move."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.coach.simulate import random_setup
from companion.editions import load_edition
from companion.engine import Board, ChooseItinerary, Reveal, Take, Undo
from companion.engine.tokens import COLUMNS
from companion.table.view import itinerary_view, used_itineraries

EDITION = load_edition("reference")


def oracle_view(board: Board, seat: int) -> dict[str, Any] | None:
    """`itinerary_view` as it was before it was shared: built from the board each time."""
    index = board.itinerary[seat]
    if index < 0:
        return None
    it = board.edition.itineraries[index]
    depths = board.column_depths(seat)
    columns = []
    for kind, spaces, depth in zip(COLUMNS, it.columns, depths, strict=True):
        nxt = spaces[depth] if depth < len(spaces) else None
        columns.append({"kind": kind, "spaces": list(spaces), "covered": depth, "next": nxt,
                        "full": depth >= len(spaces)})  # fmt: skip
    rows = []
    for i, reward in enumerate(it.rows):
        members = [c for c, spaces in enumerate(it.columns) if len(spaces) > i]
        rows.append({"reward": reward, "complete": all(depths[c] > i for c in members)})
    return {"id": it.id, "columns": columns, "rows": rows}


def oracle_used(board: Board, seat: int) -> list[str]:
    """The used Itineraries as they were listed: every card of the edition, its bit tested."""
    return [it.id for i, it in enumerate(board.edition.itineraries) if board.used[seat] >> i & 1]


def play(seed: int, moves: int) -> list[Board]:
    """A random game of ``moves`` events (undos among them), the board after each."""
    rng = random.Random(seed)
    board = Board(random_setup(EDITION, ["Ann", "Ben", "Cy", "Dee"][: rng.randint(2, 4)], rng))
    boards = []
    for _ in range(moves):
        if board.finished:
            break
        needs = board.needs_itinerary()
        if board.moves and rng.random() < 0.1:
            board.push(Undo())
        elif board.waiting_position() >= 0:
            day = [
                c.id
                for i, c in enumerate(EDITION.cards)
                if c.day == board.day and not board.revealed >> i & 1
            ]
            assert board.push(Reveal(rng.choice(day))) is None
        elif needs:
            assert (
                board.push(ChooseItinerary(needs[0], rng.choice(board.itinerary_choices(needs[0])))) is None
            )
        else:
            option = rng.choice(list(board.take_options()))
            take = Take(
                card=option.card, player=board.names[board.turn], crystals=rng.randint(0, option.max_crystals)
            )
            assert board.push(take) is None
        boards.append(board)
    return boards


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_itinerary_views_and_used_lists_are_the_formulas(seed: int) -> None:
    for board in play(seed, 400):
        for seat in range(len(board.names)):
            assert itinerary_view(board, seat) == oracle_view(board, seat)
            assert used_itineraries(board.edition, board.used[seat]) == oracle_used(board, seat)


def test_a_used_bit_past_the_editions_last_card_lists_nothing_more() -> None:
    cards = EDITION.itineraries
    every = (1 << len(cards)) - 1
    assert used_itineraries(EDITION, every | 1 << len(cards)) == [it.id for it in cards]
    assert used_itineraries(EDITION, 0) == []
