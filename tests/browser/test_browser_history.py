"""After the game, in a real browser at 360 px: the end screen's BG Stats link carries the
game's standings, and the history page lists the game, each player's figures, their
rating and the scores over time, in English and French; the host merges two spellings."""

from __future__ import annotations

import json
import random
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from companion.history.bgstats import BGG_ID, CREATE_PLAY, SOURCE_NAME
from companion.records.league import ranks
from tests.support.axe import axe, axe_script
from tests.support.browser import ARTIFACTS, pin_entered, playwright, post, pump_until, watched_page
from tests.support.games import finished_game

playwright()

PHONE = {"width": 360, "height": 780}


#: The players of the table `server` (tests/conftest.py) serves for this module's tests.
PLAYERS = "Ann,Ben,Cy"


def play_to_the_end(base: str, rt: Any, seed: int) -> None:
    """The whole game through the API, as the host's virtual reader and buttons would."""
    rng = random.Random(seed)
    while not rt.table.board.finished:
        out = post(base, "/api/reader/tap", {"tag": rng.choice(rt.table.expect()["choices"])})
        if out["state"]["pending"] is not None:
            post(base, "/api/buttons/confirm")


def until(page: Any, condition: str) -> None:
    """Wait for a page condition (the page's CSP forbids the eval that wait_for_function needs)."""
    pump_until(page, lambda: page.evaluate(condition), f"never true: {condition}")


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 362, "usable at 360 px"


def test_the_end_screen_reaches_bg_stats_and_the_history_at_360_px(server: Any, browser: Any) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    phone = watched_page(browser, base + "/", errors, viewport=PHONE)
    phone.wait_for_selector("#players .player")
    play_to_the_end(base, rt, 11)
    phone.wait_for_selector("#bgstats:not([hidden])", timeout=30000)
    link = phone.locator("#bgstats-link")
    assert link.inner_text() == "Send to BG Stats"
    url = link.get_attribute("href")
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == CREATE_PLAY
    play = json.loads(parse_qs(parts.query)["data"][0])
    board = rt.table.board
    standings = board.standings()
    assert play["sourceName"] == SOURCE_NAME
    assert play["sourcePlayId"].startswith(f"{rt.table.game_id}-")
    assert play["game"]["bggId"] == BGG_ID and play["game"]["highestWins"] is True
    assert play["board"] == "Base"
    assert [(p["name"], p["score"], p["winner"], p["rank"]) for p in play["players"]] == [
        (s.name, s.total, s.name in board.winners(), place)
        for s, place in zip(standings, ranks(standings), strict=True)
    ]
    assert [p["startPlayer"] for p in play["players"]] == [
        s.name == board.setup.watch_stack[0] for s in standings
    ]
    until(phone, "document.getElementById('bgstats-qr').naturalWidth > 0")  # the QR code is drawn
    no_sideways_scroll(phone)
    phone.screenshot(path=str(ARTIFACTS / "phone-360-end-bgstats.png"), full_page=True)
    phone.locator("#end").screenshot(path=str(ARTIFACTS / "phone-360-end-bgstats-section.png"))

    phone.locator("#end .history-link").click()
    phone.wait_for_url(base + "/history")
    game = phone.locator(f".game[data-game='{rt.table.game_id}']")
    game.wait_for()
    for s in standings:
        assert s.name in game.inner_text() and str(s.total) in game.inner_text()
    assert game.locator(".bgstats-game").get_attribute("href") == url
    assert phone.locator(".pstat").count() == 3
    for s in standings:
        card = phone.locator(f".pstat[data-key='{s.name.casefold()}']").inner_text()
        assert f"Best\n{s.total}" in card and f"Longest trek\n{max(s.treks)}" in card
        assert f"Wins\n{int(s.name in board.winners())}" in card
        assert "Rating" in card
    assert phone.locator("#hchart text[fill] title").count() == 3, "one point per player and game"
    no_sideways_scroll(phone)
    phone.screenshot(path=str(ARTIFACTS / "phone-360-history.png"), full_page=True)
    phone.click("#lang")
    assert phone.locator("h1").inner_text() == "Historique des parties"
    assert "Meilleur" in phone.locator(".pstat").first.inner_text()
    assert game.locator(".bgstats-game").inner_text() == "Envoyer à BG Stats"
    no_sideways_scroll(phone)
    phone.screenshot(path=str(ARTIFACTS / "phone-360-history-fr.png"), full_page=True)
    # the end screen's QR code brings another phone to this game, its BG Stats link in view
    other = watched_page(browser, f"{base}/history#game-{rt.table.game_id}", errors, viewport=PHONE)
    asked = other.locator(f"#game-{rt.table.game_id}.asked")
    asked.wait_for()
    assert asked.locator(".bgstats-game").get_attribute("href") == url
    desktop = watched_page(browser, base + "/history", errors, viewport={"width": 1280, "height": 900})
    desktop.wait_for_selector(".game")
    desktop.screenshot(path=str(ARTIFACTS / "desktop-1280-history.png"), full_page=True)
    assert errors == []


def test_the_host_merges_two_spellings_on_the_history_page(server: Any, browser: Any) -> None:
    base, rt = server
    finished_game(rt.store, ["Annie", "Ben"], 12)
    finished_game(rt.store, ["Ann", "Cy"], 13)
    errors: list[str] = []
    page = watched_page(browser, base + "/history", errors, viewport=PHONE)
    page.wait_for_selector(".pstat")
    assert page.locator(".pstat").count() == 4
    pin_entered(page, "0000", "#said.bad", "#hpin", "#hlogin button")
    pin_entered(page, "2468", "#merge:not([hidden])", "#hpin", "#hlogin button")
    page.select_option("#merge-name", "Annie")
    page.select_option("#merge-into", "Ann")
    page.click("#merge button")
    # the login's own "You are the host." is already #said.ok: wait for the merge's answer
    page.locator("#said.ok", has_text="now counts as").wait_for()
    assert page.locator("#said").inner_text() == "Annie now counts as Ann."
    page.locator(".pstat[data-key='annie']").wait_for(state="detached")
    ann = page.locator(".pstat[data-key='ann']").inner_text()
    assert "Games\n2" in ann and "also written Annie" in ann
    no_sideways_scroll(page)
    page.screenshot(path=str(ARTIFACTS / "phone-360-history-merged.png"), full_page=True)
    page.click("#lang")  # a refusal in French: Ann and Ben never sat at one table, Ann and Cy did
    page.select_option("#merge-name", "Cy")
    page.select_option("#merge-into", "Ann")
    page.click("#merge button")
    page.wait_for_selector("#said.bad")
    assert "ont joué ensemble" in page.locator("#said").inner_text()
    page.click("[data-unmerge='Annie']")
    page.locator(".pstat[data-key='annie']").wait_for()
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_axe_finds_no_serious_or_critical_violation_on_the_history_page(
    server: Any, browser: Any, lang: str
) -> None:
    """Players, chart, games (a merged spelling among them), the host's merge form and a
    refusal, in the light and the dark colour scheme, at 360 px."""
    base, rt = server
    script = axe_script()
    finished_game(rt.store, ["Annie", "Ben"], 14)
    finished_game(rt.store, ["Ann", "Cy", "Ben"], 15)
    post(base, "/api/players/merge", {"name": "Annie", "into": "Ann"})
    # bypass_csp: only so that axe-core can be injected; the page's own code runs under its CSP anyway
    page = browser.new_page(viewport=PHONE, bypass_csp=True)
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/history")
    page.wait_for_selector(".game details.story-box[open] .clock-line")  # the newest game's story
    pin_entered(page, "0000", "#said.bad", "#hpin", "#hlogin button")
    problems: list[str] = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        problems.extend(f"{scheme}: {p}" for p in axe(page, script))
        page.screenshot(path=str(ARTIFACTS / f"axe-history-{lang}-{scheme}.png"), full_page=True)
    page.fill("#hpin", "2468")
    page.click("#hlogin button")
    page.wait_for_selector("#merge:not([hidden])")
    problems.extend(f"host: {p}" for p in axe(page, script))
    assert problems == [], "\n".join(problems)
