"""The coach on the page (issues 18 and 24), in Chromium at 360 px, in English and French.

The host turns it on; every phone holding no seat then offers "Ask the coach for <the player
to move>"; the phone that asks holds that player's seat and gets each available card's
estimated chance and expected score (best first) and everyone's chances; another phone is
refused (issue 33 item 4), the host's phone shows the seat and releases it but never the
advice, and no snapshot carries it. "Coach for everyone" (a teaching game) shows it on every
phone, unasked. Each phone is a browser context of its own (its own cookie).
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


def test_the_advice_stays_on_the_phone_that_holds_the_seat(tmp_path: Path, browser: Any) -> None:
    """Issue 33 item 4: any phone asked for the player to move and saw the advice, a second
    phone got the cached answer and the host's page showed every answer. Now Zoé's phone (a
    browser context of its own) takes her seat ("I am Zoé"), asks and gets the advice; Mia's
    phone, taking the same seat, is refused in its own language with what to do, then shows
    that another phone holds it; the host's page shows no advice but the seat, and releases
    it; Mia's phone then takes the seat, asks and gets the advice, and Zoé's reads nothing."""
    ARTIFACTS.mkdir(exist_ok=True)
    with served(tmp_path, "Ann,Ben,Cy") as (base, rt):
        rt.coach.seconds, rt.coach.per_candidate = 1.0, 20  # light on a shared test machine
        rng = random.Random(2)
        while rt.table.expect()["kind"] != "take":  # the Itineraries of Day I
            play_turn(rt, rng)
        errors: list[str] = []
        for lang, iam, ask, best, taken, held, release in (
            (
                "en",
                "I am",
                "Ask the coach for",
                "best",
                "ask the host to release",
                "Another phone holds",
                "Release",
            ),
            (
                "fr",
                "Je suis",
                "Demander au coach pour",
                "la meilleure",
                "demandez à l'hôte de libérer",
                "Un autre téléphone tient",
                "Libérer",
            ),
        ):
            host, zoe, mia = (_phone(browser, base, errors, lang) for _ in range(3))
            log_in_as_host(host)
            if lang == "en":
                assert host.locator("#coach").is_hidden() and host.locator("#coach-everyone").is_disabled()
                host.check("#coach-switch")
            mover = rt.table.board.player_to_move
            seat = f'#coach-body [data-seat="{mover}"]'
            for phone in (zoe, mia):  # a phone holding no seat offers every free seat
                phone.wait_for_selector(seat)
                assert phone.locator(seat).inner_text().strip() == f"{iam} {mover}"
                assert phone.locator("#coach-body [data-seat]").count() == 3
                assert phone.locator("#coach-ask").count() == 0
            assert mia.evaluate("document.documentElement.scrollWidth") <= 360
            _snap(mia, f"guest-{lang}")
            zoe.click(seat)
            zoe.wait_for_selector("#coach-ask")
            assert zoe.locator("#coach-ask").inner_text().strip() == f"{ask} {mover}"
            assert zoe.locator("#coach-body [data-seat]").count() == 0
            zoe.click("#coach-ask")
            zoe.wait_for_function(SHOWN)
            shown = _shown(zoe)
            assert sorted(c["card"] for c in shown["cards"]) == sorted(rt.table.expect()["choices"])
            wins = [c["win"] for c in shown["cards"]]
            assert wins == sorted(wins, reverse=True) and shown["cards"][0]["best"]
            assert len(shown["players"]) == 3 and abs(sum(shown["players"]) - 100) <= 2
            assert best in shown["text"] and shown["wide"] <= 360
            _snap(zoe, f"asker-{lang}")
            # Mia's phone takes Zoé's seat too: refused, in its language, with what to do
            mia.click(seat)
            mia.wait_for_function("() => document.getElementById('last').classList.contains('bad')")
            assert taken in mia.locator("#last").inner_text()
            mia.wait_for_function(
                "(t) => document.querySelector('#coach-body .coach-seat')?.textContent.startsWith(t)",
                arg=held,
            )
            assert mia.locator(seat).count() == 0 and mia.locator("#coach-body [data-seat]").count() == 2
            assert mia.locator("#coach-ask").count() == 0
            assert mia.locator("#coach-body .coach-cards").count() == 0
            assert mia.evaluate("() => JSON.stringify(state.coach)") == '{"on":true,"everyone":false}'
            read = "async () => (await (await fetch('/api/coach')).json()).coach.status"
            assert mia.evaluate(read) == "private"
            assert mia.evaluate("document.documentElement.scrollWidth") <= 360
            # the host's page: no advice, the seat held, and the button that frees it
            host.reload()
            host.wait_for_selector("#coach-body [data-release]")
            settled(host)
            assert host.locator("#coach-body .coach-cards").count() == 0 and host.evaluate(read) == "private"
            assert host.locator("#coach-body [data-release]").inner_text().strip() == f"{release} " + (
                f"{mover}'s seat" if lang == "en" else f"la place de {mover}"
            )
            assert host.evaluate("document.documentElement.scrollWidth") <= 360
            _snap(host, f"host-{lang}")
            host.click("#coach-body [data-release]")
            host.wait_for_selector("#coach-body [data-release]", state="detached")
            # Mia's phone now takes the seat and gets the advice; Zoé's phone reads nothing more
            mia.reload()
            mia.wait_for_selector(seat)
            mia.click(seat)
            mia.wait_for_selector("#coach-ask")
            mia.click("#coach-ask")
            mia.wait_for_function(SHOWN)
            assert zoe.evaluate(read) == "private"
            assert axe(mia, axe_script()) == []
            # the player to move takes a card: the answer for the old position goes away
            play_turn(rt, rng)
            while rt.table.expect()["kind"] != "take":
                play_turn(rt, rng)
            drawn(mia, rt.table.version)
            mia.wait_for_function("() => document.querySelector('#coach-body .coach-cards') === null")
            for phone in (host, zoe, mia):
                phone.close()
            for player in rt.table.board.names:  # the next language's phones start with every seat free
                rt.release_seat(player)
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
