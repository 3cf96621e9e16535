"""Every endpoint and error path of the page's API, through Flask's test client."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.run.runtime import Runtime
from companion.web.app import create_app
from tests.support.tables import api_client, make_runtime, play_turn

PIN = {"X-Table-Pin": "2468"}


@pytest.fixture
def env(tmp_path: Path) -> Any:
    with api_client(tmp_path, heartbeat=0.05) as client:
        yield client


def text_of(chunk: bytes | str) -> str:
    return chunk.decode() if isinstance(chunk, bytes) else chunk


def login(http: Any) -> str:
    response = http.post("/api/login", json={"pin": "2468"})
    assert response.status_code == 200
    token: str = response.get_json()["csrf"]
    return token


# --- reading ----------------------------------------------------------------------------------


def test_state_and_page_state(env: Any) -> None:
    http, _ = env
    plain = http.get("/api/state").get_json()
    page = http.get("/api/state?page=1").get_json()
    assert set(plain) <= set(page)
    for key in ("log", "row_cards", "order", "edition"):
        assert key in page
    assert len(page["row_cards"]) == 6 and all("bonus" in p for p in page["row_cards"])


def test_events_stream_sends_a_snapshot_then_heartbeats(env: Any) -> None:
    http, _ = env
    response = http.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    assert "retry:" in text_of(next(chunks))
    text = text_of(next(chunks))
    assert text.startswith("id: ") and "event: state" in text
    payload = json.loads(text.split("data: ", 1)[1])
    assert text.split()[1].endswith(f"-{payload['version']}")
    assert text_of(next(chunks)).startswith(": heartbeat")
    response.close()


def test_events_catch_up_from_last_event_id(env: Any) -> None:
    http, rt = env
    first = http.get("/api/events", buffered=False)
    chunks = iter(first.response)
    next(chunks)
    seen = text_of(next(chunks)).split()[1]
    first.close()
    rt.tap(rt.table.expect()["choices"][0])  # something changes while the page is away
    response = http.get("/api/events", headers={"Last-Event-ID": seen}, buffered=False)
    chunks = iter(response.response)
    next(chunks)
    latest = text_of(next(chunks)).split()[1]
    assert latest != seen and latest.endswith(f"-{rt.table.version}"), "the missed change arrives at once"
    response.close()
    up_to_date = http.get("/api/events", headers={"Last-Event-ID": latest}, buffered=False)
    chunks = iter(up_to_date.response)
    next(chunks)
    assert text_of(next(chunks)).startswith(": heartbeat"), "nothing to resend"
    up_to_date.close()


def test_a_burst_of_changes_reaches_a_page_as_one_latest_snapshot(tmp_path: Path) -> None:
    """Pages get at most one snapshot per stream interval, and always the latest one."""
    rt = make_runtime(tmp_path)
    app = create_app(rt, heartbeat=30.0, stream_interval=1.0)
    response = app.test_client().get("/api/events", buffered=False)
    chunks = iter(response.response)
    next(chunks)
    first = json.loads(text_of(next(chunks)).split("data: ", 1)[1])["version"]

    def burst() -> None:
        rng = random.Random(4)
        for _ in range(6):
            time.sleep(0.02)
            play_turn(rt, rng)

    player = threading.Thread(target=burst)
    player.start()
    second = json.loads(text_of(next(chunks)).split("data: ", 1)[1])["version"]
    player.join()
    response.close()
    rt.stop()
    assert second == rt.table.version > first + 5, "the intermediate versions were skipped, the last one sent"


def test_ring_qr_join_cards_editions_openapi(env: Any) -> None:
    http, _ = env
    assert len(http.get("/api/ring").get_json()["leds"]) == 24
    qr = http.get("/api/qr.svg")
    assert qr.mimetype == "image/svg+xml" and b"<svg" in qr.data
    assert http.get("/api/join").get_json()["url"].startswith("http://")
    assert any(c["id"] == "I12" for c in http.get("/api/cards?q=marathon").get_json()["cards"])
    assert "reference" in http.get("/api/editions").get_json()["editions"]
    spec = http.get("/api/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    routes = {re.sub(r"<(\w+)>", r"{\1}", rule.rule) for rule in http.application.url_map.iter_rules()}
    assert set(spec["paths"]) == {r for r in routes if r.startswith("/api/")}, (
        "the description lists every route"
    )


def test_the_page_and_its_files_are_served_locally(env: Any) -> None:
    http, _ = env
    page = http.get("/")
    assert page.status_code == 200 and b"/static/app.js" in page.data
    assert b"http" not in page.data.split(b"<body>")[1].replace(b'href="/"', b""), "no CDN"
    for name in ("app.js", "i18n.js", "style.css"):
        assert http.get(f"/static/{name}").status_code == 200
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


def test_errors_are_json_never_html(env: Any) -> None:
    http, _ = env
    for response in (http.get("/api/nowhere"), http.post("/api/state"), http.put("/api/undo")):
        assert response.status_code in (404, 405)
        assert response.get_json()["error"]


# --- authorisation ------------------------------------------------------------------------------


def test_every_control_refuses_without_the_pin(env: Any) -> None:
    http, rt = env
    controls = [r.rule for r in http.application.url_map.iter_rules() if "POST" in r.methods]
    # the coach's ask and a seat's claim are the player's, from any phone
    # (the coach must be on: tests/coach/test_coach_service.py)
    anyone = ("/api/login", "/api/logout", "/api/coach/ask", "/api/coach/seat")
    controls = [c.replace("<name>", "confirm") for c in controls if c not in anyone]
    assert len(controls) >= 7
    events = rt.table.seq
    for path in controls:
        response = http.post(path, json={})
        assert response.status_code == 401, path
        assert "PIN" in response.get_json()["error"]
    assert rt.table.seq == events


def test_login_gives_a_csrf_token_that_controls_require(env: Any) -> None:
    http, rt = env
    token = login(http)
    choice = rt.table.expect()["choices"][0]
    no_token = http.post("/api/reader/tap", json={"tag": choice})
    assert no_token.status_code == 403 and "login token is missing" in no_token.get_json()["error"]
    ok = http.post("/api/reader/tap", json={"tag": choice}, headers={"X-CSRF-Token": token})
    assert ok.status_code == 200 and ok.get_json()["outcome"]["accepted"]
    assert http.get("/api/session").get_json()["host"] is True
    http.post("/api/logout", headers={"X-CSRF-Token": token})
    assert http.get("/api/session").get_json()["host"] is False
    after = http.post("/api/undo", headers={"X-CSRF-Token": token})
    assert after.status_code == 401


def test_pin_guessing_is_throttled(env: Any) -> None:
    http, _ = env
    codes = [http.post("/api/login", json={"pin": f"{n:04d}"}).status_code for n in range(7)]
    assert codes[:5] == [403] * 5 and codes[5:] == [429, 429]
    # even the right PIN waits now, and so does a header PIN from the same device
    assert http.post("/api/login", json={"pin": "2468"}).status_code == 429
    assert http.post("/api/undo", headers=PIN).status_code == 429
    assert http.post("/api/login", json={}).status_code == 400


def test_controls_are_rate_limited(tmp_path: Path) -> None:
    from companion.util.config import Config, TableSettings

    rt = make_runtime(tmp_path, config=Config(table=TableSettings(controls_per_minute=10)))
    http = create_app(rt).test_client()
    codes = [http.post("/api/buttons/confirm", headers=PIN).status_code for _ in range(12)]
    assert codes[:10] == [200] * 10 and codes[10:] == [429, 429]
    rt.stop()


# --- controls ---------------------------------------------------------------------------------


def test_mock_only_controls_are_refused_on_real_hardware(env: Any) -> None:
    http, rt = env
    rt.mock = False
    tap = http.post("/api/reader/tap", json={"tag": "T01"}, headers=PIN)
    assert tap.status_code == 409 and "mock" in tap.get_json()["error"]
    assert http.post("/api/buttons/undo", headers=PIN).status_code == 409
    rt.mock = True


def test_bad_bodies_get_400_with_a_plain_message(env: Any) -> None:
    http, _ = env
    cases = [
        ("/api/reader/tap", {"tag": ""}),
        ("/api/reader/tap", {"tag": 3}),
        ("/api/game/new", {"players": "Ann"}),
        ("/api/game/new", {"players": ["Ann"], "colours": ["red"]}),
        ("/api/game/new", {"players": ["Ann"], "seed": "x"}),
        ("/api/game/new", {"players": ["A", "B", "C", "D", "E"]}),
        ("/api/game/new", {"players": ["Ann"], "edition": "nope"}),
        ("/api/correct/wild", {"wild": ["purple"]}),
        ("/api/correct/itinerary", {"player": 1}),
        ("/api/enroll", {"tag": "", "card": "I01"}),
        ("/api/enroll", {"tag": "AB", "card": "nope"}),
        ("/api/enroll", {"tag": "AB", "card": "I01", "hours": 0}),
        ("/api/enroll", {"tag": "AB", "card": "T01", "hours": 2, "gains": []}),
    ]
    for path, body in cases:
        response = http.post(path, json=body, headers=PIN)
        assert response.status_code == 400, (path, body, response.get_json())
        assert response.get_json()["error"]
    raw = http.post("/api/reader/tap", data="not json", headers={**PIN, "Content-Type": "application/json"})
    assert raw.status_code == 400
    assert http.post("/api/buttons/launch", headers=PIN).status_code == 404


def test_new_game_from_the_page_replaces_the_table(env: Any) -> None:
    http, rt = env
    old = rt.table.game_id
    response = http.post("/api/game/new", json={"players": ["Zoe", "Yan", "Xi"], "seed": 5}, headers=PIN)
    assert response.status_code == 200
    state = http.get("/api/state").get_json()
    assert state["game"] != old and [p["name"] for p in state["players"]] == ["Zoe", "Yan", "Xi"]
    assert rt.driver.table is rt.table


def test_undo_from_the_page(env: Any) -> None:
    http, rt = env
    rt.tap(rt.table.expect()["choices"][0])
    assert rt.table.board.itinerary.count(-1) == 1
    out = http.post("/api/undo", headers=PIN).get_json()
    assert out["outcome"]["accepted"] and rt.table.board.itinerary == [-1, -1]


def _play_until(rt: Runtime, predicate: Any, rng: random.Random) -> None:
    for _ in range(400):
        if predicate():
            return
        play_turn(rt, rng)
    raise AssertionError("never happened")


def test_correct_a_wild_placement(env: Any) -> None:
    http, rt = env
    rng = random.Random(3)
    edition = rt.table.board.edition

    def last_take_had_a_wild() -> bool:
        moves = [m for m in rt.table.board.moves if hasattr(m, "wild")]
        if not moves:
            return False
        last = moves[-1]
        gains = edition.ancestor.gains if last.card == "ancestor" else edition.card(last.card).gains
        return "wild" in gains

    _play_until(rt, last_take_had_a_wild, rng)
    who = rt.table.board.names.index([m for m in rt.table.board.moves if hasattr(m, "wild")][-1].player)
    before = rt.table.board.column_depths(who) if rt.table.board.itinerary[who] >= 0 else None
    out = http.post("/api/correct/wild", json={"wild": ["progress"]}, headers=PIN).get_json()
    assert out["outcome"]["accepted"], out
    take = [m for m in rt.table.board.moves if hasattr(m, "wild")][-1]
    assert take.wild == ("progress",)
    if before is not None and rt.table.board.itinerary[who] >= 0:
        assert rt.table.board.column_depths(who) != before or before[3] == len(
            edition.itineraries[rt.table.board.itinerary[who]].columns[3]
        )


def test_correct_an_itinerary_choice(env: Any) -> None:
    http, rt = env
    first = rt.table.expect()
    rt.tap(first["choices"][0])
    player = first["player"]
    out = http.post(
        "/api/correct/itinerary", json={"player": player, "itinerary": "T09"}, headers=PIN
    ).get_json()
    assert out["outcome"]["accepted"], out
    seat = rt.table.board.names.index(player)
    assert rt.table.board.edition.itineraries[rt.table.board.itinerary[seat]].id == "T09"
    other = next(n for n in rt.table.board.names if n != player)
    refused = http.post(
        "/api/correct/itinerary", json={"player": other, "itinerary": "T09"}, headers=PIN
    ).get_json()
    assert not refused["outcome"]["accepted"]


def test_enrol_a_tag_from_the_page(env: Any) -> None:
    http, rt = env
    ok = http.post(
        "/api/enroll", json={"tag": "ABCD1234", "card": "I12", "hours": 3, "gains": ["event"]}, headers=PIN
    )
    assert ok.status_code == 200 and "ABCD1234" in ok.get_json()["message"]
    card = rt.table.board.edition.card("I12")
    assert ok.get_json()["code"] == "enrolled"  # the page words it (EN/FR), not the English message
    assert ok.get_json()["params"] == {
        "tag": "ABCD1234", "card": "I12", "saved": True, "title": card.title, "year": card.year
    }  # fmt: skip
    assert rt.store.tags()["ABCD1234"] == "I12"
    again = http.post("/api/enroll", json={"tag": "ABCD1234", "card": "I13"}, headers=PIN).get_json()
    assert "already enrolled" in again["error"]
    assert again["code"] == "enrol_taken" and again["params"] == {"tag": "ABCD1234", "known": "I12"}
    wrong = http.post("/api/enroll", json={"tag": "EF01", "card": "Z99"}, headers=PIN).get_json()
    assert wrong["code"] == "enrol_not_a_card" and wrong["params"]["card"] == "Z99"
    itinerary = rt.table.board.edition.itineraries[0].id
    values = http.post("/api/enroll", json={"tag": "EF01", "card": itinerary, "hours": 2}, headers=PIN)
    assert values.get_json()["code"] == "enrol_no_values"
    listed = http.get("/api/cards?q=ancestor").get_json()["cards"]
    assert {"id": "ancestor", "kind": "ancestor"}.items() <= listed[0].items()
    found = http.get("/api/cards?q=I12").get_json()["cards"][0]
    assert (found["kind"], found["title"], found["hours"]) == ("card", card.title, card.hours)


def test_an_unknown_tag_is_offered_for_enrolment(env: Any) -> None:
    http, rt = env
    assert not rt.tap("DEADBEEF").accepted
    token = login(http)
    assert http.get("/api/session").get_json()["unknown_tag"] == "DEADBEEF"
    body = {"tag": "DEADBEEF", "card": rt.table.expect()["choices"][0]}
    assert http.post("/api/enroll", json=body, headers={"X-CSRF-Token": token}).status_code == 200
    assert http.get("/api/session").get_json()["unknown_tag"] is None
    assert rt.tap("DEADBEEF").accepted, "the freshly enrolled tag works at once"
