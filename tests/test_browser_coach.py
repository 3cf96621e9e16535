"""The coach on the page (issue 18, item 4), in Chromium at 360 px: the host turns it on,
the player to move sees each available card's estimated chance and expected score (best
first) and everyone's chances; a take from the page brings the answer for the new position.
Screenshots in test-artifacts/ (coach-360-en.png, coach-360-fr.png as a phone shows them;
``-card.png``: the whole card, the header and the live panel hidden).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from browser_support import ARTIFACTS, log_in_as_host, playwright, served, watched_page
from test_page_family import axe, axe_script
from tests_support import play_turn

sync_api = playwright()

#: For a screenshot of the whole coach card: the sticky header and the live panel hidden.
UNCOVERED = "header, #now { visibility: hidden !important; }"
#: The coach's answer for the position now on the table, drawn on the page.
READY = "(v) => state && state.coach && state.coach.status === 'ready' && state.coach.events >= v"


def _shown(page: Any) -> dict[str, Any]:
    """What the coach card shows: each card row (id, win %, score) and each player's %."""
    shown: dict[str, Any] = page.evaluate(
        """() => ({
          cards: [...document.querySelectorAll('#coach-body .coach-cards tr')].slice(1).map((tr) => ({
            card: tr.querySelector('th').dataset.card,
            win: parseFloat(tr.children[1].textContent.replace(',', '.')),
            score: parseFloat(tr.children[2].textContent.replace(',', '.')),
            best: !!tr.querySelector('.coach-best'),
          })),
          players: [...document.querySelectorAll('#coach-body .coach-players li .pct')].map(
            (e) => parseFloat(e.textContent.replace(',', '.'))),
          wide: document.documentElement.scrollWidth,
        })"""
    )
    return shown


def test_the_host_turns_the_coach_on_and_its_hint_follows_the_game(tmp_path: Path, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with served(tmp_path, "Ann,Ben,Cy") as (base, rt):
        rt.coach.seconds, rt.coach.per_candidate = 1.0, 20  # light on a shared test machine
        rng = random.Random(2)
        while rt.table.expect()["kind"] != "take":  # the Itineraries of Day I
            play_turn(rt, rng)
        errors: list[str] = []
        # bypass_csp: only so that axe-core can be injected (as in test_page_family)
        phone = {"width": 360, "height": 780}
        page = watched_page(browser, base + "/", errors, viewport=phone, bypass_csp=True)
        page.set_default_timeout(60000)  # waits, not measures: worker processes start on a loaded machine
        page.wait_for_selector("#players .player")
        log_in_as_host(page)
        assert page.locator("#coach").is_hidden()  # off by default
        page.check("#coach-switch")
        page.wait_for_function(READY, arg=rt.table.seq)
        shown = _shown(page)
        choices = rt.table.expect()["choices"]
        assert sorted(c["card"] for c in shown["cards"]) == sorted(choices)
        assert all(0 <= c["win"] <= 100 for c in shown["cards"])
        wins = [c["win"] for c in shown["cards"]]
        assert wins == sorted(wins, reverse=True) and shown["cards"][0]["best"]
        assert all(0 <= p <= 100 for p in shown["players"]) and len(shown["players"]) == 3
        assert abs(sum(shown["players"]) - 100) <= 2  # each rounded to a whole per cent
        assert shown["wide"] <= 360
        page.locator("#coach").screenshot(path=str(ARTIFACTS / "coach-360-en.png"))
        # the whole card, without the sticky header and the live panel laid over it
        page.locator("#coach").screenshot(path=str(ARTIFACTS / "coach-360-en-card.png"), style=UNCOVERED)
        assert axe(page, axe_script()) == []  # the coach's card and switch: no serious problem

        # the player to move takes the coach's best card from the page: the next answer follows
        mover, best = rt.table.board.player_to_move, shown["cards"][0]["card"]
        page.click(f'#row button[data-card="{best}"]')
        page.wait_for_function(
            "([v, p]) => state && state.coach && state.coach.status === 'ready' && state.coach.events >= v"
            " && state.coach.player !== p",
            arg=[rt.table.seq, mover],
        )
        assert rt.table.board.player_to_move != mover
        after = _shown(page)
        assert sorted(c["card"] for c in after["cards"]) == sorted(rt.table.expect()["choices"])
        assert best not in [c["card"] for c in after["cards"]] or best == "ancestor"

        page.click("#lang")  # the same card in French
        assert page.locator("#coach h2").inner_text() == "Coach (estimations)"
        assert "Chance de victoire" in page.locator("#coach-body").inner_text()
        page.locator("#coach").screenshot(path=str(ARTIFACTS / "coach-360-fr.png"))
        page.locator("#coach").screenshot(path=str(ARTIFACTS / "coach-360-fr-card.png"), style=UNCOVERED)
        assert _shown(page)["wide"] <= 360
        page.uncheck("#coach-switch")
        page.wait_for_function("() => state && state.coach && state.coach.on === false")
        assert page.locator("#coach").is_hidden()
        assert errors == []
