"""A short run of the power-cut harness (the full one: tests/support/powercut.py --games 200)."""

from __future__ import annotations

from tests.support import powercut


def test_sigkill_and_torn_wal_lose_no_acknowledged_event() -> None:
    stats = powercut.run(games=4, seed=11, corrupt_share=0.5)
    assert stats.failures == []
    assert stats.kills == 4 and stats.games == 4
    assert stats.acknowledged_events > 0 and stats.events_checked >= stats.acknowledged_events
