"""`view_of` reads the table for the ring at every change with `awaited` (not the table's full
`expect`, which lists the choices): over random games, with colours changed mid-game, the view
agrees with the table's own answers."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.hardware.ring import view_of
from companion.run.runtime import Runtime
from companion.util.config import colour_rgb
from tests.support.tables import make_runtime


def assert_view_agrees(table: Any, now: float) -> None:
    """Each seat's watch at its hour in its colour, each hour's stack the latest arrival on
    top, the tap awaited (`expect`'s kind, in the chooser's colour), and the winners."""
    with table.lock:
        view, board, expect = view_of(table, now), table.board, table.expect()
        seats = range(len(board.names))
        colours = [colour_rgb(table.colour(seat)) for seat in seats]
        assert [(w.hour, w.colour) for w in view.watches] == [(board.hour[s], colours[s]) for s in seats]
        for hour in set(board.hour):
            stack = sorted((s for s in seats if board.hour[s] == hour), key=lambda s: view.watches[s].height)
            assert [view.watches[s].height for s in stack] == list(range(len(stack)))
            assert board.seq[stack[0]] == max(board.seq[s] for s in stack), "the latest arrival on top"
        kind = expect["kind"] if expect else None
        assert view.waiting == (kind if kind in ("reveal", "itinerary") else None)
        chooser = colours[board.names.index(expect["player"])] if kind == "itinerary" else None
        assert view.waiting_colour == chooser
        assert view.mover == (None if board.finished else board.turn)
        assert (view.preview is None) == (table.pending is None) and view.cue_age == now - table.last.at
        assert set(view.winners) == (
            {colours[board.names.index(w)] for w in board.winners()} if board.finished else set()
        )


def random_input(rt: Runtime, rng: random.Random) -> None:
    """A tap of what the table expects (or of anything), or a button: refusals included."""
    table = rt.table
    expect = table.expect()
    roll = rng.random()
    if expect is None or roll < 0.08:
        table.tap(rng.choice(["ancestor", "nonsense", *table.board.edition.card_index]))
    elif roll < 0.25:
        table.press(rng.choice(["crystal", "crystal", "confirm", "undo"]))
    else:
        table.tap(rng.choice(expect["choices"]))


HEX = ["#0072b2", "#e69f00", "#009e73", "#cc79a7"]


@pytest.mark.parametrize("turn", ["quick", "confirm"])
def test_the_view_is_the_tables_answers_over_a_whole_game(tmp_path: Path, turn: str) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy", seed=8, turn=turn)
    rng = random.Random(turn)
    try:
        for step in range(400):
            if step == 150:  # a seat's colour changed, one not a colour at all: the palette's
                rt.table.colours = [HEX[3], "teal", HEX[1]]
            assert_view_agrees(rt.table, 5.0)
            if rt.table.board.finished and rng.random() < 0.3:
                break
            random_input(rt, rng)
    finally:
        rt.stop()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4), colours=st.permutations(HEX))
def test_random_games_read_the_same_view(
    tmp_path_factory: pytest.TempPathFactory, seed: int, players: int, colours: list[str]
) -> None:
    rt = make_runtime(tmp_path_factory.mktemp("view"), ",".join("ABCD"[:players]), seed=seed)
    rt.table.colours = colours[:players]
    rng = random.Random(seed)
    try:
        for _ in range(120):
            assert_view_agrees(rt.table, 1.0)
            random_input(rt, rng)
    finally:
        rt.stop()
