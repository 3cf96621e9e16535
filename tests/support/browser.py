"""What the browser tests share: a served mock table, Debian's Chromium, a watched page.

Each browser test module keeps its own ``server`` and ``browser`` fixtures (its own
players and Chromium flags), made of these helpers. A module calls `playwright()`
at import: without Chromium (or Playwright) it is skipped loudly, and in CI
(``CI=true``) that is a failure instead (`tests.support.tables.require_tool`).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from companion.run.runtime import Runtime
from companion.run.serving import make_server
from tests.support.tables import make_runtime, require_tool

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
#: Chromium's flags for the page tests: headless in a container, nothing fetched behind our back.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def playwright() -> Any:
    """Playwright's sync API, once Chromium is known to be there (else the module is skipped)."""
    require_tool(Path(CHROMIUM).exists(), f"there is no Chromium at {CHROMIUM}", "apt-get install chromium")
    return pytest.importorskip("playwright.sync_api")


@contextmanager
def served(tmp_path: Path, players: str) -> Iterator[tuple[str, Runtime]]:
    """A mock table on a new game (seed 8, PIN 2468) served on a free port: its address and runtime."""
    rt = make_runtime(tmp_path, players, seed=8)
    srv = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)  # the pool a real table has
    port = srv.socket.getsockname()[1]  # type: ignore[attr-defined]
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", rt
    srv.close()
    rt.stop()


@contextmanager
def chromium(args: list[str]) -> Iterator[Any]:
    """Headless Chromium launched with ``args``, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield b
        b.close()


def watched_page(browser: Any, url: str, errors: list[str], **options: Any) -> Any:
    """A new page (``options`` go to Playwright's ``new_page``) at ``url``: script errors go to ``errors``."""
    page = browser.new_page(**options)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page


def log_in_as_host(page: Any) -> None:
    """Open the page's host login, give the table PIN and wait for the controls."""
    page.click("#host-toggle")
    page.fill("#pin", "2468")
    page.click("#login button")
    page.wait_for_selector("#controls:not([hidden])")


def post(base: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """A control sent as a script would (the PIN in ``X-Table-Pin``); the JSON answer."""
    request = urllib.request.Request(base + path, data=json.dumps(body or {}).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Table-Pin", "2468")
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result
