"""The page as a family meets it (issue 11), in Chromium at 360 px and 1280 px.

Each check names the item of the issue it covers. axe-core is fetched from the
npm registry into ``.cache/axe`` on first use (``AXE_CORE`` may point at an
``axe.min.js`` instead) and injected into the page; serious or critical
accessibility violations fail the test.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import ARGS, ARTIFACTS, CHROMIUM, post

from companion.app import make_server

from tests_support import make_runtime, play_turn, require_tool

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
#: Sentences of the English page that must never show on the French one.
ENGLISH = re.compile(
    r"\b(took|turn|Reveal|Revealed|Undone|crystals? (spent|chosen)|lands at|wins|is over|Tap the|"
    r"has not chosen|is not|cannot|Unknown tag|still in the|Not accepted|Punctual|Confirm|Crystal)\b"
)


def axe_script() -> Path:
    given = os.environ.get("AXE_CORE")
    if given:
        return Path(given)
    path = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
    if not path.exists() and shutil.which("npm"):
        subprocess.run(
            [
                "npm",
                "install",
                "--silent",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(path.parents[2]),
                "axe-core@4",
            ],
            check=False,
            timeout=300,
        )
    require_tool(
        path.exists(), "axe-core is not installed and npm could not fetch it", "npm install axe-core"
    )
    return path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy", seed=8)
    srv = make_server(rt, "127.0.0.1", 0, threads=8, heartbeat=1.0)
    port = srv.socket.getsockname()[1]  # type: ignore[attr-defined]
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", rt
    srv.close()
    rt.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def host_page(browser: Any, base: str, width: int, lang: str = "en") -> Any:
    # bypass_csp: only so that axe-core can be injected; the page's own code runs under its CSP anyway
    page = browser.new_page(viewport={"width": width, "height": 780 if width < 600 else 900}, bypass_csp=True)
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    page.click("#host-toggle")
    page.fill("#pin", "2468")
    page.click("#login button")
    page.wait_for_selector("#controls:not([hidden])")
    return page


def synced(page: Any, rt: Any) -> None:
    """Wait until the page shows the table's current version."""
    page.wait_for_function(f"() => state && state.version >= {rt.table.version}", timeout=10000)


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height + 1


def axe(page: Any, script: Path) -> list[str]:
    page.add_script_tag(path=str(script))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("width", [360, 1280])
def test_the_live_turn_is_where_the_thumb_is_and_the_page_speaks_plainly(
    server: Any, browser: Any, width: int
) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    page = host_page(browser, base, width)
    # 13: while the first player chooses an Itinerary, their card is the one outlined
    chooser = rt.table.expect()["player"]
    assert page.locator("#players .player.turn .name").inner_text().strip() == chooser
    # 2: no select is blank, so Start and the corrections work as loaded
    page.locator("#host details").nth(0).evaluate("d => d.open = true")
    page.locator("#host details").nth(1).evaluate("d => d.open = true")
    page.wait_for_function("() => document.getElementById('edition').value === 'reference'")
    for select in ("#wild1", "#itin-player", "#itin-id"):
        assert page.locator(select).input_value(), select
    page.click("#itin button")  # nobody has an Itinerary yet: the error names the player
    page.wait_for_selector("#last.bad")
    assert page.locator("#last").inner_text().startswith("✗ Ann has not chosen an Itinerary")
    assert in_view(page, "#last"), "3: the answer shows where the hands are"
    # itineraries through the quick buttons, which show what they are (11)
    while rt.table.expect()["kind"] == "itinerary":
        button = page.locator("#quick button").first
        assert button.inner_text().startswith("Itinerary ")
        button.click()
        page.wait_for_function(
            f"() => state && state.version > {rt.table.version - 1} && state.events >= {rt.table.seq}"
        )
    synced(page, rt)
    # 3: whose turn, the buttons and the latest message are on screen, not at the top of a long page
    assert in_view(page, "#now") and in_view(page, "#banner") and in_view(page, "#now-crystal")
    assert "'s turn" in page.locator("#banner").inner_text()
    # 18: row cards the player may take say so, and they are buttons
    assert page.locator("#row li.pick .tap-hint").count() >= 1
    assert page.locator("#row li.pick button.cell").count() >= 1
    # 10: long titles stay inside their card
    overflow = page.evaluate(
        "[...document.querySelectorAll('#row .cell')].filter(c => c.scrollWidth > c.clientWidth + 1).length"
    )
    assert overflow == 0
    # 11: labelled parts, titled itineraries, legend, trek chips with card counts
    parts = page.locator("#players .player .parts").first.inner_text()
    assert "Track" in parts and "Crystals" in parts and "treks" not in parts
    assert "Person" in page.locator("#legend").inner_text()
    assert "Itinerary T" in page.locator("#players").inner_text()
    assert (
        "row 1:" in page.locator("#players").inner_text()
        and "1=" not in page.locator("#players").inner_text()
    )
    # 4: a card still in the deck
    board = rt.table.board
    unseen = next(
        c.id for i, c in enumerate(board.edition.cards) if c.day == board.day and not board.revealed >> i & 1
    )
    page.fill("#tag", unseen)
    page.click("#tap button")
    page.wait_for_function(
        "() => document.getElementById('last').textContent.includes('still in the Day I deck')"
    )
    # the lighter turn: one tap takes a card; Crystal before the tap shows on the banner
    mover = rt.table.board.player_to_move
    if rt.table.board.crystals[rt.table.board.turn]:
        page.click("#now-crystal")
        page.wait_for_function("() => document.getElementById('banner').textContent.includes('crystal')")
        page.click("#now-undo")
        page.wait_for_function("() => !document.getElementById('banner').textContent.includes('crystal')")
    seq = rt.table.seq
    page.locator("#row li.pick button.cell").first.click()
    page.wait_for_function(f"() => state && state.events > {seq}")
    assert f"{mover} took" in page.locator("#last").inner_text(), "3: the result of a tap is on screen"
    assert in_view(page, "#last")
    assert "visits" not in page.locator("body").inner_text()
    # 8: the clock draws every watch, and the landing preview of a take being prepared
    assert page.locator("#clock g.watch").count() == 3
    rng = random.Random(3)
    rt.table.turn_style = "confirm"  # the first design's preview, kept as an option
    for _ in range(200):
        expect = rt.table.expect()
        if expect["kind"] == "take":
            held = rt.table.board.crystals[rt.table.board.turn]
            option = next((o for o in rt.table.board.take_options() if o.max_crystals), None)
            if held and option is not None:
                break
        play_turn(rt, rng)
    post(base, "/api/reader/tap", {"tag": option.card})
    page.wait_for_selector("#clock circle.preview")
    # 12: once no more crystals can be spent, the banner no longer offers Crystal
    for _ in range(option.max_crystals):
        post(base, "/api/buttons/crystal")
    synced(page, rt)
    assert "Crystal" not in page.locator("#banner").inner_text()
    assert page.locator("#now-crystal").is_disabled()
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-preview.png"))
    post(base, "/api/buttons/confirm")
    rt.table.turn_style = "quick"
    # 5: a tap made while the companion cannot be reached is reported, not lost
    page.route("**/api/buttons/*", lambda route: route.abort())
    page.click("#now-undo")
    page.wait_for_function("() => document.getElementById('last').textContent.includes('cannot be reached')")
    page.unroute("**/api/buttons/*")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 2
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-midgame.png"))
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-midgame-full.png"), full_page=True)
    # 17: the end screen
    while not rt.table.board.finished:
        play_turn(rt, rng)
    page.wait_for_selector("#end:not([hidden])", timeout=10000)
    synced(page, rt)
    text = page.locator("body").inner_text()
    assert text.count("wins!") + text.count("share the victory") == 1, "the winner is announced once"
    assert page.locator("#breakdown th").first.inner_text() == "Player"
    assert "cards per trek" in page.locator("#breakdown").inner_text()
    assert page.locator("#chart-legend li").count() == 3
    assert page.locator("#chart polyline[stroke-dasharray='8 4']").count() == 1, "told apart without colour"
    assert page.locator("#chart text").count() >= 4, "axes with values"
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-end.png"), full_page=True)


def test_after_an_outage_the_page_polls_says_so_and_returns_to_the_live_stream(
    server: Any, browser: Any
) -> None:
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.add_init_script("window.TREK_STREAM_FAILURES = 1; window.TREK_STREAM_RETRY_MS = 1500")
    page.route("**/api/events", lambda route: route.abort())
    page.goto(base + "/")
    page.wait_for_selector("#notice:not([hidden])", timeout=20000)
    assert "refreshing every 2 s" in page.locator("#notice").inner_text()
    assert page.locator("#notice").get_attribute("class") == "notice", "a warning, not the success style"
    assert "refreshing" not in page.locator("#last").inner_text()
    assert in_view(page, "#notice")
    play_turn(rt, random.Random(1))
    synced(page, rt)  # polling brings the change
    page.unroute("**/api/events")
    page.wait_for_selector("#notice", state="hidden", timeout=20000)
    assert page.evaluate("() => pollTimer === null"), "polling stopped once the stream is back"
    play_turn(rt, random.Random(2))
    synced(page, rt)


def test_start_asks_before_replacing_a_game_starts_one_and_remembers_the_seats(
    server: Any, browser: Any
) -> None:
    base, rt = server
    page = host_page(browser, base, 360)
    rng = random.Random(2)
    for _ in range(4):
        play_turn(rt, rng)
    synced(page, rt)
    page.locator("#host details").nth(1).evaluate("d => d.open = true")
    page.fill("#seats .seat:nth-child(1) input[type=text]", "Zoé")
    page.fill("#seats .seat:nth-child(3) input[type=text]", "Yann")
    game = rt.table.game_id
    page.once("dialog", lambda d: d.dismiss())
    page.click("#newgame button[type=submit]")
    page.wait_for_timeout(300)
    assert rt.table.game_id == game, "15: no new game without a yes"
    page.on("dialog", lambda d: d.accept())
    page.dblclick("#newgame button[type=submit]")
    page.wait_for_function(f"() => state && state.game > {game}")
    page.wait_for_timeout(500)
    assert rt.table.game_id == game + 1, "15: a double click starts one game"
    assert list(rt.table.board.names) == ["Zoé", "Ben", "Yann"]
    page.reload()
    page.wait_for_selector("#seats .seat", state="attached")
    assert page.locator("#seats .seat:nth-child(1) input[type=text]").input_value() == "Zoé"


def test_a_whole_game_in_french_shows_no_english_sentence(server: Any, browser: Any) -> None:
    base, rt = server
    page = host_page(browser, base, 360, lang="fr")
    assert page.evaluate("document.documentElement.scrollWidth") <= 362, "9: 'Hôte' fits at 360 px"
    seen: list[str] = []

    def look() -> None:
        synced(page, rt)
        seen.append(page.locator("#now").inner_text())

    rng = random.Random(9)
    board = rt.table.board
    rt.tap("04A2B3C4")  # an unknown tag
    look()
    unseen = next(
        c.id for i, c in enumerate(board.edition.cards) if c.day == board.day and not board.revealed >> i & 1
    )
    rt.tap(unseen)  # a card still in the deck
    look()
    rt.tap(rt.table.state_json()["row"][3])  # no itinerary yet
    look()
    steps = 0
    while not board.finished:
        play_turn(rt, rng)
        steps += 1
        if steps % 3 == 0:
            look()
        if steps == 20:
            rt.press("confirm")  # nothing to confirm
            look()
            rt.press("undo")
            look()
    look()
    seen.append(page.locator("body").inner_text())
    english = [text for text in seen if ENGLISH.search(text)]
    assert not english, english[:3]
    page.screenshot(path=str(ARTIFACTS / "family-360-fr-end.png"), full_page=True)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_axe_finds_no_serious_or_critical_violation(server: Any, browser: Any, lang: str) -> None:
    base, rt = server
    script = axe_script()
    page = host_page(browser, base, 360, lang=lang)
    for details in page.locator("#host details").all():
        details.evaluate("d => d.open = true")
    rng = random.Random(5)
    for _ in range(10):
        play_turn(rt, rng)
    synced(page, rt)
    problems = axe(page, script)
    while not rt.table.board.finished:
        play_turn(rt, rng)
    page.wait_for_selector("#end:not([hidden])", timeout=10000)
    problems += axe(page, script)
    desktop = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    desktop.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    desktop.goto(base + "/")
    desktop.wait_for_selector("#end:not([hidden])")
    problems += axe(desktop, script)
    assert problems == [], "\n".join(problems)
