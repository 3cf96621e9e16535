"""One tap route (issue 35 item 2): the reader's thread, the console, the page's virtual reader and
the API all end in `Runtime.tap_now`, through a `ReaderLoop`.

On a Pi the loop polls the MFRC522 on its own thread; in mock mode it polls `MockReader`, which
the console and the page tap like a hand (as gpiozero's mock pins drive a button), so tests and
benchmarks take the path a Pi takes: the debouncer, the capture, the tag's text, the venue's scan.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

import companion.run.startup as startup
from companion.hardware.buttons import Buttons
from companion.hardware.ring import SimulatedRing
from companion.records.trekking import TREKKING
from companion.run.console import keyboard
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config, TableSettings, VenueSettings
from tests.support.fake_mfrc522 import Chip, Tag
from tests.support.tables import FAST_BUTTONS, api_client, make_runtime
from tests.support.venue import Broker, Collector, wait_until

A = Tag([0x04, 0xA1, 0xB2, 0xC3])
PIN = {"X-Table-Pin": "2468"}


def test_home_assistant_hears_a_tap_on_the_real_reader_through_its_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    """`build_runtime` as on a Pi (the real ``mfrc522`` driver on the emulated chip, its loop on its
    own thread), ``[venue] tag_scans`` on, a real Mosquitto: the sticker's UID is Home Assistant's
    tag scan, and the card it stands for reaches the table."""
    broker = Broker(tmp_path / "broker").start()
    scans = Collector(broker)
    venue = VenueSettings(broker=broker.url, table="t1", home_assistant=True, tag_scans=True)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    store = Store(tmp_path / "t1", TREKKING)
    new_game(store, ["Ann", "Ben"], config, seed=3, mock=False)
    store.close()
    monkeypatch.setattr(startup, "open_spi_ring", lambda settings: SimulatedRing(settings.leds))
    factory = MockFactory()
    monkeypatch.setattr(
        startup, "Buttons", lambda settings, press, **kw: Buttons(settings, press, factory, **kw)
    )
    rt = build_runtime(config, tmp_path / "t1", mock=False, pin="2468", say=lambda _: None)
    try:
        card = rt.table.expect()["choices"][0]
        rt.store.enroll(A.uid_text, card, rt.table.board.edition.name)
        rt.start()  # the reader's thread polls the chip, the venue's outbox connects
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the broker")
        chip.put(A)
        wait_until(lambda: [m for m in scans.messages if m[0] == "trekking/t1/tag"], 30, "the scan")
        sent = [(payload, kept) for topic, payload, kept in scans.messages if topic == "trekking/t1/tag"]
        assert sent == [(A.uid_text.encode(), False)]
        wait_until(lambda: rt.table.last is not None and rt.table.last.code == "revealed", 30, "the card")
        assert rt.table.last.params["card"] == card, "the sticker's card revealed (a new game's first tap)"
    finally:
        rt.stop()
        scans.close()
        broker.stop()


def test_the_console_the_page_and_the_tests_tap_through_the_mock_readers_loop(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        assert rt.reader is not None and rt.mock_reader is not None and rt.mock_reader.loop is rt.reader
        seen: list[str] = []
        on_tap = rt.reader.on_tap
        rt.reader.on_tap = lambda tag: seen.append(tag) or on_tap(tag)
        first, second = rt.table.expect()["choices"][:2]
        assert rt.tap(first).code == "itinerary_chosen"
        answer = http.post("/api/reader/tap", json={"tag": first}, headers=PIN)
        again = answer.get_json()["outcome"]["code"]
        assert again == "itinerary_unavailable", "the same card again at once: a new tap"
        keyboard(rt, [f"{second}\n"])
        assert seen == [first, first, second]
        assert rt.table.last is not None and rt.table.last.params == {"player": "Ben", "itinerary": second}


def test_a_mock_tap_of_a_tag_no_card_has_still_reaches_the_table_as_unknown(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    outcome = rt.tap("04:A2:19:6B")
    assert (outcome.accepted, outcome.code, rt.unknown_tag) == (False, "unknown_tag", "04:A2:19:6B")
    rt.stop()


def test_the_debouncer_forgets_a_tag_the_mock_hand_lifted(tmp_path: Path) -> None:
    """A hand's tap is over when it returns: the next tap of the same tag counts (a real tag must
    be away for the debounce window first, `tests/hardware/test_mfrc522.py`)."""
    rt = make_runtime(tmp_path)
    tag: Any = "04:A2:19:6B"
    assert [rt.tap(tag).code for _ in range(3)] == ["unknown_tag"] * 3
    assert rt.reader is not None and rt.reader.debouncer.current is None
    rt.stop()
