"""The page's edition routes: host only, every value editable, taps captured while transcribing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.editions import EditionLibrary, cards_to_csv, from_base, transcribed
from tests.support.tables import api_client

PIN = {"X-Table-Pin": "2468"}


@pytest.fixture
def env(tmp_path: Path) -> Any:
    with api_client(tmp_path) as client:
        yield client


def put(http: Any, url: str, body: dict[str, Any]) -> Any:
    return http.put(url, json=body, headers=PIN)


def test_every_route_needs_the_pin(env: Any) -> None:
    http, _ = env
    for method, url in [
        ("get", "/api/library"), ("post", "/api/library"), ("get", "/api/library/reference"),
        ("put", "/api/library/x/cards"), ("delete", "/api/library/x/cards/I01"),
        ("put", "/api/library/x/itineraries"), ("put", "/api/library/x/playmat"),
        ("put", "/api/library/x/ancestor"), ("post", "/api/library/transcribe"),
        ("get", "/api/library/transcribe/tag"), ("delete", "/api/library/tags/1"),
        ("get", "/api/library/x/export"), ("post", "/api/library/import"), ("delete", "/api/library/x"),
    ]:  # fmt: skip
        assert getattr(http, method)(url, json={}).status_code == 401, url


def test_transcribe_a_card_from_a_tap_with_progress_and_warnings(env: Any) -> None:
    http, rt = env
    assert http.post("/api/library", json={"name": "my-box"}, headers=PIN).status_code == 200
    assert http.post("/api/library/transcribe", json={"edition": "my-box"}, headers=PIN).status_code == 200
    moves = len(rt.table.board.moves)
    out = rt.tap("04A1B2C3")
    assert out.accepted and len(rt.table.board.moves) == moves, "a tap while transcribing is not a move"
    assert (out.code, out.params) == ("tag_captured", {"tag": "04A1B2C3"}), "the page words it (EN/FR)"
    tag = http.get("/api/library/transcribe/tag", headers=PIN).get_json()
    assert tag["tag"] == "04A1B2C3" and tag["bound_to"] is None
    body = {
        "id": None,
        "day": "II",
        "year": -490,
        "hours": 3,
        "gains": ["person", "crystal"],
        "tag": "04A1B2C3",
    }
    answer = put(http, "/api/library/my-box/cards", body).get_json()
    assert answer["card"]["id"] == "II01" and answer["card"]["year"] == -490
    assert answer["progress"]["days"] == {"I": 0, "II": 1, "III": 0}
    assert answer["warnings"] == [], "490 BCE is inside Day II's years"
    assert "Tag 04A1B2C3 is now II01" in answer["bound"]
    assert http.get("/api/library/transcribe/tag", headers=PIN).get_json()["bound_to"] == "II01"
    # the same year on the same Day, and a year outside Day III's range: warnings, not blocks
    again = put(http, "/api/library/my-box/cards", {**body, "tag": "T2"}).get_json()
    assert again["card"]["id"] == "II02" and any("looks like II01" in w for w in again["warnings"])
    far = put(
        http, "/api/library/my-box/cards", {**body, "day": "III", "year": -3000, "tag": None}
    ).get_json()
    assert any("outside Day III" in w for w in far["warnings"])
    # re-binding a tag moves it and says from where
    moved = put(http, "/api/library/my-box/cards", {**body, "id": "III01", "day": 3, "tag": "T2"}).get_json()
    assert "(it was II02)" in moved["bound"]
    assert rt.store.tags()["T2"] == "III01"
    assert http.delete("/api/library/tags/T2", headers=PIN).status_code == 200
    assert "T2" not in rt.store.tags()
    assert http.delete("/api/library/tags/T2", headers=PIN).status_code == 404
    assert (
        http.delete("/api/library/my-box/cards/II02", headers=PIN).get_json()["progress"]["days"]["II"] == 1
    )
    http.post("/api/library/transcribe", json={"edition": None}, headers=PIN)
    assert rt.capture is not None and not rt.capture("x"), "taps reach the game again"


def test_bad_values_are_refused_with_what_to_do(env: Any) -> None:
    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    bad = put(http, "/api/library/my-box/cards", {"day": "IV", "year": 1, "hours": 1, "gains": []})
    assert bad.status_code == 400 and "Day" in bad.get_json()["error"]
    bad = put(http, "/api/library/my-box/cards", {"day": 1, "year": 1, "hours": 13, "gains": []})
    assert bad.status_code == 400 and "hour" in bad.get_json()["error"]
    shipped = put(http, "/api/library/reference/cards", {"day": 1, "year": 1, "hours": 1, "gains": []})
    assert shipped.status_code == 400 and "ships with the companion" in shipped.get_json()["error"]
    assert http.get("/api/library/..%2F..%2Fetc", headers=PIN).status_code == 404


@pytest.mark.parametrize("odd", ["²", "٣", "7" * 5000])
def test_odd_digits_are_a_400_with_the_fields_code_never_a_500(env: Any, odd: str) -> None:
    http, _ = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    card = {"day": 1, "year": 1, "hours": 1, "gains": []}
    for field, code in (("hours", "field_hours"), ("year", "field_year")):
        bad = put(http, "/api/library/my-box/cards", {**card, field: odd})
        assert bad.status_code == 400, bad.get_data(as_text=True)
        assert bad.get_json()["code"] == code and bad.get_json()["params"]["column"] == field
    it = {"id": "T07", "columns": {"person": [None, odd]}, "rows": [2]}
    bad = put(http, "/api/library/my-box/itineraries", it)
    assert bad.status_code == 400 and bad.get_json()["code"] == "field_space"
    bad = put(http, "/api/library/my-box/ancestor", {"hours": odd, "gains": [], "copies": {"2": 6}})
    assert bad.status_code == 400 and bad.get_json()["code"] == "field_hours"


def test_itineraries_playmat_and_ancestor(env: Any) -> None:
    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    it = {"id": "T07", "columns": {"person": [None, 3, "crystal"], "event": [1, 2]}, "rows": [2, 5]}
    assert put(http, "/api/library/my-box/itineraries", it).get_json()["progress"]["itineraries"] == 1
    renamed = put(http, "/api/library/my-box/itineraries", {**it, "id": "T08", "old_id": "T07"})
    assert renamed.status_code == 200
    deep = put(http, "/api/library/my-box/itineraries", {**it, "rows": [1, 1, 1, 1]})
    assert deep.status_code == 400 and "deepest column" in deep.get_json()["error"]
    mat = {"slots": [["wild"], ["person"], ["event"], ["crystal"], ["innovation"], []],
           "treks": [-2, 1, 3, 6, 9, 13, 17, 21, 25, 30], "trek_beyond": 4}  # fmt: skip
    assert put(http, "/api/library/my-box/playmat", mat).status_code == 200
    anc = {"hours": 2, "gains": ["wild"], "copies": {"2": 5, "3": 8, "4": 11}, "tag": "ANC1"}
    assert put(http, "/api/library/my-box/ancestor", anc).status_code == 200
    obj = EditionLibrary(rt.store.path.parent).raw("my-box")
    assert obj["itineraries"] == [{"id": "T08", "columns": it["columns"], "rows": [2, 5]}]
    assert obj["slots"][5] == [] and obj["treks"][0] == -2 and obj["trek_beyond"] == 4
    assert obj["ancestor"] == {"hours": 2, "gains": ["wild"]} and obj["ancestors"]["4"] == 11
    assert rt.store.tags()["ANC1"] == "ancestor"
    assert http.delete("/api/library/my-box/itineraries/T08", headers=PIN).status_code == 200


def test_a_damaged_file_is_a_400_with_path_and_line_never_a_500(env: Any) -> None:
    http, rt = env
    http.post("/api/library", json={"name": "my-box", "copy": True}, headers=PIN)
    path = rt.store.path.parent / "editions" / "my-box.json"
    path.write_text(path.read_text().replace('"day": 1', '"day": 1,,', 1))
    for answer in (
        http.get("/api/library/my-box", headers=PIN),
        put(http, "/api/library/my-box/cards", {"day": 1, "year": 1, "hours": 1, "gains": []}),
        http.post("/api/game/new", json={"players": ["A", "B"], "edition": "my-box"}, headers=PIN),
    ):
        assert answer.status_code == 400
        assert f"{path}: line " in answer.get_json()["error"], answer.get_json()
    listed = http.get("/api/library", headers=PIN).get_json()["editions"]
    assert next(e for e in listed if e["name"] == "my-box")["problem"].startswith(str(path))


def test_share_default_and_new_game_from_the_page(env: Any) -> None:
    http, rt = env
    http.post("/api/library", json={"name": "my-box", "copy": True}, headers=PIN)
    shared = http.get("/api/library/my-box/export", headers=PIN)
    assert shared.headers["Content-Disposition"].endswith('my-box.json"')
    csv_text = http.get("/api/library/my-box/export?format=csv", headers=PIN).get_data(as_text=True)
    assert csv_text == cards_to_csv(EditionLibrary(rt.store.path.parent).raw("reference"))
    kept = http.post("/api/library/import", json={"text": shared.get_data(as_text=True)}, headers=PIN)
    assert kept.get_json()["name"] == "my-box-2"
    refused = http.post("/api/library/my-box/default", headers=PIN)
    assert refused.status_code == 400 and "still the base edition's" in refused.get_json()["error"]
    library = EditionLibrary(rt.store.path.parent)
    obj = library.editable("my-box")
    transcribed(obj, *from_base(obj))  # as if the owner had entered every part of their box
    library.save("my-box", obj)
    assert http.post("/api/library/my-box/default", headers=PIN).status_code == 200
    assert http.get("/api/editions").get_json()["default"] == "my-box"
    game = http.post("/api/game/new", json={"players": ["A", "B"], "edition": "my-box"}, headers=PIN)
    assert game.status_code == 200 and rt.table.board.edition.name == "my-box"
    assert http.delete("/api/library/my-box", headers=PIN).status_code == 200
    assert http.get("/api/editions").get_json()["default"] == "reference"


def test_taps_go_back_to_the_game_when_the_transcription_page_stops_polling(env: Any) -> None:
    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    http.post("/api/library/transcribe", json={"edition": "my-box"}, headers=PIN)
    now = [1000.0]
    rt.capture.clock = lambda: now[0]
    rt.capture.renew()
    now[0] += 4
    assert rt.capture("A1"), "the page polled 4 s ago: still transcribing"
    assert http.get("/api/library/transcribe/tag", headers=PIN).get_json()["capturing"] == "my-box"
    now[0] += 6
    choice = rt.table.expect()["choices"][0]
    moves = len(rt.table.board.moves)
    assert rt.tap(choice).accepted and len(rt.table.board.moves) == moves + 1, "the game has its reader back"


def test_a_hand_edited_edition_with_wrong_shapes_is_shown_with_its_problems(env: Any) -> None:
    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    path = rt.store.path.parent / "editions" / "my-box.json"
    path.write_text(path.read_text().replace('"cards": []', '"cards": [1, "x"]'))
    shown = http.get("/api/library/my-box", headers=PIN)
    assert shown.status_code == 200 and shown.get_json()["progress"]["days"]["I"] == 0
    assert any(p.startswith(f"{path}: ") for p in shown.get_json()["problems"]), shown.get_json()
    edit = put(http, "/api/library/my-box/cards", {"day": 1, "year": 1, "hours": 1, "gains": []})
    assert edit.status_code == 400 and str(path) in edit.get_json()["error"]


def test_a_failed_write_changes_nothing_and_says_so(env: Any, monkeypatch: Any) -> None:
    import companion.editions.writes

    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    path = rt.store.path.parent / "editions" / "my-box.json"
    before = path.read_text()

    def full(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(companion.editions.writes.os, "replace", full)
    answer = put(http, "/api/library/my-box/cards", {"day": 1, "year": 1, "hours": 1, "gains": []})
    assert answer.status_code == 507 and "No space left" in answer.get_json()["error"]
    assert path.read_text() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["my-box.json"], "no temporary file left"


def test_the_real_reader_gives_the_transcription_the_uid_not_the_stickers_text(env: Any) -> None:
    from companion.run.startup import attach_reader

    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    http.post("/api/library/transcribe", json={"edition": "my-box"}, headers=PIN)
    readings = iter(["1234567", None, None])
    loop = attach_reader(rt, lambda: next(readings, None), lambda: "trek:I07", clock=lambda: 0.0)
    moves = len(rt.table.board.moves)
    loop.poll()
    assert http.get("/api/library/transcribe/tag", headers=PIN).get_json()["tag"] == "1234567"
    assert len(rt.table.board.moves) == moves


def test_the_library_routes_refuse_bad_requests_and_survive_a_failed_write(
    env: Any, monkeypatch: Any
) -> None:
    import companion.editions.writes

    http, rt = env
    unknown_base = http.post("/api/library", json={"name": "my-box", "base": "no-such"}, headers=PIN)
    assert unknown_base.status_code == 404 and "unknown edition 'no-such'" in unknown_base.get_json()["error"]
    not_json = http.post("/api/library/import", json={"text": "{"}, headers=PIN)
    assert not_json.status_code == 400 and not_json.get_json()["problems"][0].startswith("import: line 1")
    assert http.delete("/api/library/my-box", headers=PIN).status_code == 404
    assert http.post("/api/library", json={"name": "my-box"}, headers=PIN).status_code == 200
    draft = http.post("/api/library/my-box/default", headers=PIN)
    assert draft.status_code == 400 and "my-box is not complete yet" in draft.get_json()["error"]
    folder = rt.store.path.parent / "editions"
    before = sorted(p.name for p in folder.iterdir())
    shared = http.get("/api/library/reference/export", headers=PIN).get_data(as_text=True)

    def full(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(companion.editions.writes.os, "replace", full)
    for answer in (
        http.post("/api/library", json={"name": "other", "copy": True}, headers=PIN),
        http.post("/api/library/import", json={"text": shared, "name": "shared"}, headers=PIN),
        http.post("/api/library/reference/default", headers=PIN),
    ):
        assert answer.status_code == 507 and "No space left" in answer.get_json()["error"], answer.get_json()
    assert sorted(p.name for p in folder.iterdir()) == before, "nothing written, no temporary file left"


# --- a sticker is bound only to what was saved ------------------------------------------------


def test_a_failed_save_binds_no_sticker_and_keeps_the_old_binding(env: Any, monkeypatch: Any) -> None:
    import companion.editions.writes

    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    card = {"day": 1, "year": 1, "hours": 1, "gains": []}
    assert put(http, "/api/library/my-box/cards", {**card, "tag": "OLD"}).status_code == 200
    assert rt.store.tags() == {"OLD": "I01"}
    # the engine refuses the edition (more row rewards than spaces): nothing saved, nothing bound
    deep = {"id": "T01", "columns": {"person": [1]}, "rows": [1, 2, 3], "tag": "OLD"}
    refused = put(http, "/api/library/my-box/itineraries", deep)
    assert refused.status_code == 400 and refused.get_json()["code"] == "edition_problems"
    refused = put(http, "/api/library/my-box/itineraries", {**deep, "tag": "NEW"})
    assert refused.status_code == 400
    assert rt.store.tags() == {"OLD": "I01"} and rt.resolver.tags == {"OLD": "I01"}

    def full(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(companion.editions.writes.os, "replace", full)
    for tag in ("OLD", "NEW"):
        answer = put(http, "/api/library/my-box/cards", {**card, "year": 2, "tag": tag})
        assert answer.status_code == 507, answer.get_json()
        ancestor = {"hours": 1, "gains": [], "copies": {}, "tag": tag}
        answer = put(http, "/api/library/my-box/ancestor", ancestor)
        assert answer.status_code == 507, answer.get_json()
    assert rt.store.tags() == {"OLD": "I01"}, "a sticker is bound only to a card that was saved"


def test_a_bind_that_fails_after_the_save_says_so_and_keeps_the_card(env: Any, monkeypatch: Any) -> None:
    from companion.store.log import DiskFull

    http, rt = env
    http.post("/api/library", json={"name": "my-box"}, headers=PIN)
    card = {"day": 1, "year": 1, "hours": 1, "gains": [], "tag": "OLD"}
    assert put(http, "/api/library/my-box/cards", card).status_code == 200

    def full(*_: Any, **__: Any) -> None:
        raise DiskFull("store_full_write", folder="/srv/companion")

    monkeypatch.setattr(rt.store, "_write", full)  # the tags' database cannot be written
    answer = put(http, "/api/library/my-box/cards", {**card, "year": 1500})
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["card"]["id"] == "I02" and body["progress"]["days"]["I"] == 2, "the card is saved"
    assert body["binding"]["error"] == "disk_full" and body["binding"]["was"] == "I01"
    assert "I02 is saved, but tag OLD was not bound" in body["bound"]
    assert rt.store.tags() == {"OLD": "I01"}
    assert [c["id"] for c in EditionLibrary(rt.store.path.parent).raw("my-box")["cards"]] == ["I01", "I02"]


# --- one change at a time ---------------------------------------------------------------------


def test_changes_sent_at_once_are_all_kept(tmp_path: Path) -> None:
    """The page's Save and its "next sticker saves" may reach the server together: each
    change reads, changes and writes the edition file, so without a lock one loses the other."""
    import threading

    from tests.support.tables import api_app

    with api_app(tmp_path) as (app, rt):
        assert app.test_client().post("/api/library", json={"name": "my-box"}, headers=PIN).status_code == 200
        answers: list[int] = []
        start = threading.Barrier(8)

        def save_cards(n: int) -> None:
            http = app.test_client()
            start.wait()
            for k in range(6):
                body = {"id": f"C{n}-{k}", "day": 1, "year": 100 * n + k, "hours": 1, "gains": []}
                answers.append(put(http, "/api/library/my-box/cards", body).status_code)

        threads = [threading.Thread(target=save_cards, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers == [200] * 48
        library = EditionLibrary(rt.store.path.parent)
        saved = library.load("my-box")  # a valid edition file
        assert sorted(c.id for c in saved.cards) == sorted(f"C{n}-{k}" for n in range(8) for k in range(6))
        assert sorted(p.name for p in library.folder.iterdir()) == ["my-box.json"], "no temporary file left"
