"""What one input did: the `Outcome` value, the ring's cues, and every outcome code.

An outcome carries an English ``message`` (the console, scripts) and, for the page, a
``code`` with the facts of its sentence in ``params``; the page writes the sentence in
its reader's language. The codes the table itself makes are declared once in
`OUTCOME_CODES` (with the parameters each may carry), so the wording catalogue and the
tests can enumerate them; refusals of the rules core keep the engine's codes
(`companion.engine.rejections`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from companion.engine import ChooseItinerary, Edition, Event, Reveal, Take
from companion.engine.rejections import Rejection
from companion.engine.tokens import ANCESTOR
from companion.engine.words import year_text

# Cues: what the ring and the page should make visible after an input.
CUE_REJECT = "reject"
CUE_BONUS = "bonus"
CUE_DAY_END = "day_end"
CUE_WINNER = "winner"
CUE_ACCEPT = "accept"
CUE_PREVIEW = "preview"

#: Rejection codes of the table itself (the engine's are in companion.engine.rejections).
STORE_ERROR = "store_error"
DISK_FULL = "disk_full"


@dataclass(frozen=True)
class Outcome:
    """What one input did: accepted or not, a sentence for people, a cue for the ring.

    ``message`` is English (the console, scripts); ``code`` and ``params`` say the
    same for the page, which writes the sentence in its reader's language.
    """

    accepted: bool
    message: str
    cue: str
    code: str | None = None
    at: float = field(default_factory=time.monotonic)
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "message": self.message,
            "cue": self.cue,
            "code": self.code,
            "params": self.params,
        }


def say(accepted: bool, message: str, cue: str, code: str, **params: Any) -> Outcome:
    """An outcome with its code and the facts of its sentence."""
    return Outcome(accepted, message, cue, code, params=params)


def rejected(rejection: Rejection) -> Outcome:
    """The rules core's refusal as an outcome (its code and params unchanged)."""
    return Outcome(False, rejection.message, CUE_REJECT, rejection.code, params=dict(rejection.params))


def card_params(edition: Edition, card: str) -> dict[str, Any]:
    """A card for an outcome's params: id, title, year (the Ancestor has neither)."""
    if card == ANCESTOR:
        return {"card": ANCESTOR}
    info = edition.card(card)
    return {"card": info.id, "title": info.title, "year": info.year}


def event_params(edition: Edition, event: Event | None) -> dict[str, Any]:
    """An event for an outcome's params (what Undo took back)."""
    if isinstance(event, Take):
        return {"kind": "take", "player": event.player, **card_params(edition, event.card)}
    if isinstance(event, ChooseItinerary):
        return {"kind": "itinerary", "player": event.player, "itinerary": event.itinerary}
    if isinstance(event, Reveal):
        return {"kind": "reveal", **card_params(edition, event.card)}
    return {"kind": "nothing"}


def card_label(edition: Edition, card: str) -> str:
    """A card as the English sentences name it: "Marathon (490 BCE)", "an Ancestor"."""
    if card == ANCESTOR:
        return "an Ancestor"
    info = edition.card(card)
    return f"{info.title} ({year_text(info.year)})"


def event_to_text(event: Event | None) -> str:
    if isinstance(event, Take):
        return f"{event.player or 'the player'} took {event.card}"
    if isinstance(event, ChooseItinerary):
        return f"{event.player} chose Itinerary {event.itinerary}"
    if isinstance(event, Reveal):
        return f"the reveal of {event.card}"
    return "nothing"
