"""Rejections: why an event broke a rule, as a stable code and its facts.

The codes are the record contract's (``shared/contract/game-record.md``) and are
listed here in the contract's precedence order: when several apply, the engine
reports the first. The rules core writes no sentence: ``params`` holds the facts
(names, numbers, card ids and years; ``why`` tells apart the sentences one code
has), and the catalogues word them (``companion.util.wording.say``), so ``companion
replay``, the console and the page say the same words in every language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

GAME_OVER: Final = "game_over"
BAD_EVENT: Final = "bad_event"
NOT_YOUR_TURN: Final = "not_your_turn"
ITINERARY_REQUIRED: Final = "itinerary_required"
NO_ANCESTOR_LEFT: Final = "no_ancestor_left"
ANCESTOR_CANNOT_START_TREK: Final = "ancestor_cannot_start_trek"
UNKNOWN_CARD: Final = "unknown_card"
CARD_NOT_AVAILABLE: Final = "card_not_available"
TOO_MANY_CRYSTALS: Final = "too_many_crystals"
COST_BELOW_ONE: Final = "cost_below_one"
ITINERARY_UNAVAILABLE: Final = "itinerary_unavailable"
NOTHING_TO_UNDO: Final = "nothing_to_undo"

#: Every code, in the contract's precedence order.
CODES: Final[tuple[str, ...]] = (
    GAME_OVER,
    BAD_EVENT,
    NOT_YOUR_TURN,
    ITINERARY_REQUIRED,
    NO_ANCESTOR_LEFT,
    ANCESTOR_CANNOT_START_TREK,
    UNKNOWN_CARD,
    CARD_NOT_AVAILABLE,
    TOO_MANY_CRYSTALS,
    COST_BELOW_ONE,
    ITINERARY_UNAVAILABLE,
    NOTHING_TO_UNDO,
)


class Rejection:
    """An event the engine refused: its ``code`` and the facts its sentence names. The
    state it was applied to is unchanged. Made with a code and params only, never English
    (`tests/project/test_architecture.py` checks)."""

    __slots__ = ("code", "params")

    def __init__(self, code: str, /, **params: Any) -> None:
        self.code = code
        self.params: Mapping[str, Any] = params

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rejection) and (self.code, self.params) == (other.code, other.params)

    def __hash__(self) -> int:
        return hash(self.code)

    def __repr__(self) -> str:
        return f"Rejection({self.code!r}, {dict(self.params)!r})"
