"""The turn's outcomes in words: the English sentence of each step of the turn's machine
(`companion.table.turn`), and what a restart resumes of a turn in progress.

The machine decides (codes and params); this module only words its answers, so the
machine stays pure and the sentences sit together, beside their codes.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Board, Edition
from companion.engine.words import plural
from companion.table.outcomes import Outcome, card_label, card_params, outcome
from companion.table.turn import Armed, Pending, Step, TurnState


def turn_outcome(done: Step, before: TurnState, edition: Edition) -> Outcome:
    """A step of the turn as an outcome: its code and params, and the English sentence."""
    params = dict(done.params)
    code = done.code
    assert code is not None
    p = done.state if isinstance(done.state, Pending) else None
    if code == "preview_capped":
        assert p is not None
        params.update(card_params(edition, p.card))
        text = (
            f"{p.player}: only {p.max_crystals} of the {params['armed']} crystals can be spent on "
            f"{card_label(edition, p.card)} ({p.hours} h), landing at {p.landing}. "
            "Press Confirm, or Undo to cancel."
        )
        return outcome(code, text, **params)
    if code == "preview":
        assert p is not None
        params.update(card_params(edition, p.card))
        text = (
            f"{p.player}: {card_label(edition, p.card)} costs {p.hours} h, landing at {p.landing}. "
            f"Press Crystal to spend one (up to {p.max_crystals}), then Confirm."
        )
        return outcome(code, text, **params)
    if code == "press_confirm":
        if params["more"]:
            text = f"{params['player']}: press Confirm, or Crystal to spend one."
        else:
            text = f"{params['player']}: press Confirm (no more crystals can be spent on this card)."
        return outcome(code, text, **params)
    if code == "armed":
        text = (
            f"{params['player']} will spend {params['n']} of {plural(params['held'], 'crystal')} on "
            "the card they tap next (Undo puts them back)."
        )
        return outcome(code, text, **params)
    if code == "crystal_spent":
        text = f"{params['player']} spends {params['n']}: landing at {params['landing']}."
        return outcome(code, text, **params)
    if code == "too_many_crystals" and isinstance(before, Pending):
        held = params["held"]
        why = (
            f"{params['player']} holds {plural(held, 'crystal')}"
            if params["why"] == "held"
            else "a card always costs at least 1 hour"
        )
        return outcome(code, f"No more crystals on this card: {why}.", **params)
    if code == "take_cancelled":
        return outcome(code, "Take cancelled.", **params)
    if code == "armed_cleared":
        text = f"{params['player']} keeps the {plural(params['n'], 'crystal')} chosen."
        return outcome(code, text, **params)
    refusals = {
        "too_many_crystals": f"No more crystals: {params.get('player')} holds {params.get('held')}.",
        "game_over": "The game is over.",
        "itinerary_first": f"{params.get('player')} taps an Itinerary first; crystals are chosen just "
        "before taking a card.",
        "crystal_first": "Tap a card first; Crystal then cuts its hour cost.",
        "nothing_to_confirm": "Nothing to confirm: tap the card you take.",
    }
    return outcome(code, refusals[code], **params)


def resume_turn(
    kept: dict[str, Any], board: Board, welcome: str, facts: dict[str, Any]
) -> tuple[TurnState, Outcome | None]:
    """The turn a restart resumes from what the store kept beside the events, and what to
    say about it: a take being prepared, if it still fits the board; crystals chosen before
    the tap (quick turn), if the game still allows them (the same player to move, with an
    Itinerary and that many crystals). What no longer fits is dropped, and said."""
    if "armed" not in kept:  # a take was being prepared when the companion stopped
        p = Pending.from_json(kept, board)
        if p is None:
            text = (
                f"{welcome} The take being prepared before the restart no longer fits the "
                "game and was dropped; tap the card again."
            )
            return None, outcome("pending_dropped", text, **facts)
        text = (
            f"{welcome} {p.player} was taking {card_label(board.edition, p.card)} "
            f"({plural(p.crystals, 'crystal')} spent, landing at {p.landing}): "
            "press Confirm, Crystal, or hold Undo to cancel."
        )
        params = {**facts, "player": p.player, "n": p.crystals, "landing": p.landing}
        return p, outcome("pending_resumed", text, **params, **card_params(board.edition, p.card))
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
        text = (
            f"{welcome} {player} still spends {plural(n, 'crystal')} on the card "
            "they tap next (chosen before the restart; hold Undo to put them back)."
        )
        return Armed(player, n), outcome("armed_resumed", text, **facts, player=player, n=n)
    if n > 0:
        text = (
            f"{welcome} The {plural(n, 'crystal')} chosen before the restart no "
            "longer fit the game and were put back; press Crystal again to spend some."
        )
        return None, outcome("armed_dropped", text, **facts, player=player, n=n)
    return None, None
