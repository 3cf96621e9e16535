"""On a PC (mock mode) the page says where the virtual reader is, in English and French
(issue 24, item 10): before the host logs in, a line under the header; by the reader's field,
how to use it (a card's id or title, or the console's c, y, u keys)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import ARGS, chromium, log_in_as_host, playwright, served, watched_page

expect = playwright().expect

WORDS = {
    "en": ("the virtual reader is under Host", "Virtual reader: type a card's id or title here"),
    "fr": ("le lecteur virtuel est sous Hôte", "Lecteur virtuel\u202f: tapez ici l'id ou le titre"),
}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_page_says_where_the_virtual_reader_is(tmp_path: Path, lang: str) -> None:
    where, help_line = WORDS[lang]
    with served(tmp_path, "Ann,Ben") as (base, _rt), chromium(ARGS) as browser:
        errors: list[str] = []
        page = watched_page(
            browser, base + "/", errors, viewport={"width": 360, "height": 780}, locale=f"{lang}-FR"
        )
        page.wait_for_selector("#players .player")
        expect(page.locator("#mock-where")).to_be_visible()
        expect(page.locator("#mock-where")).to_contain_text(where)
        log_in_as_host(page)
        expect(page.locator("#mock-where")).to_be_hidden()  # the reader itself is on screen now
        expect(page.locator("#mock-help")).to_be_visible()
        expect(page.locator("#mock-help")).to_contain_text(help_line)
        page.fill("#tag", "c")  # the console's key works in the page's field too
        page.click("#tap button")
        assert errors == []
