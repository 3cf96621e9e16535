"""Rejections: why an event broke a rule, as a stable code and a plain sentence.

The codes are the record contract's (``shared/contract/game-record.md``) and are
listed here in the contract's precedence order: when several apply, the engine
reports the first. The message is for people at the table, so it names the
player and the numbers ("Ben holds 2 crystals and cannot spend 3"). The same
facts are in ``params`` (names, numbers, card ids and years; ``why`` tells apart
the sentences one code has), so a page can say the sentence in its own language
instead of showing the English one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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


@dataclass(frozen=True, slots=True)
class Rejection:
    """An event the engine refused. The state it was applied to is unchanged."""

    code: str
    message: str
    #: The sentence's facts for other languages; not part of equality (the message says it all).
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
