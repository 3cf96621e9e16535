"""Issue 36 item 8: names and season names in ``/results.csv`` and ``/league.csv`` are
defused as the edition CSV defuses them (`companion.editions.defuse`): a cell a spreadsheet
would run as a formula (``= + - @``, a tab) gets a single quote in front, so it shows as typed.

A real table whose players are named as an attacker would name them plays a whole game
through a real Mosquitto into a hall; the host names a season the same way.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from companion.table.access import Access
from companion.venue.hall_web import create_hall_app
from companion.venue.league import LeagueBook, season_from
from tests.support.venue import Broker, follow, hall_has_all, play_all, table, wait_until

HOSTILE = ["=HYPERLINK(1)", "@SUM(1)", "+cmd"]
SEASON = "-2+3+cmd|' /C calc'!A0"


def test_the_hall_s_csvs_defuse_formulas_typed_as_names_and_seasons(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    rt = table(tmp_path, broker, "t1", seed=4, players=",".join(HOSTILE))
    book = LeagueBook(tmp_path / "hall" / "league")
    try:
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
        play_all([rt], None, seed=11)
        assert rt.venue.wait_delivered(60)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the game")
        at = hall.view()["finished"][0]["at"][:10]
        book.keep_season(season_from(SEASON, at, at))
        page = create_hall_app(hall, Access.for_pin("4321", tmp_path), book).test_client()
        results = list(csv.reader(io.StringIO(page.get("/results.csv").get_data(as_text=True))))
        assert sorted(row[3] for row in results[1:]) == sorted("'" + name for name in HOSTILE)
        league = page.get("/league.csv", query_string={"season": SEASON}).get_data(as_text=True)
        rows = list(csv.reader(io.StringIO(league)))
        assert {row[0] for row in rows[1:]} == {"'" + SEASON}
        assert sorted(row[2] for row in rows[1:]) == sorted("'" + name for name in HOSTILE)
        assert all(row[-1].startswith("'") for row in rows[1:]), "the spellings too"
        assert page.get("/api/league").get_json()["players"][0]["name"] in HOSTILE, "the JSON as typed"
    finally:
        rt.stop()
        hall.stop()
        book.close()
        broker.stop()
