"""Issue 23 item 3, the hall's league: the history page's figures and ratings over every table.

Games from two tables over two nights are handed to the hall as the broker would hand them
(`Hall.handle`); the league's figures and openskill ratings equal what a table's history code
(`companion.history.past.load_history`) gives for the same games in one store; a season
counts only its dates; the host's merge, behind the hall's PIN, changes the standings and
is undone; guests only read.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.history.past import load_history
from companion.records.league import family_rating, player_stats
from companion.store.log import Store
from companion.table.access import Access
from companion.venue.hall import Hall
from companion.venue.hall_web import create_hall_app
from companion.venue.league import LeagueBook
from tests.support.league import PIN, PLAYED, fed_hall


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[Hall, LeagueBook, Store]]:
    with fed_hall(tmp_path) as fed:
        yield fed


def client(hall: Hall, book: LeagueBook, tmp_path: Path | None = None) -> Any:
    app = create_hall_app(hall, Access.for_pin(PIN, tmp_path), book)
    return app.test_client()


def figures(rows: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {r["key"]: (r["games"], r["wins"], r["points"], r["rating"], r["mu"], r["sigma"]) for r in rows}


def test_ratings_over_tables_and_nights_equal_the_history_code_s(venue: Any) -> None:
    hall, book, together = venue
    league = client(hall, book).get("/api/league").get_json()
    assert league["games"] == len(PLAYED)
    history = load_history(together)
    expected = {
        s.key: (s.games, s.wins, s.total_score, family_rating(s.rating), round(s.mu, 2), round(s.sigma, 2))
        for s in player_stats(history.games, history.aliases)
    }
    assert figures(league["players"]) == expected
    assert [r["key"] for r in league["players"]] == [s.key for s in player_stats(history.games, {})]


def test_a_season_counts_only_the_games_of_its_dates(venue: Any) -> None:
    hall, book, _ = venue
    page = client(hall, book)
    assert page.post("/league/login", data={"pin": PIN}).status_code == 303
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.get("/league").get_data(as_text=True))
    assert csrf is not None
    answer = page.post("/league/seasons", data={"name": "Autumn", "from": "2026-10-01", "to": "2026-10-31",
                                                "csrf": csrf.group(1)})  # fmt: skip
    assert answer.status_code == 303
    autumn = page.get("/api/league?season=Autumn").get_json()
    assert autumn["games"] == 3
    assert autumn["season"] == {"name": "Autumn", "from": "2026-10-01", "to": "2026-10-31"}
    assert {r["name"] for r in autumn["players"]} == {"Ann", "Ben", "Cy", "marc", "Dee"}
    assert {r["key"]: r["games"] for r in autumn["players"]}["ann"] == 2
    whole = page.get("/api/league").get_json()
    assert whole["games"] == 5 and {r["key"]: r["games"] for r in whole["players"]}["ann"] == 3
    rows = list(csv.reader(io.StringIO(page.get("/league.csv?season=Autumn").get_data(as_text=True))))
    assert rows[0][:4] == ["season", "place", "name", "games"] and len(rows) == 1 + 5
    assert {row[0] for row in rows[1:]} == {"Autumn"}
    # a season that ends before it starts, or a date that is none, is refused with what to do
    bad = page.post("/league/seasons", data={"name": "X", "from": "2026-12-01", "to": "2026-11-01",
                                             "csrf": csrf.group(1)})  # fmt: skip
    assert bad.status_code == 400 and "before it starts" in bad.get_data(as_text=True)
    bad = page.post("/league/seasons?lang=fr", data={"name": "X", "from": "1/12/2026", "to": "2026-11-01",
                                                     "csrf": csrf.group(1), "lang": "fr"})  # fmt: skip
    assert bad.status_code == 400 and "est pas une date" in bad.get_data(as_text=True)
    unknown = page.get("/api/league?season=Nope")
    assert unknown.status_code == 404 and unknown.get_json()["code"] == "league_season_unknown"
    assert "Saison Autumn" in page.get("/league?season=Autumn&lang=fr").get_data(as_text=True)


def test_a_merge_needs_the_hall_s_pin_changes_the_standings_and_is_undone(venue: Any, tmp_path: Path) -> None:
    hall, book, _ = venue
    guest = client(hall, book, tmp_path)
    before = guest.get("/api/league").get_json()
    merge = {"alias": "marc d.", "into": "marc"}
    refused = guest.post("/league/merge", data=merge)  # no login: refused, nothing changed
    assert refused.status_code == 403 and "log in with the hall" in refused.get_data(as_text=True)
    wrong = guest.post("/league/login", data={"pin": "9999"})
    assert wrong.status_code == 403 and "Wrong hall PIN" in wrong.get_data(as_text=True)
    assert guest.post("/league/merge", data={**merge, "csrf": "forged"}).status_code == 403
    assert guest.get("/api/league").get_json() == before
    assert 'name="alias"' not in guest.get("/league").get_data(as_text=True), "guests see no host form"

    host = client(hall, book, tmp_path)
    host.post("/league/login", data={"pin": PIN})
    csrf = re.search(r'name="csrf" value="([^"]+)"', host.get("/league").get_data(as_text=True))
    assert csrf is not None
    assert host.post("/league/merge", data={**merge, "csrf": csrf.group(1)}).status_code == 303
    after = host.get("/api/league").get_json()
    rows = {r["key"]: r for r in after["players"]}
    old = {r["key"]: r for r in before["players"]}
    assert "marc d." not in rows
    assert rows["marc"]["games"] == old["marc"]["games"] + old["marc d."]["games"] == 4
    assert rows["marc"]["spellings"] == ["marc", "Marc D."]
    assert rows["marc"]["mu"] != old["marc"]["mu"], "the merged games rate one player"
    assert after["merges"] == [{"alias": "marc d.", "into": "marc", "name": "marc", "applied": True}]
    assert book.aliases() == {"marc d.": ("marc", "marc")}, "kept in the hall's store, not in memory"
    same = host.post("/league/merge", data={"alias": "ann", "into": "ann", "csrf": csrf.group(1)})
    assert same.status_code == 400 and "choose two different names" in same.get_data(as_text=True)
    assert host.post("/league/unmerge", data={"alias": "marc d.", "csrf": csrf.group(1)}).status_code == 303
    assert host.get("/api/league").get_json()["players"] == before["players"]
    assert host.post("/league/logout").status_code == 303
    assert host.post("/league/merge", data={**merge, "csrf": csrf.group(1)}).status_code == 403
    assert host.post("/").status_code == 405 and host.post("/api/league").status_code == 405
