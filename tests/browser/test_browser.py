"""The page in a real browser: Playwright driving Debian's Chromium.

A game is played through the API while the page stays open; the page must follow
without a reload, and end on the final screen. Screenshots at phone and desktop
widths are kept in ``test-artifacts/``. Outside CI, a machine without Chromium
skips this loudly; in CI (``CI=true``) a missing browser is a failure.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support.browser import (
    ARTIFACTS,
    drawn,
    log_in_as_host,
    pin_entered,
    playwright,
    post,
    pump_until,
    wait_until,
    watched_page,
)

playwright()


#: The players of the table `server` (tests/conftest.py) serves for this module's tests.
PLAYERS = "Ann,Ben,Cy"


def step(base: str, rt: Any, rng: random.Random) -> None:
    expect = rt.table.expect()
    out = post(base, "/api/reader/tap", {"tag": rng.choice(expect["choices"])})
    if out["state"]["pending"] is not None:
        post(base, "/api/buttons/confirm")


def test_the_page_follows_a_whole_game_live_and_ends_on_the_final_screen(server: Any, browser: Any) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    phone = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 780})
    phone.wait_for_selector("#players .player")
    assert phone.locator("#players .player").count() == 3
    assert "Itinerary" in phone.locator("#banner").inner_text()
    rng = random.Random(4)
    for _ in range(12):
        step(base, rt, rng)
    # no reload: the stream brought the moves
    phone.locator("#log li").nth(11).wait_for(timeout=30000)
    latest = phone.locator("#log li.latest").inner_text()
    assert latest
    phone.screenshot(path=str(ARTIFACTS / "phone-360-midgame.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362, (
        "usable at 360 px: no sideways scroll"
    )
    while not rt.table.board.finished:
        step(base, rt, rng)
    phone.wait_for_selector("#end:not([hidden])", timeout=30000)
    winners = rt.table.board.winners()
    assert all(w in phone.locator("#winners").inner_text() for w in winners)
    assert phone.locator("#breakdown tr.scores").count() == 3  # one row per player, their treks under it
    phone.wait_for_selector("#chart polyline")  # the game's story, asked at the end (chart.js drawStory)
    assert phone.locator("#chart polyline").count() == 3
    phone.screenshot(path=str(ARTIFACTS / "phone-360-end.png"), full_page=True)
    desktop = browser.new_page(viewport={"width": 1280, "height": 900})
    desktop.goto(base + "/")
    desktop.wait_for_selector("#end:not([hidden])")
    desktop.screenshot(path=str(ARTIFACTS / "desktop-1280-end.png"), full_page=True)
    assert errors == []


def test_french_and_host_login_with_the_virtual_table(server: Any, browser: Any) -> None:
    base, rt = server
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    page.click("#lang")
    # the standings' heading by its key (the hidden coach card's heading now comes before it)
    assert page.locator("h2[data-i18n=standings]").inner_text() == "Classement"
    page.click("#host-toggle")
    pin_entered(page, "0000", "#last.bad")
    pin_entered(page, "2468", "#controls:not([hidden])")
    page.wait_for_selector("#mock:not([hidden])")
    first = rt.table.expect()["choices"][0]
    page.click(f"#quick button[data-tap='{first}']")
    page.locator("#log li").nth(6).wait_for(timeout=30000)
    assert rt.table.seq == 7, "the six dealt cards and this itinerary"
    page.screenshot(path=str(ARTIFACTS / "phone-390-host-fr.png"), full_page=True)


def test_login_form_hides_once_logged_in(server: Any, browser: Any) -> None:
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(base + "/")
    log_in_as_host(page)
    assert not page.locator("#login").is_visible()
    assert rt.access.sessions.count() >= 1
    page.click("#logout")
    page.wait_for_selector("#login", state="visible")
    # logout needs the CSRF token (issue 16): the page sends it, and the server's session ends
    wait_until(lambda: not rt.access.sessions.count(), "the page's logout was accepted")
    page.screenshot(path=str(ARTIFACTS / "phone-360-logged-out.png"), full_page=True)


def test_a_logout_the_disk_cannot_keep_is_said_and_the_page_stays_the_hosts(
    server: Any, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 5: the logout is refused (507) while the disk is full; the page says so and
    keeps its controls, as the server keeps the session (it dropped its token before)."""
    import errno

    import companion.table.access

    base, _ = server
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(base + "/")
    log_in_as_host(page)

    def full(*_: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(companion.table.access, "write_private", full)
    page.click("#logout")
    page.wait_for_selector("#last.bad:has-text('still logged in')")
    assert page.locator("#controls").is_visible() and not page.locator("#login").is_visible()
    monkeypatch.undo()  # space again: the logout goes through
    page.click("#logout")
    page.wait_for_selector("#login", state="visible")


def test_a_refused_host_page_returns_to_the_login_form_saying_why(server: Any, browser: Any) -> None:
    """Issue 9: the host's page kept its controls while every control failed, and the
    message flashed for half a second. Now it shows the login form with the reason, and keeps it."""
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(base + "/")
    log_in_as_host(page)
    rt.access.sessions.close_all()  # as after a logout elsewhere, an expiry or a new PIN
    page.click("#undo")
    page.wait_for_selector("#login", state="visible")
    assert not page.locator("#controls").is_visible()
    rt.tap(rt.table.expect()["choices"][0])  # the game moves on; the page redraws
    drawn(page, rt.table.version)
    why = page.locator("#login-why")
    assert why.is_visible() and "no longer logged in" in why.inner_text()
    page.screenshot(path=str(ARTIFACTS / "phone-360-login-again.png"), full_page=True)
    pin_entered(page, "0000", "#login-why:has-text('Wrong table PIN')")


def test_a_hardware_part_that_is_down_shows_on_the_page_with_its_fix(server: Any, browser: Any) -> None:
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    assert not page.locator("#hardware").is_visible(), "every part works: no status line"
    rt.health.fail("ring", PermissionError(13, "Permission denied", "/dev/spidev0.0"))
    page.reload()
    page.wait_for_selector("#hardware:not([hidden])")
    text = page.locator("#hardware").inner_text()
    assert "ring" in text and "/dev/spidev0.0" in text and "group spi" in text
    page.screenshot(path=str(ARTIFACTS / "phone-360-hardware-down.png"), full_page=True)


def test_the_buttons_that_work_before_the_scripts_wait_for_them(server: Any, browser: Any) -> None:
    """The page's modules wait for the catalogues: a tap on Host before its handler existed
    was lost (CI once timed out logging in right after the load), and the history page's
    login, sent the browser's own way, would put the PIN in the address. Those buttons are
    disabled until the scripts have set their handlers."""
    base, _rt = server
    held: list[Any] = []

    def hold(route: Any) -> None:  # the catalogue is slow: answered when the test says
        held.append(route)

    for path, buttons in (("/", ["#lang", "#host-toggle"]), ("/history", ["#lang", "#hlogin button"])):
        page = browser.new_page(viewport={"width": 360, "height": 780})
        held.clear()
        page.route("**/i18n/fr.json", hold)
        page.goto(base + path, wait_until="domcontentloaded")
        pump_until(page, lambda: held, "the page fetched its catalogue")
        assert [page.locator(b).is_disabled() for b in buttons] == [True, True], path
        held[0].continue_()
        for b in buttons:
            page.wait_for_selector(f"{b}:not([disabled])")
        if path == "/":
            log_in_as_host(page)  # the tap now opens the login
        else:
            page.fill("#hpin", "2468")
            page.click("#hlogin button")
            page.wait_for_selector("#said.ok")
            assert "2468" not in page.url
        page.close()
