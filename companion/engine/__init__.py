"""The rules core: pure Python, no I/O, no hardware, no web.

State plus an event in; a new state or a `Rejection` (stable code and its facts, which the
catalogues word) out. `Board` holds a game in play with its move stack (push/pop), on which undo runs.
"""

from companion.engine.board import Board, TakeOption, apply
from companion.engine.edition import Card, Edition, EditionError, Itinerary, Problem, parse_edition
from companion.engine.events import (
    ChooseItinerary,
    Event,
    Malformed,
    Reveal,
    Take,
    Undo,
    event_to_json,
    parse_event,
)
from companion.engine.rejections import CODES, Rejection
from companion.engine.scoring import Standing, explain_tie_break, winners
from companion.engine.state import GameState, PlayerState, Setup, SetupError, make_setup

__all__ = [
    "CODES",
    "Board",
    "Card",
    "ChooseItinerary",
    "Edition",
    "EditionError",
    "Event",
    "GameState",
    "Itinerary",
    "Malformed",
    "PlayerState",
    "Problem",
    "Rejection",
    "Reveal",
    "Setup",
    "SetupError",
    "Standing",
    "Take",
    "TakeOption",
    "Undo",
    "apply",
    "event_to_json",
    "explain_tie_break",
    "make_setup",
    "parse_edition",
    "parse_event",
    "winners",
]
