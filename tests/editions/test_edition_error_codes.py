"""The edition page's refusals reach it as a code and params, with a sentence for each in
English and in French (``msg`` in web/static/i18n/*.json, shared with the table's page).

Every refusal of ``/api/library*`` keeps its English ``error`` (the CLI, scripts and API
clients read it) beside its ``code`` and ``params``; an invalid edition's own problems stay
the engine's English in ``problems``, after the page's sentence saying how many and where.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.editions import (
    EditionLibrary,
    EditionNotFound,
    FieldError,
    LibraryError,
    put_card,
    set_ancestor,
    set_playmat,
    shipped_edition,
)
from companion.engine import EditionError
from tests.support.codes import CODE, ROOT, refused, words
from tests.support.tables import api_client

PIN = {"X-Table-Pin": "2468"}
#: The modules whose refusals the edition page shows.
LIBRARY = (
    "editions/library.py",
    "editions/edit.py",
    "editions/csv_forms.py",
    "web/editions.py",
    "editions/shipped.py",
)


def library_codes() -> set[str]:
    """Every code a refusal of the edition library can carry (``code="..."`` where raised)."""
    source = "".join((ROOT / "companion" / n).read_text(encoding="utf-8") for n in LIBRARY)
    return set(re.findall(CODE, source))


def test_every_library_code_has_a_sentence_in_english_and_french() -> None:
    codes = library_codes()
    # the scan finds the raise sites of each family (a scan that found nothing would pass)
    assert {"edition_name_taken", "bad_edition_name", "shipped_read_only", "unknown_edition"} <= codes
    assert {"edition_not_json", "edition_not_utf8", "edition_unreadable", "edition_problems"} <= codes
    assert {"field_day", "field_year", "field_hours", "field_benefit", "trek_points"} <= codes
    assert {"edition_not_saved", "tag_not_bound", "create_fields", "export_format"} <= codes
    for language, keys in words("msg").items():
        assert codes - keys == set(), (language, codes - keys)


def test_the_api_description_lists_the_library_codes() -> None:
    spec = json.loads((ROOT / "companion" / "openapi.json").read_text(encoding="utf-8"))
    assert set(spec["components"]["schemas"]["LibraryError"]["properties"]["code"]["enum"]) == library_codes()


def test_the_french_sentences_name_the_same_facts_as_the_english() -> None:
    """A French sentence that dropped ``{edition}`` or ``{value}`` would hide what is wrong."""
    catalogue = {
        lang: json.loads((ROOT / "web" / "static" / "i18n" / f"{lang}.json").read_text("utf-8"))["msg"]
        for lang in ("en", "fr")
    }
    for code in library_codes():
        en, fr = catalogue["en"][code], catalogue["fr"][code]
        assert set(re.findall(r"\{(\w+)\}", en)) == set(re.findall(r"\{(\w+)\}", fr)), code


# --- the library's own exceptions carry their code where they are raised ----------------------


def test_the_library_names_its_refusals_where_they_are_raised(tmp_path: Path) -> None:
    library = EditionLibrary(tmp_path)
    library.create("my-box")
    cases = [
        (lambda: library.create("my-box"), "edition_name_taken", {"edition": "my-box"}),
        (lambda: library.create("My Box"), "bad_edition_name", {"name": "My Box"}),
        (lambda: library.editable("reference"), "shipped_read_only", {"edition": "reference"}),
        (lambda: library.import_text(library.path("my-box").read_text(), "my-box"), "edition_name_taken", {}),
        (lambda: library.set_default("my-box"), "edition_incomplete_base", {"edition": "my-box", "day1": 0}),
    ]
    for action, code, params in cases:
        with pytest.raises(LibraryError) as refused:
            action()
        assert refused.value.code == code and params.items() <= refused.value.params.items(), refused.value


@pytest.mark.parametrize(
    ("change", "code", "params"),
    [
        (lambda obj: put_card(obj, {"day": "IV", "year": 1, "hours": 1}), "field_day", {"value": "IV"}),
        (lambda obj: put_card(obj, {"day": 1, "year": "soon", "hours": 1}), "field_year", {"value": "soon"}),
        (lambda obj: put_card(obj, {"day": 1, "year": "-5 BCE", "hours": 1}), "field_year_bce", {}),
        (lambda obj: put_card(obj, {"day": 1, "year": 1, "hours": 13}), "field_hours", {"max": 12}),
        (
            lambda obj: put_card(obj, {"day": 1, "year": 1, "hours": 1, "gains": ["gold"]}),
            "field_benefit",
            {"value": "gold", "column": "gains"},
        ),
        (lambda obj: set_playmat(obj, [[]] * 6, [1] * 10, "x"), "trek_beyond", {}),
        (lambda obj: set_ancestor(obj, 1, [], {"2": "many"}), "ancestor_copy_count", {"value": "many"}),
    ],
)
def test_each_field_refusal_has_its_code_and_facts(change: Any, code: str, params: dict[str, Any]) -> None:
    with pytest.raises(FieldError) as refused:
        change({"cards": []})
    assert refused.value.code == code and params.items() <= refused.value.params.items(), refused.value.params


def test_a_refusal_made_in_two_places_is_the_same_in_both(tmp_path: Path) -> None:
    """The library's file checks, its read-only and name-taken refusals and the unknown edition
    are each raised from more than one place: each place gives the same code, params and English."""
    lib = EditionLibrary(tmp_path)
    lib.create("my-box")
    lib.path("array").write_text("[1]\n")
    lib.path("broken").write_text("{\n")
    taken = "There is already an edition named my-box; pick another name."
    read_only = "reference ships with the companion and cannot be changed; make a copy under a new name."
    at = {"line": 2, "column": 1}
    known = "reference, array, broken, my-box"
    cases: list[tuple[Any, type[Exception], str, dict[str, Any], str]] = [
        (
            lambda: lib.raw("array"),
            EditionError,
            "edition_not_object",
            {},
            "array.json: line 1: error: must be",
        ),
        (
            lambda: lib.import_text("[1]"),
            EditionError,
            "edition_not_object",
            {},
            "import: line 1: error: must be",
        ),
        (
            lambda: lib.raw("broken"),
            EditionError,
            "edition_not_json",
            at,
            "line 2, column 1: error: not valid JSON",
        ),
        (
            lambda: lib.import_text("{\n"),
            EditionError,
            "edition_not_json",
            at,
            "import: line 2, column 1: error: not valid",
        ),
        (
            lambda: lib.save("reference", {}),
            LibraryError,
            "shipped_read_only",
            {"edition": "reference"},
            read_only,
        ),
        (
            lambda: lib.editable("reference"),
            LibraryError,
            "shipped_read_only",
            {"edition": "reference"},
            read_only,
        ),
        (lambda: lib.create("my-box"), LibraryError, "edition_name_taken", {"edition": "my-box"}, taken),
        (
            lambda: lib.import_text(lib.path("my-box").read_text(), "my-box"),
            LibraryError,
            "edition_name_taken",
            {"edition": "my-box"},
            taken,
        ),
        (
            lambda: shipped_edition("no-box"),
            EditionNotFound,
            "unknown_edition",
            {"edition": "no-box"},
            "unknown edition 'no-box'; the companion ships: reference",
        ),
        (
            lambda: lib.load("no/box"),
            EditionNotFound,
            "unknown_edition",
            {"known": known},
            "unknown edition 'no/box'; choose one of: reference, array, broken, my-box (an edition file is",
        ),
    ]
    for action, kind, code, params, said in cases:
        with pytest.raises(kind) as refused:
            action()
        got = refused.value
        assert getattr(got, "code", None) == code, got
        assert params.items() <= getattr(got, "params", {}).items(), getattr(got, "params", {})
        assert said in str(got), str(got)


# --- what the API sends --------------------------------------------------------------------------


@pytest.fixture
def env(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    with api_client(tmp_path) as pair:
        yield pair


def test_library_refusals_carry_their_code(env: Any) -> None:
    http, _ = env
    assert http.post("/api/library", json={"name": "my-box"}, headers=PIN).status_code == 200
    taken = refused(
        http.post("/api/library", json={"name": "my-box"}, headers=PIN), 400, "edition_name_taken"
    )
    assert taken["params"] == {"edition": "my-box"}
    assert taken["error"] == "There is already an edition named my-box; pick another name.", "English kept"
    named = refused(http.post("/api/library", json={"name": "My Box!"}, headers=PIN), 400, "bad_edition_name")
    assert named["params"]["name"] == "My Box!"
    shipped = refused(
        http.put("/api/library/reference/playmat", json={}, headers=PIN), 400, "shipped_read_only"
    )
    assert shipped["params"] == {"edition": "reference"}
    unknown = refused(http.delete("/api/library/no-such", headers=PIN), 404, "unknown_edition")
    assert unknown["params"]["edition"] == "no-such" and "reference" in unknown["params"]["known"]
    base = refused(
        http.post("/api/library", json={"name": "other", "base": "atlantis"}, headers=PIN),
        404,
        "unknown_edition",
    )
    assert base["params"]["edition"] == "atlantis"
    draft = refused(http.post("/api/library/my-box/default", headers=PIN), 400, "edition_incomplete_base")
    assert draft["params"]["day1"] == 0 and draft["params"]["per_day"] == 36 and draft["params"]["of"] == 24
    assert draft["params"]["from_base"] == {
        "parts": ["ancestor", "playmat", "treks"],
        "cards": 0,
        "itineraries": 0,
    }


def test_a_broken_or_unsafe_owners_file_is_named_with_its_code(env: Any) -> None:
    http, rt = env
    folder = rt.store.path.parent / "editions"
    folder.mkdir(exist_ok=True)
    (folder / "bad-json.json").write_text('{\n "name": "x",\n}\n', encoding="utf-8")
    (folder / "latin.json").write_bytes(b'{\n "title": "caf\xe9"\n}\n')
    (folder / "array.json").write_text("[1, 2]\n", encoding="utf-8")
    (folder / "linked.json").symlink_to(folder / "array.json")
    not_json = refused(http.get("/api/library/bad-json", headers=PIN), 400, "edition_not_json")
    assert not_json["params"]["line"] == 3 and not_json["params"]["source"].endswith("bad-json.json")
    assert not_json["problems"][0].endswith(
        "not valid JSON: Expecting property name enclosed in double quotes"
    )
    assert (
        refused(http.get("/api/library/latin", headers=PIN), 400, "edition_not_utf8")["params"]["line"] == 2
    )
    refused(http.put("/api/library/array/playmat", json={}, headers=PIN), 400, "edition_not_object")
    link = refused(http.get("/api/library/linked/export", headers=PIN), 400, "edition_unreadable")
    assert link["params"]["detail"], link
    imported = refused(
        http.post("/api/library/import", json={"text": "{"}, headers=PIN), 400, "edition_not_json"
    )
    assert imported["params"]["source"] == "import" and imported["params"]["line"] == 1


def test_an_invalid_edition_says_how_many_problems_and_where_the_first_is(env: Any) -> None:
    http, _ = env
    shared = json.loads(http.get("/api/library/reference/export", headers=PIN).get_data(as_text=True))
    shared["cards"][0]["hours"] = 0
    shared["cards"][1]["gains"] = ["gold"]
    answer = refused(
        http.post("/api/library/import", json={"text": json.dumps(shared, indent=1)}, headers=PIN),
        400,
        "edition_problems",
    )
    assert answer["params"]["count"] == len(answer["problems"]) >= 2
    assert answer["params"]["source"].endswith("editions/reference-2.json"), "the file it would be"
    where = answer["params"]["where"]
    assert where == "line 7: cards[0] (I01).hours", "the first problem's place: the file's line and the card"
    assert answer["problems"][0] == f"{answer['params']['source']}: {where}: error: must be at least 1, not 0"


@pytest.mark.parametrize(
    ("url", "body", "code", "params"),
    [
        (
            "cards",
            {"day": "IV", "year": 1, "hours": 1, "gains": []},
            "field_day",
            {"column": "day", "value": "IV"},
        ),
        ("cards", {"day": 1, "year": 1, "hours": 40, "gains": []}, "field_hours", {"value": "40", "max": 12}),
        ("itineraries", {"id": "T 7"}, "itinerary_id", {"column": "id"}),
        ("itineraries", {"id": "T07", "columns": {"person": ["z"]}}, "field_space", {"column": "person"}),
        ("playmat", {"slots": [[]] * 5}, "playmat_slots", {}),
        ("playmat", {"slots": [[]] * 6, "treks": [1] * 9 + ["ten"]}, "trek_points", {"value": "ten"}),
        ("ancestor", {"hours": 1, "copies": {"5": 1}}, "ancestor_copies", {"column": "ancestors"}),
    ],
)
def test_field_refusals_reach_the_json(env: Any, url: str, body: Any, code: str, params: Any) -> None:
    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    got = refused(http.put(f"/api/library/my-box/{url}", json=body, headers=PIN), 400, code)
    assert params.items() <= got["params"].items(), got


def test_removing_what_is_not_there_names_the_card_or_itinerary(env: Any) -> None:
    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    card = refused(http.delete("/api/library/my-box/cards/I99", headers=PIN), 400, "no_such_card")
    assert card["params"] == {"column": "id", "id": "I99"}
    it = refused(http.delete("/api/library/my-box/itineraries/T99", headers=PIN), 400, "no_such_itinerary")
    assert it["params"]["id"] == "T99"


def test_bad_request_shapes_and_an_unbound_tag_carry_their_code(env: Any) -> None:
    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    refused(http.post("/api/library", json={"name": 3}, headers=PIN), 400, "create_fields")
    refused(http.post("/api/library/import", json={"text": 3}, headers=PIN), 400, "import_fields")
    refused(http.get("/api/library/reference/export?format=xml", headers=PIN), 400, "export_format")
    assert refused(
        http.put("/api/library/my-box/cards", json={"id": "x" * 30}, headers=PIN), 400, "card_id_field"
    )["params"] == {"max": 20}
    refused(http.put("/api/library/my-box/cards", json={"gains": "person"}, headers=PIN), 400, "gains_list")
    refused(http.put("/api/library/my-box/itineraries", json={"id": 7}, headers=PIN), 400, "itinerary_shape")
    refused(
        http.post("/api/library/transcribe", json={"edition": "no-such"}, headers=PIN),
        400,
        "transcribe_edition",
    )
    tag = refused(http.delete("/api/library/tags/04AB", headers=PIN), 404, "tag_not_bound")
    assert tag["params"] == {"tag": "04AB"} and tag["error"] == "Tag 04AB is not bound to any card."


def test_a_full_disk_is_said_with_its_code_and_changes_nothing(env: Any, monkeypatch: Any) -> None:
    import companion.editions.writes

    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)

    def full(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(companion.editions.writes.os, "replace", full)
    answer = refused(
        http.put(
            "/api/library/my-box/cards", json={"day": 1, "year": 1, "hours": 1, "gains": []}, headers=PIN
        ),
        507,
        "edition_not_saved",
    )
    assert answer["params"] == {"detail": "No space left on device"}
    assert answer["error"].startswith("The edition was not saved (No space left on device)")


def test_the_edition_pages_login_refusals_carry_their_code(env: Any) -> None:
    http, _ = env
    refused(http.post("/api/login", json={"pin": "0000"}), 403, "wrong_pin")
    refused(http.post("/api/login", json={}), 400, "pin_missing")
    refused(http.get("/api/library"), 401, "login_needed")


def test_a_tag_the_store_cannot_bind_is_said_with_its_code_and_the_card_kept(
    env: Any, monkeypatch: Any
) -> None:
    from companion.store.log import DiskFull, StoreError

    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    card = {"day": 1, "year": 1969, "hours": 2, "gains": [], "tag": "04A1"}
    saved = http.put("/api/library/my-box/cards", json=card, headers=PIN).get_json()
    assert saved["bound"] == "Tag 04A1 is now I01." and saved["binding"] == {
        "tag": "04A1",
        "card": "I01",
        "was": None,
    }
    moved = http.put("/api/library/my-box/cards", json={**card, "year": 1970}, headers=PIN).get_json()
    assert moved["binding"] == {"tag": "04A1", "card": "I02", "was": "I01"}, "the page words the move"

    # The card is saved before its sticker is bound: a bind the store refuses is said in the
    # answer's binding (its code and params, for the page's language), the card stays saved.
    def full(*_: Any, **__: Any) -> None:
        raise DiskFull("store_full_write", folder="/srv/companion")

    monkeypatch.setattr(rt.store, "_write", full)
    answer = http.put("/api/library/my-box/cards", json={**card, "year": 1971, "tag": "04A9"}, headers=PIN)
    assert answer.status_code == 200 and answer.get_json()["card"]["id"] == "I03"
    assert answer.get_json()["binding"] == {
        "tag": "04A9", "card": "I03", "was": None, "error": "disk_full", "params": {}
    }  # fmt: skip

    def locked(*_: Any, **__: Any) -> None:
        raise StoreError("store_write_failed", path="/srv/companion.sqlite3", cause="database is locked")

    monkeypatch.setattr(rt.store, "_write", locked)
    answer = http.put("/api/library/my-box/cards", json={**card, "year": 1972, "tag": "04A1"}, headers=PIN)
    assert answer.status_code == 200 and answer.get_json()["binding"] == {
        "tag": "04A1", "card": "I04", "was": "I02", "error": "store_write_failed",
        "params": {"path": "/srv/companion.sqlite3", "cause": "database is locked"},
    }  # fmt: skip
    assert rt.store.tags() == {"04A1": "I02"}, "the sticker keeps its card"
    assert len(EditionLibrary(rt.store.path.parent).raw("my-box")["cards"]) == 4, "the cards are saved"


def test_a_saved_cards_likely_mistakes_come_as_facts_too(env: Any) -> None:
    """Not refusals (the card is saved), but a French page must word them: ``checks`` beside
    the English ``warnings``."""
    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    card = {"day": 1, "year": 1969, "hours": 2, "gains": [], "title": "Moon"}
    first = http.put("/api/library/my-box/cards", json=card, headers=PIN).get_json()
    assert first["checks"] == [
        {"code": "year_outside_day", "year": 1969, "day": "I", "low": -37000, "high": 1903}
    ]
    assert first["warnings"] == [
        "1969 is outside Day I's years (37000 BCE to 1903): check the year and the Day"
    ], "the English is kept"
    again = http.put("/api/library/my-box/cards", json={**card, "year": 1800}, headers=PIN).get_json()
    assert again["checks"] == [{"code": "looks_like", "id": "I01", "title": "Moon", "year": 1969}]
    assert again["warnings"] == ["looks like I01 (Moon, 1969)"]
