"""A short soak (the full one: tests/support/soak.py --games 10000 --clients 20)."""

from __future__ import annotations

from tests.support import soak


def test_games_through_the_daemon_with_live_pages_lose_and_double_nothing() -> None:
    result = soak.soak(games=3, clients=6, seed=5)
    assert result["lost_or_wrong_games"] == 0, result["problems"]
    assert result["duplicate_deliveries"] == 0
    assert result["snapshots_out_of_step"] == 0
    assert result["streams_cut_off"] == 0
    assert result["deliveries"] >= 6, "every page got at least its first snapshot"
    assert result["clients_not_on_latest"] == 0
    assert result["threads_end"] == result["threads_start"], "no thread left behind by a game"
