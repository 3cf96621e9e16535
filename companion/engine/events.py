"""Events: the moves of the game as value objects, and their parsing from JSON.

Parsing never raises: a malformed object becomes `Malformed`, which the engine rejects as
``bad_event`` unless the game is over (the contract ranks ``game_over`` first, which needs
the state). NamedTuples, because the simulator builds hundreds of thousands a second.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from companion.engine.tokens import COLUMNS


class ChooseItinerary(NamedTuple):
    """``player`` uses Itinerary ``itinerary`` for the current Day."""

    player: str
    itinerary: str


class Take(NamedTuple):
    """The player to move takes ``card`` (a card id or ``"ancestor"``).

    ``crystals`` are spent to cut the hour cost; ``wild`` names, in order, the
    column of each Wild token gained. ``player``, when given, must be the player
    whose turn it is.
    """

    card: str
    player: str | None = None
    crystals: int = 0
    wild: tuple[str, ...] = ()


class Reveal(NamedTuple):
    """The table shows the next card of the Day deck (records without decks)."""

    card: str


class Undo(NamedTuple):
    """Take back the last accepted event.

    ``correction``: the table's own undo while it rewrites the log for a host's correction
    (undo back to an event, the corrected one, the later ones again), not a person's. The
    rules ignore it; the page's event log lists a person's undo but not these steps. In a
    record it is an extra field, which the contract says readers ignore."""

    correction: bool = False


class Malformed(NamedTuple):
    """An event that could not be read; ``kind`` is its ``type`` if it had one. ``why`` says
    what is wrong and ``facts`` hold what its sentence names (the catalogues' ``bad_event.why``):
    the rules core writes no English."""

    kind: str | None
    why: str
    facts: Mapping[str, Any] = MappingProxyType({})


Event = ChooseItinerary | Take | Reveal | Undo | Malformed


def _text(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) and value else None


def _name(obj: dict[str, Any], key: str) -> str | None:
    """A card or itinerary id: any string is well typed (an empty one names nothing, which
    the engine rejects as ``unknown_card`` / ``itinerary_unavailable``, not ``bad_event``)."""
    value = obj.get(key)
    return value if isinstance(value, str) else None


def parse_event(obj: Any) -> Event:
    """Turn one decoded JSON value into an event (or `Malformed`)."""
    if not isinstance(obj, dict):
        return Malformed(None, "not_object")
    kind = obj.get("type")
    if kind == "take":
        return _parse_take(obj)
    if kind == "itinerary":
        player, itinerary = _text(obj, "player"), _name(obj, "itinerary")
        if player is None:
            return Malformed(kind, "itinerary_player")
        if itinerary is None:
            return Malformed(kind, "itinerary_id")
        return ChooseItinerary(player, itinerary)
    if kind == "reveal":
        card = _name(obj, "card")
        if card is None:
            return Malformed(kind, "reveal_card")
        return Reveal(card)
    if kind == "undo":
        return Undo(obj.get("correction") is True)
    if kind is None:
        return Malformed(None, "no_type")
    return Malformed(str(kind), "unknown_type", {"type": repr(kind)})


def _parse_take(obj: dict[str, Any]) -> Event:
    card = obj.get("card")
    if type(card) is str and len(obj) == 2:  # only "type" and "card": most takes of a record
        return Take(card)
    card = _name(obj, "card")
    if card is None:
        return Malformed("take", "take_card")
    player = obj.get("player")
    if "player" in obj and not (isinstance(player, str) and player):
        return Malformed("take", "take_player")
    crystals = obj.get("crystals", 0)
    if isinstance(crystals, bool) or not isinstance(crystals, int) or crystals < 0:
        return Malformed("take", "take_crystals", {"value": repr(crystals)})
    wild = obj.get("wild", [])
    if not isinstance(wild, list) or not all(isinstance(w, str) for w in wild):
        return Malformed("take", "take_wild")
    for column in wild:
        if column not in COLUMNS:
            return Malformed("take", "wild_column", {"column": repr(column), "columns": ", ".join(COLUMNS)})
    return Take(card, player, crystals, tuple(wild))


def fields_json(value: object, *names: str) -> dict[str, Any]:
    """``value``'s attributes ``names`` as a JSON object's members, in that order: the
    ``to_json`` of a value whose JSON names its fields as they are."""
    return {name: getattr(value, name) for name in names}


def event_to_json(event: Event) -> dict[str, Any]:
    """The record form of an event (the inverse of `parse_event`)."""
    if isinstance(event, Take):
        out: dict[str, Any] = {"type": "take", "card": event.card}
        if event.player is not None:
            out["player"] = event.player
        if event.crystals:
            out["crystals"] = event.crystals
        if event.wild:
            out["wild"] = list(event.wild)
        return out
    if isinstance(event, ChooseItinerary):
        return {"type": "itinerary", "player": event.player, "itinerary": event.itinerary}
    if isinstance(event, Reveal):
        return {"type": "reveal", "card": event.card}
    if isinstance(event, Undo):
        return {"type": "undo", "correction": True} if event.correction else {"type": "undo"}
    raise ValueError(f"a malformed event has no record form: {event.why}")
