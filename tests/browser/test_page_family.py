"""The page as a family meets it (issue 11), in Chromium at 360 px and 1280 px.

Each check names the item of the issue it covers. axe-core, pinned to one
release (`tests.support.axe.AXE_VERSION`, its tarball checked against the registry's integrity),
is fetched once with ``npm pack`` into ``.cache/axe`` (``AXE_CORE`` may point at
an ``axe.min.js`` instead) and injected into the page; serious or critical
accessibility violations, in either language and colour scheme, fail the test.
"""

from __future__ import annotations

import functools
import random
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.axe import axe, axe_script
from tests.support.browser import ARTIFACTS, log_in_as_host, playwright, post, pump_until, settled
from tests.support.tables import play_turn

sync_api = playwright()

ROOT = Path(__file__).resolve().parents[2]
#: Sentences of the English page that must never show on the French one.
ENGLISH = re.compile(
    r"\b(took|turn|Reveal|Revealed|Undone|crystals? (spent|chosen)|lands at|wins|is over|Tap the|"
    r"has not chosen|is not|cannot|Unknown tag|still in the|Not accepted|Punctual|Confirm|Crystal)\b"
)


#: The players of the table `server` (tests/conftest.py) serves for this module's tests.
PLAYERS = "Ann,Ben,Cy"


def host_page(browser: Any, base: str, width: int, lang: str = "en") -> Any:
    # bypass_csp: only so that axe-core can be injected; the page's own code runs under its CSP anyway
    page = browser.new_page(viewport={"width": width, "height": 780 if width < 600 else 900}, bypass_csp=True)
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    log_in_as_host(page)
    return page


def synced(page: Any, rt: Any) -> None:
    """Wait until the page shows the table's current version (generous: a loaded CI
    machine may take seconds to draw a snapshot after many quick turns)."""
    page.wait_for_function(f"() => state && state.version >= {rt.table.version}", timeout=30000)


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height + 1


class Checks:
    """Each item's check runs even when an earlier one failed, so that one run (on
    the page before the fixes, say) lists every item that fails, not just the first."""

    def __init__(self, page: Any) -> None:
        self.failed: dict[str, str] = {}
        page.set_default_timeout(15000)  # waits, not measures: room for a loaded CI machine

    @contextmanager
    def item(self, name: str) -> Iterator[None]:
        try:
            yield
        except (AssertionError, sync_api.Error) as exc:
            first = (str(exc).strip().splitlines() or [""])[0]
            self.failed.setdefault(name, f"{type(exc).__name__}: {first[:160]}")


@pytest.mark.parametrize("width", [360, 1280])
def test_the_live_turn_is_where_the_thumb_is_and_the_page_speaks_plainly(
    server: Any, browser: Any, width: int
) -> None:
    base, rt = server
    ARTIFACTS.mkdir(exist_ok=True)
    page = host_page(browser, base, width)
    check = Checks(page)
    page.locator("#host details").nth(0).evaluate("d => d.open = true")
    page.locator("#host details").nth(1).evaluate("d => d.open = true")
    with check.item("2 the Edition select is not blank"):
        page.wait_for_function("() => document.getElementById('edition').value === 'reference'")
    with check.item("2 the correction selects are not blank"):
        for select in ("#wild1", "#itin-player", "#itin-id"):
            assert page.locator(select).input_value(), select
    with check.item("2 the itinerary correction error names the player"):
        page.click("#itin button")  # nobody has an Itinerary yet
        page.wait_for_selector("#last.bad")
        assert page.locator("#last").inner_text().startswith("✗ Ann has not chosen an Itinerary")
    with check.item("3 a rejection shows where the hands are"):
        assert in_view(page, "#last")
    with check.item("11 the quick buttons say which Itinerary"):
        label = page.locator("#quick button").first.inner_text()
        assert re.match(r"Itinerary T\d+ \((Pe|Ev|In|Pr) \d", label), label
    seq = rt.table.seq
    page.locator("#quick button").first.click()
    page.wait_for_function(f"() => state && state.events > {seq}")
    with check.item("13 the player who must act is outlined (the next Itinerary chooser, not the mover)"):
        chooser = rt.table.expect()["player"]
        assert chooser != rt.table.board.player_to_move, "the case the family met"
        assert page.locator("#players .player.turn .name").inner_text().strip() == chooser
    while rt.table.expect()["kind"] == "itinerary":
        assert rt.tap(rt.table.expect()["choices"][0]).accepted
    synced(page, rt)
    with check.item("3 whose turn and the buttons are on screen"):
        assert in_view(page, "#now") and in_view(page, "#banner") and in_view(page, "#now-crystal")
        assert "'s turn" in page.locator("#banner").inner_text()
    with check.item("18 row cards that can be taken say so, as buttons"):
        assert page.locator("#row li.pick .tap-hint").count() >= 1
        assert page.locator("#row li.pick button.cell").count() >= 1
    with check.item("10 long titles stay inside their card"):
        # every position shows the edition's title with the longest word, drawn by the page's own code
        longest = max(rt.table.board.edition.cards, key=lambda c: max(len(w) for w in c.title.split()))
        page.evaluate(
            "title => { state.row_cards.forEach(p => { if (p.card) p.card.title = title; }); "
            "render(state); }",
            longest.title,
        )
        overflow = page.evaluate(
            "(() => { const box = document.getElementById('row').getBoundingClientRect();"
            " return [...document.querySelectorAll('#row li, #row .cell')].filter(c =>"
            " c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > box.right + 1)"
            ".length; })()"
        )
        assert overflow == 0
    with check.item("11 standings parts are labelled"):
        parts = page.locator("#players .player .parts").first.inner_text()
        assert "Track" in parts and "Crystals" in parts
        # labelled as points ("Trek points -1", not "Treks -1", which reads as a count), never "-1 treks"
        assert re.search(r"\bTrek points -?\d", parts) and not re.search(
            r"-?\d+ treks", parts, re.IGNORECASE
        ), parts
    with check.item("11 a legend explains the marks"):
        assert "Person" in page.locator("#legend").inner_text()
    with check.item("11 itineraries and row rewards in words"):
        players = page.locator("#players").inner_text()
        assert "Itinerary T" in players and "row 1:" in players and "1=" not in players
    with check.item("11 an unknown tag leads to the page's enrol form, not the command line"):
        post(base, "/api/reader/tap", {"tag": "04A2B3C4"})
        page.wait_for_selector("#enrol-this")
        assert "companion enroll" not in page.locator("#last").inner_text()
        page.click("#enrol-this")
        assert page.locator("#enrol-tag").input_value() == "04A2B3C4"
        assert page.locator("#enrol").is_visible()
    with check.item("4 a card still in the deck is named as such"):
        board = rt.table.board
        unseen = next(
            c.id
            for i, c in enumerate(board.edition.cards)
            if c.day == board.day and not board.revealed >> i & 1
        )
        page.fill("#tag", unseen)
        page.click("#tap button")
        page.wait_for_function(
            "() => document.getElementById('last').textContent.includes('still in the Day I deck')"
        )
    mover = rt.table.board.player_to_move
    with check.item("lighter turn: Crystal before the tap shows on the banner, Undo puts it back"):
        assert rt.table.board.crystals[rt.table.board.turn] > 0
        page.click("#now-crystal")
        page.wait_for_function("() => document.getElementById('banner').textContent.includes('crystal')")
        page.click("#now-undo")
        page.wait_for_function("() => !document.getElementById('banner').textContent.includes('crystal')")
    seq = rt.table.seq
    with check.item("lighter turn / 3: one tap on a row card takes it, the result on screen"):
        page.locator("#row li.pick button.cell").first.click()
        page.wait_for_function(f"() => state && state.events > {seq}")
        assert f"{mover} took" in page.locator("#last").inner_text()
        assert in_view(page, "#last")
    if rt.table.seq == seq:  # the old page: take the card for it, to go on
        play_turn(rt, random.Random(1))
    synced(page, rt)
    with check.item("18 'took', not 'visits'"):
        assert "visits" not in page.locator("body").inner_text()
    with check.item("8 the clock draws every watch as a token"):
        assert page.locator("#clock g.watch").count() == 3
    rng = random.Random(3)
    rt.table.turn_style = "confirm"  # the first design's preview, kept as an option
    option = None
    for _ in range(200):
        if rt.table.expect()["kind"] == "take" and rt.table.board.crystals[rt.table.board.turn]:
            option = next((o for o in rt.table.board.take_options() if o.max_crystals), None)
            if option is not None:
                break
        play_turn(rt, rng)
    assert option is not None
    post(base, "/api/reader/tap", {"tag": option.card})
    synced(page, rt)
    with check.item("8 the clock draws the landing preview"):
        page.wait_for_selector("#clock circle.preview")
    with check.item("11 the preview names the card, not its id"):
        assert option.card not in page.locator("#banner").inner_text()
    for _ in range(option.max_crystals):
        post(base, "/api/buttons/crystal")
    synced(page, rt)
    with check.item("12 no 'Crystal to spend one' once no more can be spent"):
        assert "Crystal" not in page.locator("#banner").inner_text()
        assert page.locator("#now-crystal").is_disabled()
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-preview.png"))
    post(base, "/api/buttons/confirm")
    rt.table.turn_style = "quick"
    synced(page, rt)
    with check.item("5 a tap while the companion cannot be reached is reported"):
        page.route("**/api/undo", lambda route: route.abort())
        page.click("#undo")
        page.wait_for_function(
            "() => document.getElementById('last').textContent.includes('cannot be reached')"
        )
    page.unroute("**/api/undo")
    with check.item("9 no sideways scroll"):
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 2
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-midgame.png"))
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-midgame-full.png"), full_page=True)
    while not rt.table.board.finished:
        play_turn(rt, rng)
    page.wait_for_selector("#end:not([hidden])", timeout=30000)
    synced(page, rt)
    with check.item("17 the winner is announced once"):
        text = page.locator("body").inner_text()
        won = rt.table.board.winners()[0]
        assert text.count(f"{won} wins") + text.count("share the victory") == 1
    with check.item("17 headers are capitalised, trek lengths labelled"):
        assert page.locator("#breakdown th").nth(1).inner_text() == "Track"
        assert "cards per trek" in page.locator("#breakdown").inner_text()
    with check.item("17 the chart has axes and a legend, players told apart without colour"):
        page.wait_for_selector("#chart polyline")  # the game's story, asked at the end (chart.js drawStory)
        assert page.locator("#chart-legend li").count() == 3
        assert page.locator("#chart polyline[stroke-dasharray='8 4']").count() == 1
        assert page.locator("#chart text").count() >= 4
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-end.png"), full_page=True)
    assert check.failed == {}, "\n".join(f"{k}: {v}" for k, v in check.failed.items())


def test_after_an_outage_the_page_polls_says_so_and_returns_to_the_live_stream(
    server: Any, browser: Any
) -> None:
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.add_init_script("window.TREK_STREAM_FAILURES = 1; window.TREK_STREAM_RETRY_MS = 1500")
    page.route("**/api/events", lambda route: route.abort())
    page.goto(base + "/")
    page.wait_for_selector("#notice:not([hidden])", timeout=20000)
    assert "refreshing every 2 s" in page.locator("#notice").inner_text()
    assert page.locator("#notice").get_attribute("class") == "notice", "a warning, not the success style"
    assert "refreshing" not in page.locator("#last").inner_text()
    assert in_view(page, "#notice")
    play_turn(rt, random.Random(1))
    synced(page, rt)  # polling brings the change
    page.unroute("**/api/events")
    page.wait_for_selector("#notice", state="hidden", timeout=20000)
    assert page.evaluate("() => pollTimer === null"), "polling stopped once the stream is back"
    play_turn(rt, random.Random(2))
    synced(page, rt)


def test_a_slow_snapshot_never_puts_the_page_back_in_time(server: Any, browser: Any) -> None:
    """A control's follow-up fetch of the state that lands after the live stream brought a
    newer snapshot is dropped: the stream sends nothing more until the next change, so the
    page would show the past until then (a phone stuck on the previous turn)."""
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:
        held.append((route, route.fetch()))  # the state as it is now, answered only later

    page.goto(base + "/")
    synced(page, rt)
    page.route("**/api/state*", hold)
    page.evaluate("() => { window.slowFetch = fetchState(); }")  # its promise: drawn or dropped
    pump_until(page, lambda: held, "the page asked for the state")
    before = page.evaluate("state.version")
    play_turn(rt, random.Random(5))
    synced(page, rt)
    newest = page.evaluate("state.version")
    assert newest > before
    route, response = held.pop()
    route.fulfill(response=response)  # the old snapshot arrives last
    page.evaluate("() => window.slowFetch")  # the page has read the old snapshot (and dropped it)
    assert page.evaluate("state.version") == newest
    assert page.evaluate("state.version") == rt.table.version
    page.unroute("**/api/state*")


def test_start_asks_before_replacing_a_game_starts_one_and_remembers_the_seats(
    server: Any, browser: Any
) -> None:
    base, rt = server
    page = host_page(browser, base, 360)
    rng = random.Random(2)
    for _ in range(4):
        play_turn(rt, rng)
    synced(page, rt)
    page.locator("#host details").nth(1).evaluate("d => d.open = true")
    page.fill("#seats > :nth-child(1) input[type=text]", "Zoé")
    game = rt.table.game_id
    page.fill("#seats > :nth-child(3) input[type=text]", "Zoé")
    page.click("#newgame button[type=submit]")
    page.wait_for_function("() => document.getElementById('last').textContent.includes('share a name')")
    assert rt.table.game_id == game, "refused in the page, in its words, before asking anything"
    page.fill("#seats > :nth-child(3) input[type=text]", "Yann")
    page.once("dialog", lambda d: d.dismiss())
    page.click("#newgame button[type=submit]")
    settled(page)
    assert rt.table.game_id == game, "15: no new game without a yes"
    page.on("dialog", lambda d: d.accept())
    page.dblclick("#newgame button[type=submit]")
    page.wait_for_function(f"() => state && state.game > {game}")
    settled(page)  # the second click's call, had there been one, answered too
    assert rt.table.game_id == game + 1, "15: a double click starts one game"
    assert list(rt.table.board.names) == ["Zoé", "Ben", "Yann"]
    page.reload()
    page.wait_for_selector("#seats > *", state="attached")
    assert page.locator("#seats > :nth-child(1) input[type=text]").input_value() == "Zoé"


#: A placeholder of an i18n.js template: "{n}", or a plural "{n|{n} crystal|{n} crystals}".
PLACEHOLDER = re.compile(r"\{\w+(?:\|(?:[^|{}]|\{\w+\})*)*\}")


def english_fragments(page: Any) -> set[str]:
    """The page's own English, as i18n.js words it: the static parts (12+ characters) of every
    English template, less those the French table shares (names, commands, file names)."""
    page.wait_for_function("() => window.I18N !== undefined")  # the catalogues are fetched
    tables = page.evaluate(
        "() => { const all = (o, out) => { for (const v of Object.values(o))"
        " typeof v === 'string' ? out.push(v) : all(v, out); return out; };"
        " return [all(I18N.en, []), all(I18N.fr, [])]; }"
    )
    french = "\n".join(tables[1])
    found = set()
    for template in tables[0]:
        for part in PLACEHOLDER.split(template):
            part = part.strip(" .,;:!?()\u2014\u2013·\"'“”«»")
            if len(part) >= 12 and part not in french:
                found.add(part)
    return found


class FrenchWatch:
    """Reads the whole French page at every step (visible text, and the labels, tooltips,
    placeholders and alt texts a screen reader or a hover shows) and keeps each English
    sentence found: i18n.js's own English, and every English ``message``/``error``/``label``
    the companion sent to this page (its engine's and table's sentences)."""

    def __init__(self, page: Any, rt: Any, width: int) -> None:
        self.page, self.rt, self.width = page, rt, width
        self.fragments = english_fragments(page)
        self.sent: set[str] = set()
        self.found: list[str] = []
        board = rt.table.board
        # card titles are the edition's data (the reference edition's are English), not the page's words
        self.data = sorted({c.title for c in board.edition.cards} | set(board.names), key=len, reverse=True)
        page.on("response", self._heard)

    def _heard(self, response: Any) -> None:
        if "/api/" not in response.url or "json" not in (response.headers.get("content-type") or ""):
            return
        try:
            body = response.json()
        except Exception:  # a stream or an aborted answer
            return
        self._collect(body)

    def _collect(self, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("message", "error", "label", "fix") and isinstance(value, str):
                    self.sent.add(value)
                else:
                    self._collect(value)
        elif isinstance(node, list):
            for value in node:
                self._collect(value)

    def look(self, step: str) -> None:
        synced(self.page, self.rt)
        self._collect(self.page.evaluate("state"))
        text, attributes = self.page.evaluate(
            "() => [document.body.innerText, [...document.querySelectorAll("
            "'[aria-label], [title], [placeholder], img[alt], option')].filter(e => !e.closest('[hidden]'))"
            ".flatMap(e => [e.getAttribute('aria-label'), e.getAttribute('title'),"
            " e.getAttribute('placeholder'), e.getAttribute('alt'),"
            " e.tagName === 'OPTION' ? e.textContent : null].filter(Boolean))]"
        )
        plain = self.plain(text + "\n" + "\n".join(attributes))
        english = [f for f in self.fragments if self.plain(f) in plain]
        english += [m for m in map(self.plain, self.sent) if len(m) >= 12 and m in plain]
        english += [a for a in attributes if a in INDEX_ENGLISH]
        if english:
            self.found.append(f"{self.width} px, {step}: {sorted(english)[:4]}")
        wide = self.page.evaluate("document.documentElement.scrollWidth")
        if wide > self.width + 2:
            self.found.append(f"{self.width} px, {step}: the page scrolls sideways ({wide} px)")

    def plain(self, text: str) -> str:
        """The edition's titles and the players' names taken out, white space made single."""
        return " ".join(functools.reduce(lambda t, x: t.replace(x, "…"), self.data, text).split())


#: The English that index.html carries in its attributes before the page words them.
INDEX_ENGLISH = set(
    re.findall(
        r'(?:alt|title|placeholder|aria-label)="([^"]*[a-z][^"]*)"',
        (ROOT / "web" / "static" / "index.html").read_text(encoding="utf-8"),
    )
) - {"Trekking Companion"}


@pytest.mark.parametrize("width", [360, 1280])
def test_a_whole_game_in_french_shows_no_english_sentence(server: Any, browser: Any, width: int) -> None:
    """Every step of a whole game on the French page, the host's panels open: rejections,
    an unknown tag and its enrolment from the page (and its refusal), a correction, undos,
    crystals chosen before the tap, the end; the whole page is read at each step."""
    base, rt = server
    page = host_page(browser, base, width, lang="fr")
    for details in page.locator("#host details").all():
        details.evaluate("d => d.open = true")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 2, "9: 'Hôte' fits"
    watch = FrenchWatch(page, rt, width)
    look = watch.look
    look("start")
    seats = page.locator("#seats input[type=text]").evaluate_all(
        "l => l.map(e => e.getAttribute('aria-label'))"
    )
    if seats != ["Joueur 1", "Joueur 2", "Joueur 3", "Joueur 4"]:
        watch.found.append(f"the seats are not numbered: {seats}")
    rng = random.Random(9)
    board = rt.table.board
    rt.tap(rt.table.state_json()["row"][3])  # no itinerary yet
    look("a card before any itinerary")
    page.click("#itin button")  # a correction that does not fit
    page.wait_for_selector("#last.bad")
    look("a refused correction")
    rt.tap("04A2B3C4")  # an unknown tag, enrolled from the page
    look("an unknown tag")
    page.click("#enrol-this")
    unseen = next(
        c for i, c in enumerate(board.edition.cards) if c.day == board.day and not board.revealed >> i & 1
    )
    page.fill("#enrol-q", str(unseen.year))
    page.wait_for_selector(f"#enrol-card option[value='{unseen.id}']")
    look("the enrol form's card list")
    page.select_option("#enrol-card", unseen.id)
    page.fill("#enrol-hours", str(unseen.hours))
    page.fill("#enrol-gains", "cristal")
    said = page.locator("#last").inner_text()
    page.click("#enrol button[type=submit]")
    page.wait_for_function(f"() => document.getElementById('last').innerText !== {said!r}")
    look("an enrolment")
    if "ok" not in (page.locator("#last").get_attribute("class") or ""):
        watch.found.append(f"the enrolment was not accepted: {page.locator('#last').inner_text()}")
    if rt.store.tags().get("04A2B3C4") != unseen.id:  # a French word for a benefit ("cristal") is refused
        watch.found.append(f"not enrolled: {page.locator('#last').inner_text()}")
    page.fill("#enrol-tag", "04A2B3C4")
    page.click("#enrol button[type=submit]")  # the same tag again: refused
    page.wait_for_selector("#last.bad")
    look("an enrolment refused")
    rt.tap("04A2B3C4")  # now a card still in the deck
    look("a card still in the deck")
    steps = 0
    while not board.finished:
        expect = rt.table.expect()
        if steps == 12 and expect and expect["kind"] == "take" and board.crystals[board.turn]:
            rt.press("crystal")
            look("a crystal chosen before the tap")
            rt.press("undo")
            look("the crystal put back")
        play_turn(rt, rng)
        steps += 1
        look(f"step {steps}")
        if steps == 20:
            rt.press("confirm")  # nothing to confirm
            look("nothing to confirm")
            page.click("#undo")
            look("an undo")
            page.click("#wild button")
            page.wait_for_selector("#last")
            look("a Wild correction")
    look("the end")
    page.screenshot(path=str(ARTIFACTS / f"family-{width}-fr-end.png"), full_page=True)
    assert not watch.found, "\n".join(watch.found[:8])


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_axe_finds_no_serious_or_critical_violation(server: Any, browser: Any, lang: str) -> None:
    """In both colour schemes (the page follows prefers-color-scheme), with a rejection
    shown, mid-game and at the end, at 360 px and 1280 px."""
    base, rt = server
    script = axe_script()
    page = host_page(browser, base, 360, lang=lang)
    for details in page.locator("#host details").all():
        details.evaluate("d => d.open = true")
    rng = random.Random(5)
    for _ in range(10):
        play_turn(rt, rng)
    synced(page, rt)
    problems: list[str] = []

    def both_schemes(where: Any, name: str) -> None:
        for scheme in ("light", "dark"):
            where.emulate_media(color_scheme=scheme)
            problems.extend(f"{name} {scheme}: {p}" for p in axe(where, script))
            where.screenshot(path=str(ARTIFACTS / f"axe-{lang}-{name.replace(' ', '-')}-{scheme}.png"))

    page.click("#undo")  # a refusal in the live panel's warning colours ...
    settled(page)  # the undo answered (else, on a loaded machine, the press below came first)
    rt.press("confirm")  # ... nothing to confirm
    synced(page, rt)
    page.wait_for_selector("#last.bad")
    both_schemes(page, "mid-game 360")
    while not rt.table.board.finished:
        play_turn(rt, rng)
    page.wait_for_selector("#end:not([hidden])", timeout=30000)
    synced(page, rt)
    page.wait_for_selector("#story .clock-line")  # the game's story drawn, its legend and table too
    page.click("#story .story-table-box summary")
    both_schemes(page, "end 360")
    desktop = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    desktop.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    desktop.goto(base + "/")
    desktop.wait_for_selector("#end:not([hidden])")
    both_schemes(desktop, "end 1280")
    assert problems == [], "\n".join(problems)


#: Counted words, worded by the page at n=1 and n=2: (what is rendered, its expected parts per language).
COUNTED = [
    (
        "message({accepted: true, code: 'took', params: {player: 'Ann', card: 'ancestor', crystals: N}})",
        {
            "en": ("1 crystal spent.", "2 crystals spent."),
            "fr": ("1 cristal dépensé.", "2 cristaux dépensés."),
        },
    ),
    (
        "message({accepted: true, code: 'pending_resumed', params: {game: 1, players: 'Ann, Ben',"
        " player: 'Ann', card: 'ancestor', n: N, landing: 5}})",
        {
            "en": ("(1 crystal spent,", "(2 crystals spent,"),
            "fr": ("(1 cristal dépensé,", "(2 cristaux dépensés,"),
        },
    ),
    (
        "message({accepted: false, code: 'too_many_crystals', params: {player: 'Ann', held: N, spent: 3}})",
        {"en": ("holds 1 crystal and", "holds 2 crystals and"), "fr": ("a 1 cristal et", "a 2 cristaux et")},
    ),
    (
        "message({accepted: false, code: 'cost_below_one', params: {player: 'Ann', card: 'ancestor',"
        " hours: 3, max: N}})",
        {
            "en": ("at most 1 crystal on", "at most 2 crystals on"),
            "fr": ("au plus 1 cristal (", "au plus 2 cristaux ("),
        },
    ),
    (
        "message({accepted: true, code: 'armed', params: {player: 'Ann', n: N, held: 3}})",
        {
            "en": ("spend 1 crystal (of 3)", "spend 2 crystals (of 3)"),
            "fr": ("1 cristal (sur 3)", "2 cristaux (sur 3)"),
        },
    ),
    (
        "t('armed', {p: 'Ann', n: N})",
        {
            "en": ("spends 1 crystal on", "spends 2 crystals on"),
            "fr": ("dépense 1 cristal sur", "dépense 2 cristaux sur"),
        },
    ),
    (
        "t('ancestors_left', {n: N})",
        {"en": ("1 Ancestor left", "2 Ancestors left"), "fr": ("1 Ancêtre restant", "2 Ancêtres restants")},
    ),
    ("t('trek_cards', {n: N})", {"en": ("1 card", "2 cards"), "fr": ("1 carte", "2 cartes")}),
    (
        "t('best_total', {n: N})",
        {"en": ("1 point.", "2 points."), "fr": ("1 point.", "2 points.")},
    ),
]


def test_counts_are_worded_in_the_singular_and_the_plural(server: Any, browser: Any) -> None:
    """3: no "crystal(s)" nor "cristal(aux)": i18n.js words a count with Intl.PluralRules."""
    base, _ = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    wrong = []
    for lang in ("en", "fr"):
        page.evaluate(f"lang = '{lang}'")
        for script, expected in COUNTED:
            for n, part in zip((1, 2), expected[lang], strict=True):
                said = page.evaluate(script.replace("N", str(n)))
                if part not in said or re.search(r"\((s|aux|x|e|es)\)", said):
                    wrong.append(f"{lang} n={n}: {said!r} lacks {part!r}")
    for catalogue in sorted((ROOT / "web" / "static" / "i18n").glob("*.json")):
        text = catalogue.read_text(encoding="utf-8")
        wrong += [f"{catalogue.name}: {m}" for m in re.findall(r"\w+\((?:s|aux|x|es)\)", text)]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_live_panel_tells_a_new_family_the_quick_turn(server: Any, browser: Any, lang: str) -> None:
    """6: while the mover holds a crystal and has chosen none, the live panel says how the
    quick turn goes (Crystal before the tap spends one; the tap takes the card)."""
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/")
    rng = random.Random(4)
    while rt.table.expect()["kind"] != "take":
        play_turn(rt, rng)
    board = rt.table.board
    assert board.crystals[board.turn] > 0
    synced(page, rt)
    words = page.evaluate(f"I18N['{lang}'].quick_hint")
    assert page.locator("#hint").is_visible() and page.locator("#hint").inner_text() == words
    assert in_view(page, "#hint")
    page.screenshot(path=str(ARTIFACTS / f"family-360-{lang}-quick-hint.png"))
    post(base, "/api/buttons/crystal")  # chosen: the banner says how many, the hint goes
    synced(page, rt)
    assert page.locator("#hint").is_hidden()
    post(base, "/api/buttons/undo")
    synced(page, rt)
    assert page.locator("#hint").is_visible()
    while board.crystals[board.turn] > 0 and not board.finished:  # a mover without crystals: no hint
        play_turn(rt, rng)
    if not board.finished and rt.table.expect()["kind"] == "take":
        synced(page, rt)
        assert page.locator("#hint").is_hidden()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_real_table_is_asked_to_reveal_the_new_deck_top(tmp_path: Path, browser: Any, lang: str) -> None:
    """6: a game without the mock dealer (decks shuffled by hand) waits for each new deck top
    to be tapped: the live panel's banner says so, highlighted, on a 360 px phone."""
    from companion.records.trekking import TREKKING
    from companion.store.log import Store
    from companion.table.game_setup import new_game
    from companion.util.config import Config
    from tests.support.tables import FAST_BUTTONS

    store = Store(tmp_path, TREKKING)
    new_game(store, ["Ann", "Ben"], Config(buttons=FAST_BUTTONS), seed=8, mock=False)  # no dealer
    store.close()
    with companion_on(tmp_path) as (base, rt):
        page = browser.new_page(viewport={"width": 360, "height": 780})
        page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
        page.goto(base + "/")
        # the catalogues are fetched by the page's modules: wait for them, not only for the load
        page.wait_for_function("() => window.I18N !== undefined")
        words = page.evaluate(f"I18N['{lang}'].waiting_reveal")

        def asks_to_reveal() -> None:
            assert rt.table.expect()["kind"] == "reveal"
            synced(page, rt)
            banner = page.locator("#banner")
            assert banner.inner_text() == words and "reveal" in (banner.get_attribute("class") or "")
            assert in_view(page, "#banner")
            assert page.evaluate("document.documentElement.scrollWidth") <= 362

        asks_to_reveal()  # the Departures Row is dealt by hand at the start
        rng = random.Random(3)
        while rt.table.expect()["kind"] == "reveal":
            assert rt.tap(rng.choice(rt.table.expect()["choices"])).accepted
        while rt.table.expect()["kind"] == "itinerary":
            assert rt.tap(rt.table.expect()["choices"][0]).accepted
        assert rt.tap(rt.table.expect()["choices"][0]).accepted  # a take leaves the deck top to reveal
        asks_to_reveal()
        page.screenshot(path=str(ARTIFACTS / f"family-360-{lang}-reveal.png"))


@contextmanager
def companion_on(data: Path, turn: str = "quick") -> Iterator[tuple[str, Any]]:
    """`companion run --mock` on the games already in ``data`` (what a restart starts), served on
    a free port: its address and runtime, stopped afterwards."""
    from companion.run.serving import make_server
    from companion.run.startup import build_runtime
    from companion.util.config import Config, TableSettings
    from tests.support.tables import FAST_BUTTONS

    config = Config(table=TableSettings(turn=turn), buttons=FAST_BUTTONS)
    rt = build_runtime(config, data, mock=True, pin="2468", say=lambda _: None)
    srv = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
    threading.Thread(target=srv.run, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.socket.getsockname()[1]}", rt  # type: ignore[attr-defined]
    finally:
        srv.close()
        rt.stop()


@pytest.mark.parametrize("turn", ["quick", "confirm"])
def test_a_restart_is_told_in_french(tmp_path: Path, browser: Any, turn: str) -> None:
    """4/5: what a restart resumes (crystals chosen before the tap in the quick turn, a take
    being prepared in the confirm turn) is said on the French page, with no English."""
    from tests.support.tables import make_runtime

    rt = make_runtime(tmp_path, "Ann,Ben", seed=8, turn=turn)
    rng = random.Random(6)
    board = rt.table.board
    while not (
        rt.table.expect()["kind"] == "take"
        and board.crystals[board.turn]
        and any(o.max_crystals for o in board.take_options())
    ):
        play_turn(rt, rng)
    if turn == "quick":
        assert rt.press("crystal").accepted
    else:
        assert rt.tap(next(o.card for o in board.take_options() if o.max_crystals)).accepted
        assert rt.press("crystal").accepted
    rt.stop()  # the companion stops (a power cut, an update) and starts again
    with companion_on(tmp_path, turn) as (base, again):
        assert again.table.last.code == ("armed_resumed" if turn == "quick" else "pending_resumed")
        page = host_page(browser, base, 360, lang="fr")
        watch = FrenchWatch(page, again, 360)
        page.evaluate("renderLast(state.last)")  # the restart's word, as the page first showed it
        said = page.locator("#last").inner_text()
        assert ("dépense toujours 1 cristal" if turn == "quick" else "(1 cristal dépensé,") in said, said
        watch.look("after a restart")
        assert not watch.found, watch.found
        page.screenshot(path=str(ARTIFACTS / f"family-360-fr-restart-{turn}.png"))


def test_stacked_watches_are_drawn_top_one_first(server: Any, browser: Any) -> None:
    """7: watches on one hour are drawn in stack order (the top one, which moves first,
    first clockwise), not in seating order; side by side on the rim since issue 24 item 9,
    so that they never cover the hour numbers."""
    base, rt = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(base + "/")
    synced(page, rt)
    seating = [p["name"] for p in page.evaluate("state.players")]
    board = rt.table.board
    top_first = sorted(range(len(seating)), key=lambda i: (board.hour[i], -board.seq[i]))
    assert page.evaluate("state.stack") == [board.names[i] for i in top_first], "the page is sent the stack"
    stack = [seating[2], seating[0], seating[1]]  # an order that is not the seating
    # Drawn and read in one script: a snapshot the live stream brings in between (the same
    # version, which the page draws again) would otherwise redraw the real watches first.
    drawn = page.evaluate(
        "stack => { state.players.forEach(p => { p.hour = 3; }); state.stack = stack;"
        " state.order = stack; render(state);"
        " return [...document.querySelectorAll('#clock g.watch circle')].map(c =>"
        " [c.querySelector('title').textContent.split(':')[0],"
        " Math.atan2(+c.getAttribute('cx'), -c.getAttribute('cy'))]); }",
        stack,
    )
    clockwise = [name for name, _ in sorted(drawn, key=lambda d: d[1])]  # the angle from the 12
    assert clockwise == stack, drawn


def test_a_login_while_the_companion_is_down_is_reported(server: Any, browser: Any) -> None:
    """7: the login's request failing (the companion down) used to be lost without a word."""
    base, _ = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    page.route("**/api/login", lambda route: route.abort())
    page.click("#host-toggle")
    page.fill("#pin", "2468")
    page.click("#login button")
    page.wait_for_function("() => document.getElementById('last').textContent.includes('cannot be reached')")
    assert "cannot be reached" in page.locator("#login-why").inner_text()
    assert in_view(page, "#last")


def test_french_refusals_never_carry_the_english_detail(server: Any, browser: Any) -> None:
    """2: enrol_refused, edition_invalid and not_saved keep the English exception text in
    ``detail`` (scripts, the console); the French page words them without it."""
    base, _ = server
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.goto(base + "/")
    page.wait_for_selector("#players .player")
    page.evaluate("lang = 'fr'")
    detail = "cannot open the database file because it is locked"
    for code in ("enrol_refused", "edition_invalid", "not_saved"):
        said = page.evaluate(
            "([code, detail]) => message({accepted: false, code, params: {edition: 'ma-boite', detail}})",
            [code, detail],
        )
        assert said and detail not in said and "{" not in said, (code, said)
