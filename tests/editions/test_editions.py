"""Edition files: validation with locations, `companion edition check`, and the reference edition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.editions import EditionNotFound, load_edition, shipped_names
from companion.engine import EditionError, parse_edition
from companion.run.cli import main

REFERENCE = Path(__file__).resolve().parents[2] / "companion" / "editions" / "reference.json"


def minimal() -> dict[str, Any]:
    return json.loads(REFERENCE.read_text())


def problems(obj: Any) -> list[str]:
    with pytest.raises(EditionError) as info:
        parse_edition(obj)
    return [str(p) for p in info.value.problems if not p.warning]


def test_every_problem_is_listed_with_its_location() -> None:
    ed = minimal()
    ed["cards"][3]["hours"] = 0
    ed["cards"][5]["gains"] = ["person", "purple"]
    ed["cards"][7]["id"] = ed["cards"][6]["id"]
    ed["cards"][8]["year"] = "1492"
    ed["slots"] = ed["slots"][:5]
    ed["treks"][2] = "x"
    ed["itineraries"][1]["columns"]["colour"] = [1]
    ed["itineraries"][2]["columns"]["event"] = [None, "gold"]
    ed["itineraries"][3]["rows"] = [1, 2, 3, 4, 5, 6, 7, 8]
    found = problems(ed)
    expected = [
        "cards[3] (I04).hours: error: must be at least 1, not 0",
        'cards[5] (I06).gains[1]: error: unknown benefit "purple"',
        "cards[7] (I07).id: error: duplicate id, also used by cards[6]",
        'cards[8] (I09).year: error: must be a whole number, not "1492"',
        "slots: error: must be a list of 6 benefit lists",
        'treks[2]: error: must be a whole number, not "x"',
        "itineraries[1] (T02).columns.colour: error: unknown column",
        "itineraries[2] (T03).columns.event[1]: error: must be null (plain), a whole number of points",
        "itineraries[3] (T04).rows: error: has 8 rewards but the deepest column has",
    ]
    assert len(found) == len(expected), found
    for want in expected:
        assert any(line.startswith(want) for line in found), (want, found)


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda e: e.update(cards=[]), "cards: error: must be a non-empty list"),
        (lambda e: e["cards"][0].update(id="ancestor"), "reserved"),
        (lambda e: e["cards"][0].update(day=4), "must be at most 3"),
        (lambda e: e["cards"][0].update(hours=True), "must be a whole number, not True"),
        (lambda e: e.update(ancestors={"5": 3}), "player count"),
        (lambda e: e.update(ancestors={"²": 3}), "player count"),  # isdigit() but not int()
        (lambda e: e.update(ancestors={"2" * 5000: 3}), "player count"),
        (lambda e: e.update(ancestor="x"), "ancestor: error"),
        (lambda e: e.update(itineraries={}), "itineraries: error: must be a list"),
        (lambda e: e["itineraries"][0].update(id=""), "id: error: must be a non-empty text"),
        (lambda e: e.update(trek_beyond=-1), "trek_beyond: error: must be at least 0"),
    ],
)
def test_single_problems(mutate: Any, fragment: str) -> None:
    ed = minimal()
    mutate(ed)
    assert any(fragment in line for line in problems(ed)), problems(ed)


def test_not_an_object() -> None:
    assert problems([1, 2]) == ["edition: error: must be a JSON object, not [1, 2]"]


def test_warnings_do_not_stop_an_edition() -> None:
    ed = minimal()
    ed["colour_scheme"] = "blue"
    ed["cards"] = [c for c in ed["cards"] if c["day"] != 3][:70] + [c for c in ed["cards"] if c["day"] == 3][
        :4
    ]
    edition = parse_edition(ed)
    warnings = [str(w) for w in edition.warnings]
    assert any("colour_scheme: warning: unknown key" in w for w in warnings)
    assert any("Day 3 has 4 cards" in w for w in warnings)


def test_an_empty_key_is_named_where_it_is_warned() -> None:
    """Found by the fuzzer: a warning about the key "" had no location at all."""
    ed = minimal()
    ed[""] = 1
    warnings = [w for w in parse_edition(ed).warnings if w.message == "unknown key, ignored"]
    assert [w.location for w in warnings] == ['""']


def test_edition_check_cli_lists_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ed = minimal()
    ed["cards"][0]["hours"] = 0
    ed["cards"][1]["gains"] = ["nope"]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(ed))
    assert main(["edition", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: line 1: cards[0] (I01).hours: error" in out, "json.dumps writes one line"
    assert f"{path}: line 1: cards[1] (I02).gains[0]: error" in out
    assert "2 errors; the edition cannot be used until they are fixed." in out


@pytest.mark.parametrize("command", [["edition", "show"], ["simulate", "--games", "1", "--edition"]])
def test_a_command_given_a_broken_edition_lists_each_error_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    ed = minimal()
    ed["cards"][0]["hours"] = 0
    ed["cards"][1]["gains"] = ["nope"]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(ed))
    assert main([*command, str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith(f"companion: {path}: line 1: cards[") for line in err), err


def test_edition_check_cli_reports_json_syntax_with_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "cards": [\n    {"id": "x",}\n  ]\n}\n')
    assert main(["edition", "check", str(path)]) == 1
    assert "line 3, column" in capsys.readouterr().out


def test_edition_check_cli_accepts_the_reference_edition(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["edition", "check", str(REFERENCE)]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "108 History cards" in out and "24 itineraries" in out


def test_edition_check_cli_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["edition", "check", "/nonexistent/x.json"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_loading_by_name_and_by_path(tmp_path: Path) -> None:
    assert "reference" in shipped_names()
    assert load_edition("reference").name == "reference"
    copy = tmp_path / "family.json"
    ed = minimal()
    ed["name"] = "family"
    copy.write_text(json.dumps(ed))
    assert load_edition(str(copy)).name == "family"
    with pytest.raises(EditionNotFound, match="ships: reference"):
        load_edition("nope")


# --- the reference edition ------------------------------------------------------------------

RANGES = {1: (-37000, 1903), 2: (-3500, 1985), 3: (-70, 1994)}


def test_reference_edition_has_the_published_shape() -> None:
    ed = load_edition("reference")
    assert len(ed.cards) == 108
    for day, (low, high) in RANGES.items():
        cards = ed.day_cards(day)
        assert len(cards) == 36
        assert all(low <= c.year <= high for c in cards), [c for c in cards if not low <= c.year <= high]
        assert len({c.year for c in cards}) == 36, "years within a deck are distinct"
    assert ed.ancestors == {2: 6, 3: 9, 4: 12}
    assert len(ed.itineraries) == 24
    assert len(ed.slots) == 6


def test_reference_edition_keeps_the_published_trek_facts() -> None:
    ed = load_edition("reference")
    assert ed.trek_points(1) < 0, "a 1-card trek is a penalty"
    assert ed.trek_points(10) == 30
    assert ed.trek_points(12) == 36, "+3 per card beyond 10"


def test_reference_edition_cards_have_titles_notes_and_unique_events() -> None:
    ed = load_edition("reference")
    assert all(c.title and c.note for c in ed.cards)
    assert all(len(c.title) <= 42 and len(c.note) <= 120 for c in ed.cards)
    assert len({c.title.lower() for c in ed.cards}) == 108
    assert all(0 not in (c.year,) for c in ed.cards), "there is no year 0"


def test_reference_edition_says_its_values_are_not_the_publishers() -> None:
    ed = load_edition("reference")
    assert "NOT the publisher" in ed.provenance
    assert "not public" in ed.provenance


def test_problems_in_a_hand_edited_file_name_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = REFERENCE.read_text()
    before = '"id": "I05", "title": "Otzi the Iceman dies in the Alps", "year": -3300, "day": 1, "hours": 1'
    text = original.replace(before, before[:-1] + "0")
    assert text != original
    path = tmp_path / "mine.json"
    path.write_text(text)
    line = next(n for n, ln in enumerate(text.splitlines(), start=1) if '"id": "I05"' in ln)
    assert main(["edition", "check", str(path)]) == 1
    assert f"line {line}: cards[4] (I05).hours: error: must be at least 1, not 0" in capsys.readouterr().out


def test_a_bad_top_level_setting_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = REFERENCE.read_text()
    text = original.replace('"trek_beyond": 3', '"trek_beyond": -3')
    path = tmp_path / "mine.json"
    path.write_text(text)
    line = next(n for n, ln in enumerate(text.splitlines(), start=1) if '"trek_beyond"' in ln)
    assert main(["edition", "check", str(path)]) == 1
    assert f"line {line}: trek_beyond: error: must be at least 0" in capsys.readouterr().out


def test_a_trek_table_of_another_length_is_a_warning_and_still_scores() -> None:
    ed = minimal()
    ed["treks"] = [-1, 2, 5]
    edition = parse_edition(ed)
    assert any("treks" in str(w) for w in edition.warnings)
    assert [edition.trek_points(n) for n in (1, 3, 4, 6)] == [-1, 5, 8, 14]
    ed["treks"] = []
    assert any(line.startswith("treks: error") for line in problems(ed))


HOMES = ("csv_forms", "edit", "library", "memos", "shipped", "writes")


def test_every_exported_name_is_there_when_first_used() -> None:
    """The package imports its modules when one of their names is first used (issue 26): each
    name it exports resolves, to its home module's object."""
    import importlib

    import companion.editions as package

    for name in package.__all__:
        value = getattr(package, name)
        homes = [m for m in ("csv_forms", "edit", "library", "memos", "shipped", "writes")]
        assert any(
            getattr(importlib.import_module(f"companion.editions.{m}"), name, None) is value for m in homes
        )
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018
