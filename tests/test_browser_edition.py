"""Transcribing a whole box through the page, in a real browser, counting every tap.

The box is a data file (the shipped reference edition stands in for a family's
copy: 108 cards, 24 itineraries, the playmat, the trek table and the Ancestor).
Playwright plays the owner at a 360 px phone: each card's sticker is tapped on
the (mock) reader, then the form is filled the fast way: the Day only when it
changes, the year on the keypad, the hours in one tap, the benefits as tokens,
no title, Save. Every on-screen tap and every key is counted; the figures are
printed and kept in ``test-artifacts/transcription-counts.json`` for the report.
The test checks the edition the page saved is exactly the box's values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.editions import shipped_edition
from companion.engine.edition import edition_to_json
from companion.library import EditionLibrary, is_complete

from browser_support import ARTIFACTS, chromium, playwright, post, served, watched_page

ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

expect = playwright().expect

BOX = edition_to_json(shipped_edition("reference"))
LABEL = {"person": "Person", "event": "Event", "innovation": "Innov.", "progress": "Progress",
         "wild": "Wild", "crystal": "Crystal"}  # fmt: skip
COLUMNS = ("person", "event", "innovation", "progress")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    with served(tmp_path, "Ann,Ben") as table:
        yield table


def reader_tap(base: str, tag: str) -> None:
    """A sticker on the reader (mock mode's virtual reader: what the real one reports)."""
    post(base, "/api/reader/tap", {"tag": tag})


class Owner:
    """Clicks and types on the page, counting each tap and key as a person would make them."""

    def __init__(self, page: Any) -> None:
        self.page, self.taps, self.keys, self.stickers = page, 0, 0, 0

    def tap(self, selector: str) -> None:
        self.page.click(selector)
        self.taps += 1

    def type(self, selector: str, text: str) -> None:
        self.page.click(selector)
        self.page.fill(selector, "")
        self.page.type(selector, text)
        self.taps += 1
        self.keys += len(text)

    def mark(self) -> tuple[int, int, int]:
        return self.taps, self.keys, self.stickers


def test_a_whole_box_transcribed_through_the_page(server: Any, browser: Any) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    page = watched_page(browser, base + "/edition", errors, viewport={"width": 360, "height": 780})
    owner = Owner(page)
    owner.type("#pin", "2468")
    owner.tap("#login-form button")
    page.wait_for_selector("#create:not([hidden])")
    owner.type("#new-name", "my-box")
    owner.tap("#create button")
    expect(page.locator("#progress")).to_contain_text("Day I: 0/36")
    setup = owner.mark()

    # --- 108 cards --------------------------------------------------------------------------
    day = 1
    for n, c in enumerate(BOX["cards"]):
        reader_tap(base, f"TAG-{c['id']}")
        owner.stickers += 1
        expect(page.locator("#tag-status")).to_contain_text(f"TAG-{c['id']}:")
        if c["day"] != day:
            owner.tap(f"#day button[data-day='{c['day']}']")
            day = c["day"]
        for digit in str(abs(c["year"])):
            owner.tap(f"#keypad button:text-is('{digit}')")
        if c["year"] < 0:
            owner.tap("#bce")
        owner.tap(f"#hours button[data-v='{c['hours']}']")
        for gain in c["gains"]:
            owner.tap(f"#tokens button[data-v='{gain}']")
        if n == 40:
            page.screenshot(path=str(ARTIFACTS / "edition-phone-360-card.png"), full_page=True)
        owner.tap("#save-card")
        expect(page.locator("#card-msg")).to_have_text(re.compile(f"^Saved {c['id']} "))
    after_cards = owner.mark()
    assert "Day III: 36/36" in page.locator("#progress").inner_text()

    # --- 24 itineraries -----------------------------------------------------------------------
    owner.tap("#tabs button[data-tab='its']")
    for n, it in enumerate(BOX["itineraries"]):
        reader_tap(base, f"TAG-{it['id']}")
        owner.stickers += 1
        expect(page.locator("#it-msg")).to_contain_text(f"Tag TAG-{it['id']}: a new itinerary")
        if page.input_value("#it-id") != it["id"]:
            owner.type("#it-id", it["id"])
        for kind in COLUMNS:
            spaces = it["columns"].get(kind, [])
            for space in spaces:
                value = "null" if space is None else str(space)
                owner.tap(f"#palette button[data-v='{value}']")
            if len(spaces) < 6:  # the grid has six rows; a full column moves on by itself
                owner.tap("#palette button[data-v='end']")
        for reward in it["rows"]:
            owner.tap(f"#palette button[data-v='{'null' if reward is None else reward}']")
        if n == 1:
            page.screenshot(path=str(ARTIFACTS / "edition-phone-360-itinerary.png"), full_page=True)
        owner.tap("#save-it")
        expect(page.locator("#it-msg")).to_have_text(re.compile(f"^Saved {it['id']}\\."))
    after_itineraries = owner.mark()

    # --- playmat and trek table (entered from scratch: each position cleared first) -----------
    owner.tap("#tabs button[data-tab='mat']")
    for i, slot in enumerate(BOX["slots"]):
        row = f"#slots > div:nth-child({i + 1})"
        owner.tap(f"{row} button[data-v='back']")  # the base edition's value, cleared
        for gain in slot:
            owner.tap(f"{row} button[data-v='{gain}']")
    for i, points in enumerate(BOX["treks"]):
        owner.type(f"#treks input:nth-child({i + 1})", str(points))
    owner.type("#beyond", str(BOX["trek_beyond"]))
    page.screenshot(path=str(ARTIFACTS / "edition-phone-360-playmat.png"), full_page=True)
    owner.tap("#save-mat")
    expect(page.locator("#mat-msg")).to_have_text(re.compile("^Saved"))
    after_playmat = owner.mark()

    # --- the Ancestor -------------------------------------------------------------------------
    owner.tap("#tabs button[data-tab='anc']")
    reader_tap(base, "TAG-ancestor")
    owner.stickers += 1
    expect(page.locator("#anc-msg")).to_contain_text("Tag TAG-ancestor: Save binds it to the Ancestor")
    owner.tap(f"#anc-hours button[data-v='{BOX['ancestor']['hours']}']")
    for gain in BOX["ancestor"]["gains"]:
        owner.tap(f"#anc-tokens button[data-v='{gain}']")
    for players, copies in BOX["ancestors"].items():
        owner.type(f"#anc-{players}", str(copies))
    owner.tap("#save-anc")
    expect(page.locator("#anc-msg")).to_have_text(re.compile("^Saved"))
    total = owner.mark()

    # --- what was saved is the box ------------------------------------------------------------
    saved = EditionLibrary(rt.store.path.parent).raw("my-box")
    fields = ("id", "day", "year", "hours", "gains")
    assert [{k: c[k] for k in fields} for c in saved["cards"]] == [
        {k: c[k] for k in fields} for c in BOX["cards"]
    ]
    strip = [{**it, "columns": {k: v for k, v in it["columns"].items() if v}} for it in BOX["itineraries"]]
    assert saved["itineraries"] == strip
    for key in ("slots", "treks", "trek_beyond", "ancestor", "ancestors"):
        assert saved[key] == BOX[key], key
    assert is_complete(EditionLibrary(rt.store.path.parent).load("my-box"))
    tags = rt.store.tags()
    assert len(tags) == 108 + 24 + 1 and tags["TAG-II07"] == "II07" and tags["TAG-ancestor"] == "ancestor"

    desktop = browser.new_page(viewport={"width": 1280, "height": 900})
    desktop.goto(base + "/edition")
    desktop.fill("#pin", "2468")
    desktop.click("#login-form button")
    desktop.wait_for_selector("#main:not([hidden])")
    expect(desktop.locator("#progress")).to_contain_text("Itineraries: 24/24")
    desktop.screenshot(path=str(ARTIFACTS / "edition-desktop-1280.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 362, "no sideways scroll at 360 px"
    assert errors == []

    def part(a: tuple[int, int, int], b: tuple[int, int, int]) -> dict[str, int]:
        return {"taps": b[0] - a[0], "keys": b[1] - a[1], "stickers": b[2] - a[2]}

    counts = {
        "setup": part((0, 0, 0), setup),
        "cards": {**part(setup, after_cards), "count": len(BOX["cards"])},
        "itineraries": {**part(after_cards, after_itineraries), "count": len(BOX["itineraries"])},
        "playmat_and_treks": part(after_itineraries, after_playmat),
        "ancestor": part(after_playmat, total),
        "total": part((0, 0, 0), total),
    }
    (ARTIFACTS / "transcription-counts.json").write_text(json.dumps(counts, indent=1) + "\n")
    print(json.dumps(counts))


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium(ARGS) as b:
        yield b


def test_a_bound_sticker_reopens_its_card_and_warnings_do_not_block(server: Any, browser: Any) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    page = watched_page(browser, base + "/edition", errors, viewport={"width": 360, "height": 780})
    page.fill("#pin", "2468")
    page.click("#login-form button")
    page.fill("#new-name", "family")
    page.click("#create button")
    expect(page.locator("#progress")).to_contain_text("Day I: 0/36")
    reader_tap(base, "04AB")
    expect(page.locator("#tag-status")).to_contain_text("Tag 04AB: a new Day I card")
    page.click("#day button[data-day='3']")
    for key in "3000":
        page.click(f"#keypad button:text-is('{key}')")
    page.click("#bce")
    page.click("#hours button[data-v='2']")
    page.click("#tokens button[data-v='event']")
    page.fill("#title", "Too early for Day III")
    page.click("#save-card")
    expect(page.locator("#card-msg")).to_contain_text("outside Day III")
    assert "warn" in (page.locator("#card-msg").get_attribute("class") or "")
    assert rt.store.tags()["04AB"] == "III01", "saved and bound despite the warning"
    reader_tap(base, "04AB")
    expect(page.locator("#tag-status")).to_contain_text("Tag 04AB is III01 (Too early for Day III)")
    assert page.locator("#year-out").inner_text() == "3000 BCE"
    page.click("#unbind")
    expect(page.locator("#card-msg")).to_contain_text("Tag 04AB is free again")
    assert "04AB" not in rt.store.tags()
    page.screenshot(path=str(ARTIFACTS / "edition-phone-360-rebind.png"), full_page=True)
    assert errors == []


def test_the_page_speaks_french_to_a_french_phone(server: Any, browser: Any) -> None:
    base, _ = server
    errors: list[str] = []
    page = watched_page(
        browser, base + "/edition", errors, viewport={"width": 360, "height": 780}, locale="fr-FR"
    )
    page.fill("#pin", "2468")
    page.click("#login-form button")
    page.fill("#new-name", "famille")
    page.click("#create button")
    expect(page.locator("#progress")).to_contain_text("Jour I: 0/36")
    assert "(brouillon)" in page.locator("#edition").inner_text()
    assert page.locator("h1").inner_text() == "Votre boîte"
    reader_tap(base, "04CD")
    expect(page.locator("#tag-status")).to_contain_text("Pastille 04CD : une nouvelle carte du Jour I.")
    page.click("#keypad button:text-is('5')")
    page.click("#bce")
    assert page.locator("#year-out").inner_text() == "5 av. J.-C."
    page.screenshot(path=str(ARTIFACTS / "edition-phone-360-fr.png"), full_page=True)
    assert errors == []
