"""Games played with the coach's help (issue 24 item 1): marked *assisted* in the history, and
left out of the ratings unless the host includes them (a choice kept with the games)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.web.app import create_app
from tests.support.games import finished_game
from tests.support.tables import make_runtime

PIN = {"X-Table-Pin": "2468"}


def _history(http: Any) -> dict[str, Any]:
    answer: dict[str, Any] = http.get("/api/history").get_json()
    return answer


def _rated(http: Any) -> dict[str, int]:
    return {p["key"]: p["rated_games"] for p in _history(http)["players"]}


def test_an_assisted_game_is_marked_and_left_out_of_the_ratings_unless_the_host_includes_it(
    tmp_path: Path,
) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Ann", "Ben"], 7)
        helped, _ = finished_game(rt.store, ["Ann", "Ben"], 8)
        finished_game(rt.store, ["Ann", "Ben"], 9)
        rt.store.mark_assisted(helped)
        rt.store.mark_assisted(helped)  # a second answer in the same game: one mark
        http = create_app(rt).test_client()
        history = _history(http)
        assert {g["id"]: g["assisted"] for g in history["games"]}[helped] is True
        assert sum(g["assisted"] for g in history["games"]) == 1
        assert history["assisted_rated"] is False
        assert _rated(http) == {"ann": 2, "ben": 2}  # the assisted game is not rated...
        assert {p["key"]: p["games"] for p in history["players"]} == {"ann": 3, "ben": 3}  # ...but counted
        # the host's choice, and only the host's
        assert http.post("/api/history/assisted", json={"include": True}).status_code == 401
        bad = http.post("/api/history/assisted", json={"include": "yes"}, headers=PIN)
        assert bad.status_code == 400 and bad.get_json()["code"] == "assisted_include"
        done = http.post("/api/history/assisted", json={"include": True}, headers=PIN)
        assert done.status_code == 200 and done.get_json()["code"] == "assisted_rated"
        assert _rated(http) == {"ann": 3, "ben": 3} and _history(http)["assisted_rated"] is True
    finally:
        rt.stop()
    again = make_runtime(tmp_path / "again", "Ann,Ben")  # a fresh table: nothing assisted
    try:
        assert again.store.assisted() == set() and again.store.rate_assisted() is False
    finally:
        again.stop()
    kept = make_runtime(tmp_path, "Ann,Ben")  # the same store after a restart: both kept
    try:
        assert kept.store.assisted() == {helped} and kept.store.rate_assisted() is True
        answer = (
            create_app(kept).test_client().post("/api/history/assisted", json={"include": False}, headers=PIN)
        )
        assert answer.get_json()["code"] == "assisted_unrated" and kept.store.rate_assisted() is False
    finally:
        kept.stop()
