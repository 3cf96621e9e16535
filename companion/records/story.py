"""A finished game's story: every player's Clock and points after each take.

The end screen and each game in /history draw it as one chart (``web/static/chart.js``,
``storySvg``). It is derived, never stored: the game's events are pushed on a board (undos
included, so what is left is the moves in effect), then those moves are replayed on a fresh
board, one take at a time, reading each player's watch and total after it. The event log
stays the one truth; a correction or an undo changes the story because it changes the log.

Pure (engine only), below the store, like `companion.records.league`: a table's history
(`companion.history.past.game_story`) loads the events and asks for the story here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.engine import Board, Setup
from companion.engine.events import Event, Take
from companion.engine.tokens import ANCESTOR, HOURS_PER_DAY


def story(setup: Setup, events: Iterable[Event]) -> dict[str, Any]:
    """The story of the game ``events`` make (its stored log, undos included).

    ``names``: the players in seat order. ``start``: every player's total before the first take.
    ``turns``: one per take in effect, in order: ``seat`` (who took), ``day`` (the Day it was
    taken in), ``card`` (its id, ``"ancestor"`` for an Ancestor), ``clock`` (every player's hour
    on the Clock after it, within that Day: a Day's last take shows where the watches ended it,
    the next Day starts from 0 again), ``totals`` (every player's total after it), ``trek``
    (true when this take completed the taker's trek: its card began a new one) and
    ``ancestor`` (true when it was an Ancestor)."""
    board = Board(setup)
    for event in events:
        board.push(event)  # stored events were accepted once; an undo pops the move it undid
    fresh = Board(setup)
    turns: list[dict[str, Any]] = []
    start = [s.total for s in fresh.standings()]
    for event in board.moves:
        if not isinstance(event, Take):
            fresh.push(event)
            continue
        who, day = fresh.turn, fresh.day
        clock = fresh.hour[:]
        completed = len(fresh.treks[who])
        option = next((o for o in fresh.take_options() if o.card == event.card), None)
        if fresh.push(event) is not None:  # cannot happen for a move in effect; nothing to draw
            continue
        if fresh.day == day and not fresh.finished:
            clock = fresh.hour[:]
        elif option is not None:  # the Day ended: where the taker's watch stopped (never past 12)
            clock[who] = min(HOURS_PER_DAY, clock[who] + option.hours - event.crystals)
        turns.append(
            {
                "seat": who,
                "day": day,
                "card": event.card,
                "clock": clock,
                "totals": [s.total for s in fresh.standings()],
                "trek": len(fresh.treks[who]) > completed,
                "ancestor": event.card == ANCESTOR,
            }
        )
    return {"names": list(board.names), "start": start, "turns": turns}
