"""The coach on the page (issues 18 and 24), in Chromium at 360 px, in English and French.

The host turns it on; every phone then offers "Ask the coach for <the player to move>"; the
phone that asks gets each available card's estimated chance and expected score (best first)
and everyone's chances, the host's phone shows the same answer, and a guest's phone (nor its
snapshot) never does. "Coach for everyone" (a teaching game) shows it on every phone, unasked.
Screenshots in test-artifacts/: coach-360-{asker,host,guest}-{en,fr}.png as each phone shows
its coach card, coach-360-everyone-fr.png for a teaching game.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.support.axe import axe, axe_script
from tests.support.browser import (
    ARTIFACTS,
    drawn,
    log_in_as_host,
    playwright,
    served,
    settled,
    watched_page,
)
from tests.support.games import finished_game
from tests.support.tables import play_turn

sync_api = playwright()

#: For a screenshot of the whole coach card: the sticky header and the live panel hidden.
UNCOVERED = "header, #now { visibility: hidden !important; }"
PHONE = {"width": 360, "height": 780}
#: The coach's card shows an answer (its table of cards).
SHOWN = "() => document.querySelector('#coach-body .coach-cards tr.best') !== null"


def _shown(page: Any) -> dict[str, Any]:
    """What the coach card shows: each card row (id, win %, score) and each player's %."""
    shown: dict[str, Any] = page.evaluate(
        """() => ({
          cards: [...document.querySelectorAll('#coach-body .coach-cards tr')].slice(1).map((tr) => ({
            card: tr.querySelector('th').dataset.card,
            win: parseFloat(tr.children[1].textContent.replace(',', '.')),
            best: !!tr.querySelector('.coach-best'),
          })),
          players: [...document.querySelectorAll('#coach-body .coach-players li .pct')].map(
            (e) => parseFloat(e.textContent.replace(',', '.'))),
          wide: document.documentElement.scrollWidth,
          text: document.querySelector('#coach') ? document.querySelector('#coach').innerText : '',
        })"""
    )
    return shown


def _phone(browser: Any, base: str, errors: list[str], lang: str) -> Any:
    page = watched_page(browser, base + "/", errors, viewport=PHONE, bypass_csp=True, locale=lang)
    page.set_default_timeout(60000)  # waits, not measures: a loaded machine
    page.wait_for_selector("#players .player")
    return page


def _snap(page: Any, name: str) -> None:
    page.locator("#coach").screenshot(path=str(ARTIFACTS / f"coach-360-{name}.png"), style=UNCOVERED)


def test_the_advice_shows_on_the_asking_phone_and_the_hosts_only(tmp_path: Path, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with served(tmp_path, "Ann,Ben,Cy") as (base, rt):
        rt.coach.seconds, rt.coach.per_candidate = 1.0, 20  # light on a shared test machine
        rng = random.Random(2)
        while rt.table.expect()["kind"] != "take":  # the Itineraries of Day I
            play_turn(rt, rng)
        errors: list[str] = []
        for lang, ask, best in (
            ("en", "Ask the coach for", "best"),
            ("fr", "Demander au coach pour", "la meilleure"),
        ):
            host, asker, guest = (_phone(browser, base, errors, lang) for _ in range(3))
            log_in_as_host(host)
            if lang == "en":
                assert host.locator("#coach").is_hidden() and host.locator("#coach-everyone").is_disabled()
                host.check("#coach-switch")
            mover = rt.table.board.player_to_move
            for phone in (asker, guest):  # every phone offers the ask, for the player to move
                phone.wait_for_selector("#coach-ask")
                assert phone.locator("#coach-ask").inner_text().strip() == f"{ask} {mover}"
            _snap(guest, f"guest-{lang}")
            asker.click("#coach-ask")
            asker.wait_for_function(SHOWN)
            shown = _shown(asker)
            assert sorted(c["card"] for c in shown["cards"]) == sorted(rt.table.expect()["choices"])
            wins = [c["win"] for c in shown["cards"]]
            assert wins == sorted(wins, reverse=True) and shown["cards"][0]["best"]
            assert len(shown["players"]) == 3 and abs(sum(shown["players"]) - 100) <= 2
            assert best in shown["text"] and shown["wide"] <= 360
            host.wait_for_function(SHOWN)  # the host's phone reads it too
            assert [c["card"] for c in _shown(host)["cards"]] == [c["card"] for c in shown["cards"]]
            assert _shown(host)["wide"] <= 360
            _snap(asker, f"asker-{lang}")
            _snap(host, f"host-{lang}")
            # the guest's phone: still only the offer, and nothing of the answer in its state
            drawn(guest, rt.table.version)  # the guest shows the table as it is now,
            settled(guest)  # and whatever that drawing started (a read of the coach) has run
            assert guest.locator("#coach-body .coach-cards").count() == 0
            assert guest.evaluate("() => JSON.stringify(state.coach)") == '{"on":true,"everyone":false}'
            guest_read = guest.evaluate("async () => (await (await fetch('/api/coach')).json()).coach.status")
            assert guest_read == "host_only"
            assert axe(asker, axe_script()) == []
            # the player to move takes a card: the answer for the old position goes away
            play_turn(rt, rng)
            while rt.table.expect()["kind"] != "take":
                play_turn(rt, rng)
            asker.wait_for_function(
                "(p) => { const b = document.getElementById('coach-ask'); return b?.dataset.player === p; }",
                arg=rt.table.board.player_to_move,
            )
            assert asker.locator("#coach-body .coach-cards").count() == 0
            for phone in (host, asker, guest):
                phone.close()
        assert rt.store.assisted() == {rt.table.game_id}

        # a teaching game: every phone shows the advice, unasked
        host, guest = _phone(browser, base, errors, "fr"), _phone(browser, base, errors, "fr")
        log_in_as_host(host)
        host.check("#coach-everyone")
        guest.wait_for_function(SHOWN)
        assert guest.locator("#coach-ask").count() == 0 and _shown(guest)["wide"] <= 360
        _snap(guest, "everyone-fr")
        host.uncheck("#coach-switch")
        guest.wait_for_function("() => state && state.coach && state.coach.on === false")
        assert guest.locator("#coach").is_hidden()
        assert errors == []


def test_the_history_marks_an_assisted_game_in_english_and_french(tmp_path: Path, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with served(tmp_path, "Ann,Ben") as (base, rt):
        finished_game(rt.store, ["Ann", "Ben"], 7)
        helped, _ = finished_game(rt.store, ["Ann", "Ben"], 8)
        rt.store.mark_assisted(helped)
        errors: list[str] = []
        for lang, mark in (("en", "assisted"), ("fr", "assistée")):
            page = watched_page(browser, base + "/history", errors, viewport=PHONE, locale=lang)
            page.wait_for_selector(f"#game-{helped} h3 .assisted")
            assert page.locator(f"#game-{helped} h3 .assisted").inner_text() == mark
            assert page.locator(".game h3 .assisted").count() == 1
            assert page.locator("#rate-assisted-box").is_hidden()  # the host's choice
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            page.locator(f"#game-{helped}").screenshot(path=str(ARTIFACTS / f"coach-360-history-{lang}.png"))
            page.close()
        assert errors == []
