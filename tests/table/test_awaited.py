"""`Table.awaited` is `expect`'s kind and player without the choices (the ring and the console's
sentence, `describe_expect`, read it after every input): over random games in both turn styles,
with crystals chosen, takes prepared, undos and refusals, it is what `expect` says."""

from __future__ import annotations

import pytest

from companion.table import Table
from tests.support.tables import random_games, random_runtime


def agree(table: Table) -> None:
    expect = table.expect()
    assert table.awaited() == (None if expect is None else (expect["kind"], expect["player"]))


@random_games
def test_awaited_is_what_expect_says(
    tmp_path_factory: pytest.TempPathFactory, seed: int, players: int, turn: str
) -> None:
    rt, rng = random_runtime(tmp_path_factory, "awaited", seed, players, turn)
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
