"""The table's page says whether it publishes to a venue (issue 23.2), in a real browser at
360 px, against a real Mosquitto: the table id, the broker out of reach with the events
waiting in the outbox, then connected once the broker answers; in French too. Without
``[venue]`` the line stays hidden."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.run.serving import make_server
from companion.util.config import Config, TableSettings, VenueSettings
from tests.support.browser import playwright, post, served, wait_until, watched_page
from tests.support.tables import FAST_BUTTONS, make_runtime
from tests.support.venue import Broker

playwright()

PHONE = {"width": 360, "height": 780}


@pytest.fixture
def venue_table(tmp_path: Path) -> Iterator[tuple[str, Any, Broker]]:
    """A mock table with ``[venue]`` set to a broker not yet started, served on a free port."""
    broker = Broker(tmp_path / "broker")
    venue = VenueSettings(broker=broker.url, table="corner-table")
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "table", "Ann,Ben", seed=8, config=config)
    rt.venue.retry_max = 1  # reconnect within a second of the broker's start
    rt.venue.start()
    srv = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
    port = srv.socket.getsockname()[1]  # type: ignore[attr-defined]
    threading.Thread(target=srv.run, daemon=True).start()
    yield f"http://127.0.0.1:{port}", rt, broker
    srv.close()
    rt.stop()
    broker.stop()


def line(page: Any, wanted: str) -> str:
    """The venue line once it holds ``wanted`` (the page polls the status every 10 s)."""

    def text() -> str:
        return str(page.locator("#venue").inner_text()) if page.locator("#venue").is_visible() else ""

    wait_until(lambda: wanted in text(), f"the venue line saying {wanted!r}")
    return text()


def test_the_venue_line_shows_the_outbox_then_the_connection(venue_table: Any, browser: Any) -> None:
    base, rt, broker = venue_table
    errors: list[str] = []
    phone = watched_page(browser, base + "/", errors, viewport=PHONE)
    phone.wait_for_selector("#players .player")
    rng = random.Random(2)
    for _ in range(2):  # moves made while the broker is down wait in the outbox
        out = post(base, "/api/reader/tap", {"tag": rng.choice(rt.table.expect()["choices"])})
        if out["state"]["pending"] is not None:
            post(base, "/api/buttons/confirm")
    assert rt.venue.subscription.wait_idle(10)  # the committed stream handed them to the outbox
    waiting = rt.venue.pending()
    assert waiting >= 2
    down = line(phone, f"{waiting} events wait")  # the setup and the moves, none acknowledged
    assert "corner-table" in down and "cannot reach the venue's broker" in down, down
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362
    broker.start()
    assert rt.venue.wait_delivered(30)
    up = line(phone, "connected to its broker")
    assert "corner-table" in up
    phone.click("#lang")
    assert "connectée à son broker" in line(phone, "Lieu")
    assert not errors, errors


def test_without_a_venue_the_line_stays_hidden(tmp_path: Path, browser: Any) -> None:
    with served(tmp_path, "Ann,Ben") as (base, _rt):
        errors: list[str] = []
        phone = watched_page(browser, base + "/", errors, viewport=PHONE)
        phone.wait_for_selector("#players .player")
        assert phone.locator("#venue").get_attribute("hidden") is not None
        assert not errors, errors
