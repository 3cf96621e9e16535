"""Issue 16, item 10, on the page: a name that shows nothing, or the same name spelt twice.

The French page says why the game was not started, in French, at phone width; the server's
refusal (a Hangul filler, U+3164, alone) and the page's own check ("Zoé" composed and
decomposed, which look the same) both reach the player.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from tests.support.browser import ARGS, ARTIFACTS, chromium, log_in_as_host, playwright, watched_page

playwright()


def start_with(page: Any, names: list[str]) -> None:
    seats = page.locator("#seats .seat input[type=text]")
    for n in range(seats.count()):
        seats.nth(n).fill(names[n] if n < len(names) else "")
    page.click("#newgame button[type=submit]")


def test_the_french_page_says_why_a_blank_or_doubled_name_starts_no_game(server: Any) -> None:
    base, rt = server
    errors: list[str] = []
    with chromium(ARGS) as browser:
        page = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 800})
        page.wait_for_selector("#players .player")
        if page.locator("#lang").inner_text() == "FR":
            page.click("#lang")
        page.wait_for_selector("html[lang=fr]")
        log_in_as_host(page)
        page.on("dialog", lambda dialog: dialog.accept())
        page.locator("#newgame").evaluate("form => form.closest('details').open = true")
        start_with(page, ["\u3164", "Ben"])
        page.wait_for_selector("#last.bad:has-text('Un nom de joueur doit avoir une lettre')")
        assert "celui-ci n'affiche rien" in page.locator("#last").inner_text()
        page.screenshot(path=str(ARTIFACTS / "phone-360-blank-name-fr.png"), full_page=True)
        start_with(page, [unicodedata.normalize("NFC", "Zoé"), unicodedata.normalize("NFD", "Zoé")])
        page.wait_for_selector("#last.bad:has-text('Deux joueurs ont le même nom')")
        assert rt.table.board.names == ("Ann", "Ben"), "no game was started"
        page.screenshot(path=str(ARTIFACTS / "phone-360-same-name-fr.png"), full_page=True)
    assert errors == []
