"""The coach beside the running table (`companion.coach_service`) and its switch, POST /api/coach.

Off by default; the host's switch needs the PIN; once on, the snapshot carries an answer for
the position on the table and never one for an older position; publishing an answer moves
the table's version (live pages redraw); off again, the snapshot says so.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

from tests_support import api_client, play_turn

PIN = {"X-Table-Pin": "2468"}


def _wait_for(check: Any, timeout: float = 60.0) -> Any:
    """Poll ``check`` until it returns something true (a wait, never a measurement)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the coach did not answer in time")


def _to_a_take(rt: Any, rng: random.Random) -> None:
    while rt.table.expect()["kind"] != "take":
        play_turn(rt, rng)


def test_the_coach_is_off_by_default_and_its_switch_needs_the_pin(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        assert http.get("/api/state").get_json()["coach"] == {"on": False}
        assert http.post("/api/coach", json={"on": True}).status_code == 401
        refused = http.post("/api/coach", json={"on": "yes"}, headers=PIN)
        assert refused.status_code == 400 and refused.get_json()["code"] == "coach_switch"
        assert http.get("/api/state?page=1").get_json()["coach"] == {"on": False}
        assert rt.coach.thread is None


def test_turned_on_it_answers_for_the_position_on_the_table_and_never_an_older_one(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        rt.coach.workers, rt.coach.seconds, rt.coach.per_candidate = 0, None, 4
        rng = random.Random(4)
        _to_a_take(rt, rng)
        answer = http.post("/api/coach", json={"on": True}, headers=PIN).get_json()
        assert answer["state"]["coach"]["on"] is True
        state = _wait_for(lambda: _ready(http))
        coach = state["coach"]
        assert coach["events"] == state["events"] and coach["player"] == state["turn"]
        assert sorted(c["card"] for c in coach["cards"]) == sorted(state["expect"]["choices"])
        assert all(0 <= c["win"] <= 100 and c["rollouts"] == 4 for c in coach["cards"])
        assert abs(sum(p["win"] for p in coach["players"]) - 100) < 0.5
        for _ in range(6):  # each change: either "thinking" or the answer for that very position
            play_turn(rt, rng)
            now = http.get("/api/state").get_json()
            assert now["coach"]["status"] in ("thinking", "ready")
            if now["coach"]["status"] == "ready":
                assert now["coach"]["events"] == now["events"]
        _to_a_take(rt, rng)
        state = _wait_for(lambda: _ready(http))
        assert state["coach"]["events"] == rt.table.seq
        off = http.post("/api/coach", json={"on": False}, headers=PIN).get_json()
        assert off["state"]["coach"] == {"on": False}


def _ready(http: Any) -> dict[str, Any] | None:
    state: dict[str, Any] = http.get("/api/state").get_json()
    return state if state["coach"].get("status") == "ready" else None


def test_an_answer_for_another_position_is_never_shown_and_publishing_redraws_pages(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        coach, table = rt.coach, rt.table
        coach.on = True  # the switch without its thread: the answer is set by hand below
        advice = {"player": "Ann", "cards": [], "players": [], "rollouts": 1}
        coach.answer = (table, table.seq - 1, advice)
        assert coach.view(table) == {"on": True, "status": "thinking"}
        coach.answer = (object(), table.seq, advice)  # a game the table no longer shows
        assert coach.view(table)["status"] == "thinking"
        coach.answer = (table, table.seq, advice)
        assert coach.view(table)["status"] == "ready"
        before = table.version
        coach._redraw(table)
        assert table.version == before + 1
        assert http.get("/api/state").get_json()["coach"]["status"] == "ready"
        coach.on = False


def test_a_new_game_from_the_page_gets_its_answer_without_an_input(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        rt.coach.workers, rt.coach.seconds, rt.coach.per_candidate = 0, None, 2
        rt.coach.switch(True)
        game = http.post("/api/game/new", json={"players": ["Zoe", "Yan"], "seed": 5}, headers=PIN)
        assert game.status_code == 200  # the new table: nobody has tapped anything yet
        state = _wait_for(lambda: _ready(http), timeout=20)
        assert state["coach"]["events"] == rt.table.seq and state["turn"] in ("Zoe", "Yan")
        assert [p["name"] for p in state["coach"]["players"]] == ["Zoe", "Yan"]
        assert state["coach"]["cards"] == []  # Itineraries come first: only everyone's chances
        rt.coach.switch(False)


def test_the_table_takes_cards_while_the_coach_thinks_and_its_late_answer_is_not_shown(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The coach's thread holds no lock of the table while it computes: a take goes through
    meanwhile, and the answer it then finishes (for the position before that take) is not
    put in the snapshot; the next answer is for the position after it."""
    from companion import coach_service
    from companion.coach import evaluate

    thinking, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow(board: Any, per_candidate: int, seconds: float | None) -> Any:
        calls.append(board.next_seq)
        if len(calls) == 1:  # the first answer waits until the test has taken a card
            thinking.set()
            assert release.wait(30)
        return evaluate(board, 1, None, seed=1)

    monkeypatch.setattr(coach_service, "evaluate", slow)
    with api_client(tmp_path) as (http, rt):
        rt.coach.workers = 0
        rng = random.Random(3)
        _to_a_take(rt, rng)
        rt.coach.switch(True)
        assert thinking.wait(30)
        assert rt.table.lock.acquire(timeout=5)  # free while the coach thinks
        rt.table.lock.release()
        before = rt.table.seq
        play_turn(rt, rng)  # a take, answered at once
        assert rt.table.seq > before
        release.set()
        state = _wait_for(lambda: _ready(http))
        assert state["coach"]["events"] == rt.table.seq > before
        assert len(calls) >= 2
        rt.coach.switch(False)
