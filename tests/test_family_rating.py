"""The rating a family sees on /history (issue 24 item 4): 0 for a new player, never negative,
higher with wins; the model's mu and sigma beside it under their own names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.past import family_rating, rate

from test_history import made_up_game


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
