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
from companion.engine.events import fields_json
from companion.engine.rejections import Rejection
from companion.engine.tokens import ANCESTOR
from companion.util.wording import say as sentence

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
        return fields_json(self, "accepted", "message", "cue", "code", "params")


@dataclass(frozen=True)
class OutcomeCode:
    """One outcome code the table makes: accepted or refused, its cue, the params it may carry."""

    accepted: bool
    cue: str
    params: tuple[str, ...] = ()


_CARD = ("card", "title", "year")
_WELCOME = ("game", "players")

#: Every code the table's own inputs answer with, declared once (the engine's refusals keep
#: `companion.engine.rejections.CODES`; "took" may carry any of its params). The page's
#: wording (`web/static/i18n.js`) has a sentence for each, in English and French.
OUTCOME_CODES: dict[str, OutcomeCode] = {
    "welcome": OutcomeCode(True, CUE_ACCEPT, _WELCOME),
    "pending_resumed": OutcomeCode(True, CUE_PREVIEW, (*_WELCOME, "player", "n", "landing", *_CARD)),
    "pending_dropped": OutcomeCode(True, CUE_ACCEPT, _WELCOME),
    "armed_resumed": OutcomeCode(True, CUE_PREVIEW, (*_WELCOME, "player", "n")),
    "armed_dropped": OutcomeCode(True, CUE_ACCEPT, (*_WELCOME, "player", "n")),
    "no_button": OutcomeCode(False, CUE_REJECT, ("button",)),
    "press_confirm": OutcomeCode(False, CUE_PREVIEW, ("player", "more")),
    "itinerary_chosen": OutcomeCode(True, CUE_ACCEPT, ("player", "itinerary")),
    "revealed": OutcomeCode(True, CUE_ACCEPT, _CARD),
    "preview": OutcomeCode(True, CUE_PREVIEW, ("player", "hours", "landing", "max", *_CARD)),
    "preview_capped": OutcomeCode(
        True, CUE_PREVIEW, ("player", "armed", "max", "hours", "landing", "why", *_CARD)
    ),
    "armed": OutcomeCode(True, CUE_PREVIEW, ("player", "n", "held")),
    "crystal_spent": OutcomeCode(True, CUE_PREVIEW, ("player", "n", "landing")),
    "itinerary_first": OutcomeCode(False, CUE_REJECT, ("player",)),
    "crystal_first": OutcomeCode(False, CUE_REJECT),
    "nothing_to_confirm": OutcomeCode(False, CUE_REJECT),
    "take_cancelled": OutcomeCode(True, CUE_ACCEPT),
    "armed_cleared": OutcomeCode(True, CUE_ACCEPT, ("player", "n")),
    "took": OutcomeCode(
        True, CUE_ACCEPT, ("player", "crystals", *_CARD, "punctual", "winners", "day_over", "day", "reveal")
    ),
    "done": OutcomeCode(True, CUE_ACCEPT),
    "undone": OutcomeCode(True, CUE_ACCEPT, ("kind", "player", "itinerary", *_CARD)),
    "undo_stale": OutcomeCode(False, CUE_REJECT),
    "no_take_yet": OutcomeCode(False, CUE_REJECT),
    "no_wild": OutcomeCode(False, CUE_REJECT, ("player", *_CARD)),
    "wild_moved": OutcomeCode(True, CUE_ACCEPT, ("player", "columns", *_CARD)),
    "no_itinerary_today": OutcomeCode(False, CUE_REJECT, ("player",)),
    "itinerary_corrected": OutcomeCode(True, CUE_ACCEPT, ("player", "itinerary")),
    # the rules core's codes, when the table refuses before asking it (with the table's params)
    "game_over": OutcomeCode(False, CUE_REJECT),
    "nothing_to_undo": OutcomeCode(False, CUE_REJECT),
    "too_many_crystals": OutcomeCode(False, CUE_REJECT, ("why", "player", "held")),
    "itinerary_unavailable": OutcomeCode(False, CUE_REJECT, ("why", "day")),
    "unknown_card": OutcomeCode(False, CUE_REJECT, ("why", "card", "edition")),
    "card_not_available": OutcomeCode(False, CUE_REJECT, ("why", "day", *_CARD)),
    DISK_FULL: OutcomeCode(False, CUE_REJECT, ("error",)),
    STORE_ERROR: OutcomeCode(False, CUE_REJECT, ("error", "store", "facts")),
    # made by the runtime around the table (a tag, a lost press, a damaged store at start)
    "tag_captured": OutcomeCode(True, CUE_ACCEPT, ("tag",)),
    "unknown_tag": OutcomeCode(False, CUE_REJECT, ("tag", "why", "matches")),
    "press_lost": OutcomeCode(False, CUE_REJECT),
    "store_damaged": OutcomeCode(False, CUE_REJECT),
}


def outcome(code: str, **params: Any) -> Outcome:
    """An outcome of a declared code: whether it is accepted and its cue come from
    `OUTCOME_CODES`, its English sentence from the catalogue."""
    declared = OUTCOME_CODES[code]
    return Outcome(declared.accepted, sentence(code, **params), declared.cue, code, params=params)


def rejected(rejection: Rejection) -> Outcome:
    """The rules core's refusal as an outcome (its code and params unchanged)."""
    params = dict(rejection.params)
    return Outcome(False, sentence(rejection.code, **params), CUE_REJECT, rejection.code, params=params)


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


def event_to_text(event: Event | None) -> str:
    if isinstance(event, Take):
        return f"{event.player or 'the player'} took {event.card}"
    if isinstance(event, ChooseItinerary):
        return f"{event.player} chose Itinerary {event.itinerary}"
    if isinstance(event, Reveal):
        return f"the reveal of {event.card}"
    return "nothing"
