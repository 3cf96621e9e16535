"""The hall's league in a real browser at 360 px (issue 23.3): the players' figures and ratings
fit a phone (the table scrolls inside its box, never the page), seasons are links, the host
logs in with the hall's PIN and merges two names through the form, in English and French."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.table.access import Access
from companion.venue.hall_web import create_hall_app
from tests.support.browser import ARTIFACTS, playwright, watched_page
from tests.support.league import PIN, fed_hall

playwright()

PHONE = {"width": 360, "height": 780}


@pytest.fixture
def hall_page(tmp_path: Path) -> Iterator[str]:
    """The hall's app with the venue's games, served by waitress on a free port: its address."""
    from waitress import create_server

    with fed_hall(tmp_path) as (hall, book, _):
        server = create_server(create_hall_app(hall, Access.for_pin(PIN), book), host="127.0.0.1", port=0)
        port = server.socket.getsockname()[1]  # type: ignore[attr-defined]
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{port}"
        server.close()


def names(page: Any) -> list[str]:
    return [str(n) for n in page.locator("#league tbody td:nth-child(2)").all_inner_texts()]


def test_the_league_fits_a_phone_and_the_host_merges_two_names(hall_page: str, browser: Any) -> None:
    errors: list[str] = []
    phone = watched_page(browser, hall_page + "/league", errors, viewport=PHONE)
    phone.wait_for_selector("#league tbody tr")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362, "no sideways scroll at 360 px"
    shown = names(phone)
    assert len(shown) == 5 + 1 and "marc" in shown and "Marc D." in shown  # Ann Ben Cy Dee marc Marc D.
    heads = phone.locator("#league th").all_inner_texts()
    assert heads[2] == "Rating" and heads[-2] == "μ"
    assert phone.locator("select[name=alias]").count() == 0, "a guest has no host form"
    phone.fill("input[name=pin]", PIN)
    phone.click("form[action='/league/login'] button")
    phone.wait_for_selector("select[name=alias]")
    phone.select_option("select[name=alias]", "marc d.")
    phone.select_option("select[name=into]", "marc")
    phone.click("form[action='/league/merge'] button")
    phone.wait_for_selector("form[action='/league/unmerge']")
    merged = names(phone)
    assert len(merged) == 5 and "Marc D." not in merged
    assert any(n.startswith("marc") and "Marc D." in n for n in merged), merged  # spellings beside
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "hall-league-360.png"), full_page=True)
    phone.goto(hall_page + "/league?lang=fr")
    phone.wait_for_selector("#league tbody tr")
    assert phone.locator("h1").inner_text() == "Le classement du lieu"
    assert phone.locator("#league th").all_inner_texts()[2] == "Classement"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362
    assert not errors, errors
