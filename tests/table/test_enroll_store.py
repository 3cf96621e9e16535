"""Enrolment and the store: tags, corrections to the owner's edition, export."""

from __future__ import annotations

import json
from pathlib import Path

from companion.editions import load_edition
from companion.records.trekking import TREKKING, replay_text
from companion.store.log import Store
from companion.table.enrol import Enroller, find, parse_values
from companion.table.game_setup import new_game
from companion.util.config import Config


def scripted(lines: list[str]):  # type: ignore[no-untyped-def]
    it = iter(lines)
    return lambda prompt: next(it, None)


def test_find_by_title_year_id_and_itinerary() -> None:
    ed = load_edition("reference")
    assert [i for i, _ in find(ed, "marathon")] == ["I12"]
    assert [i for i, _ in find(ed, "-490")] == ["I12"]
    assert [i for i, _ in find(ed, "490 bce")] == ["I12"]
    assert ("T05", "T05  Itinerary") in find(ed, "t05")
    assert find(ed, "ancestor")[0][0] == "ancestor"
    assert find(ed, "") == []


def test_parse_values() -> None:
    assert parse_values("3 person,crystal") == (3, ["person", "crystal"])
    for odd in ("² person", "٣ person", "9" * 5000):  # isdigit() but not int(), or too long
        assert "hour cost first" in str(parse_values(odd))
    assert parse_values("2") == (2, [])
    assert isinstance(parse_values("x person"), str)
    assert "purple" in str(parse_values("2 purple"))


def test_enrol_a_tag_with_corrected_values_then_refuse_it_twice(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    said: list[str] = []
    own = tmp_path / "mine.json"
    ed = load_edition("reference")
    enroller = Enroller(store, ed, own, scripted(["marathon", "1", "4 event event wild"]), said.append)
    assert enroller.enroll_one("AA01")
    assert store.tags() == {"AA01": "I12"}
    saved = json.loads(own.read_text())
    card = next(c for c in saved["cards"] if c["id"] == "I12")
    assert (card["hours"], card["gains"]) == (4, ["event", "event", "wild"])
    assert saved["name"] == "mine", "the edition is named after the file the companion chose"
    assert load_edition(str(own)).card("I12").hours == 4, "the owner's file is a valid edition"
    # one corrected card does not make the copy the owner's transcription
    left = saved["from_base"]["parts"]
    assert "card:I12" not in left and "card:I13" in left and {"ancestor", "playmat", "treks"} <= set(left)
    assert "still the reference edition's (the team's own values, not the publisher's)" in saved["provenance"]
    again = Enroller(store, ed, own, scripted([]), said.append)
    assert again.enroll_one("AA01")
    assert "already enrolled as I12" in said[-1]


def test_enrol_keeps_values_skips_and_retries_bad_input(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    said: list[str] = []
    lines = ["zzzz-nothing", "1492", "9", "1492", "1", "banana", ""]
    enroller = Enroller(
        store, load_edition("reference"), tmp_path / "mine.json", scripted(lines), said.append
    )
    assert enroller.enroll_one("BB02")
    assert any("Nothing matches" in s for s in said)
    assert any("hour cost first" in s for s in said)
    assert list(store.tags().values()) == ["III11"]
    assert not (tmp_path / "mine.json").exists(), "nothing corrected, nothing written"


def test_store_export_is_a_record_that_replays(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config(), seed=1, mock=True)
    record = store.export(game)
    head = json.loads(record.splitlines()[0])
    assert head["record"] == "trekking/1" and head["players"] == ["Ann", "Ben"]
    assert "decks" not in head, "the live table reveals cards: no decks"
    assert replay_text(record).to_json()["rejected"] == []
    assert [g[0] for g in store.games()] == [game]


def test_an_enrolment_saves_over_what_the_page_changed_meanwhile(tmp_path: Path) -> None:
    """`companion enroll` is a long session: a correction it saves keeps what the edition page
    (or another command) changed in the owner's edition since the session began."""
    from companion.editions import EditionLibrary, put_card

    library = EditionLibrary(tmp_path)
    library.create("my-box", "reference", with_cards=True)
    own = library.path("my-box")
    ed = library.load("my-box")
    enroller = Enroller(Store(tmp_path, TREKKING), ed, own, scripted(["marathon", "1", "4 event"]), [].append)
    obj = library.editable("my-box")  # the page, while the enrolment waits for a tap
    hastings = {"day": 1, "year": 1066, "title": "Hastings, from the page", "hours": 7, "gains": []}
    put_card(obj, hastings, "I01")
    library.save("my-box", obj)
    assert enroller.enroll_one("AA01")
    saved = {c["id"]: c for c in library.raw("my-box")["cards"]}
    assert (saved["I12"]["hours"], saved["I12"]["gains"]) == (4, ["event"]), "the enrolment's correction"
    assert saved["I01"]["title"] == "Hastings, from the page", "and the page's change, both kept"
