"""Editions: the game's numbers as data, everything about them in one package.

`shipped` (the package's editions, by name), `library` (the owner's, in ``<data-dir>/editions/``)
and `writes` (atomic, one writer at a time), `edit` (one change to an edition's JSON object),
`csv_forms`, `memos` (itinerary memos computed beforehand), `cli` and `web` (its adapters).
This module names what the rest of the companion uses, each module imported when one of its
names is first used; `tests/project/test_architecture.py` keeps callers to these names, so the
modules inside can be rearranged without touching them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.editions.csv_forms import (
        CsvError,
        cards_from_csv,
        cards_to_csv,
        itineraries_from_csv,
        itineraries_to_csv,
    )
    from companion.editions.edit import (
        BASE_PARTS,
        FieldError,
        card_checks,
        card_warnings,
        from_base,
        mark_from_base,
        progress,
        put_card,
        put_itinerary,
        remove,
        set_ancestor,
        set_playmat,
        transcribed,
        whole_number,
    )
    from companion.editions.library import (
        BOX_CARDS_PER_DAY,
        EditionLibrary,
        LibraryError,
        edition_setup_value,
        is_complete,
        load_named,
        mine_name,
        validate,
        write_refused,
    )
    from companion.editions.memos import offer_memos
    from companion.editions.shipped import (
        EditionNotFound,
        is_path,
        load_edition,
        read_edition_file,
        read_edition_text,
        shipped_edition,
        shipped_names,
    )
    from companion.editions.writes import atomic_write

#: The module of this package each exported name lives in, imported when the name is first used
#: (`__getattr__`): ``companion replay`` needs `shipped` only, not the CSV forms, the edits or the
#: library, so a replay does not pay for importing them.
_HOMES = {
    "CsvError": "csv_forms",
    "cards_from_csv": "csv_forms",
    "cards_to_csv": "csv_forms",
    "defuse": "csv_forms",
    "itineraries_from_csv": "csv_forms",
    "itineraries_to_csv": "csv_forms",
    "BASE_PARTS": "edit",
    "FieldError": "edit",
    "card_checks": "edit",
    "card_warnings": "edit",
    "from_base": "edit",
    "mark_from_base": "edit",
    "progress": "edit",
    "put_card": "edit",
    "put_itinerary": "edit",
    "remove": "edit",
    "set_ancestor": "edit",
    "set_playmat": "edit",
    "transcribed": "edit",
    "whole_number": "edit",
    "BOX_CARDS_PER_DAY": "library",
    "EditionLibrary": "library",
    "LibraryError": "library",
    "edition_setup_value": "library",
    "is_complete": "library",
    "load_named": "library",
    "mine_name": "library",
    "validate": "library",
    "write_refused": "library",
    "offer_memos": "memos",
    "EditionNotFound": "shipped",
    "is_path": "shipped",
    "load_edition": "shipped",
    "read_edition_file": "shipped",
    "read_edition_text": "shipped",
    "shipped_edition": "shipped",
    "shipped_names": "shipped",
    "atomic_write": "writes",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later uses are plain attribute reads
    return value


__all__ = [
    "BASE_PARTS",
    "BOX_CARDS_PER_DAY",
    "CsvError",
    "EditionLibrary",
    "EditionNotFound",
    "FieldError",
    "LibraryError",
    "atomic_write",
    "card_checks",
    "card_warnings",
    "cards_from_csv",
    "cards_to_csv",
    "defuse",
    "edition_setup_value",
    "from_base",
    "is_complete",
    "is_path",
    "itineraries_from_csv",
    "itineraries_to_csv",
    "load_edition",
    "load_named",
    "mark_from_base",
    "mine_name",
    "offer_memos",
    "progress",
    "put_card",
    "put_itinerary",
    "read_edition_file",
    "read_edition_text",
    "remove",
    "set_ancestor",
    "set_playmat",
    "shipped_edition",
    "shipped_names",
    "transcribed",
    "validate",
    "whole_number",
    "write_refused",
]
