"""A tap of a card asks the board's take options first, and its check (a take applied and
taken back) only for a card not among them (issue 26): over random games, a card is among the
options exactly when the board accepts its take by the player to move with no crystals, so
the tap answers as when it checked every card first."""

from __future__ import annotations

import pytest

from companion.engine import Board, Take
from companion.engine.tokens import ANCESTOR
from tests.support.tables import random_games, random_runtime


def agree(board: Board) -> None:
    """Every card of the edition, and the Ancestor: an option exactly when its take is accepted."""
    options = {o.card for o in board.take_options()}
    for card in [ANCESTOR, *board.edition.card_index]:
        assert (card in options) == (board.check(Take(card)) is None), card


@random_games
def test_a_card_is_an_option_exactly_when_its_take_is_accepted(
    tmp_path_factory: pytest.TempPathFactory, seed: int, players: int, turn: str
) -> None:
    rt, rng = random_runtime(tmp_path_factory, "options", seed, players, turn)
    try:
        while (expect := rt.table.expect()) is not None:
            agree(rt.table.board)
            if rng.random() < 0.15:
                rt.table.press(rng.choice(["crystal", "undo"]))
            rt.table.tap(rng.choice(expect["choices"]))
            if rt.table.pending is not None:
                rt.table.press("confirm")
        agree(rt.table.board)  # finished: nothing is an option, and nothing is accepted
    finally:
        rt.stop()
