"""The family's words after a game (issue 24, item 14): BG Stats' tie-break line in the
page's language, and a Wild correction that says where the tokens went."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion.engine import Take
from companion.history.bgstats import comments
from companion.records.league import PastGame, PastPlayer
from companion.util.wording import say
from tests.support.tables import make_runtime, play_turn


def past(scores: dict[str, tuple[int, int, bool]]) -> PastGame:
    """A finished game: each name's (score, rank, winner)."""
    players = tuple(
        PastPlayer(name, name.lower(), score, 0, 0, score, (3,), rank, winner, "#0072B2")
        for name, (score, rank, winner) in scores.items()
    )
    when = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)
    return PastGame(1, when, when, "base", players, "Ann", "Ann wins with 31 points.")


@pytest.mark.parametrize(
    ("scores", "lang", "line"),
    [
        ({"Ann": (31, 1, True), "Ben": (20, 2, False)}, "en", "Ann wins with 31 points."),
        ({"Ann": (31, 1, True), "Ben": (20, 2, False)}, "fr", "Ann gagne avec 31 points."),
        (
            {"Ann": (25, 2, False), "Ben": (25, 1, True)},
            "fr",
            "Ann, Ben sont à égalité à 25 points\u202f; Ben a les voyages les plus longs.",
        ),
        (
            {"Ann": (25, 1, True), "Ben": (25, 1, True)},
            "fr",
            "Ann, Ben sont à égalité à 25 points et sur chaque longueur de voyage.",
        ),
    ],
)
def test_the_bgstats_tie_break_line_is_in_the_pages_language(
    scores: dict[str, tuple[int, int, bool]], lang: str, line: str
) -> None:
    said = comments(past(scores), lang=lang).splitlines()
    assert line in said, said
    if lang == "fr":
        assert not any("wins" in s or "tie on" in s for s in said), said


@pytest.mark.parametrize(
    ("lang", "where"), [("en", "now count as Progress."), ("fr", "comptent maintenant comme Progrès.")]
)
def test_moving_the_wild_tokens_says_where_they_went(tmp_path: Path, lang: str, where: str) -> None:
    rt = make_runtime(tmp_path, seed=6)
    table, rng = rt.table, random.Random(6)
    try:
        for _ in range(300):
            play_turn(rt, rng)
            takes = [i for i, e in enumerate(table.board.moves) if isinstance(e, Take)]
            if takes and table._wilds_of(takes[-1]) == 1:
                break
        outcome = table.correct_wild(["progress"])
    finally:
        rt.stop()
    assert outcome.accepted and outcome.code == "wild_moved", outcome
    assert outcome.message.endswith("now count as Progress."), outcome.message
    assert say(outcome.code, lang, **outcome.params).endswith(where)
