"""What the browser tests share: a served mock table, Debian's Chromium, a watched page.

Each browser test module keeps its own ``server`` and ``browser`` fixtures (its own
players and Chromium flags), made of these helpers. The browser tests are never skipped:
without a Chromium (``CHROMIUM``, the system's, or Playwright's own) each one fails with
`NO_CHROMIUM`, the sentence that says how to get one (``scripts/test`` finds or fetches one
before the tests start, and stops with the same sentence when it cannot).

The waits a browser test needs are here too, each a wait for a condition, never for a
fixed time: `wait_until` (a condition of the table, in this process), `pump_until` (a
condition the test's own route or dialog handlers make true), `caught_up` (every request
the page sent so far has reached the routes), `settled` (what a click started has run) and
`drawn` (the page shows a given state version). Only the first two hold a fixed pause, the
short step between two looks at their condition; tests/project/test_fixed_waits.py keeps
every other fixed wait out of tests/browser.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from companion.run.runtime import Runtime
from companion.run.serving import make_server
from tests.support.tables import make_runtime, play_turn

#: The Chromium to drive, when given (``scripts/test`` sets it to the one it found).
CHROMIUM = os.environ.get("CHROMIUM", "")
#: What a run without any Chromium says, here and in ``scripts/test`` (tests/project/test_suite_setup.py
#: holds the two to the same words).
NO_CHROMIUM = (
    "the browser tests need Chromium: `sudo apt install chromium` on Debian/Raspberry Pi OS, "
    "or `.venv/bin/python -m playwright install chromium`"
)
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
    """Playwright's sync API (a test tool of the ``dev`` extra: never missing after ``scripts/test``)."""
    return importlib.import_module("playwright.sync_api")


def system_chromium() -> str | None:
    """The Chromium given in ``CHROMIUM`` (which must be there), else the system's, else None."""
    if CHROMIUM:
        if not Path(CHROMIUM).is_file():
            pytest.fail(f"CHROMIUM={CHROMIUM} is not a file; {NO_CHROMIUM}", pytrace=False)
        return CHROMIUM
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)


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
    """Headless Chromium launched with ``args``, closed afterwards: the system's (`system_chromium`),
    else Playwright's own; with neither, the test fails saying how to get one (`NO_CHROMIUM`)."""
    from playwright.sync_api import sync_playwright

    executable = system_chromium()
    with sync_playwright() as p:
        if executable is None and not Path(p.chromium.executable_path).is_file():
            pytest.fail(NO_CHROMIUM, pytrace=False)
        b = p.chromium.launch(executable_path=executable, args=args)
        yield b
        b.close()


def watched_page(browser: Any, url: str, errors: list[str], **options: Any) -> Any:
    """A new page (``options`` go to Playwright's ``new_page``) at ``url``: script errors go to ``errors``."""
    page = browser.new_page(**options)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page


def pin_entered(page: Any, pin: str, then: str, field: str = "#pin", button: str = "#login button") -> None:
    """Give ``pin`` in a login form's ``field``, press its ``button`` and wait for ``then`` (a
    selector: what a right PIN opens, or the refusal of a wrong one)."""
    page.fill(field, pin)
    page.click(button)
    page.wait_for_selector(then)


def log_in_as_host(page: Any) -> None:
    """Open the page's host login, give the table PIN and wait for the controls."""
    page.click("#host-toggle")
    pin_entered(page, "2468", "#controls:not([hidden])")


def new_box(page: Any, base: str, name: str) -> None:
    """``page`` on ``base``'s /edition, logged in with the table PIN, a new empty edition ``name``
    created and open."""
    page.goto(base + "/edition")
    page.wait_for_selector("#login:not([hidden])")
    pin_entered(page, "2468", "#create:not([hidden])", button="#login-form button")
    page.fill("#new-name", name)
    page.click("#create button")
    page.wait_for_selector("#create", state="hidden")


def ended(page: Any, rt: Runtime, seed: int) -> None:
    """The table's players play on (seeded) to the game's end, and ``page`` shows its end screen
    from the last version."""
    rng = random.Random(seed)
    while not rt.table.board.finished:
        play_turn(rt, rng)
    page.wait_for_selector("#end:not([hidden])", timeout=30000)
    drawn(page, rt.table.version)


#: The height the fixed parts (a header that stays at the top, the live turn's bar) cover of the
#: screen once the page is scrolled to the middle.
COVERED = """() => {
  window.scrollTo(0, document.body.scrollHeight / 2);
  const head = document.querySelector('header').getBoundingClientRect();
  const now = document.getElementById('now').getBoundingClientRect();
  return Math.max(0, head.bottom) + (innerHeight - now.top);
}"""


@contextmanager
def host_phone(browser: Any, base: str, lang: str = "en") -> Iterator[Any]:
    """The table's page at ``base`` on a 360 x 740 phone in ``lang``, the host logged in and the
    host's panel closed again (the page as the game shows it); no script error by the end."""
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(15000)
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    log_in_as_host(page)
    page.click("#host-toggle")
    yield page
    assert errors == []


def shot(page: Any, folder: Path, name: str, full: bool = False) -> None:
    """A screenshot of ``page`` as ``folder/name.png``, to look at after the run."""
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=full)


def last_shot(page: Any, name: str, errors: list[str], full: bool = True) -> None:
    """A test's last screenshot of ``page`` (`ARTIFACTS`/``name``.png), and no script error on it."""
    shot(page, ARTIFACTS, name, full)
    assert errors == []


def post(base: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """A control sent as a script would (the PIN in ``X-Table-Pin``); the JSON answer."""
    request = urllib.request.Request(base + path, data=json.dumps(body or {}).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Table-Pin", "2468")
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


#: How long a wait may last before it fails: a loaded machine is slow, not wrong, so this only
#: ends a wait that would never end (the failure says what never happened).
DEADLINE = 60.0
#: The step between two looks at a condition: short beside what the page does, long beside a poll's cost.
STEP = 0.02


def sticker_then_1969(page: Any, base: str, tag: str, named: str) -> None:
    """A sticker tapped on the virtual reader, the edition page naming it (``named``: what its
    status line then contains, as a person reads it before typing), then 1969 and 2 hours typed
    on the keypad: the card most edition tests start from."""
    post(base, "/api/reader/tap", {"tag": tag})
    playwright().expect(page.locator("#tag-status")).to_contain_text(named)
    for key in ("19", "6", "9"):
        page.click(f"#keypad button:text-is('{key}')")
    page.click("#hours button[data-v='2']")


def wait_until(condition: Callable[[], object], what: str, seconds: float = DEADLINE) -> None:
    """Wait for ``condition()`` to hold (a condition of the table, read in this process). It is
    looked at every `STEP`: the sleep between two looks is this helper's only pause."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds:.0f} s: {what}"
        time.sleep(STEP)


def pump_until(page: Any, condition: Callable[[], object], what: str, seconds: float = DEADLINE) -> None:
    """Wait for a condition the test's own handlers make true (a route that kept a request, a
    dialog answered) or the page's (read with ``page.evaluate``). Playwright runs those handlers
    only while the test waits on it, so this waits on the page `STEP` at a time, never
    ``time.sleep`` (which would hold the handlers back), until ``condition()`` holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds:.0f} s: {what}"
        page.wait_for_timeout(STEP * 1000)


#: The marker request `caught_up` sends, and its route.
CAUGHT_UP = "/api/session?caught-up"


def caught_up(page: Any) -> None:
    """Wait until every request the page has sent so far has reached the test's routes. One more
    request, sent now through a route of its own, is seen by that route: the browser hands the
    test its intercepted requests in the order they were sent, so any request sent before it
    (a second tap's) has been handed over too. A check that something was *not* sent follows this."""
    seen: list[Any] = []

    def marker(route: Any) -> None:
        seen.append(route)
        route.continue_()

    def ours(url: str) -> bool:  # a function, not a glob: in a glob "?" is a wildcard
        return url.endswith(CAUGHT_UP)

    page.route(ours, marker)
    page.evaluate(f"() => {{ fetch('{CAUGHT_UP}', {{credentials: 'same-origin'}}); }}")
    pump_until(page, lambda: seen, "the page's requests reached the test's routes")
    page.unroute(ours, marker)


def settled(page: Any) -> None:
    """Wait until what a click started has run: the page's tasks queued so far are done, every
    request sent has reached the routes, and no control's call is on its way (api.js marks each
    aria-busy meanwhile). A check that something did *not* happen (no second game) follows this."""
    page.evaluate("() => new Promise((done) => setTimeout(done))")  # no delay: the next task
    caught_up(page)
    page.wait_for_selector("[data-call][aria-busy=true]", state="detached", timeout=DEADLINE * 1000)


def drawn(page: Any, version: int) -> None:
    """Wait until the page shows the table's state ``version`` or a later one (its redraw after a
    change the test made on the table)."""
    page.wait_for_function(f"() => state && state.version >= {version}", timeout=DEADLINE * 1000)
