"""After a control the page gets the table's new snapshot as every other page does, on its live
stream; it fetches the state itself only while it has no stream (issue 35: the fetch after each
control was a second request per tap, answered through Flask, while the stream brought the same
snapshot)."""

from __future__ import annotations

import random
from typing import Any

from tests.support.browser import caught_up, drawn, log_in_as_host, pump_until
from tests.support.tables import play_turn

#: The page's own fetch of the state (hardware.js's status poll asks for ``/api/state`` alone).
PAGE_STATE = "/api/state?page=1"


def counting(page: Any) -> list[str]:
    """The page's fetches of `PAGE_STATE` from now on (seen by a route, in the order sent)."""
    seen: list[str] = []

    def note(route: Any) -> None:
        seen.append(route.request.url)
        route.continue_()

    page.route(lambda url: url.endswith(PAGE_STATE), note)
    return seen


def tap_on_page(page: Any, rt: Any) -> int:
    """A card the table waits for, tapped on the page's virtual reader; the table's version after it."""
    card = rt.table.expect()["choices"][0]
    with page.expect_response(lambda r: r.url.endswith("/api/reader/tap")) as answered:
        page.fill("#tag", str(card))
        page.click("#tap button")
    assert answered.value.ok
    return int(rt.table.version)


def test_with_the_live_stream_up_a_control_fetches_no_state(server: Any, browser: Any) -> None:
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(base + "/")
    log_in_as_host(page)
    play_turn(rt, random.Random(1))  # brought by the stream: the page does not poll
    drawn(page, rt.table.version)
    assert page.evaluate("() => pollTimer === null")
    fetched = counting(page)
    version = tap_on_page(page, rt)
    drawn(page, version)
    caught_up(page)
    assert fetched == [], "the stream brought the snapshot: the page fetched it too"


def test_without_a_live_stream_a_control_fetches_the_new_state(server: Any, browser: Any) -> None:
    """A browser without Server-Sent Events polls (here once an hour: only the control's own
    fetch can bring the change)."""
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.add_init_script("delete window.EventSource; window.TREK_POLL_MS = 3600000")
    page.goto(base + "/")
    drawn(page, rt.table.version)
    log_in_as_host(page)
    fetched = counting(page)
    version = tap_on_page(page, rt)
    drawn(page, version)
    assert fetched, "the new state was drawn without the page's fetch"


def test_a_controls_answer_older_than_the_snapshot_shown_leaves_the_latest_outcome(
    server: Any, browser: Any
) -> None:
    """The tap's answer is held until the stream has brought a later change (a refused press):
    the page keeps showing that later outcome, the table's latest (before, the fetch after the
    control drew it again)."""
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(base + "/")
    log_in_as_host(page)
    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:
        held.append((route, route.fetch()))  # the answer as the server gave it, delivered later

    page.route("**/api/reader/tap", hold)
    page.fill("#tag", str(rt.table.expect()["choices"][0]))
    page.click("#tap button")
    pump_until(page, lambda: held, "the tap was answered")
    refused = rt.press("confirm")  # nothing to confirm: refused, the table's latest outcome
    assert not refused.accepted
    drawn(page, rt.table.version)
    route, response = held.pop()
    route.fulfill(response=response)
    page.wait_for_selector("[data-call][aria-busy=true]", state="detached")
    assert page.locator("#last").get_attribute("class") == "last bad"
    page.unroute("**/api/reader/tap", hold)
