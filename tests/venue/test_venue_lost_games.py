"""Issue 36 item 2: no whole game lost to the hall.

On a broker configured as docs/venue.md says (persistence on, the default autosave), a game
that begins and ends while the hall is stopped, and another begun then, are held only in the
broker's memory (retained setups, events queued for the hall) when it is SIGKILLed. Nothing
the hall knows names them: the table's retained state says its last committed (game, seq),
and the hall asks for every game and event it lacks up to there. The table then sits idle:
nothing it does afterwards may be what brings the games back.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.venue import Broker, follow, hall_has_all, play_all, table, wait_until


def test_games_begun_and_ended_while_the_hall_was_away_survive_a_broker_sigkill(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    assert "persistence true" in broker.config.read_text() and "autosave" not in broker.config.read_text()
    hall = follow(tmp_path / "hall", broker)
    rt = table(tmp_path, broker, "s1", seed=31)
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 60, "the table connected")
        play_all([rt], None, seed=1)
        first = rt.table.game_id
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the first game")
        hall.stop()  # away for the evening
        whole = rt.start_game(["Cy", "Dee"], None, "reference", 4)
        play_all([rt], None, seed=2)  # begins and ends while the hall is away
        begun = rt.start_game(["Eve", "Fay", "Gus"], None, "reference", 5)
        play_all([rt], 4, seed=3)
        assert rt.venue.wait_delivered(30), "the broker acknowledged every event"
        broker.kill()  # SIGKILL: the queued events and the retained setups since its start are gone
        broker.start()
        wait_until(lambda: rt.venue_status()["reachable"], 60, "the table connected again")
        hall = follow(tmp_path / "hall", broker)  # the table now sits idle

        def stored(game: int) -> bool:
            with hall.lock:
                kept = hall.games.get(("s1", game))
                return kept is not None and kept.seq == len(rt.store.load(game).rows)

        wait_until(lambda: stored(whole) and stored(begun), 120, "the hall to ask for both games")
        for game in (first, whole, begun):
            assert hall.record("s1", game) == rt.store.export(game), game
        view = hall.view()
        assert [(g["table"], g["game"]) for g in view["finished"]] == [("s1", first), ("s1", whole)]
        assert [t["game"] for t in view["tables"]] == [begun], "the game begun shows as playing"
    finally:
        rt.stop()
        hall.stop()
        broker.stop()
