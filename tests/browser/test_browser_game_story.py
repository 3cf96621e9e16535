"""A game's story at the end (issue 37 item 9): the end screen and each game in /history show
every player's points and Clock over the game, the turns that completed a trek or took an
Ancestor marked and explained, saved as one SVG made on the page with the BG Stats link beside
it; on a 360 px phone, in English and French, in Chromium."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from companion.engine import Take
from companion.engine.tokens import ANCESTOR
from tests.support.browser import playwright
from tests.support.browser import shot as taken
from tests.support.tables import play_turn

playwright()

#: The players of the table `server` (tests/conftest.py) serves.
PLAYERS = "Mia,Théo,Papi"
SHOTS = Path("/tmp") / "family-game-story"
SVG = "{http://www.w3.org/2000/svg}"
#: The words a family reads on the chart, by language.
WORDS = {
    "en": {
        "title": "Points and the Clock through the game",
        "marks": ["Trek completed", "Ancestor taken"],
        "days": ["Day I", "Day II", "Day III"],
        "clock": "Clock (h)",
        "table": "The chart as a table",
    },
    "fr": {
        "title": "Les points et l'Horloge au fil de la partie",
        "marks": ["Voyage terminé", "Ancêtre pris"],
        "days": ["Jour I", "Jour II", "Jour III"],
        "clock": "Horloge (h)",
        "table": "Le graphique en tableau",
    },
}


def shot(page: Any, name: str, full: bool = False) -> None:
    taken(page, SHOTS, name, full)


def finish(rt: Any) -> dict[str, int]:
    """The table's game played to its end by taps and presses; what the story must mark, counted
    from the board (its completed treks, its Ancestors taken) and its takes."""
    rng = random.Random(4)
    while not rt.table.board.finished:
        play_turn(rt, rng)
    board = rt.table.board
    takes = [e for e in board.moves if isinstance(e, Take)]
    counted = {
        "turns": len(takes),
        "treks": sum(len(t) for t in board.treks),
        "ancestors": sum(e.card == ANCESTOR for e in takes),
    }
    assert counted["treks"] and counted["ancestors"], "a game with both marks to show"
    return counted


def check_story(page: Any, root: str, rt: Any, counted: dict[str, int], lang: str) -> None:
    """The story drawn in ``root`` (a figure of chart.js drawStory): a points line and a Clock line per
    player in their colour, the marks where the board says, the Days named, a legend of the
    marks in the catalogues' words, the table for a screen reader."""
    words = WORDS[lang]
    state = rt.table.state_json()
    colours = [p["colour"] for p in state["players"]]
    page.wait_for_selector(f"{root} .story-clock path.clock-line")
    lines = page.locator(f"{root} .story-points polyline")
    assert [lines.nth(k).get_attribute("stroke") for k in range(lines.count())] == colours, "as on the ring"
    clock = page.locator(f"{root} .story-clock path.clock-line")
    assert [clock.nth(k).get_attribute("stroke") for k in range(clock.count())] == colours
    # each Clock line starts each Day at 0 and ends the game at 12 (every watch at 12)
    ends = page.evaluate(
        f"[...document.querySelectorAll('{root} .story-clock path.clock-line')].map((p) => "
        "[p.getAttribute('d').split('M').length - 1, p.getAttribute('d').split('L').length - 1, "
        "p.getPointAtLength(p.getTotalLength()).y])"
    )
    top = page.evaluate(f"document.querySelector('{root} .story-clock line').getAttribute('y1')")
    assert ends == [[3, counted["turns"], float(top)]] * 3, (ends, top)
    assert page.locator(f"{root} .story-points g.mark-trek").count() == counted["treks"]
    assert page.locator(f"{root} .story-points g.mark-ancestor").count() == counted["ancestors"]
    texts = page.locator(f"{root} .story-clock text").all_text_contents()
    assert all(day in texts for day in words["days"]) and words["clock"] in texts, texts
    marks = page.locator(f"{root} .story-marks li").all_inner_texts()
    assert [m.strip() for m in marks] == words["marks"]
    for p in state["players"]:
        legend = page.locator(f"{root} .story-legend").inner_text()
        assert f"{p['name']} ({p['total']})" in legend
        said = page.locator(f"{root} .story-points").get_attribute("aria-label")
        assert f"{p['name']} {p['total']}" in said
    assert page.locator(f"{root} .story-table-box summary").inner_text() == words["table"]
    rows = page.locator(f"{root} .story-table tbody tr:not(.story-day)")
    assert rows.count() == counted["turns"]
    last = rows.nth(counted["turns"] - 1).locator("td")
    assert [last.nth(2 + k).evaluate("td => td.firstChild.textContent") for k in range(3)] == [
        str(p["total"]) for p in state["players"]
    ]
    # legible at 360 px: every word and number of the pictures is drawn at 10 px or more
    smallest = page.evaluate(
        f"Math.min(...[...document.querySelectorAll('{root} svg[viewBox] text')].map((t) => "
        "Number(t.getAttribute('font-size')) * t.ownerSVGElement.getBoundingClientRect().width / 330))"
    )
    assert smallest >= 10, smallest
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "nothing overflows 360 px"


def check_saved(page: Any, save: str, counted: dict[str, int], rt: Any, lang: str) -> None:
    """The Save link gives one SVG file made on the page: both pictures, every mark, the legend."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    with page.expect_download() as saved:
        page.click(save)
    svg = Path(saved.value.path()).read_text("utf-8")
    saved.value.save_as(SHOTS / f"9-saved-{save.split()[0].strip('#')}-{lang}.svg")  # to look at
    root = ET.fromstring(svg)  # one well-formed SVG file
    assert saved.value.suggested_filename == f"trekking-game-{rt.table.game_id}.svg"
    assert len(root.findall(f".//{SVG}polyline")) == 3
    assert len(root.findall(f".//{SVG}path")) == 3  # the Clock lines
    groups = [g.get("class") for g in root.iter(f"{SVG}g")]
    assert groups.count("mark-trek") == counted["treks"]
    assert groups.count("mark-ancestor") == counted["ancestors"]
    words = WORDS[lang]
    for word in [words["title"], *words["marks"], *words["days"]]:
        assert word.replace("'", "&#39;") in svg, word
    for p in rt.table.state_json()["players"]:
        assert f"{p['name']} ({p['total']})" in svg, p["name"]
    assert requests == [], "made on the page, no network"


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_9_the_end_screen_tells_the_game_s_story_points_clock_and_marks(phone: Any, server: Any) -> None:
    _base, rt = server
    counted = finish(rt)
    lang = phone.evaluate("lang")
    phone.wait_for_selector("#end:not([hidden])", timeout=30000)
    check_story(phone, "#story", rt, counted, lang)
    assert phone.locator("#end h3").first.inner_text() == WORDS[lang]["title"]
    # Save and BG Stats side by side, under the chart
    phone.wait_for_selector("#bgstats-link:not([hidden])", timeout=30000)
    share = phone.locator("#chart-save").locator("xpath=..")
    assert share.locator("#bgstats-link").count() == 1
    assert phone.locator("#chart-save").is_visible() and phone.locator("#bgstats-link").is_visible()
    phone.locator("#story").scroll_into_view_if_needed()
    shot(phone, f"9-end-story-{lang}")
    phone.locator("#chart-marks").evaluate("e => e.scrollIntoView({ block: 'center' })")
    shot(phone, f"9-end-legend-{lang}")  # the legend and Save beside BG Stats, clear of the bars
    phone.locator("#end").screenshot(path=str(SHOTS / f"9-end-section-{lang}.png"))
    phone.click("#story .story-table-box summary")
    phone.locator("#story .story-table-box").screenshot(path=str(SHOTS / f"9-end-table-{lang}.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the table fits too"
    wrap = "document.querySelector('#story .story-table-wrap')"
    assert phone.evaluate(f"{wrap}.scrollWidth <= {wrap}.clientWidth"), "and reads without sideways scroll"
    check_saved(phone, "#chart-save", counted, rt, lang)


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_9_each_game_in_history_tells_its_story_with_save_beside_bg_stats(phone: Any, server: Any) -> None:
    base, rt = server
    counted = finish(rt)
    lang = phone.evaluate("lang")
    phone.wait_for_selector("#end:not([hidden])", timeout=30000)
    phone.goto(f"{base}/history")
    game = f"#game-{rt.table.game_id}"
    phone.wait_for_selector(f"{game} details.story-box[open]")  # the newest game's story, open
    check_story(phone, f"{game} .story", rt, counted, lang)
    share = phone.locator(f"{game} .share")
    assert share.locator(".story-save").is_visible() and share.locator(".bgstats-game").is_visible()
    phone.locator(f"{game} .story").evaluate("e => e.scrollIntoView({ block: 'start' })")
    shot(phone, f"9-history-story-{lang}")
    phone.locator(game).screenshot(path=str(SHOTS / f"9-history-game-{lang}.png"))
    check_saved(phone, f"{game} .story-save", counted, rt, lang)
    # the other language redraws the story in its words, still open
    phone.click("#lang")
    other = "fr" if lang == "en" else "en"
    phone.wait_for_function(f"document.documentElement.lang === '{other}'")
    phone.wait_for_function(
        f"[...document.querySelectorAll('{game} .story-marks li')].map((l) => l.textContent.trim()).join('|')"
        f" === {'|'.join(WORDS[other]['marks'])!r}"
    )
    check_story(phone, f"{game} .story", rt, counted, other)
