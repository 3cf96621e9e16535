"""The picture of the page in the README: a mock table a few turns in, at phone width.

    .venv/bin/python scripts/page_screenshot.py docs/page-phone.png

Needs the dev tools (Playwright) and Chromium (``/usr/bin/chromium``, or ``CHROMIUM``). The
game is seeded, so the picture changes only when the page does.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import threading
from pathlib import Path

from companion.records.trekking import TREKKING
from companion.run.serving import make_server
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config

#: Takes and itinerary choices played before the picture: the Clock has watches on it.
STEPS = 7


def main(target: Path) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        config = Config()
        store = Store(data, TREKKING)
        new_game(store, ["Ann", "Ben", "Cy"], config, seed=8, mock=True)
        store.close()
        rt = build_runtime(config, data, mock=True, pin="2468", say=lambda _: None)
        rng = random.Random(4)
        for _ in range(STEPS):
            expect = rt.table.expect()
            if expect is None:
                break
            rt.tap(rng.choice(expect["choices"]))
        server = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
        port = server.socket.getsockname()[1]  # type: ignore[attr-defined]
        threading.Thread(target=server.run, daemon=True).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                    args=["--no-sandbox", "--disable-gpu"],
                )
                page = browser.new_page(viewport={"width": 360, "height": 740}, device_scale_factor=2)
                page.add_init_script("localStorage.setItem('lang', 'en')")
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector("#players .player")
                page.wait_for_function(f"() => state && state.version >= {rt.table.version}")
                page.screenshot(path=str(target))
                browser.close()
        finally:
            server.close()
            rt.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/page-phone.png"))
