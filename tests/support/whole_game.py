"""A whole 3-player game played through the live page on a 360 px phone, in English and
French, with screenshots of its key moments (start, mid-game, a refusal, the end and its
results): what issue 24 asks a person to look at.

    .venv/bin/python -m tests.support.whole_game /tmp/whole-game

Each move is made with the page's own virtual reader and buttons (the host's form, sent by
the page's handlers as a tap would be); the screenshots go to the folder given, named
``LANG-NN-moment.png``. It prints the files and anything the page logged as an error."""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.support.browser import ARGS, chromium, log_in_as_host, served

#: A lower-case name and a long one: what wrapped or was capitalised before.
PLAYERS = "Ann,van Dijk,Marguerite"
#: A tag typed in the page's virtual reader and sent by its form, as the Tap button sends it
#: (the host's panel may be closed: the form is there all the same).
TAP = (
    "(tag) => { document.getElementById('tag').value = tag; document.getElementById('tap').requestSubmit(); }"
)


def step(page: Any, rng: random.Random) -> None:
    """One input the table waits for: a card or an Itinerary from its choices, or Confirm."""
    expect = page.evaluate("state.expect") or {}
    choices = expect.get("choices") or []
    before = page.evaluate("state.version")
    tag = rng.choice(choices) if choices else "y"  # "y": the console's Confirm key
    page.evaluate(TAP, tag)
    page.wait_for_function(f"() => state.version > {before}", timeout=15000)


def play(base: str, browser: Any, lang: str, out: Path) -> list[str]:
    """The game at ``base`` played to its end on a phone in ``lang``; the script errors."""
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/")
    page.wait_for_selector("#players .player")

    def part(n: int, moment: str, selector: str) -> None:
        """One part of the page at full size (a whole page at 360 px is too tall to read)."""
        path = out / f"{lang}-{n:02d}-{moment}.png"
        page.locator(selector).first.screenshot(path=str(path))
        print(path)

    def shot(n: int, moment: str, full: bool = False) -> None:
        page.wait_for_timeout(300)  # the page's transitions: a picture, not a check
        path = out / f"{lang}-{n:02d}-{moment}.png"
        page.screenshot(path=str(path), full_page=full)
        print(path)

    shot(1, "start")
    log_in_as_host(page)
    shot(2, "host-controls", full=True)
    page.click("#host-toggle")  # closed again: the page as the game shows it
    rng = random.Random(5)
    for _ in range(12):
        step(page, rng)
    shot(3, "early")
    page.evaluate(TAP, "ancestor-of-nobody")
    page.wait_for_function("() => document.body.innerText.includes('ancestor-of-nobody')")
    shot(4, "refusal")
    events = 0
    while not page.evaluate("state.finished"):
        step(page, rng)
        events += 1
        if events == 40:
            shot(5, "mid-game")
            shot(6, "mid-game-full", full=True)
    page.wait_for_selector("#end:not([hidden])")
    page.wait_for_selector("#story .clock-line")  # the game's story, asked at the end
    shot(7, "end")
    shot(8, "end-full", full=True)
    part(10, "end-card", "#end")
    part(11, "end-standings", "#players")
    part(12, "end-log", "#log")
    page.goto(base + "/history")
    page.wait_for_selector("#pstats .pstat")
    page.wait_for_selector("#games details.story-box[open] .clock-line")  # the newest game's story
    shot(9, "history", full=True)
    part(13, "history-players", "#players-card")
    part(14, "history-game", "#games li.game")
    page.close()
    return errors


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for lang in ("en", "fr"):
        with (
            tempfile.TemporaryDirectory() as data,
            served(Path(data), PLAYERS) as (base, _rt),
            chromium(ARGS) as browser,
        ):
            problems += [f"{lang}: {e}" for e in play(base, browser, lang, out)]
    for problem in problems:
        print("page error:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/whole-game")))
