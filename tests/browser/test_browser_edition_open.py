"""Opening an edition on the edition page, when the table is slow to answer (issue 22 item 6).

Under load (scripts/browser-under-load) the page's own opening of the host's edition, after
the login, was still on its way when the host picked it again: the second opening landed
after an itinerary was picked, and cleared it. And an edition picked before another, whose
answer came last, was drawn over the one picked since (the reader's stickers going to it).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from companion.editions import EditionLibrary, put_itinerary
from tests.support.browser import caught_up, playwright, pump_until

expect = playwright().expect

PHONE = {"width": 360, "height": 780}


def with_itinerary(rt: Any, name: str, itinerary: str) -> None:
    """A new edition of the host's, holding one itinerary of 10 rows."""
    library = EditionLibrary(rt.store.path.parent)
    library.create(name)
    obj = library.editable(name)
    put_itinerary(obj, itinerary, {"person": [None, *range(1, 10)], "event": [1, 2]}, list(range(1, 11)))
    library.save(name, obj)


def logged_in(page: Any, base: str) -> None:
    page.goto(base + "/edition")
    page.fill("#pin", "2468")
    page.click("#login-form button")
    page.wait_for_selector("#main:not([hidden])")


def test_picking_the_edition_already_open_opens_nothing_again(server: Any, browser: Any) -> None:
    base, rt = server
    with_itinerary(rt, "deep", "T10")
    opened: list[str] = []

    def count(route: Any) -> None:
        opened.append(route.request.method)
        route.continue_()

    page = browser.new_page(viewport=PHONE)
    page.route("**/api/library/deep", count)
    logged_in(page, base)  # the page opens the host's edition by itself
    page.select_option("#edition", "deep")  # and the host picks it too, maybe while it opens
    page.wait_for_selector("#it-pick option[value=T10]", state="attached")
    caught_up(page)
    assert opened == ["GET"], "the edition open was opened again"
    page.click("#tabs button[data-tab='its']")
    page.select_option("#it-pick", "T10")
    expect(page.locator("#grid button[data-cell='0,9']")).to_have_text("9")


def test_an_edition_picked_before_another_never_replaces_it(server: Any, browser: Any) -> None:
    base, rt = server
    its = {"alpha": "TA", "beta": "TB"}
    for name, itinerary in its.items():
        with_itinerary(rt, name, itinerary)
    held: list[Any] = []  # the page's own opening, its answer held back
    transcribing: list[str | None] = []  # the editions the reader's stickers were sent to

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    def record(route: Any) -> None:
        transcribing.append(route.request.post_data_json["edition"])
        route.continue_()

    page = browser.new_page(viewport=PHONE)
    page.route(lambda url: urlsplit(url).path in ("/api/library/alpha", "/api/library/beta"), hold_the_first)
    page.route("**/api/library/transcribe", record)
    logged_in(page, base)
    pump_until(page, lambda: held, "the page opened the host's edition")
    first = urlsplit(held[0].request.url).path.rsplit("/", 1)[1]
    second = next(name for name in its if name != first)
    page.select_option("#edition", second)
    page.wait_for_selector(f"#it-pick option[value={its[second]}]", state="attached")
    with page.expect_event("requestfinished", lambda request: request.url == held[0].request.url):
        held[0].continue_()  # the first edition's answer comes last
    caught_up(page)  # anything its answer made the page send has been sent
    assert transcribing == [second], "the stickers go to the edition picked last"
    assert page.locator(f"#it-pick option[value={its[first]}]").count() == 0
    assert page.input_value("#edition") == second
