"""`Table.awaited` is `expect`'s kind and player without the choices (issue 26: the ring and the
console read it after every input): over random games in both turn styles, with crystals
chosen, takes prepared, undos and refusals, it is what `expect` says, and the console's
sentence is the one it wrote from `expect`."""

from __future__ import annotations

import pytest

from companion.run.console import describe_expect
from companion.table import Table
from companion.util.wording import say
from tests.support.tables import random_games, random_runtime


def described_from_expect(table: Table) -> str:
    """The console's sentence as it was written from `expect`."""
    expect = table.expect()
    if expect is None:
        won = table.board.winners()
        return say("expect_over", winners=f" {say('and')} ".join(won), n=len(won))
    kind, player = expect["kind"], expect["player"]
    if kind == "reveal":
        return say("expect_reveal")
    if kind == "itinerary":
        return say("expect_itinerary", player=player)
    if kind == "confirm":
        return say("expect_confirm", player=player)
    armed = expect.get("crystals", 0)
    return say("expect_take", player=player, n=armed, kind="armed" if armed else "")


def agree(table: Table) -> None:
    expect = table.expect()
    assert table.awaited() == (None if expect is None else (expect["kind"], expect["player"]))
    assert describe_expect(table) == described_from_expect(table)


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
