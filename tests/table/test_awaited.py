"""`Table.awaited` is `expect`'s kind and player without the choices (the ring and the console's
sentence, `describe_expect`, read it after every input): over random games in both turn styles,
with crystals chosen, takes prepared, undos and refusals, it is what `expect` says."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.table import Table
from tests.support.tables import make_runtime


def agree(table: Table) -> None:
    expect = table.expect()
    assert table.awaited() == (None if expect is None else (expect["kind"], expect["player"]))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4), turn=st.sampled_from(["quick", "confirm"]))
def test_awaited_is_what_expect_says(
    tmp_path_factory: pytest.TempPathFactory, seed: int, players: int, turn: str
) -> None:
    rt = make_runtime(tmp_path_factory.mktemp("awaited"), ",".join("ABCD"[:players]), seed=seed, turn=turn)
    rng = random.Random(seed)
    table = rt.table
    try:
        for _ in range(400):
            agree(table)
            expect = table.expect()
            roll = rng.random()
            if expect is None:
                if roll < 0.5:
                    break
                table.press("undo")  # a finished game reopened
            elif roll < 0.25:
                table.press(rng.choice(["crystal", "crystal", "confirm", "undo"]))
            elif roll < 0.3:
                table.tap(rng.choice(["nonsense", *table.board.edition.card_index]))
            else:
                table.tap(rng.choice(expect["choices"]))
        agree(table)
    finally:
        rt.stop()
