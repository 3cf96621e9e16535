"""Issue 36 item 9: the hall's page at 360 px (headless Chromium), with its bugs fixed: styled,
nothing wider than the phone (each table scrolls inside its own box), a table whose newest
game is finished says so with that game's number (never "no game yet", never an older game
still open), and the finished games listed are the newest 50 (the CSV has them all).

Games from one table reach the hall through a real Mosquitto, as at a venue.
"""

from __future__ import annotations

import threading
from pathlib import Path

from companion.venue.hall_web import PAGE_FINISHED, create_hall_app, hall_server
from tests.support.browser import ARGS, chromium, playwright, watched_page
from tests.support.hall_feed import GameTemplate
from tests.support.venue import Broker, follow, free_port, raw_client, wait_until

playwright()
GAMES = PAGE_FINISHED + 5


def test_the_hall_page_fits_a_phone_and_says_where_each_table_is(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    template = GameTemplate(tmp_path / "template", ["Annabelle-Marguerite", "Bartholomew", "Cy"], seed=7)
    sender = raw_client(broker, "tables")
    server = hall_server(create_hall_app(hall), "127.0.0.1", free_port())
    threading.Thread(target=server.run, daemon=True).start()
    try:
        last = None
        messages = template.messages("t1", 1, 3)  # game 1 left open (abandoned), game 2 finished
        messages += template.messages("t1", 2)
        for number in range(1, GAMES - 1):
            messages += template.messages("t2", number)
        for topic, payload in messages:
            last = sender.publish(topic, payload, qos=1)
        assert last is not None
        last.wait_for_publish(60)
        wait_until(lambda: len(hall.view()["finished"]) == GAMES - 1, 300, "the hall to store the games")
        url = f"http://127.0.0.1:{server.effective_port}/"
        errors: list[str] = []
        with chromium(ARGS) as browser:
            page = watched_page(browser, url, errors, viewport={"width": 360, "height": 740})
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, (
                "nothing wider than the phone"
            )
            assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("system-ui")
            row = page.locator("table").first.locator("tr", has_text="t1").inner_text()
            assert "\t2\t" in row and "game over" in row and "no game yet" not in row, row
            finished_rows = page.locator("table").nth(1).locator("tbody tr").count()
            assert finished_rows == PAGE_FINISHED
        assert not errors
    finally:
        server.close()
        sender.loop_stop()
        hall.stop()
        broker.stop()


def test_a_host_enrols_a_table_on_a_phone_and_sees_its_key_once(tmp_path: Path) -> None:
    """Issue 36 item 6, pairing without a terminal: on a 360 px phone, in French, the host logs
    in on the league page, types the table's id and gets its key, whole on the screen (nothing
    wider than the phone), with the lines that put it on the table; the page read again has
    the table among those enrolled, and no key."""
    from companion.table.access import Access
    from companion.util.wording import say
    from companion.venue.hall import Hall
    from companion.venue.league import LeagueBook
    from tests.support.league import PIN

    hall = Hall(tmp_path / "hall", log=lambda _: None)
    app = create_hall_app(hall, Access.for_pin(PIN, tmp_path), LeagueBook(tmp_path / "hall" / "league"))
    server = hall_server(app, "127.0.0.1", free_port())
    threading.Thread(target=server.run, daemon=True).start()
    errors: list[str] = []
    try:
        with chromium(ARGS) as browser:
            url = f"http://127.0.0.1:{server.effective_port}/?lang=fr"
            page = watched_page(browser, url, errors, viewport={"width": 360, "height": 740})
            page.click(f"text={say('hall_enrol_title', 'fr')}")
            page.fill("input[name=pin]", PIN)
            page.click("form[action='/league/login'] button")
            page.fill("input[name=table]", "table-1")
            page.click("form[action='/league/enrol'] button")
            key = page.locator("#key").inner_text()
            assert key == hall.keys["table-1"].hex()
            box = page.locator("#key").bounding_box()
            assert box is not None and box["x"] + box["width"] <= 360, "the key whole on the phone"
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, (
                "nothing wider than the phone"
            )
            page.screenshot(path=str(tmp_path / "enrolled-fr.png"), full_page=True)
            page.goto(f"http://127.0.0.1:{server.effective_port}/league?lang=fr")
            assert key not in page.content() and "table-1" in page.locator("#enrol ~ p").last.inner_text()
        assert not errors
    finally:
        server.close()
        hall.stop()
