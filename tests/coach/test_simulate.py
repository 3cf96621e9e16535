"""Bots and `companion simulate`: whole legal games, reproducible results, clear errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.coach.bots import greedy_bot, random_bot
from companion.coach.simulate import SimulationError, play_game, random_setup, simulate
from companion.editions import load_edition
from companion.engine import Board, Take
from companion.run.cli import main

NAMES = ["Ann", "Ben", "Cy", "Dee"]


@pytest.mark.parametrize("bot", ["random", "greedy"])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_bots_play_whole_legal_games(bot: str, players: int) -> None:
    ed = load_edition("reference")
    rng = random.Random(players)
    board, takes, events = play_game(random_setup(ed, NAMES[:players], rng), bot, rng)
    assert board.finished and board.day == 3
    assert takes == sum(1 for e in board.moves if isinstance(e, Take))
    assert events == len(board.moves)
    # The record replays to the same end on a fresh board.
    fresh = Board(board.setup)
    for event in board.moves:
        assert fresh.push(event) is None
    assert fresh.standings() == board.standings()


def test_same_seed_same_games() -> None:
    a, b = simulate(20, 3, seed=7), simulate(20, 3, seed=7)
    assert a.totals == b.totals and a.takes == b.takes
    assert simulate(20, 3, seed=8).totals != a.totals


def test_greedy_scores_more_than_random() -> None:
    greedy = simulate(30, 2, seed=3, bot="greedy")
    rand = simulate(30, 2, seed=3, bot="random")
    assert sum(greedy.totals) / len(greedy.totals) > sum(rand.totals) / len(rand.totals) + 10


def test_random_bot_spends_crystals_and_visits_ancestors_sometimes() -> None:
    ed = load_edition("reference")
    rng = random.Random(1)
    spent = ancestors = 0
    for _ in range(20):
        board, _, _ = play_game(random_setup(ed, NAMES, rng), "random", rng)
        takes = [e for e in board.moves if isinstance(e, Take)]
        spent += sum(e.crystals for e in takes)
        ancestors += sum(1 for e in takes if e.card == "ancestor")
    assert spent > 0 and ancestors > 0


def test_bots_only_choose_for_the_player_to_move() -> None:
    ed = load_edition("reference")
    rng = random.Random(5)
    board = Board(random_setup(ed, NAMES, rng))
    for bot in (random_bot, greedy_bot):
        event = bot(board, rng)
        assert getattr(event, "player", None) == board.player_to_move


def test_simulate_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "5", "--players", "2", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 5 and out["players"] == 2 and out["bot"] == "random"
    assert out["games_per_second"] > 0
    assert len(out["wins_by_seat"]) == 2 and abs(sum(out["wins_by_seat"]) - 1) < 1e-9


def test_simulate_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", "--bot", "greedy"]) == 0
    assert "games/s" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--players", "5"], "--players must be 1 to 4"),
        (["--games", "0"], "--games must be at least 1"),
        (["--bot", "clever"], "unknown bot"),
        (["--edition", "nope"], "unknown edition"),
    ],
)
def test_simulate_refuses_bad_arguments(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", *args]) == 2
    assert fragment in capsys.readouterr().err


def test_simulation_error_for_an_edition_without_enough_itineraries(tmp_path: Path) -> None:
    ed = json.loads((Path(__file__).parents[2] / "companion" / "editions" / "reference.json").read_text())
    ed["itineraries"] = ed["itineraries"][:3]
    path = tmp_path / "few.json"
    path.write_text(json.dumps(ed))
    with pytest.raises(SimulationError, match="too few itineraries"):
        simulate(1, 4, seed=1, edition=str(path))
