"""Editing an edition's JSON object, one change at a time, for the CLI, the page and CSV import.

These functions only reshape the object; whether it is a valid edition is decided in one
place, the engine's `parse_edition`, when the library saves it. Fields are lenient in what
people type (``490 BCE``, ``II``, ``Person``) and strict in what they store.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

from companion.engine.edition import MAX_COLUMN_SPACES
from companion.engine.tokens import BENEFITS, COLUMNS, CRYSTAL, DAYS, HOURS_PER_DAY
from companion.engine.words import year_text
from companion.util.wording import CodedError, base_words, say

ROMAN = {1: "I", 2: "II", 3: "III"}
#: The longest title or note a card may have.
MAX_TEXT = 2000
#: The published year range of each Day deck: outside it, a year is likely mistyped.
DAY_YEARS = {1: (-37000, 1903), 2: (-3500, 1985), 3: (-70, 1994)}
#: A year as people write it: ASCII digits only (``\d`` would take any script's digits, and
#: ``int`` refuses a number of thousands of digits), at most 6 of them (37000 BCE has 5).
_YEAR = re.compile(r"^\s*(-?[0-9]{1,6})\s*(bce|bc|ce|ad)?\s*$", re.IGNORECASE)


def whole_number(text: str, digits: int) -> int | None:
    """``text`` as a whole number of at most ``digits`` ASCII digits, or None.

    Why not ``str.isdigit`` then ``int``: ``isdigit`` is true of "²" and other Unicode
    digits that ``int`` refuses (ValueError, a traceback or an HTTP 500), and ``int``
    refuses a number of more than 4,300 digits too."""
    return int(text) if re.fullmatch(f"[0-9]{{1,{digits}}}", text) else None


#: What an owner's edition says of itself (the engine keeps it as ``provenance``).
OWNER_PROVENANCE = "Transcribed by the owner from their own copy of the game."
#: The parts a new owner's edition starts with from its base edition.
BASE_PARTS = ("ancestor", "playmat", "treks")
#: A list part is tracked item by item: "card:I07", "itinerary:T03".
_ITEM = {"cards": "card", "itineraries": "itinerary"}


def from_base(obj: dict[str, Any]) -> list[str]:
    """What of an owner's edition still holds its base edition's values: "ancestor",
    "playmat", "treks", and "card:<id>" / "itinerary:<id>" for items copied unchanged."""
    marker = obj.get("from_base")
    parts = marker.get("parts") if isinstance(marker, dict) else None
    return [p for p in parts if isinstance(p, str)] if isinstance(parts, list) else []


def mark_from_base(
    obj: dict[str, Any], base: str, base_obj: dict[str, Any], parts: tuple[str, ...], shipped: bool
) -> None:
    """Record which of ``parts`` ``obj`` took from ``base`` without the owner entering them.

    Why: a new edition starts from the reference edition's Ancestor, playmat and trek
    table (and, for a CSV import, its itineraries), which are the team's own values.
    Until the owner enters theirs, the file must not pass them off as transcribed, and
    the box is not complete. A base that is the owner's own passes on only what it
    still had from elsewhere."""
    wanted: list[str] = []
    for part in parts:
        if part in _ITEM:
            items = base_obj.get(part, [])
            wanted += [f"{_ITEM[part]}:{i.get('id')}" for i in items if isinstance(i, dict)]
        else:
            wanted.append(part)
    if shipped:
        remaining, origin = wanted, base
    else:
        inherited = set(from_base(base_obj))
        remaining = [p for p in wanted if p in inherited]
        marker = base_obj.get("from_base")
        origin = str(marker.get("edition", base)) if isinstance(marker, dict) else base
    if remaining:
        obj["from_base"] = {"edition": origin, "parts": remaining}
    else:
        obj.pop("from_base", None)
    obj["provenance"] = owner_provenance(obj)


def transcribed(obj: dict[str, Any], *parts: str) -> None:
    """The owner has entered ``parts`` (or saved those items): not the base's any more."""
    if "from_base" not in obj:
        return
    remaining = [p for p in from_base(obj) if p not in parts]
    if remaining:
        obj["from_base"] = {**obj["from_base"], "parts": remaining}
    else:
        del obj["from_base"]
    obj["provenance"] = owner_provenance(obj)


def owner_provenance(obj: dict[str, Any]) -> str:
    """The provenance sentence of an owner's edition, naming what is not theirs yet."""
    parts = from_base(obj)
    if not parts:
        return OWNER_PROVENANCE
    origin = str(obj["from_base"].get("edition", "base"))
    whose = " (the team's own values, not the publisher's)" if origin == "reference" else ""
    left = base_words(base_counts(parts))  # in English: the file keeps it
    return f"{OWNER_PROVENANCE} Not entered yet, so still the {origin} edition's{whose}: {left}."


class FieldError(CodedError, ValueError):
    """One value people typed that cannot be a card's or itinerary's field: a code and its
    params (``column`` always among them, the field it is about). The catalogues word it, so
    the CLI, the CSV problems and the edition page say the same, each in its language."""

    def __init__(self, code: str, /, *, column: str, **params: object) -> None:
        super().__init__(code, column=column, **params)
        self.column = column


# --- fields ---------------------------------------------------------------------------------


def parse_day(value: Any) -> int:
    text = str(value).strip().upper()
    for day, roman in ROMAN.items():
        if text in (roman, str(day)):
            return day
    raise FieldError("field_day", column="day", value=str(value)[:20])


def parse_year(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    found = _YEAR.match(str(value))
    if found is None:
        raise FieldError("field_year", column="year", value=str(value)[:20])
    year, era = int(found.group(1)), (found.group(2) or "").lower()
    if era in ("bce", "bc"):
        if year <= 0:
            raise FieldError("field_year_bce", column="year", value=str(value)[:20])
        return -year
    return year


def parse_hours(value: Any) -> int:
    text = str(value).strip()
    hours = whole_number(text, 2)
    if hours is None or not 1 <= hours <= HOURS_PER_DAY:
        raise FieldError("field_hours", column="hours", value=text[:20], max=HOURS_PER_DAY)
    return hours


def parse_gains(value: Any) -> list[str]:
    words = value if isinstance(value, list) else str(value).replace(",", " ").split()
    gains = [str(w).strip().lower() for w in words]
    unknown = [w for w in gains if w not in BENEFITS]
    if unknown:
        raise FieldError("field_benefit", column="gains", value=unknown[0][:20], known=", ".join(BENEFITS))
    return gains


def make_card(fields: dict[str, Any], card_id: str) -> dict[str, Any]:
    """A card object from typed fields (raises the first `FieldError`; `card_errors` for all)."""
    errors = card_errors(fields)
    if errors:
        raise errors[0]
    return checked_card(fields, card_id)


def card_errors(fields: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for name, parse in (
        ("day", parse_day),
        ("year", parse_year),
        ("hours", parse_hours),
        ("gains", parse_gains),
    ):
        try:
            parse(fields.get(name, "" if name != "gains" else []))
        except FieldError as exc:
            errors.append(exc)
    for name in ("title", "note"):
        if not isinstance(fields.get(name, ""), str) or len(fields.get(name, "")) > MAX_TEXT:
            errors.append(FieldError("field_text", column=name, max=MAX_TEXT))
    return errors


def checked_card(fields: dict[str, Any], card_id: str) -> dict[str, Any]:
    """The card object of ``fields`` that `card_errors` found nothing wrong in: the CSV
    import collects every row's errors first, then builds each card without parsing twice.

    Titles and notes are kept exactly (an export then import gives the same cards);
    an empty title is the id, as in an edition file without one."""
    title = str(fields.get("title") or "")
    card: dict[str, Any] = {
        "id": card_id,
        "title": title if title.strip() else card_id,
        "year": parse_year(fields.get("year", "")),
        "day": parse_day(fields.get("day", "")),
        "hours": parse_hours(fields.get("hours", "")),
        "gains": parse_gains(fields.get("gains", [])),
    }
    note = str(fields.get("note") or "")
    if note:
        card["note"] = note
    return card


def next_card_id(obj: dict[str, Any], day: int) -> str:
    """A fresh id for a new card of ``day``: the Roman numeral and a number (``II07``)."""
    used = {c.get("id") for c in obj.get("cards", [])}
    n = 1 + sum(1 for c in obj.get("cards", []) if c.get("day") == day)
    while f"{ROMAN[day]}{n:02d}" in used:
        n += 1
    return f"{ROMAN[day]}{n:02d}"


# --- changes --------------------------------------------------------------------------------


def put_card(obj: dict[str, Any], fields: dict[str, Any], card_id: str | None = None) -> dict[str, Any]:
    """Add a card (a new id when ``card_id`` is None or unknown) or replace the one with that id."""
    cards: list[dict[str, Any]] = obj.setdefault("cards", [])
    index = next((i for i, c in enumerate(cards) if c.get("id") == card_id), None)
    card = make_card(fields, card_id or next_card_id(obj, parse_day(fields.get("day", ""))))
    if index is None:
        cards.append(card)
    else:
        cards[index] = card
    transcribed(obj, f"card:{card['id']}")
    return card


def remove(obj: dict[str, Any], key: str, item_id: str) -> None:
    """Remove the card or itinerary ``item_id`` (``key`` is "cards" or "itineraries")."""
    items = obj.get(key, [])
    kept = [c for c in items if c.get("id") != item_id]
    if len(kept) == len(items):
        if key == "cards":
            raise FieldError("no_such_card", column="id", id=item_id[:20])
        raise FieldError("no_such_itinerary", column="id", id=item_id[:20])
    obj[key] = kept
    transcribed(obj, f"{_ITEM.get(key, key)}:{item_id}")


def parse_space(value: Any, column: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= 99:
            _bad_space(value, column)
        return value
    text = str(value).strip().lower()
    if text in (".", "plain", "-", "null"):
        return None
    if text in ("c", CRYSTAL):
        return CRYSTAL
    points = whole_number(text, 2)
    if points is not None:
        return points
    _bad_space(value, column)


def _bad_space(value: Any, column: str) -> NoReturn:
    raise FieldError("field_space", column=column, value=str(value)[:20])


#: The deepest column an itinerary may have (the printed cards have 2-6 rows): the engine's
#: bound, so the CLI, the CSV and the page take every itinerary an edition file may hold.
MAX_DEPTH = MAX_COLUMN_SPACES


def make_itinerary(item_id: str, columns: dict[str, Any], rows: Any) -> dict[str, Any]:
    if not isinstance(item_id, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,12}", item_id.strip()):
        raise FieldError("itinerary_id", column="id")
    if not isinstance(columns, dict) or any(k not in COLUMNS for k in columns):
        raise FieldError("itinerary_columns", column="columns")
    out: dict[str, Any] = {}
    for kind in COLUMNS:
        col = columns.get(kind) or []
        col = col.split() if isinstance(col, str) else col
        if not isinstance(col, list) or len(col) > MAX_DEPTH:
            raise FieldError("column_depth", column=kind, max=MAX_DEPTH)
        if col:
            out[kind] = [parse_space(s, kind) for s in col]
    raw_rows = rows.split() if isinstance(rows, str) else (rows or [])
    if not isinstance(raw_rows, list) or len(raw_rows) > MAX_DEPTH:
        raise FieldError("rows_depth", column="rows", max=MAX_DEPTH)
    return {"id": item_id.strip(), "columns": out, "rows": [parse_space(s, "rows") for s in raw_rows]}


def put_itinerary(
    obj: dict[str, Any], item_id: str, columns: dict[str, Any], rows: Any, old_id: str | None = None
) -> dict[str, Any]:
    items: list[dict[str, Any]] = obj.setdefault("itineraries", [])
    it = make_itinerary(item_id, columns, rows)
    index = next((i for i, c in enumerate(items) if c.get("id") == (old_id or it["id"])), None)
    if index is None:
        items.append(it)
    else:
        items[index] = it
    transcribed(obj, f"itinerary:{it['id']}", f"itinerary:{old_id}")
    return it


def set_playmat(obj: dict[str, Any], slots: Any, treks: Any, beyond: Any) -> None:
    """The six Departures Row benefits, the trek table (1..10 cards) and the step past 10."""
    if not isinstance(slots, list) or len(slots) != 6:
        raise FieldError("playmat_slots", column="slots")
    parsed = [parse_gains(s) for s in slots]
    if not isinstance(treks, list) or len(treks) != 10:
        raise FieldError("trek_count", column="treks")
    values = []
    for t in treks:
        if not re.fullmatch(r"-?\d{1,3}", str(t).strip()):
            raise FieldError("trek_points", column="treks", value=str(t)[:20])
        values.append(int(str(t).strip()))
    if not re.fullmatch(r"\d{1,3}", str(beyond).strip()):
        raise FieldError("trek_beyond", column="trek_beyond")
    obj["slots"], obj["treks"], obj["trek_beyond"] = parsed, values, int(str(beyond).strip())
    transcribed(obj, "playmat", "treks")


def set_ancestor(obj: dict[str, Any], hours: Any, gains: Any, copies: Any) -> None:
    """The Ancestor card (all copies alike) and the copies in play for 2, 3 and 4 players."""
    if not isinstance(copies, dict) or any(str(k) not in ("1", "2", "3", "4") for k in copies):
        raise FieldError("ancestor_copies", column="ancestors")
    counts = {}
    for k, v in copies.items():
        if not re.fullmatch(r"\d{1,2}", str(v).strip()):
            raise FieldError("ancestor_copy_count", column="ancestors", value=str(v)[:20])
        counts[str(k)] = int(str(v).strip())
    obj["ancestor"] = {"hours": parse_hours(hours), "gains": parse_gains(gains)}
    obj["ancestors"] = dict(sorted(counts.items()))
    transcribed(obj, "ancestor")


def card_warnings(obj: dict[str, Any], card: dict[str, Any]) -> list[str]:
    """Likely mistakes that are not errors (`card_checks`), in the English catalogue's words."""
    code = {"year_outside_day": "ed_is_outside_day_s", "looks_like": "ed_looks_like"}
    years = ("year", "low", "high")
    return [
        say(code[check.pop("code")], **{k: year_text(v) if k in years else v for k, v in check.items()})
        for check in card_checks(obj, card)
    ]


def card_checks(obj: dict[str, Any], card: dict[str, Any]) -> list[dict[str, Any]]:
    """`card_warnings` as facts (a ``code`` and what it names), for a page in another language."""
    found: list[dict[str, Any]] = []
    low, high = DAY_YEARS.get(card["day"], (-(10**9), 10**9))
    if not low <= card["year"] <= high:
        day = ROMAN[card["day"]]
        found.append({"code": "year_outside_day", "year": card["year"], "day": day, "low": low, "high": high})
    for other in obj.get("cards", []):
        if other.get("id") == card["id"]:
            continue
        same_title = card["title"] != card["id"] and other.get("title", "").lower() == card["title"].lower()
        if same_title or (other.get("year") == card["year"] and other.get("day") == card["day"]):
            year = other.get("year", 0)
            found.append(
                {"code": "looks_like", "id": other.get("id"), "title": other.get("title"), "year": year}
            )
    return found


def progress(obj: dict[str, Any]) -> dict[str, Any]:
    """How far the transcription is: cards per Day deck out of 36, itineraries out of 24."""
    cards = obj.get("cards")
    cards = [c for c in cards if isinstance(c, dict)] if isinstance(cards, list) else []
    itineraries = obj.get("itineraries")
    left = from_base(obj)
    return {
        "days": {ROMAN[d]: sum(1 for c in cards if c.get("day") == d) for d in range(1, DAYS + 1)},
        "itineraries": len(itineraries) if isinstance(itineraries, list) else 0,
        "of": {"day": 36, "itineraries": 24},
        # what still holds the base edition's values, for the page to name in its language
        "from_base": base_counts(left),
    }


def base_counts(parts: list[str]) -> dict[str, Any]:
    """``from_base`` parts as the page names them in its language: the whole parts, and how
    many cards and itineraries."""
    return {
        "parts": [p for p in parts if ":" not in p],
        "cards": sum(1 for p in parts if p.startswith("card:")),
        "itineraries": sum(1 for p in parts if p.startswith("itinerary:")),
    }
