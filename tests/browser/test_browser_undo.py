"""Undo on the host's phone (issue 16, item 12): a double tap takes back one take, and says so.

The first tap's answer is held back (Playwright intercepts ``/api/undo``) while the
button is tapped again: the page must send one undo, show the button busy meanwhile,
and once the answer comes list the undo in its event log, in English and in French.
"""

from __future__ import annotations

import random
from typing import Any

from companion.engine import Take
from tests.support.browser import (
    ARTIFACTS,
    caught_up,
    log_in_as_host,
    playwright,
    post,
    pump_until,
    watched_page,
)

playwright()


def takes(rt: Any) -> list[Take]:
    return [e for e in rt.table.board.moves if isinstance(e, Take)]


def play_until_both_took(base: str, rt: Any) -> None:
    rng = random.Random(2)
    while len({t.player for t in takes(rt)}) < 2:
        out = post(base, "/api/reader/tap", {"tag": rng.choice(rt.table.expect()["choices"])})
        if out["state"]["pending"] is not None:
            post(base, "/api/buttons/confirm")


def test_a_double_tap_on_undo_takes_back_one_take_and_the_log_says_so(server: Any, browser: Any) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    play_until_both_took(base, rt)
    before = takes(rt)
    last = before[-1]
    title = rt.table.board.edition.card(last.card).title
    errors: list[str] = []
    phone = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 780})
    phone.wait_for_selector("#players .player")
    log_in_as_host(phone)

    held: list[Any] = []  # the undo requests that reached the network, their answers held back
    phone.route("**/api/undo", lambda route: held.append(route))
    phone.locator("#undo").dblclick()  # two taps, the second while the first is on its way
    pump_until(phone, lambda: held, "the first undo reached the network")
    caught_up(phone)  # and the second tap's, had it sent one
    assert len(held) == 1, "the second tap sent a second undo"
    assert phone.locator("#undo").is_disabled()
    assert phone.locator("#undo").get_attribute("aria-busy") == "true"
    for other in ("#now-undo", "#mock [data-button=undo]"):  # every Undo of the page waits with it
        assert (
            phone.locator(other).is_disabled() and phone.locator(other).get_attribute("aria-busy") == "true"
        )
    assert not phone.locator("#now-confirm").get_attribute("aria-busy")  # other controls do not
    phone.locator("#undo").click(force=True)  # and a third, later: still on its way, still ignored
    caught_up(phone)
    assert len(held) == 1
    assert held[0].request.post_data_json["version"] == rt.table.version  # the table it showed

    held[0].continue_()
    phone.wait_for_selector("#log li.undo", timeout=30000)
    assert takes(rt) == before[:-1], "exactly one take taken back: the previous player's stays"
    phone.wait_for_function("!document.querySelector('#undo').disabled")
    assert phone.locator("#undo").get_attribute("aria-busy") is None
    entry = phone.locator("#log li.undo").first.inner_text()
    assert entry.startswith(f"Undo: {last.player}'s take of {title}") and entry.endswith("taken back")
    assert phone.locator("#log li.undo.undone").count() == 0, "the undo itself stands"
    taken_back = phone.locator("#log li.undone", has_text=f"{last.player} took {title}")  # struck through
    assert taken_back.count() == 1 and "taken back" in taken_back.inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362, "usable at 360 px"
    phone.locator("#log").scroll_into_view_if_needed()
    phone.screenshot(path=str(ARTIFACTS / "phone-360-undo-log.png"), full_page=True)
    phone.locator("#log").screenshot(path=str(ARTIFACTS / "phone-360-undo-log-only.png"))

    phone.click("#lang")
    entry = phone.locator("#log li.undo").first.inner_text()
    assert entry.startswith(f"Annulé\u202f: {last.player} a rendu {title}")
    assert (
        "coup annulé"
        in phone.locator("#log li.undone", has_text=f"{last.player} a pris {title}").inner_text()
    )
    phone.screenshot(path=str(ARTIFACTS / "phone-360-undo-log-fr.png"), full_page=True)
    phone.locator("#log").screenshot(path=str(ARTIFACTS / "phone-360-undo-log-only-fr.png"))
    assert errors == []


def holding(held: list[Any]) -> Any:
    """A route handler keeping each request, unanswered, in ``held`` (Playwright passes only the
    route to a one-argument handler)."""
    return lambda route: held.append(route)


def passing(route: Any) -> None:
    """A route handler letting the request through."""
    route.continue_()


def test_every_control_sends_once_while_its_answer_is_on_its_way(server: Any, browser: Any) -> None:
    """The virtual reader, the buttons, a correction and a new game: a double tap sends one request."""
    base, _ = server
    errors: list[str] = []
    phone = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 780})
    phone.wait_for_selector("#players .player")
    log_in_as_host(phone)
    phone.on("dialog", lambda dialog: dialog.accept())  # "replace the game in play?"
    phone.click("#wild >> xpath=.. >> summary")
    phone.click("#newgame >> xpath=.. >> summary")
    controls = [
        ("#quick button >> nth=0", "/api/reader/tap"),
        ("#mock [data-button=crystal]", "/api/buttons/crystal"),
        ("#mock [data-button=confirm]", "/api/buttons/confirm"),
        ("#wild button[type=submit]", "/api/correct/wild"),
        ("#newgame button[type=submit]", "/api/game/new"),
    ]
    for selector, path in controls:
        held: list[Any] = []
        phone.route("**" + path, holding(held))
        phone.locator(selector).dblclick()
        pump_until(phone, lambda: held, f"the first {path} reached the network")  # noqa: B023
        caught_up(phone)  # and the second tap's, had it sent one
        assert len(held) == 1, (path, len(held))
        waiting = phone.locator(f"[data-call='{path}']")
        assert all(waiting.nth(i).is_disabled() for i in range(waiting.count())), path
        phone.route("**" + path, passing)  # after the answer, through (a new game: its start after its check)
        held[0].continue_()
        phone.locator(f"[data-call='{path}'][aria-busy]").first.wait_for(state="detached")  # answered
        phone.unroute("**" + path)
    assert errors == []
