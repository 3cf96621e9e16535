"""Editions: every printed number of the game, as data.

The publisher's card values are not public, so the engine never hard-codes them:
an *edition* holds the History cards (year, hours, benefits), the Ancestor card,
the playmat (the benefit under each Departures Row position and the trek table)
and the Itinerary cards. Records carry an edition inline or name a shipped one.

`parse_edition` checks a whole edition and reports *every* problem with its
location at once, because an owner transcribing 108 cards wants one list to fix,
not one error per run. The schema is documented in ``docs/editions.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.engine.tables import RuleTables, build_tables
from companion.engine.tokens import (
    ANCESTOR,
    BENEFIT_CODE,
    BENEFITS,
    COLUMNS,
    CRYSTAL,
    DAYS,
    HOURS_PER_DAY,
    MAX_PLAYERS,
    ROW_SIZE,
)

#: Ancestor copies by player count when an edition does not say (both rulebooks: 6, 9, 12).
RULEBOOK_ANCESTORS: Mapping[int, int] = {2: 6, 3: 9, 4: 12}

#: Bounds on what an edition may hold, far above any printed game. They keep a hostile
#: or mistyped file from making the engine's tables huge: an itinerary's memo grows with
#: the product of its column depths (70 spaces a column was 127 million entries, 1 GB).
MAX_CARDS = 1000
MAX_ITINERARIES = 100
MAX_COLUMN_SPACES = 10

#: An itinerary space or row reward: plain (None), victory points, or a crystal.
Space = int | str | None


@dataclass(frozen=True, slots=True)
class Card:
    """One History card, as printed: id, title, year, Day deck, hour cost, benefits."""

    id: str
    title: str
    year: int
    day: int
    hours: int
    gains: tuple[str, ...]
    note: str = ""
    #: The title in other languages, as (language, title) pairs ("fr", "Marathon"): an owner's
    #: French box shows French titles on a French page; ``title`` is the one for any other.
    titles: tuple[tuple[str, str], ...] = ()


#: A title's language: two lower-case letters ("fr"), as the page's catalogues are named.
TITLE_LANGUAGE = re.compile(r"[a-z]{2}")
#: Longest title in any language (a card's face: a line or two).
TITLE_LENGTH = 200


def _titles_ok(titles: Any) -> bool:
    """Whether ``titles`` is a card's titles per language: {"fr": "a text"}, each text not blank."""
    return type(titles) is dict and all(
        type(k) is str
        and TITLE_LANGUAGE.fullmatch(k)
        and type(v) is str
        and v.strip()
        and len(v) <= TITLE_LENGTH
        for k, v in titles.items()
    )


@dataclass(frozen=True, slots=True)
class AncestorCard:
    """The Ancestor card: all copies alike, no year of its own."""

    hours: int
    gains: tuple[str, ...]
    gain_codes: tuple[int, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Itinerary:
    """An Itinerary card: four columns of spaces (top first) and row rewards.

    ``columns`` always has the four columns in ``COLUMNS`` order; a column the
    card does not print is an empty tuple, so every token of that kind is lost.
    """

    id: str
    columns: tuple[tuple[Space, ...], ...]
    rows: tuple[Space, ...]

    def column(self, kind: str) -> tuple[Space, ...]:
        return self.columns[COLUMNS.index(kind)]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an edition: where it is and what to do about it."""

    location: str
    message: str
    warning: bool = False

    def __str__(self) -> str:
        kind = "warning" if self.warning else "error"
        return f"{self.location}: {kind}: {self.message}"


class EditionError(ValueError):
    """Raised when an edition has errors; ``problems`` lists all of them."""

    def __init__(self, problems: Sequence[Problem], source: str = "edition") -> None:
        self.problems = tuple(problems)
        self.source = source
        errors = [p for p in self.problems if not p.warning]
        first = errors[0] if errors else None
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{source}: {first}{more}")


@dataclass(frozen=True)
class Edition:
    """A validated edition with lookup tables the engine needs."""

    name: str
    cards: tuple[Card, ...]
    ancestor: AncestorCard | None
    ancestors: Mapping[int, int]
    slots: tuple[tuple[str, ...], ...]
    treks: tuple[int, ...]
    trek_beyond: int
    itineraries: tuple[Itinerary, ...]
    title: str = ""
    provenance: str = ""
    warnings: tuple[Problem, ...] = ()
    card_index: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    itinerary_index: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    tables: RuleTables | None = field(default=None, compare=False, repr=False)

    @property
    def rules(self) -> RuleTables:
        """The compiled lookup tables (built by `parse_edition`)."""
        assert self.tables is not None
        return self.tables

    def card(self, card_id: str) -> Card:
        return self.cards[self.card_index[card_id]]

    def day_cards(self, day: int) -> list[Card]:
        """The cards of one Day deck, in edition order (1-based day)."""
        return [c for c in self.cards if c.day == day]

    def ancestor_copies(self, players: int) -> int:
        """Copies in play: a solo game uses the two-player count."""
        if self.ancestor is None:
            return 0
        players = max(players, 2)
        return self.ancestors.get(players, RULEBOOK_ANCESTORS.get(players, 0))

    def trek_points(self, length: int) -> int:
        """Points of one trek of ``length`` cards (the playmat's trek table)."""
        if length <= 0:
            return 0
        if length <= len(self.treks):
            return self.treks[length - 1]
        return self.treks[-1] + (length - len(self.treks)) * self.trek_beyond


class _Checker:
    """Collects problems while reading an untrusted JSON-like edition object."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message))

    def warn(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message, warning=True))

    def integer(self, value: Any, where: str, low: int | None = None, high: int | None = None) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, f"must be a whole number, not {_show(value)}")
            return None
        if low is not None and value < low:
            self.error(where, f"must be at least {low}, not {value}")
            return None
        if high is not None and value > high:
            self.error(where, f"must be at most {high}, not {value}")
            return None
        return value

    def text(self, value: Any, where: str) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.error(where, f"must be a non-empty text, not {_show(value)}")
            return None
        return value

    def benefits(self, value: Any, where: str) -> tuple[str, ...] | None:
        if not isinstance(value, list):
            self.error(where, f"must be a list of benefits, not {_show(value)}")
            return None
        ok = True
        for i, item in enumerate(value):
            if item not in BENEFITS:
                self.error(
                    f"{where}[{i}]", f"unknown benefit {_show(item)}; use one of {', '.join(BENEFITS)}"
                )
                ok = False
        return tuple(value) if ok else None

    def space(self, value: Any, where: str) -> bool:
        if value is None or value == CRYSTAL:
            return True
        if isinstance(value, int) and not isinstance(value, bool):
            return True
        self.error(where, f'must be null (plain), a whole number of points or "crystal", not {_show(value)}')
        return False


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


KNOWN_KEYS = {
    "format", "name", "title", "provenance", "notes", "cards", "ancestor", "ancestors",
    "slots", "treks", "trek_beyond", "itineraries",
    "from_base",  # an owner's edition: parts still holding another edition's values (no rule reads it)
}  # fmt: skip


def parse_edition(obj: Any, default_name: str = "inline") -> Edition:
    """Validate an edition object (as read from JSON) and build an `Edition`.

    Raises `EditionError` listing every error (warnings ride along in
    ``Edition.warnings`` when there are no errors).
    """
    ch = _Checker()
    if not isinstance(obj, dict):
        raise EditionError([Problem("edition", f"must be a JSON object, not {_show(obj)}")])
    for key in obj:
        if key not in KNOWN_KEYS:  # an empty key is named as JSON writes it: a problem says where it is
            ch.warn(key or '""', "unknown key, ignored")
    name = obj.get("name", default_name)
    if not isinstance(name, str) or not name:
        ch.error("name", f"must be a non-empty text, not {_show(name)}")
        name = default_name

    cards = _parse_cards(ch, obj.get("cards"))
    ancestor, ancestors = _parse_ancestors(ch, obj)
    slots = _parse_slots(ch, obj.get("slots"))
    treks = _parse_treks(ch, obj.get("treks"))
    beyond = ch.integer(obj.get("trek_beyond", 3), "trek_beyond", low=0)
    itineraries = _parse_itineraries(ch, obj.get("itineraries", []))

    errors = [p for p in ch.problems if not p.warning]
    if errors:
        raise EditionError(ch.problems)
    assert slots is not None and treks is not None and beyond is not None
    return Edition(
        name=name,
        cards=tuple(cards),
        ancestor=ancestor,
        ancestors=ancestors,
        slots=slots,
        treks=treks,
        trek_beyond=beyond,
        itineraries=tuple(itineraries),
        title=str(obj.get("title", "")),
        provenance=str(obj.get("provenance", "")),
        warnings=tuple(ch.problems),
        card_index={c.id: i for i, c in enumerate(cards)},
        itinerary_index={it.id: i for i, it in enumerate(itineraries)},
        tables=build_tables(
            [c.id for c in cards],
            [(c.hours, c.year, c.day, c.gains) for c in cards],
            slots,
            [(it.columns, it.rows) for it in itineraries],
        ),
    )


def _parse_cards(ch: _Checker, raw: Any) -> list[Card]:
    if not isinstance(raw, list) or not raw:
        ch.error("cards", "must be a non-empty list of History cards")
        return []
    if len(raw) > MAX_CARDS:
        ch.error("cards", f"has {len(raw)} cards; an edition holds at most {MAX_CARDS}")
        return []
    cards: list[Card] = []
    seen: dict[str, int] = {}
    for i, c in enumerate(raw):
        card = _well_formed_card(c, seen)
        if card is not None:
            seen[card.id] = i
            cards.append(card)
            continue
        named = _entry(ch, "cards", i, c)
        if named is None:
            continue
        where, cid = named
        if cid is not None:
            if cid == ANCESTOR:
                ch.error(f"{where}.id", '"ancestor" is reserved for the Ancestor card')
            elif cid in seen:
                ch.error(f"{where}.id", f"duplicate id, also used by cards[{seen[cid]}]")
            else:
                seen[cid] = i
        title = c.get("title", cid)
        if not isinstance(title, str):
            ch.error(f"{where}.title", f"must be a text, not {_show(title)}")
        year = ch.integer(c.get("year"), f"{where}.year")
        day = ch.integer(c.get("day"), f"{where}.day", low=1, high=DAYS)
        hours = ch.integer(c.get("hours"), f"{where}.hours", low=1, high=HOURS_PER_DAY)
        gains = ch.benefits(c.get("gains", []), f"{where}.gains")
        note = c.get("note", "")
        if not isinstance(note, str):
            ch.error(f"{where}.note", f"must be a text, not {_show(note)}")
        titles = c.get("titles", {})
        if not _titles_ok(titles):
            ch.error(
                f"{where}.titles",
                f'must map a language to its title, e.g. {{"fr": "La bataille de Marathon"}} (two-letter '
                f"language codes, texts of 1 to {TITLE_LENGTH} characters), not {_show(titles)}",
            )
            titles = {}
        if None in (cid, year, day, hours, gains) or not isinstance(title, str):
            continue
        assert cid is not None and year is not None and day is not None
        assert hours is not None and gains is not None
        cards.append(Card(cid, title, year, day, hours, gains, str(note), tuple(sorted(titles.items()))))
    for day in range(1, DAYS + 1):
        count = sum(1 for card in cards if card.day == day)
        if count < ROW_SIZE:
            ch.warn(
                "cards", f"Day {day} has {count} cards, fewer than the {ROW_SIZE} of a full Departures Row"
            )
    return cards


def _entry(ch: _Checker, key: str, i: int, entry: Any) -> tuple[str, str | None] | None:
    """Entry ``i`` of the list ``key``: where it is (named by its id once it has one) and its
    id (None: missing, said); None when it is not an object (said)."""
    where = f"{key}[{i}]"
    if not isinstance(entry, dict):
        ch.error(where, f"must be an object, not {_show(entry)}")
        return None
    eid = ch.text(entry.get("id"), f"{where}.id")
    return (where if eid is None else f"{where} ({eid})"), eid


def _well_formed_card(c: Any, seen: Mapping[str, int]) -> Card | None:
    """The card when nothing about it is wrong, else ``None`` (the checks with locations then
    say what is): one pass of type and range tests, as reading an edition must be cheap."""
    if type(c) is not dict:
        return None
    cid, year, day, hours = c.get("id"), c.get("year"), c.get("day"), c.get("hours")
    title, gains, note = c.get("title", cid), c.get("gains", []), c.get("note", "")
    titles = c.get("titles")
    if (
        type(cid) is str and cid.strip() and cid != ANCESTOR and cid not in seen
        and type(title) is str and type(note) is str and type(year) is int
        and type(day) is int and 1 <= day <= DAYS
        and type(hours) is int and 1 <= hours <= HOURS_PER_DAY
        and type(gains) is list and all(g in BENEFITS for g in gains)
        and (titles is None or _titles_ok(titles))
    ):  # fmt: skip
        return Card(
            cid, title, year, day, hours, tuple(gains), note, tuple(sorted(titles.items())) if titles else ()
        )
    return None


def _parse_ancestors(ch: _Checker, obj: dict[str, Any]) -> tuple[AncestorCard | None, dict[int, int]]:
    raw = obj.get("ancestor")
    counts: dict[int, int] = {}
    raw_counts = obj.get("ancestors", {})
    if not isinstance(raw_counts, dict):
        ch.error("ancestors", f'must be an object such as {{"2": 6}}, not {_show(raw_counts)}')
    else:
        for key, value in raw_counts.items():
            # "1"-"4" only: isdigit() is true of "²", which int() refuses
            if key not in [str(n) for n in range(1, MAX_PLAYERS + 1)]:
                ch.error(f"ancestors.{key}", f"key must be a player count 1-{MAX_PLAYERS}")
                continue
            n = ch.integer(value, f"ancestors.{key}", low=0)
            if n is not None:
                counts[int(key)] = n
    if raw is None:
        if counts and any(counts.values()):
            ch.error("ancestor", "missing: the edition has Ancestor copies but no Ancestor card")
        return None, counts
    if not isinstance(raw, dict):
        ch.error("ancestor", f"must be an object with hours and gains, not {_show(raw)}")
        return None, counts
    hours = ch.integer(raw.get("hours"), "ancestor.hours", low=1, high=HOURS_PER_DAY)
    gains = ch.benefits(raw.get("gains", []), "ancestor.gains")
    if hours is None or gains is None:
        return None, counts
    return AncestorCard(hours, gains, tuple(BENEFIT_CODE[g] for g in gains)), counts


def _parse_slots(ch: _Checker, raw: Any) -> tuple[tuple[str, ...], ...] | None:
    if not isinstance(raw, list) or len(raw) != ROW_SIZE:
        ch.error("slots", f"must be a list of {ROW_SIZE} benefit lists, one per Departures Row position")
        return None
    slots = [ch.benefits(s, f"slots[{i}]") for i, s in enumerate(raw)]
    if any(s is None for s in slots):
        return None
    return tuple(s for s in slots if s is not None)


def _parse_treks(ch: _Checker, raw: Any) -> tuple[int, ...] | None:
    if not isinstance(raw, list) or not raw:
        ch.error("treks", "must list the points of a trek of 1 to 10 cards (10 numbers)")
        return None
    if len(raw) != 10:  # the playmat's table has 10; longer treks add trek_beyond to the last
        ch.warn(
            "treks", f"has {len(raw)} entries where the playmat has 10; treks past the last add trek_beyond"
        )
    values = [ch.integer(v, f"treks[{i}]") for i, v in enumerate(raw)]
    if any(v is None for v in values):
        return None
    return tuple(v for v in values if v is not None)


def _parse_itineraries(ch: _Checker, raw: Any) -> list[Itinerary]:
    if not isinstance(raw, list):
        ch.error("itineraries", f"must be a list, not {_show(raw)}")
        return []
    if len(raw) > MAX_ITINERARIES:
        ch.error("itineraries", f"has {len(raw)} itineraries; an edition holds at most {MAX_ITINERARIES}")
        return []
    result: list[Itinerary] = []
    seen: set[str] = set()
    for i, it in enumerate(raw):
        named = _entry(ch, "itineraries", i, it)
        if named is None:
            continue
        where, iid = named
        if iid is not None:
            if iid in seen:
                ch.error(f"{where}.id", "duplicate itinerary id")
            seen.add(iid)
        cols_raw = it.get("columns")
        if not isinstance(cols_raw, dict) or not cols_raw:
            ch.error(f"{where}.columns", "must be an object of columns (person, event, innovation, progress)")
            continue
        columns: list[tuple[Space, ...]] = []
        ok = iid is not None
        for kind in cols_raw:
            if kind not in COLUMNS:
                ch.error(f"{where}.columns.{kind}", f"unknown column; use {', '.join(COLUMNS)}")
                ok = False
        for kind in COLUMNS:
            col = cols_raw.get(kind, [])
            if not isinstance(col, list):
                ch.error(f"{where}.columns.{kind}", f"must be a list of spaces, not {_show(col)}")
                ok = False
                continue
            if len(col) > MAX_COLUMN_SPACES:
                ch.error(
                    f"{where}.columns.{kind}",
                    f"has {len(col)} spaces; a column holds at most {MAX_COLUMN_SPACES}",
                )
                ok = False
                continue
            if not _good_spaces(col):  # the checks with locations only for a column with a fault
                ok = all([ch.space(s, f"{where}.columns.{kind}[{j}]") for j, s in enumerate(col)]) and ok
            columns.append(tuple(col))
        rows = it.get("rows", [])
        if not isinstance(rows, list):
            ch.error(f"{where}.rows", f"must be a list of row rewards, not {_show(rows)}")
            continue
        if not _good_spaces(rows):
            ok = all([ch.space(s, f"{where}.rows[{j}]") for j, s in enumerate(rows)]) and ok
        depth = max((len(c) for c in columns), default=0)
        if len(rows) > depth:
            ch.error(f"{where}.rows", f"has {len(rows)} rewards but the deepest column has {depth} spaces")
            ok = False
        if ok and iid is not None:
            result.append(Itinerary(iid, tuple(columns), tuple(rows)))
    return result


def _good_spaces(spaces: list[Any]) -> bool:
    """Whether every one of ``spaces`` is what `_Checker.space` accepts, in one pass with no
    location written (the checks with locations only for a list with a fault)."""
    return all(s is None or type(s) is int or s == CRYSTAL for s in spaces)


def edition_to_json(edition: Edition) -> dict[str, Any]:
    """The JSON form of an edition (the schema `parse_edition` reads)."""
    out: dict[str, Any] = {"name": edition.name}
    if edition.title:
        out["title"] = edition.title
    if edition.provenance:
        out["provenance"] = edition.provenance
    out["cards"] = [
        {"id": c.id, "title": c.title, "year": c.year, "day": c.day, "hours": c.hours,
         "gains": list(c.gains), **({"note": c.note} if c.note else {}),
         **({"titles": dict(c.titles)} if c.titles else {})}
        for c in edition.cards
    ]  # fmt: skip
    if edition.ancestor is not None:
        out["ancestor"] = {"hours": edition.ancestor.hours, "gains": list(edition.ancestor.gains)}
    out["ancestors"] = {str(k): v for k, v in sorted(edition.ancestors.items())}
    out["slots"] = [list(s) for s in edition.slots]
    out["treks"] = list(edition.treks)
    out["trek_beyond"] = edition.trek_beyond
    out["itineraries"] = [
        {"id": it.id,
         "columns": {k: list(col) for k, col in zip(COLUMNS, it.columns, strict=True) if col},
         "rows": list(it.rows)}
        for it in edition.itineraries
    ]  # fmt: skip
    return out
