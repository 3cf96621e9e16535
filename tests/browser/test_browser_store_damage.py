"""Issue 16 item 6 on the page: damage the store's checksums found is a status line, like a
hardware fault, in English and French at phone width, until the host presses Seen."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.engine import Take
from companion.run.runtime import Runtime
from companion.run.serving import make_server
from tests.support.browser import ARTIFACTS, log_in_as_host, playwright, watched_page
from tests.support.stores import change_one_byte, played, start, take_seq

playwright()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Runtime, int]]:
    """A table started on a store with one changed byte in a stored take: its address,
    runtime and the damaged event's number."""
    stored = played(tmp_path)
    seq = take_seq(stored, Take, len(stored) // 2)
    text = dict(stored)[seq]
    digit = text[text.index('"card": "') + 11]
    change_one_byte(tmp_path / "companion.sqlite3", seq, digit, "1" if digit != "1" else "2")
    rt = start(tmp_path)
    srv = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.socket.getsockname()[1]}", rt, seq
    srv.close()
    rt.stop()


def fits(page: Any) -> None:
    box = page.locator("#hardware").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_the_damage_is_a_status_line_until_the_host_presses_seen(server: Any, browser: Any) -> None:
    base, rt, seq = server
    errors: list[str] = []
    page = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 800})
    page.wait_for_selector("#hardware:not([hidden])")
    text = page.locator("#hardware").inner_text()
    assert f"game log: game 1's saved event {seq} is damaged" in text and "set aside, not deleted" in text
    assert rt.store.damage[0].params["copy"] in text and "check the SD card" in text
    assert not page.locator("#store-ack").count(), "only a host may acknowledge it"
    fits(page)
    page.screenshot(path=str(ARTIFACTS / "phone-360-store-damaged.png"), full_page=True)
    log_in_as_host(page)
    page.wait_for_selector("#store-ack")
    assert page.locator("#store-ack").inner_text() == "Seen: hide this message"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "phone-360-store-damaged-host.png"))
    page.click("#store-ack")
    page.wait_for_selector("#hardware", state="hidden")
    assert rt.store.damage == [] and errors == []


def test_the_damage_is_said_in_french(server: Any, browser: Any) -> None:
    base, _, seq = server
    errors: list[str] = []
    page = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 800})
    page.wait_for_selector("#players .player")
    if page.locator("#lang").inner_text() == "FR":
        page.click("#lang")
    page.wait_for_selector("html[lang=fr]")
    page.wait_for_selector("#hardware:not([hidden])")
    text = page.locator("#hardware").inner_text()
    assert f"journal de partie\u202f: l'événement enregistré n° {seq} de la partie 1 est abîmé" in text
    assert "mis de côté, pas effacés" in text and "vérifiez la carte SD" in text
    for english in ("saved event", "set aside", "game log", "check the"):
        assert english not in text, english
    log_in_as_host(page)
    page.wait_for_selector("#store-ack")
    assert page.locator("#store-ack").inner_text() == "Vu\u202f: masquer ce message"
    fits(page)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "phone-360-store-damaged-fr.png"))
    assert errors == []
