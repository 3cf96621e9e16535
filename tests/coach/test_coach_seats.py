"""Advice stays on its phone (issue 33 item 4): `companion.table.seats` behind the coach's API.

Before, any phone could ask for the player to move: Mia's phone got Zoé's advice, a second
phone got the cached answer, the host's page read every answer, and an opponent's ask
marked Zoé's game assisted. Now a phone's first ask claims the player's seat; only that
phone may ask for that player (``coach_seat_taken``) and it asks for no one else
(``coach_other_seat``), each refusal worded in English and French with what to do; only
that phone reads the answer (the host's page neither); the host releases a seat; a claim
is kept across a restart and ends with the game.
"""

from __future__ import annotations

import json
import random
import stat
from pathlib import Path
from typing import Any

from companion.run.startup import build_runtime
from companion.util.config import Config
from companion.util.wording import say
from companion.web.app import create_app
from tests.support.tables import (
    api_app,
    client_from,
    coach_at_a_take,
    make_runtime,
    play_turn,
    quick_coach,
    to_a_take,
)

PIN = {"X-Table-Pin": "2468"}


def _coach(http: Any, headers: dict[str, str] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = http.get("/api/coach", headers=headers or {}).get_json()
    return answer


def _refused(response: Any, code: str) -> dict[str, Any]:
    body: dict[str, Any] = response.get_json()
    assert response.status_code == 409 and body["code"] == code, body
    return body


def _holding(app: Any, address: str, phone: str) -> Any:
    """A phone (a test client from ``address``) whose cookie carries the id ``phone``."""
    http = client_from(app, address)
    with http.session_transaction() as cookie:
        cookie["phone"] = phone
    return http


def test_the_phone_that_asks_holds_the_seat_and_no_other_phone_gets_its_advice(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        host, zoe, mia = app.test_client(), client_from(app, "10.0.0.2"), client_from(app, "10.0.0.3")
        coach_at_a_take(rt)
        assert host.post("/api/coach", json={"on": True}, headers=PIN).status_code == 200
        turn = rt.table.board.player_to_move
        asked = zoe.post("/api/coach/ask", json={"player": turn}).get_json()
        assert asked["coach"]["status"] == "ready" and asked["seat"] == turn and asked["seats"] == [turn]
        assert _coach(zoe)["coach"] == asked["coach"]  # the holder reads it again
        for answer in (zoe.get("/api/coach"), zoe.post("/api/coach/ask", json={"player": turn})):
            assert (
                answer.headers["Cache-Control"] == "no-store, private" and "Cookie" in answer.headers["Vary"]
            )
        # a second phone is refused, and gets nothing of the cached answer
        body = _refused(mia.post("/api/coach/ask", json={"player": turn}), "coach_seat_taken")
        assert body["params"] == {"player": turn} and "rollouts" not in json.dumps(body)
        assert "ask the host to release" in body["error"]
        assert "demandez à l'hôte de libérer" in say("coach_seat_taken", "fr", **body["params"])
        assert _coach(mia) == {"coach": {"on": True, "status": "private"}, "seat": None, "seats": [turn]}
        # the host's page, logged in or with the PIN, sees the seats but not the advice
        login = host.post("/api/login", json={"pin": "2468"})
        assert login.status_code == 200
        for headers in ({}, PIN):
            assert _coach(host, headers)["coach"] == {"on": True, "status": "private"}
        # a player who is the host too keeps the seat through a login and a logout
        csrf = zoe.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
        assert _coach(zoe)["seat"] == turn and _coach(zoe)["coach"]["status"] == "ready"
        assert zoe.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
        assert _coach(zoe)["seat"] == turn
        # nor does anyone's state or page state
        for phone in (host, mia):
            for path in ("/api/state", "/api/state?page=1"):
                assert "rollouts" not in phone.get(path).get_data(as_text=True)


def test_a_phone_holding_a_seat_asks_for_no_one_else_and_an_opponent_marks_no_game_assisted(
    tmp_path: Path,
) -> None:
    with api_app(tmp_path) as (app, rt):
        coach_at_a_take(rt)
        rt.switch_coach(True)
        game, turn = rt.table.game_id, rt.table.board.player_to_move
        other = next(n for n in rt.table.board.names if n != turn)
        # Mia's phone holds Mia's seat (its first ask, on an earlier turn)
        assert rt.coach.seats.claim(game, True, other, "mias-phone-0000000000") == other
        mia = _holding(app, "10.0.0.3", "mias-phone-0000000000")
        assert _coach(mia)["seat"] == other
        body = _refused(mia.post("/api/coach/ask", json={"player": turn}), "coach_other_seat")
        assert body["params"] == {"player": turn, "seat": other}
        assert f"release {other}'s seat" in body["error"]
        assert f"libérer la place de {other}" in say("coach_other_seat", "fr", **body["params"])
        # Zoé's seat held by her phone: an opponent's phone holding none is refused too
        assert rt.coach.seats.claim(game, True, turn, "zoes-phone-0000000000") == turn
        stranger = client_from(app, "10.0.0.4")
        _refused(stranger.post("/api/coach/ask", json={"player": turn}), "coach_seat_taken")
        assert _coach(stranger)["seat"] is None
        # no refused ask set the coach to work, nor marked the game assisted
        assert rt.coach.wanted is None and rt.coach.answer is None
        assert rt.store.assisted() == set()
        zoe = _holding(app, "10.0.0.2", "zoes-phone-0000000000")
        assert zoe.post("/api/coach/ask", json={"player": turn}).get_json()["coach"]["status"] == "ready"
        assert rt.store.assisted() == {game}  # the holder's ask does


def test_the_host_releases_a_lost_phones_seat_and_another_phone_takes_it(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        host, lost, new = app.test_client(), client_from(app, "10.0.0.2"), client_from(app, "10.0.0.3")
        coach_at_a_take(rt)
        rt.switch_coach(True)
        turn = rt.table.board.player_to_move
        assert lost.post("/api/coach/ask", json={"player": turn}).status_code == 200
        _refused(new.post("/api/coach/ask", json={"player": turn}), "coach_seat_taken")
        # only the host releases a seat
        assert new.post("/api/coach/release", json={"player": turn}).status_code == 401
        assert host.post("/api/coach/release", json={}, headers=PIN).get_json()["code"] == "coach_player"
        released = host.post("/api/coach/release", json={"player": turn.upper()}, headers=PIN).get_json()
        assert released == {"released": True, "seat": None, "seats": []}
        again = host.post("/api/coach/release", json={"player": turn}, headers=PIN).get_json()
        assert again["released"] is False
        answer = new.post("/api/coach/ask", json={"player": turn}).get_json()
        assert answer["coach"]["status"] == "ready" and answer["seat"] == turn
        assert _coach(lost)["coach"]["status"] == "private" and _coach(lost)["seat"] is None
        _refused(lost.post("/api/coach/ask", json={"player": turn}), "coach_seat_taken")


def test_a_seat_is_kept_across_a_restart_and_freed_when_the_game_ends(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy")
    rng = random.Random(4)
    try:
        app = create_app(rt)
        phone = client_from(app, "10.0.0.2")
        quick_coach(rt)
        to_a_take(rt, rng)
        rt.switch_coach(True)
        turn, game = rt.table.board.player_to_move, rt.table.game_id
        assert phone.post("/api/coach/ask", json={"player": turn}).get_json()["seat"] == turn
        cookie = phone.get_cookie("session")
        assert cookie is not None
    finally:
        rt.stop()
    kept = tmp_path / "seats.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and cookie.value not in kept.read_text()

    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=lambda _: None)  # the restart
    try:
        assert rt.table.game_id == game
        app = create_app(rt)
        quick_coach(rt)
        rt.switch_coach(True)  # off at every start
        again = client_from(app, "10.0.0.2")
        again.set_cookie("session", cookie.value)
        assert _coach(again)["seat"] == turn
        _refused(
            client_from(app, "10.0.0.3").post("/api/coach/ask", json={"player": turn}), "coach_seat_taken"
        )
        assert again.post("/api/coach/ask", json={"player": turn}).get_json()["coach"]["status"] == "ready"
        rt.switch_coach(False)
        while not rt.table.board.finished:  # the game ends: every seat is free
            play_turn(rt, rng)
        assert _coach(again) == {"coach": {"on": False}, "seat": None, "seats": []}
        assert json.loads(kept.read_text())["seats"] == []
    finally:
        rt.stop()


def test_a_new_game_frees_every_seat(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        phone = client_from(app, "10.0.0.2")
        coach_at_a_take(rt)
        rt.switch_coach(True)
        turn = rt.table.board.player_to_move
        assert phone.post("/api/coach/ask", json={"player": turn}).get_json()["seats"] == [turn]
        started = phone.post(
            "/api/game/new", json={"players": rt.table.board.names, "edition": "reference"}, headers=PIN
        )
        assert started.status_code == 200, started.get_json()
        assert _coach(phone)["seats"] == [] and _coach(phone)["seat"] is None


def test_a_damaged_seats_file_frees_the_seats_and_loses_nothing_else(tmp_path: Path) -> None:
    make_runtime(tmp_path, "Ann,Ben").stop()
    (tmp_path / "seats.json").write_text('{"game": 1, "seats": [' * 40, encoding="utf-8")
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=lambda _: None)
    try:
        assert _coach(create_app(rt).test_client()) == {"coach": {"on": False}, "seat": None, "seats": []}
    finally:
        rt.stop()


def test_a_phone_takes_its_seat_when_it_joins_before_any_ask(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        zoe, mia = client_from(app, "10.0.0.2"), client_from(app, "10.0.0.3")
        coach_at_a_take(rt)
        turn = rt.table.board.player_to_move
        other = next(n for n in rt.table.board.names if n != turn)
        # the coach off: a seat can be taken all the same (the phone joins before it is on)
        taken = zoe.post("/api/coach/seat", json={"player": turn.lower()})
        assert taken.get_json() == {"seat": turn, "seats": [turn]}
        assert zoe.post("/api/coach/seat", json={"player": turn}).status_code == 200  # again: the same
        _refused(mia.post("/api/coach/seat", json={"player": turn}), "coach_seat_taken")
        body = _refused(zoe.post("/api/coach/seat", json={"player": other}), "coach_other_seat")
        assert body["params"] == {"player": other, "seat": turn}
        body = _refused(mia.post("/api/coach/seat", json={"player": "Zed"}), "coach_no_seat")
        assert "Zed" in body["error"] and "Zed" in say("coach_no_seat", "fr", **body["params"])
        assert mia.post("/api/coach/seat", json={}).get_json()["code"] == "coach_player"
        assert mia.post("/api/coach/seat", data="{}").status_code == 415  # not JSON: no other site's form
        assert mia.post("/api/coach/seat", json={"player": other}).get_json()["seat"] == other
        assert rt.store.assisted() == set()  # a seat is no advice
        rt.switch_coach(True)
        assert zoe.post("/api/coach/ask", json={"player": turn}).get_json()["coach"]["status"] == "ready"
        _refused(mia.post("/api/coach/ask", json={"player": turn}), "coach_seat_taken")  # Zoé's phone's
