"""The rating a family sees on /history (issue 24 item 4): 0 for a new player, never negative,
higher with wins, mu and sigma beside it by their names; the BG Stats comments (item 6)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from companion.records.league import family_rating, rate
from tests.support.games import made_up_game


@given(st.floats(min_value=-50, max_value=60), st.floats(min_value=-50, max_value=60))
def test_the_family_rating_is_whole_never_negative_and_follows_the_model(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert isinstance(family_rating(low), int) and family_rating(low) >= 0  # type: ignore[operator]
    assert family_rating(low) <= family_rating(high)  # type: ignore[operator]


def test_a_new_player_starts_at_0_and_wins_raise_it() -> None:
    assert family_rating(None) is None
    from openskill.models import PlackettLuce

    fresh = PlackettLuce().rating()
    assert family_rating(fresh.mu - 3 * fresh.sigma) == 0  # a new player: 0, not "-0"
    seen: list[int] = []
    for n in range(1, 5):
        rated = rate([made_up_game(k, {"Ann": 1, "Ben": 2, "Cy": 3}, k) for k in range(n)])
        ratings = {key: family_rating(mu - 3 * sigma) for key, (mu, sigma, _) in rated.items()}
        assert all(r is not None and r >= 0 for r in ratings.values()), ratings
        ann = ratings["ann"]
        assert ann is not None
        seen.append(ann)
    assert seen == sorted(seen) and seen[-1] > seen[0] > 0, seen  # each win raises the winner's


def test_bg_stats_comments_follow_the_page_s_language_and_the_host_s_merges(tmp_path: Path) -> None:
    """Issue 24 item 6: the play's comments in French for a French page, each player by the
    name shown after a merge (not the old spelling)."""
    from companion.history.bgstats import play
    from companion.history.past import load_history
    from companion.records.trekking import TREKKING
    from companion.store.log import Store
    from tests.support.games import finished_game

    store = Store(tmp_path, TREKKING)
    game_id, _board = finished_game(store, ["Ann", "Sam", "Cy"], 4)
    game = {g.id: g for g in load_history(store).games}[game_id]
    merged = {"sam": "Samuel"}
    french = play(game, merged, "fr")["comments"]
    assert "piste" in french and "cristaux" in french and "Édition" in french, french
    assert "track" not in french and "crystals" not in french
    assert "Samuel\u202f:" in french and "Sam\u202f:" not in french
    english = play(game, merged)["comments"]
    assert "Samuel: " in english and "Sam: " not in english
