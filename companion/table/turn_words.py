"""The turn's outcomes: each step of the turn's machine (`companion.table.turn`) as an
`Outcome`, and what a restart resumes of a turn in progress.

The machine decides (codes and params); the sentences are the catalogue's
(`companion.util.wording`, through `companion.table.outcomes.outcome`), the page's too.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Board, Edition
from companion.table.outcomes import Outcome, card_params, outcome
from companion.table.turn import Armed, Pending, Step, TurnState


def turn_outcome(done: Step, edition: Edition) -> Outcome:
    """A step of the turn as an outcome: its code, and its params with the card's facts."""
    assert done.code is not None
    params = dict(done.params)
    if "card" in params:
        params.update(card_params(edition, params["card"]))
    return outcome(done.code, **params)


def resume_turn(
    kept: dict[str, Any], board: Board, facts: dict[str, Any]
) -> tuple[TurnState, Outcome | None]:
    """The turn a restart resumes from what the store kept beside the events, and what to
    say about it: a take being prepared, if it still fits the board; crystals chosen before
    the tap (quick turn), if the game still allows them (the same player to move, with an
    Itinerary and that many crystals). What no longer fits is dropped, and said."""
    if "armed" not in kept:  # a take was being prepared when the companion stopped
        p = Pending.from_json(kept, board)
        if p is None:
            return None, outcome("pending_dropped", **facts)
        params = {**facts, "player": p.player, "n": p.crystals, "landing": p.landing}
        return p, outcome("pending_resumed", **params, **card_params(board.edition, p.card))
    try:
        player, n = str(kept["armed"][0]), int(kept["armed"][1])
    except (TypeError, ValueError, IndexError, KeyError):
        player, n = "", 0
    name = board.player_to_move
    fits = (
        name is not None
        and player == name
        and 0 < n <= board.crystals[board.turn]
        and not (board.has_itineraries and board.itinerary[board.turn] < 0)
    )
    if fits:
        return Armed(player, n), outcome("armed_resumed", **facts, player=player, n=n)
    if n > 0:
        return None, outcome("armed_dropped", **facts, player=player, n=n)
    return None, None
