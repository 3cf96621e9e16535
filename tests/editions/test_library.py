"""The owner's editions: chosen by name only, edited safely, CSV in and out (issues 10 and 12)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.editions import (
    CsvError,
    EditionLibrary,
    EditionNotFound,
    FieldError,
    LibraryError,
    cards_from_csv,
    cards_to_csv,
    from_base,
    itineraries_from_csv,
    itineraries_to_csv,
    put_card,
    remove,
    set_ancestor,
    set_playmat,
    shipped_edition,
    transcribed,
)
from companion.engine import EditionError
from companion.engine.edition import edition_to_json, parse_edition
from companion.engine.tokens import BENEFITS
from companion.records.trekking import TREKKING
from companion.run.cli import main
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config
from companion.web.app import create_app
from tests.support.tables import make_runtime

PIN = {"X-Table-Pin": "2468"}
REFERENCE = edition_to_json(shipped_edition("reference"))


def own_copy(tmp_path: Path, name: str = "my-box") -> EditionLibrary:
    """A whole box the owner has entered (here: the reference values, all confirmed)."""
    library = EditionLibrary(tmp_path)
    library.create(name, "reference", with_cards=True)
    all_entered(library, name)
    return library


def all_entered(library: EditionLibrary, name: str) -> None:
    """As if the owner had entered every part that still came from the base edition."""
    obj = library.editable(name)
    transcribed(obj, *from_base(obj))
    library.save(name, obj)


# --- issue 12, item 2: never a server path ---------------------------------------------------


@pytest.mark.parametrize(
    "edition", ["/dev/zero", "/proc/self/fd/0", "../../x", "/etc/passwd", "x.json", "/nope"]
)
def test_new_game_from_the_page_refuses_any_path_with_the_same_answer(tmp_path: Path, edition: str) -> None:
    rt = make_runtime(tmp_path)
    http = create_app(rt).test_client()
    answer = http.post("/api/game/new", json={"players": ["A", "B"], "edition": edition}, headers=PIN)
    assert answer.status_code == 400
    message = answer.get_json()["error"]
    assert message.startswith("There is no edition"), message
    assert "exist" not in message and "JSON" not in message, "no oracle about files on the server"
    rt.stop()


def test_a_game_keeps_a_copy_of_the_owners_edition_and_resumes_without_the_file(tmp_path: Path) -> None:
    library = own_copy(tmp_path)
    obj = library.raw("my-box")
    obj["cards"][0]["hours"] = 5
    library.save("my-box", obj)
    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config(), edition="my-box", seed=1)
    store.close()
    library.delete("my-box")
    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=said.append)
    assert rt.table.game_id == game, "the same game resumed"
    assert rt.table.board.edition.name == "my-box"
    assert rt.table.board.edition.cards[0].hours == 5
    assert not any("cannot be resumed" in s for s in said)
    rt.stop()


def test_an_old_game_naming_a_vanished_edition_file_is_kept_and_a_new_one_starts(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    setup = {"type": "setup", "players": ["A", "B"], "watch_stack": ["A", "B"], "edition": "/tmp/gone.json"}
    old = store.new_game(setup, {"colours": ["#0072B2", "#E69F00"], "mock": True, "dealer_seed": 1})
    store.close()
    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=said.append)
    assert any(f"Game {old} cannot be resumed" in s for s in said), said
    assert rt.table.board.edition.name == "reference"
    assert [g[0] for g in rt.store.games()][-1] == old, "the old game is kept"
    rt.stop()


def test_enrolment_writes_only_a_file_the_companion_names(tmp_path: Path) -> None:
    data = tmp_path / "data"
    library = EditionLibrary(data)
    library.create("evil", "reference", with_cards=True)
    raw = (data / "editions" / "evil.json").read_text()
    (data / "editions" / "evil.json").write_text(raw.replace('"name": "evil"', '"name": "../../x"'))
    store = Store(data, TREKKING)
    new_game(store, ["A", "B"], Config(), edition="evil", seed=1)
    store.close()
    rt = build_runtime(Config(), data, mock=True, pin="2468", say=lambda _: None)
    assert rt.table.board.edition.name == "evil", "the library names the edition after its file"
    http = create_app(rt).test_client()
    answer = http.post("/api/enroll", json={"tag": "T1", "card": "I01", "hours": 4, "gains": []}, headers=PIN)
    assert answer.status_code == 200, answer.get_json()
    assert not (tmp_path / "x-mine.json").exists() and not (tmp_path / "x.json").exists()
    assert sorted(p.name for p in (data / "editions").iterdir()) == ["evil.json"]
    rt.stop()


@pytest.mark.parametrize("name", ["../x", "/etc", "A", "a/b", "", "-a", "x" * 41, "reference"])
def test_owner_edition_names_are_slugs_and_never_a_shipped_name(tmp_path: Path, name: str) -> None:
    with pytest.raises((LibraryError, EditionNotFound)):
        EditionLibrary(tmp_path).create(name)


def test_library_refuses_a_device_or_a_huge_file(tmp_path: Path) -> None:
    folder = tmp_path / "editions"
    folder.mkdir()
    (folder / "zero.json").symlink_to("/dev/zero")
    (folder / "big.json").write_text(" " * (2 << 20))
    library = EditionLibrary(tmp_path)
    for name in ("zero", "big"):
        with pytest.raises(EditionError) as caught:
            library.load(name)
        assert str(folder / f"{name}.json") in str(caught.value)


# --- issue 12, item 8: a damaged owner's edition: path and line, never a 500 ------------------


def test_a_damaged_owners_edition_is_reported_with_path_and_line(tmp_path: Path) -> None:
    own_copy(tmp_path)
    path = tmp_path / "editions" / "my-box.json"
    lines = path.read_text().splitlines()
    lines[5] = lines[5] + ",,"
    path.write_text("\n".join(lines))
    rt = make_runtime(tmp_path)
    http = create_app(rt).test_client()
    answer = http.post("/api/game/new", json={"players": ["A", "B"], "edition": "my-box"}, headers=PIN)
    assert answer.status_code == 400
    assert f"{path}: line 6" in answer.get_json()["error"], answer.get_json()
    rt.stop()


def test_a_schema_error_in_an_owners_edition_names_the_line(tmp_path: Path) -> None:
    library = own_copy(tmp_path)
    path = tmp_path / "editions" / "my-box.json"
    path.write_text(path.read_text().replace('"hours": 2', '"hours": 0', 1))
    with pytest.raises(EditionError) as caught:
        library.load("my-box")
    text = str(caught.value)
    assert str(path) in text and "line " in text and "hours" in text


# --- CSV --------------------------------------------------------------------------------------


def test_csv_round_trip_gives_the_same_cards() -> None:
    text = cards_to_csv(REFERENCE)
    assert text.splitlines()[0] == "id,day,year,title,hours,gains,note"
    assert cards_from_csv(text) == REFERENCE["cards"]


def test_csv_reads_eras_arabic_days_and_any_case() -> None:
    text = (
        "id,day,year,title,hours,gains,note\n"
        "A,2,490 BCE,M,3,Person CRYSTAL,\nB,iii,1492 CE,,1,,n\nC,1,490 BC,,2,WILD,\n"
    )
    cards = cards_from_csv(text)
    assert [(c["day"], c["year"], c["gains"]) for c in cards] == [
        (2, -490, ["person", "crystal"]), (3, 1492, []), (1, -490, ["wild"])
    ]  # fmt: skip
    assert cards[1]["title"] == "B" and cards[1]["note"] == "n"


def test_csv_reports_every_problem_with_line_and_column() -> None:
    text = "id,day,year,title,hours,gains,note\nA,IV,xx,,0,gold,\nA,I,1,,1,,\nB,I,1\n"
    with pytest.raises(CsvError) as caught:
        cards_from_csv(text)
    found = {(p.line, p.column) for p in caught.value.problems}
    assert found == {(2, "day"), (2, "year"), (2, "hours"), (2, "gains"), (3, "id"), (4, "*")}


def test_itinerary_csv_round_trip() -> None:
    assert itineraries_from_csv(itineraries_to_csv(REFERENCE)) == [
        {**it, "columns": {k: v for k, v in it["columns"].items() if v}} for it in REFERENCE["itineraries"]
    ]


def test_cli_export_import_check(tmp_path: Path, capsys: Any) -> None:
    assert main(["edition", "export", "reference", "--csv"]) == 0
    exported = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert len(rows) == 108 and rows[0]["day"] == "I"
    src = tmp_path / "cards.csv"
    src.write_text(exported.replace(",I,-30000,", ",1,30000 BCE,", 1))
    out = tmp_path / "mine.json"
    assert main(["edition", "import", str(src), "--base", "reference", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["cards"] == REFERENCE["cards"]
    assert "owner" in written["provenance"]
    assert written["itineraries"] == REFERENCE["itineraries"] and written["slots"] == REFERENCE["slots"]
    assert main(["edition", "check", str(out)]) == 0


def test_cli_import_with_errors_writes_nothing_and_exits_2(tmp_path: Path, capsys: Any) -> None:
    src = tmp_path / "bad.csv"
    src.write_text("id,day,year,title,hours,gains,note\nA,I,1,,13,,\nB,I,x,,1,,\n")
    out = tmp_path / "never.json"
    assert main(["edition", "import", str(src), "--base", "reference", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "line 2, column hours" in err and "line 3, column year" in err
    assert not out.exists()


# --- the library from the CLI -----------------------------------------------------------------


def test_cli_edits_every_part_of_an_owners_edition(tmp_path: Path, capsys: Any) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert main(["edition", "new", "fam", *d]) == 0
    assert main(["edition", "card", "fam", "--day", "II", "--year", "490 BCE", "--hours", "3",
                 "--gains", "Person crystal", "--title", "Marathon", *d]) == 0  # fmt: skip
    assert main(["edition", "card", "fam", "--id", "II01", "--hours", "4", *d]) == 0
    assert main(["edition", "itinerary", "fam", "T9", "--person", ". 3 c", "--rows", "2 5", *d]) == 0
    assert main(["edition", "playmat", "fam", "--slots", "wild,person,event,crystal,innovation,progress",
                 "--treks=-2,1,3,6,9,13,17,21,25,30", "--beyond", "4", *d]) == 0  # fmt: skip
    assert (
        main(["edition", "ancestor", "fam", "--hours", "2", "--gains", "wild", "--copies", "5,8,11", *d]) == 0
    )
    obj = EditionLibrary(tmp_path).raw("fam")
    assert obj["cards"] == [
        {
            "id": "II01",
            "title": "Marathon",
            "year": -490,
            "day": 2,
            "hours": 4,
            "gains": ["person", "crystal"],
        }
    ]
    assert obj["itineraries"] == [{"id": "T9", "columns": {"person": [None, 3, "crystal"]}, "rows": [2, 5]}]
    assert obj["treks"][0] == -2 and obj["trek_beyond"] == 4
    assert obj["ancestor"] == {"hours": 2, "gains": ["wild"]} and obj["ancestors"] == {
        "2": 5,
        "3": 8,
        "4": 11,
    }
    assert main(["edition", "card", "fam", "--id", "II01", "--remove", *d]) == 0
    assert (
        main(["edition", "card", "fam", "--id", "II01", "--hours", "20", "--day", "I", "--year", "1", *d])
        == 2
    )
    assert "“20” is not an hour cost" in capsys.readouterr().err


def test_cli_creates_makes_default_and_deletes_an_owners_edition(tmp_path: Path, capsys: Any) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert main(["edition", "new", "box", "--copy", *d]) == 0
    assert "Created edition 'box' from reference." in capsys.readouterr().out
    assert main(["edition", "new", "box", *d]) == 2, "a name that is taken"
    assert "already" in capsys.readouterr().err
    assert main(["edition", "default", "box", *d]) == 2, "a copy of the reference is not the owner's box"
    assert "still the base edition's: the Ancestor, the playmat, the trek table" in capsys.readouterr().err
    all_entered(EditionLibrary(tmp_path), "box")
    assert main(["edition", "default", "box", *d]) == 0
    assert "New games use the 'box' edition." in capsys.readouterr().out
    assert EditionLibrary(tmp_path).default() == "box"
    assert main(["edition", "new", "draft", *d]) == 0
    assert main(["edition", "default", "draft", *d]) == 2
    assert "draft is not complete yet" in capsys.readouterr().err
    assert main(["edition", "delete", "box", *d]) == 0
    assert "Deleted edition 'box'." in capsys.readouterr().out
    assert EditionLibrary(tmp_path).default() == "reference", "the default goes with its edition"
    assert main(["edition", "delete", "box", *d]) == 2
    assert "unknown edition 'box'" in capsys.readouterr().err


def test_default_edition_needs_a_complete_box_and_new_games_use_it(tmp_path: Path) -> None:
    library = EditionLibrary(tmp_path)
    library.create("half", "reference")
    with pytest.raises(LibraryError, match="not complete"):
        library.set_default("half")
    library.create("full", "reference", with_cards=True)
    with pytest.raises(LibraryError, match="still the base edition's"):
        library.set_default("full")
    all_entered(library, "full")
    library.set_default("full")
    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["A", "B"], Config(), seed=1)
    assert store.load(game).setup.edition.name == "full"
    store.close()


def test_share_an_edition_between_two_companions(tmp_path: Path, capsys: Any) -> None:
    own_copy(tmp_path / "one", "family")
    assert main(["edition", "export", "family", "--data-dir", str(tmp_path / "one")]) == 0
    shared = tmp_path / "family.json"
    shared.write_text(capsys.readouterr().out)
    assert main(["edition", "import", str(shared), "--data-dir", str(tmp_path / "two")]) == 0
    assert EditionLibrary(tmp_path / "two").load("family").cards == shipped_edition("reference").cards


def test_cli_itineraries_csv_round_trip(tmp_path: Path, capsys: Any) -> None:
    assert main(["edition", "export", "reference", "--itineraries-csv"]) == 0
    src = tmp_path / "its.csv"
    src.write_text(capsys.readouterr().out)
    assert src.read_text().splitlines()[1] == "T01,. 3 2,1 3 4,. 2 4,. . .,2 5 5"
    out = tmp_path / "its.json"
    assert (
        main(["edition", "import", str(src), "--itineraries", "--base", "reference", "--out", str(out)]) == 0
    )
    assert json.loads(out.read_text())["cards"] == REFERENCE["cards"]
    src.write_text("id,person,event,innovation,progress,rows\nT1,. x,,,,\n")
    assert (
        main(["edition", "import", str(src), "--itineraries", "--base", "reference", "--out", str(out)]) == 2
    )
    assert "line 2, column person" in capsys.readouterr().err


TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
#: Texts a spreadsheet would take for a formula (and ones that already start with the quote the
#: export puts in front of those), so the round trip is tried on them as often as on the rest.
FORMULA_LIKE = st.builds(
    lambda quotes, start, rest: quotes + start + rest,
    st.sampled_from(["", "'", "''"]),
    st.sampled_from(["=", "+", "-", "@", "\t", "\r", "'", '=HYPERLINK("http://x")', "=cmd|' /C calc'!A0"]),
    TEXT,
)
TEXT = TEXT | FORMULA_LIKE


@st.composite
def any_cards(draw: st.DrawFn) -> list[dict[str, Any]]:
    ids = draw(
        st.lists(TEXT.filter(lambda t: t.strip() and t != "ancestor"), min_size=1, max_size=12, unique=True)
    )
    cards = []
    for card_id in ids:
        card = {
            "id": card_id,
            "title": draw(TEXT.filter(lambda t: t.strip()) | st.just(card_id)),
            "year": draw(st.integers(-40000, 2100)),
            "day": draw(st.integers(1, 3)),
            "hours": draw(st.integers(1, 12)),
            "gains": draw(st.lists(st.sampled_from(BENEFITS), max_size=5)),
        }
        note = draw(TEXT)
        if note:
            card["note"] = note
        cards.append(card)
    return cards


@settings(max_examples=150, deadline=None)
@given(any_cards())
def test_export_then_import_of_any_edition_gives_the_same_cards(cards: list[dict[str, Any]]) -> None:
    edition = edition_to_json(parse_edition({**REFERENCE, "cards": cards}))
    assert cards_from_csv(cards_to_csv(edition)) == edition["cards"]


def test_csv_line_numbers_count_file_lines_not_records() -> None:
    text = 'id,day,year,title,hours,gains,note\nA,I,1,"two\nlines",1,,\nB,I,x,,1,,\n'
    with pytest.raises(CsvError) as caught:
        cards_from_csv(text)
    assert [(p.line, p.column) for p in caught.value.problems] == [(4, "year")]


def test_replay_reads_a_record_naming_an_edition_file_but_never_a_device(tmp_path: Path) -> None:
    from companion.records.trekking import RecordError, replay_text

    copy = tmp_path / "family.json"
    copy.write_text(json.dumps(REFERENCE))
    setup = {"type": "setup", "players": ["A", "B"], "edition": str(copy)}
    assert replay_text(json.dumps(setup) + "\n").board.edition.name == "reference"
    for path in ("/dev/zero", str(tmp_path)):
        with pytest.raises(RecordError, match="not a regular file"):
            replay_text(json.dumps({**setup, "edition": path}) + "\n")


def test_cli_lists_and_unbinds_tags(tmp_path: Path, capsys: Any) -> None:
    store = Store(tmp_path, TREKKING)
    store.enroll("04AA", "I07", "reference")
    store.close()
    d = ["--data-dir", str(tmp_path)]
    assert main(["edition", "tags", *d]) == 0
    assert "I07        04AA" in capsys.readouterr().out
    assert main(["edition", "tags", "--unbind", "04AA", *d]) == 0
    assert main(["edition", "tags", "--unbind", "04AA", *d]) == 2
    assert Store(tmp_path, TREKKING).tags() == {}


def test_an_edition_too_large_to_read_back_is_never_written(tmp_path: Path) -> None:
    library = own_copy(tmp_path)
    obj = library.raw("my-box")
    for card in obj["cards"]:
        card["note"] = "x" * 10_000
    with pytest.raises(LibraryError, match="larger than"):
        library.save("my-box", obj)
    assert library.load("my-box").cards == shipped_edition("reference").cards, "the old file is intact"


def test_a_change_is_saved_when_its_block_ends_and_a_refused_one_leaves_the_file(tmp_path: Path) -> None:
    """`EditionLibrary.changing`: the page's and the command line's one read-change-save."""
    library = own_copy(tmp_path)
    before = library.path("my-box").read_bytes()
    with pytest.raises(FieldError), library.changing("my-box") as obj:  # a field refused midway
        remove(obj, "cards", obj["cards"][0]["id"])
        raise FieldError("field_year", column="year", value="x")
    assert library.path("my-box").read_bytes() == before, "a block that raised saves nothing"
    with pytest.raises(EditionError), library.changing("my-box") as obj:  # the engine refuses the save
        obj["cards"][0]["hours"] = "many"
    assert library.path("my-box").read_bytes() == before
    with pytest.raises(LibraryError), library.changing("reference"):
        pass
    with library.changing("my-box") as obj:
        gone = obj["cards"][0]["id"]
        remove(obj, "cards", gone)
        assert library.path("my-box").read_bytes() == before, "saved when the block ends, not before"
    assert gone not in {c.id for c in library.load("my-box").cards}


# --- what an owner's edition still holds of its base (not passed off as transcribed) ------------


def test_a_new_edition_says_which_parts_are_still_the_reference_and_loses_them_as_they_are_entered(
    tmp_path: Path,
) -> None:
    library = EditionLibrary(tmp_path)
    library.create("box", "reference")
    obj = library.raw("box")
    assert from_base(obj) == ["ancestor", "playmat", "treks"]
    assert "not the publisher's" in obj["provenance"] and "the playmat" in obj["provenance"]
    assert library.info("box").from_base == ["ancestor", "playmat", "treks"]
    set_playmat(obj, obj["slots"], [-1, 1, 3, 6, 10, 15, 21, 28, 36, 45], 5)
    assert from_base(obj) == ["ancestor"], "the playmat and trek table are entered together"
    set_ancestor(obj, 2, ["wild"], {"2": 6, "3": 9, "4": 12})
    assert "from_base" not in obj
    assert obj["provenance"] == "Transcribed by the owner from their own copy of the game."


def test_a_copy_to_correct_counts_each_card_and_itinerary_until_it_is_saved(tmp_path: Path) -> None:
    library = EditionLibrary(tmp_path)
    library.create("box", "reference", with_cards=True)
    obj = library.raw("box")
    assert sum(p.startswith("card:") for p in from_base(obj)) == 108
    assert "108 cards, 24 itineraries" in obj["provenance"]
    first = obj["cards"][0]
    put_card(obj, {"day": first["day"], "year": first["year"], "hours": 2, "gains": ["person"]}, first["id"])
    assert f"card:{first['id']}" not in from_base(obj) and "107 cards" in obj["provenance"]
    gone = obj["itineraries"][0]["id"]
    remove(obj, "itineraries", gone)
    assert f"itinerary:{gone}" not in from_base(obj)


def test_a_csv_import_keeps_the_bases_other_parts_marked_as_the_bases(tmp_path: Path, capsys: Any) -> None:
    cards = tmp_path / "cards.csv"
    assert main(["edition", "export", "reference", "--csv"]) == 0
    cards.write_text(capsys.readouterr().out)
    out = tmp_path / "mine.json"
    assert main(["edition", "import", str(cards), "--base", "reference", "--out", str(out)]) == 0
    obj = json.loads(out.read_text())
    assert obj["provenance"].startswith("Transcribed by the owner")
    parts = from_base(obj)
    assert {"ancestor", "playmat", "treks"} <= set(parts) and sum(
        p.startswith("itinerary:") for p in parts
    ) == 24
    assert not any(p.startswith("card:") for p in parts), "the cards are the owner's (the CSV)"
    assert main(["edition", "check", str(out)]) == 0
    assert obj["title"] == "mine: the owner's own box", "not the base edition's title"
    assert "Reference" not in obj["title"]


def test_cli_ancestor_copies_take_three_counts_or_keep_them(tmp_path: Path, capsys: Any) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert main(["edition", "new", "fam", *d]) == 0
    assert main(["edition", "ancestor", "fam", "--copies", "6", *d]) == 2
    assert "--copies takes three numbers, for 2, 3 and 4 players" in capsys.readouterr().err
    assert EditionLibrary(tmp_path).raw("fam")["ancestors"] == {"2": 6, "3": 9, "4": 12}, "unchanged"
    assert main(["edition", "ancestor", "fam", "--hours", "2", *d]) == 0
    assert EditionLibrary(tmp_path).raw("fam")["ancestors"] == {"2": 6, "3": 9, "4": 12}, "kept"
    assert main(["edition", "ancestor", "fam", "--copies", "5, 8,11", *d]) == 0
    assert EditionLibrary(tmp_path).raw("fam")["ancestors"] == {"2": 5, "3": 8, "4": 11}


# --- odd digits are a field error on every path, never a traceback ----------------------------

#: Text ``str.isdigit`` accepts that ``int`` refuses ("²"), digits of another script, and a
#: number longer than ``int`` converts (4,300 digits).
ODD_NUMBERS = ("²", "٣", "1²", "7" * 5000)


@pytest.mark.parametrize("odd", ODD_NUMBERS)
def test_odd_digits_in_a_csv_are_problems_with_line_and_column(tmp_path: Path, odd: str, capsys: Any) -> None:
    src = tmp_path / "odd.csv"
    src.write_text(f"id,day,year,title,hours,gains,note\nA,I,{odd},,1,,\nB,I,1,,{odd},,\n", encoding="utf-8")
    out = tmp_path / "never.json"
    assert main(["edition", "import", str(src), "--base", "reference", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "line 2, column year" in err and "line 3, column hours" in err and "Traceback" not in err
    assert not out.exists()
    its = tmp_path / "odd-its.csv"
    its.write_text(f"id,person,event,innovation,progress,rows\nT01,. {odd},1,,,2\n", encoding="utf-8")
    command = ["edition", "import", str(its), "--itineraries", "--base", "reference", "--out", str(out)]
    assert main(command) == 2
    assert "line 2, column person" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("odd", ODD_NUMBERS)
def test_odd_digits_on_the_command_line_are_a_sentence_and_exit_2(
    tmp_path: Path, odd: str, capsys: Any
) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert main(["edition", "new", "fam", *d]) == 0
    capsys.readouterr()
    assert main(["edition", "card", "fam", "--day", "I", "--year", "1", "--hours", odd, *d]) == 2
    assert "is not an hour cost" in capsys.readouterr().err
    assert main(["edition", "card", "fam", "--day", "I", "--year", odd, "--hours", "1", *d]) == 2
    assert "is not a year" in capsys.readouterr().err
    assert main(["edition", "ancestor", "fam", "--hours", odd, *d]) == 2
    assert "is not an hour cost" in capsys.readouterr().err
    assert main(["edition", "itinerary", "fam", "T01", "--person", odd, "--rows", "1", *d]) == 2
    assert "is not a space" in capsys.readouterr().err


# --- the owner's edition by name in every command ---------------------------------------------


def test_show_simulate_and_enroll_find_an_owners_edition_by_name(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    d = ["--data-dir", str(tmp_path)]
    library = EditionLibrary(tmp_path)
    library.create("my-box", "reference", with_cards=True)
    obj = library.editable("my-box")
    put_card(obj, {"day": 1, "year": 1066, "title": "Hastings, our box", "hours": 7, "gains": []}, "I01")
    library.save("my-box", obj)
    capsys.readouterr()
    assert main(["edition", "show", "my-box", *d]) == 0
    assert "Hastings, our box" in capsys.readouterr().out
    assert main(["simulate", "--games", "2", "--edition", "my-box", *d]) == 0
    assert "edition my-box" in capsys.readouterr().out
    answers = iter(["T1", "Hastings", "1", "", None])

    def ask(_: str) -> str:
        answer = next(answers)
        if answer is None:
            raise EOFError
        return answer

    monkeypatch.setattr("builtins.input", ask)
    assert main(["enroll", "--edition", "my-box", "--mock", *d]) == 0
    assert "Tag T1 is now I01." in capsys.readouterr().out
    assert Store(tmp_path, TREKKING).tags() == {"T1": "I01"}
    for command in (["edition", "show", "no-box"], ["simulate", "--games", "1", "--edition", "no-box"]):
        assert main([*command, *d]) == 2
        assert "unknown edition 'no-box'; choose one of: reference, my-box" in capsys.readouterr().err
