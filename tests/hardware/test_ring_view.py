"""`view_of` reads the table for the ring at every change without the table's full
`expect` (its choices) and with each seat's colour and `Watch` kept from one change to the
next (issue 26): over random games, with colours changed mid-game, it is the view read the
plain way from the table's own answers."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.hardware.ring import ClockView, Watch, rgb, stack_height, view_of, watches_of
from companion.run.runtime import Runtime
from tests.support.tables import make_runtime


def plain_view(table: Any, now: float) -> ClockView:
    """The view as the table's answers give it: `expect`'s kind and player, `colour` per seat."""
    board = table.board
    colours = [rgb(table.colour(seat)) for seat in range(len(board.names))]
    watches = tuple(
        Watch(board.hour[s], colours[s], stack_height(board.hour, board.seq, s)) for s in range(len(colours))
    )
    expect = table.expect()
    waiting = expect["kind"] if expect and expect["kind"] in ("reveal", "itinerary") else None
    pending = table.pending
    return ClockView(
        watches=watches,
        mover=None if board.finished else board.turn,
        preview=(pending.from_hour, pending.landing) if pending is not None else None,
        waiting=waiting,
        waiting_colour=colours[board.names.index(expect["player"])] if waiting == "itinerary" else None,
        cue=table.last.cue,
        cue_age=now - table.last.at,
        winners=tuple(colours[board.names.index(w)] for w in board.winners()) if board.finished else (),
        armed=table.armed_crystals(),
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
            with rt.table.lock:
                assert view_of(rt.table, 5.0) == plain_view(rt.table, 5.0), step
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
            with rt.table.lock:
                assert view_of(rt.table, 1.0) == plain_view(rt.table, 1.0)
            random_input(rt, rng)
    finally:
        rt.stop()


@given(
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 4)), min_size=1, max_size=6),
    st.integers(0, 6),
)
def test_the_watches_read_in_one_loop_are_each_seats_stack_height(
    seats: list[tuple[int, int]], shown: int
) -> None:
    """`watches_of` against `stack_height` per seat, as `view_of` read them before: ties of
    hour and arrival, and fewer colours (seats) than hours."""
    hours, seqs = [h for h, _ in seats], [q for _, q in seats]
    colours = tuple((seat, 0, 255 - seat) for seat in range(min(shown, len(hours))))
    expected = tuple(
        Watch(hour, colours[seat], stack_height(hours, seqs, seat) if hours.count(hour) > 1 else 0)
        for seat, hour in enumerate(hours[: len(colours)])
    )
    assert watches_of(hours, seqs, colours) == expected
