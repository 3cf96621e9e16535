"""Issue 16 (the second outside audit): what editions take in and give out.

An imported edition never overwrites another, a CSV export cannot run a formula in the
spreadsheet that opens it (and still reads back to the same cards), a hostile CSV is
refused before it is built, and the library cleans what a killed writer left behind.
"""

from __future__ import annotations

import json
from pathlib import Path

from companion.editions import shipped_edition
from companion.engine.edition import edition_to_json
from companion.library import EditionLibrary, copy_name

REFERENCE = edition_to_json(shipped_edition("reference"))


# --- item 5: an import never overwrites an owner's edition --------------------------------------


def test_importing_a_long_named_edition_three_times_keeps_every_copy(tmp_path: Path) -> None:
    library = EditionLibrary(tmp_path)
    long_name = "our-family-box-with-the-grandparents-cds"  # 40 characters: the longest slug
    names = []
    for n in range(4):
        shared = {**REFERENCE, "name": long_name, "title": f"import number {n}"}
        names.append(library.import_text(json.dumps(shared)))
    assert len(set(names)) == 4, names
    for n, name in enumerate(names):
        assert library.raw(name)["title"] == f"import number {n}", f"{name} was overwritten"
    assert names[1:] == [copy_name(long_name, n) for n in (2, 3, 4)]
    assert all(len(name) <= 40 for name in names)


def test_a_copys_name_is_a_slug_even_when_the_cut_ends_on_a_dash() -> None:
    assert copy_name("a" * 29 + "-bcdef", 12) == "a" * 29 + "-12"
