"""Small editions and boards for tests: every number visible in the test itself."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from companion.engine import Board, Edition, make_setup, parse_edition

TREKS = [-1, 1, 3, 5, 8, 11, 15, 19, 24, 30]
NO_SLOTS: list[list[str]] = [[], [], [], [], [], []]


def card(cid: str, year: int, hours: int = 2, gains: Sequence[str] = (), day: int = 1) -> dict[str, Any]:
    return {"id": cid, "title": cid.title(), "year": year, "day": day, "hours": hours, "gains": list(gains)}


def filler(
    prefix: str, count: int, day: int = 1, start_year: int = 1800, hours: int = 3
) -> list[dict[str, Any]]:
    """Plain cards that give nothing, for padding decks."""
    return [card(f"{prefix}{i}", start_year + i, hours, (), day) for i in range(count)]


def edition(
    cards: Iterable[dict[str, Any]],
    *,
    slots: list[list[str]] | None = None,
    itineraries: list[dict[str, Any]] | None = None,
    ancestor: dict[str, Any] | None = None,
    ancestors: dict[str, int] | None = None,
    treks: list[int] | None = None,
    trek_beyond: int = 3,
) -> Edition:
    obj: dict[str, Any] = {
        "cards": list(cards),
        "ancestor": ancestor if ancestor is not None else {"hours": 1, "gains": []},
        "ancestors": ancestors if ancestors is not None else {"2": 6, "3": 9, "4": 12},
        "slots": slots if slots is not None else NO_SLOTS,
        "treks": treks if treks is not None else TREKS,
        "trek_beyond": trek_beyond,
        "itineraries": itineraries if itineraries is not None else [],
    }
    return parse_edition(obj)


def board(
    ed: Edition,
    players: Sequence[str] = ("Ann",),
    stack: Sequence[str] | None = None,
    decks: dict[str, list[str]] | None = None,
) -> Board:
    """A board dealt from ``decks`` (default: each Day's cards in edition order)."""
    if decks is None:
        decks = {name: [c.id for c in ed.day_cards(d)] for d, name in ((1, "I"), (2, "II"), (3, "III"))}
    return Board(make_setup(ed, list(players), list(stack or players), decks))


def row_ids(b: Board) -> list[str | None]:
    """The Departures Row by position 0-5, as card ids."""
    return [b.edition.cards[c].id if c >= 0 else None for c in b.row]


def deck_for_row(row: Sequence[str], rest: Sequence[str] = ()) -> list[str]:
    """The deck order that deals ``row`` (positions 0..5) and then ``rest``.

    Dealing puts d1 at position 5 ... d5 at position 1 and d6 on top (position 0).
    """
    return [row[5], row[4], row[3], row[2], row[1], row[0], *rest]


def first_card(b: Board) -> str:
    """The id of some card in the row (the highest position holding one)."""
    for position in range(5, -1, -1):
        if b.row[position] >= 0:
            return b.edition.cards[b.row[position]].id
    raise AssertionError("the Departures Row is empty")


def three_short_days(players: Sequence[str] = ("Ann",), **kwargs: Any) -> Board:
    """A game whose every card costs 12 hours: one take per player and Day."""
    cards = (
        filler("a", 8, day=1, hours=12) + filler("b", 8, day=2, hours=12) + filler("c", 8, day=3, hours=12)
    )
    return board(edition(cards, **kwargs), players)
