"""A finished game's story (issue 37 item 9): every player's Clock and points after each take,
replayed from the event log (`companion.records.story`), and the route both pages ask it from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.engine import Board, Take, Undo
from companion.engine.tokens import ANCESTOR
from companion.history.past import game_story
from companion.records.story import story
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.web.app import create_app
from tests.support.games import finished_game
from tests.support.tables import make_runtime


def days_of(turns: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    days: list[list[dict[str, Any]]] = []
    for turn in turns:
        if not days or days[-1][0]["day"] != turn["day"]:
            days.append([])
        days[-1].append(turn)
    return days


@pytest.mark.parametrize(
    ("names", "seed"), [(["Mia", "Théo", "Papi"], 3), (["Ann", "Ben"], 8), (["A", "B", "C", "D"], 5)]
)
def test_the_story_follows_every_take_of_the_board(tmp_path: Path, names: list[str], seed: int) -> None:
    store = Store(tmp_path, TREKKING)
    game_id, board = finished_game(store, names, seed)
    told = game_story(store, game_id)
    takes = [e for e in board.moves if isinstance(e, Take)]
    assert told["game"] == game_id and told["names"] == names
    assert [t["card"] for t in told["turns"]] == [e.card for e in takes]
    assert told["turns"][-1]["totals"] == [s.total for s in board.standings()]
    assert sum(t["trek"] for t in told["turns"]) == sum(len(t) for t in board.treks)
    assert [t["ancestor"] for t in told["turns"]] == [e.card == ANCESTOR for e in takes]
    days = days_of(told["turns"])
    assert [d[0]["day"] for d in days] == [1, 2, 3]
    for day in days:
        before = [0] * len(names)  # every watch starts a Day at 0
        for turn in day:
            moved = [k for k, (a, b) in enumerate(zip(before, turn["clock"], strict=True)) if a != b]
            assert moved == [turn["seat"]], turn  # only the taker's watch moves, and it moves
            assert turn["clock"][turn["seat"]] > before[turn["seat"]]
            # the player to move was the one furthest behind
            assert before[turn["seat"]] == min(before)
            before = turn["clock"]
        assert before == [12] * len(names), "a Day ends with every watch at 12"
    assert not any(t["trek"] and t["ancestor"] for t in told["turns"]), "an Ancestor never begins a trek"
    per_seat = [sum(t["trek"] for t in told["turns"] if t["seat"] == k) for k in range(len(names))]
    assert per_seat == [len(t) for t in board.treks]  # each mark is on the line of who completed it


def test_an_undone_take_is_not_in_the_story(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    _, board = finished_game(store, ["Ann", "Ben"], 6)
    moves = board.moves
    at = next(i for i, e in enumerate(moves) if isinstance(e, Take) and i > 10)
    undone = Board(board.setup)
    for event in moves[:at]:
        undone.push(event)
    other = next(o.card for o in undone.take_options() if o.card != moves[at].card)
    # a take made, undone, then the game as it went: the log has both, the story only what holds
    logged = [*moves[:at], Take(other), Undo(), *moves[at:]]
    assert story(board.setup, logged) == story(board.setup, moves)


def test_the_story_route_answers_finished_games_only(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        game_id, board = finished_game(rt.store, ["Ann", "Ben"], 6)
        http = create_app(rt).test_client()
        answer = http.get(f"/api/story/{game_id}")
        assert answer.status_code == 200
        told = answer.get_json()
        assert told == game_story(rt.store, game_id)
        assert told["turns"][-1]["totals"] == [s.total for s in board.standings()]
        for game in (str(rt.table.game_id), "999", "1e3", "-1", "9" * 30):  # not over, unknown, not a number
            refused = http.get(f"/api/story/{game}")
            assert refused.status_code == 404 and refused.get_json()["code"] == "no_finished_game", game
    finally:
        rt.stop()
