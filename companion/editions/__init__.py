"""Editions: the game's numbers as data, everything about them in one package.

- `shipped`: the editions inside the package (``reference.json``), loaded by name; on the
  command line only, an edition file by path.
- `library`: the owner's editions in ``<data-dir>/editions/``, by name only, validated, and
  the default a new game uses; `writes`: how it writes (atomically, one writer at a time).
- `edit`: one change at a time to an edition's JSON object (a card, an itinerary, the
  playmat, the Ancestor) and what is still the base edition's.
- `csv_forms`: the cards and the itineraries as CSV, read and written.
- `cli`: ``companion edition ...``; `web`: the page's library and transcription routes
  (Flask: only the web app factory imports it).

This module names what the rest of the companion uses, ``cli`` and ``web`` included (they are
the library's adapters, and import it as any other caller does); `tests/project/test_architecture.py`
keeps other modules to these names (and `cli`, `web` to their one importer each), so the
modules inside can be rearranged without touching their callers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded at their first use (`__getattr__`): the table's start needs no CSV
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

#: The CSV forms (and the ``csv`` module) are read when a name of theirs is first asked for
#: (PEP 562): `companion run` serves the page without them (issue 26, a Zero's start).
_CSV_NAMES = frozenset(
    {"CsvError", "cards_from_csv", "cards_to_csv", "itineraries_from_csv", "itineraries_to_csv"}
)


def __getattr__(name: str) -> Any:
    if name not in _CSV_NAMES:
        raise AttributeError(f"module 'companion.editions' has no attribute {name!r}")
    from companion.editions import csv_forms

    value = getattr(csv_forms, name)
    globals()[name] = value
    return value
