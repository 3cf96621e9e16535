"""One player, one colour and marker everywhere (issue 24, item 5), at 360 px: the table's
standings, watches and order show each player's own pair, the one /history shows for them
(its list, its chart's legend) and for their seat in each game, whatever seat they took."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.records.trekking import TREKKING, write_record
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config
from tests.support.browser import ARGS, chromium, playwright, served, watched_page

expect = playwright().expect

#: The page's markers (web/static/chart.js MARKS), by index.
MARKS = ["●", "■", "▲", "◆", "▼", "○", "□", "△"]


def finished(store: Store, names: list[str], seed: int) -> int:
    """A game with the seats' colours and markers the table gives them (`new_game`), played
    to the end by the bot on a shuffled deck (the table's own game deals as it goes)."""
    meta = store.load(new_game(store, names, Config(), seed=seed, mock=True)).meta
    rng = random.Random(seed)
    setup = random_setup(load_edition("reference"), names, rng)
    board, _, _ = play_game(setup, "greedy", rng)
    head = json.loads(write_record(setup, []).splitlines()[0])
    game = store.new_game(head, {"colours": meta["colours"], "markers": meta["markers"]})
    store.write_events(game, 1, list(board.moves), finished=True)
    return game


def pair(mark: Any) -> tuple[str, str]:
    """A marker span's colour (as written) and glyph."""
    style = mark.get_attribute("style") or ""
    colour = re.search(r"color:\s*(#[0-9A-Fa-f]{6})", style)
    return (colour.group(1).upper() if colour else style, mark.inner_text().strip())


def test_a_players_colour_and_marker_are_the_same_on_the_table_and_in_the_history(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    finished(store, ["Ann", "Ben", "Cy"], 1)
    second = finished(store, ["Cy", "Dee", "ann"], 2)  # other seats, another spelling
    own = {key: (colour.upper(), MARKS[marker]) for key, (colour, marker) in store.player_marks().items()}
    store.close()
    assert len(set(own.values())) == len(own) == 4, "four players, four pairs"
    with served(tmp_path, "Ben,Ann") as (base, _rt), chromium(ARGS) as browser:  # Ben first this time
        errors: list[str] = []
        page = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 780})
        page.wait_for_selector("#players .player")
        names = page.locator("#players .player .who")
        for i, key in enumerate(["ben", "ann"]):
            assert pair(names.nth(i).locator(".mark")) == own[key], key
        watches = page.locator("#clock g.watch text")
        assert sorted((watches.nth(i).text_content() or "") for i in range(2)) == sorted(
            [own["ben"][1], own["ann"][1]]
        )
        page.screenshot(path=str(tmp_path / "marks-table.png"))

        page.goto(base + "/history")
        page.wait_for_selector("#pstats .pstat")
        for key in ("ann", "ben", "cy", "dee"):
            card = page.locator(f"#pstats .pstat[data-key='{key}'] .name .mark")
            assert pair(card) == own[key], key
        legend = page.locator("#hchart-legend li .mark")
        assert sorted(pair(legend.nth(i)) for i in range(legend.count())) == sorted(own.values())
        rows = page.locator(f"#game-{second} table tr")
        shown = {
            rows.nth(i).locator("td").nth(1).inner_text().split("★")[0].split()[-1]: pair(
                rows.nth(i).locator(".mark")
            )
            for i in range(1, 4)
        }
        assert shown == {"Cy": own["cy"], "Dee": own["dee"], "ann": own["ann"]}, (
            "each seat as the table showed it"
        )
        assert errors == []
