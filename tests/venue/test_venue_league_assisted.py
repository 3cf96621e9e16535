"""Issue 36 item 7: the league rates games as a table's own history does, and a merge it cannot
apply is refused, saying why.

Through a real Mosquitto: table t1 plays a game in which the coach gave advice (the store marks
it assisted, as `companion.coach.service` does), t2 one without; the hall's league counts both
in the figures and rates only t2's, as `companion.history` rates a table's own games. Then the
host merges two names that sat at one table: refused with the table and game, nothing kept.
"""

from __future__ import annotations

import re
from pathlib import Path

from companion.history.past import load_history
from companion.records.league import family_rating, player_stats
from companion.table.access import Access
from companion.venue.hall import Hall
from companion.venue.hall_web import create_hall_app
from companion.venue.league import LeagueBook
from tests.support.venue import Broker, follow, hall_has_all, play_all, table, wait_until

PIN = "4321"


def test_assisted_games_count_but_are_not_rated_and_a_contradicted_merge_is_refused(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    coached = table(tmp_path, broker, "t1", seed=21, players="Ann,Ben,Cy")
    plain = table(tmp_path, broker, "t2", seed=22, players="Ann,Ben,Cy")
    book = LeagueBook(tmp_path / "hall" / "league")
    try:
        wait_until(lambda: coached.venue_status()["reachable"] and plain.venue_status()["reachable"], 30)
        play_all([coached, plain], 3, seed=5)
        coached.store.mark_assisted(coached.table.game_id)  # the coach answered a question
        play_all([coached, plain], None, seed=6)
        for rt in (coached, plain):
            assert rt.venue.wait_delivered(60)
        wait_until(lambda: hall_has_all(hall, [coached, plain]), 60, "the hall to store both games")
        wait_until(lambda: any(g.assisted for g in hall.games.values()), 30, "the coached game's result")
        page = create_hall_app(hall, Access.for_pin(PIN, tmp_path), book).test_client()
        league = page.get("/api/league").get_json()
        history = load_history(plain.store)  # the only game a table's history would rate
        rated = {s.key: (family_rating(s.rating), round(s.mu, 2), round(s.sigma, 2), s.rated_games)
                 for s in player_stats(history.games, {})}  # fmt: skip
        assert league["games"] == 2 and league["assisted"] == 1
        for row in league["players"]:
            assert row["games"] == 2, "an assisted game counts in the figures"
            assert (row["rating"], row["mu"], row["sigma"], row["rated_games"]) == rated[row["key"]]
        assert "had the coach" in page.get("/league").get_data(as_text=True)

        page.post("/league/login", data={"pin": PIN})
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.get("/league").get_data(as_text=True))
        assert csrf is not None
        refused = page.post("/league/merge", data={"alias": "ben", "into": "ann", "csrf": csrf.group(1)})
        assert refused.status_code == 400
        assert "played together (table t" in refused.get_data(as_text=True)
        assert book.aliases() == {}, "nothing kept"
        assert page.get("/api/league").get_json()["players"] == league["players"]
    finally:
        for rt in (coached, plain):
            rt.stop()
        hall.stop()
        book.close()
        broker.stop()
    again = Hall(tmp_path / "hall", log=lambda _: None)  # kept across a restart of the hall
    assert sorted(g.assisted for g in again.games.values()) == [False, True]
    again.stop()
