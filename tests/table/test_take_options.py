"""A tap of a card asks the board's take options first, and its check (a take applied and
taken back) only for a card not among them (issue 26): over random games, a card is among the
options exactly when the board accepts its take by the player to move with no crystals, so
the tap answers as when it checked every card first."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Board, Take
from companion.engine.tokens import ANCESTOR
from tests.support.tables import make_runtime


def agree(board: Board) -> None:
    """Every card of the edition, and the Ancestor: an option exactly when its take is accepted."""
    options = {o.card for o in board.take_options()}
    for card in [ANCESTOR, *board.edition.card_index]:
        assert (card in options) == (board.check(Take(card)) is None), card


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4), turn=st.sampled_from(["quick", "confirm"]))
def test_a_card_is_an_option_exactly_when_its_take_is_accepted(
    tmp_path_factory: pytest.TempPathFactory, seed: int, players: int, turn: str
) -> None:
    rt = make_runtime(tmp_path_factory.mktemp("options"), ",".join("ABCD"[:players]), seed=seed, turn=turn)
    rng = random.Random(seed)
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
