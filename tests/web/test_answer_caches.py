"""The state's answers come from the table's projection, made once per version
(`companion.table.snapshot`), and each part's status text (`companion.hardware.health`): after
every kind of change they are exactly what the same answers computed afresh are, and a
control's answer carries them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from companion.run.runtime import Runtime
from companion.store.log import DamageNotice
from tests.support.tables import api_app, play_turn

PIN = {"X-Table-Pin": "2468"}


def answers(http: Any) -> tuple[Any, Any]:
    state, page = http.get("/api/state"), http.get("/api/state?page=1")
    assert state.status_code == page.status_code == 200
    assert state.mimetype == page.mimetype == "application/json"
    return state.get_json(), page.get_json()


def afresh(http: Any, rt: Runtime, app: Any) -> tuple[Any, Any]:
    """The answers with every cache forgotten first: what the table and its parts say now."""
    table = rt.table
    with table.lock:
        table.latest = None
    rt.health._text = None
    return answers(http)


def same_as_afresh(http: Any, rt: Runtime, app: Any) -> None:
    cached = answers(http)
    assert cached == afresh(http, rt, app)
    state, page = cached
    assert state["version"] == page["version"] == rt.table.version
    assert state["game"] == page["game"] and state["expect"] == page["expect"]


def test_answers_follow_every_kind_of_change(tmp_path: Path) -> None:
    rng = random.Random(7)
    with api_app(tmp_path) as (app, rt):
        http = app.test_client()
        same_as_afresh(http, rt, app)
        # an Itinerary chosen, then corrected
        first = rt.table.expect()
        assert first is not None and first["kind"] == "itinerary"
        answer = http.post("/api/reader/tap", json={"tag": first["choices"][0]}, headers=PIN).get_json()
        assert answer["state"] == {k: v for k, v in answers(http)[0].items() if k in answer["state"]}
        same_as_afresh(http, rt, app)
        fixed = {"player": first["player"], "itinerary": "T09"}
        assert http.post("/api/correct/itinerary", json=fixed, headers=PIN).get_json()["outcome"]["accepted"]
        same_as_afresh(http, rt, app)
        for step in range(40):  # takes, crystals chosen before a tap, reveals, undos
            play_turn(rt, rng)
            same_as_afresh(http, rt, app)
            if step % 7 == 3:
                answer = http.post("/api/undo", json={}, headers=PIN).get_json()
                assert answer["outcome"]["accepted"], answer
                same_as_afresh(http, rt, app)
            if step % 5 == 1 and rt.table.expect()["kind"] == "take":  # type: ignore[index]
                answer = http.post("/api/buttons/crystal", json={}, headers=PIN).get_json()
                same_as_afresh(http, rt, app)
                assert answer["state"]["armed"] == answers(http)[0]["armed"]
                http.post("/api/undo", json={}, headers=PIN)  # puts chosen crystals back
                same_as_afresh(http, rt, app)
        # a part going down and coming back
        rt.health.fail("ring", OSError("no /dev/spidev0.0"))
        same_as_afresh(http, rt, app)
        assert answers(http)[0]["hardware"] == rt.health.as_json()
        rt.health.ok("ring", "24 LEDs")
        same_as_afresh(http, rt, app)
        # a venue's status changing, and store damage found, then acknowledged
        rt.venue = Venue({"table": "t1", "online": False})
        same_as_afresh(http, rt, app)
        rt.venue.now = {"table": "t1", "online": True}
        same_as_afresh(http, rt, app)
        assert answers(http)[0]["venue"] == {"table": "t1", "online": True}
        rt.venue = None
        same_as_afresh(http, rt, app)
        facts = {"kept": 3, "withheld": 1, "copy": "/tmp/copy"}
        notice = DamageNotice(1, "2026-11-26T10:00:00Z", rt.table.game_id, "store_event_damaged", facts)
        rt.store.damage.append(notice)
        same_as_afresh(http, rt, app)
        assert answers(http)[0]["store"] == [notice.to_json()]
        rt.store.damage.clear()
        same_as_afresh(http, rt, app)
        # a new game from the page
        before = answers(http)[1]
        new = http.post("/api/game/new", json={"players": ["Cy", "Dee", "Eve"], "seed": 5}, headers=PIN)
        assert new.status_code == 200, new.get_json()
        same_as_afresh(http, rt, app)
        state, page = answers(http)
        assert [p["name"] for p in state["players"]] == ["Cy", "Dee", "Eve"]
        assert page["version"] > before["version"] and page["game"] != before["game"]


class Venue:
    """A venue outbox's status as the page reads it (`Runtime.venue_status`)."""

    def __init__(self, now: dict[str, Any]) -> None:
        self.now = now

    def status(self) -> dict[str, Any]:
        return self.now


def test_a_control_answers_with_the_state_after_it(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        http = app.test_client()
        first = rt.table.expect()
        assert first is not None
        response = http.post("/api/reader/tap", json={"tag": first["choices"][0]}, headers=PIN)
        assert response.status_code == 200 and response.mimetype == "application/json"
        body = response.get_json()
        assert body["outcome"] == rt.table.last.to_json()
        assert body["state"] == rt.table.state_json()
        refused = http.post("/api/reader/tap", json={"tag": "no such card"}, headers=PIN).get_json()
        assert not refused["outcome"]["accepted"] and refused["state"]["version"] == rt.table.version


def test_the_cookie_is_written_at_login_and_logout_only(tmp_path: Path) -> None:
    """The host's cookie is the session id and its HMAC: written when the login sets it and
    the logout deletes it, never again on an answer (the server decides the login's end)."""
    with api_app(tmp_path) as (app, _rt):
        http = app.test_client()
        response = http.get("/api/state")
        assert response.status_code == 200 and "Set-Cookie" not in response.headers
        login = http.post("/api/login", json={"pin": "2468"})
        assert login.status_code == 200 and "Expires=" in login.headers["Set-Cookie"]
        assert "HttpOnly" in login.headers["Set-Cookie"] and "SameSite=Strict" in login.headers["Set-Cookie"]
        asked = http.get("/api/session")
        assert asked.get_json()["host"] is True and "Set-Cookie" not in asked.headers
        tapped = http.post("/api/buttons/crystal", headers={"X-CSRF-Token": login.get_json()["csrf"]})
        assert tapped.status_code == 200 and "Set-Cookie" not in tapped.headers
        cookie = http.get_cookie("session")
        assert cookie is not None
        forged = app.test_client()
        sid = cookie.value.rsplit(".", 1)[0]
        forged.set_cookie("session", f"{sid}.{'0' * 64}")
        assert forged.get("/api/session").get_json()["host"] is False, "a cookie whose HMAC is wrong"
        # logging out clears it: the cookie is deleted
        token = login.get_json()["csrf"]
        out = http.post("/api/logout", json={}, headers={"X-CSRF-Token": token})
        assert out.status_code == 200 and "Set-Cookie" in out.headers
        assert http.get("/api/session").get_json()["host"] is False


def test_the_cached_texts_are_the_standard_compact_json(tmp_path: Path) -> None:
    """The snapshots' encoder (no self-reference check) writes the bytes ``json.dumps`` would."""
    import json

    rng = random.Random(11)
    with api_app(tmp_path) as (_app, rt):
        for _ in range(30):
            play_turn(rt, rng)
            table = rt.table
            assert table.page_text()[1] == json.dumps(table.page_json(), separators=(",", ":"))
            assert table.state_text() == json.dumps(table.state_json(), separators=(",", ":"))
