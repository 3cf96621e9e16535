"""The family's second evening (issue 24, items 4-18): what a person sees on a 360 px phone,
in English and French, in Chromium. Each test names the item of the issue it covers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import COVERED, drawn, ended, new_box, pin_entered, playwright
from tests.support.browser import shot as taken

playwright()

#: The players of the table `server` (tests/conftest.py) serves: a lower-case name among them.
PLAYERS = "Ann,van Dijk,Cy"
SHOTS = Path("/tmp") / "family-evening"


def shot(page: Any, name: str, full: bool = False) -> None:
    taken(page, SHOTS, name, full)


#: The words of ``selector``'s elements that are split across two lines (a Range over one word
#: with more than one line box), and the elements (``whole``) that must sit on one line.
SPLIT_WORDS = """([selector, whole]) => {
  const split = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        if ([...r.getClientRects()].filter((b) => b.width > 0).length > 1) split.push(m[0]);
      }
    }
  }
  for (const el of document.querySelectorAll(whole)) {
    const r = document.createRange(); r.selectNodeContents(el);
    const lines = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
    if (lines.size > 1) split.push(el.textContent);
  }
  return split;
}"""


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_8_the_departures_row_never_breaks_a_word_at_360_px(phone: Any, server: Any) -> None:
    _base, rt = server
    cards = rt.table.board.edition.cards
    longest = sorted(cards, key=lambda c: max(len(w) for w in c.title.split()))[-6:]
    phone.evaluate(
        "titles => { state.row_cards.forEach((p, k) => { if (p.card) {"
        " p.card.title = titles[k % titles.length]; p.card.year = k % 2 ? -30000 : -776; } });"
        " render(state); }",
        [c.title for c in longest],
    )
    shot(phone, f"8-row-{phone.evaluate('lang')}", full=True)
    assert phone.evaluate(SPLIT_WORDS, ["#row .title, #row .year", "#row .era"]) == []
    assert phone.evaluate("document.documentElement.scrollWidth") <= 362


def play_to_a_take_with_the_hint(rt: Any) -> None:
    """Itineraries chosen and one take made: the mover (holding a crystal) sees the quick-turn hint."""
    import random

    from tests.support.tables import play_turn

    rng = random.Random(2)
    while rt.table.expect()["kind"] == "itinerary":
        play_turn(rt, rng)
    play_turn(rt, rng)


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_9_the_fixed_header_and_bar_leave_most_of_a_740_px_screen_to_the_game(
    phone: Any, server: Any
) -> None:
    _base, rt = server
    play_to_a_take_with_the_hint(rt)
    drawn(phone, rt.table.version)
    phone.wait_for_selector("#hint:not([hidden])")
    covered = phone.evaluate(COVERED)
    shot(phone, f"9-midgame-{phone.evaluate('lang')}")
    assert covered <= 210, f"{covered} px of 740 covered by the header and the bottom bar"
    # the Day is still on screen, in the bottom bar
    assert phone.locator("#day").is_visible()


def test_9_the_clock_s_12_is_not_hidden_under_the_watches_at_a_day_s_start(phone: Any) -> None:
    phone.evaluate("() => { state.players.forEach((p) => { p.hour = 0; }); render(state); }")
    shot(phone, "9-clock-day-start")
    overlaps = phone.evaluate(
        """() => {
      const twelve = [...document.querySelectorAll('#clock text')]
        .find((t) => t.textContent === '12').getBoundingClientRect();
      return [...document.querySelectorAll('#clock g.watch circle')].filter((c) => {
        const b = c.getBoundingClientRect();
        return b.left < twelve.right && twelve.left < b.right
          && b.top < twelve.bottom && twelve.top < b.bottom;
      }).length;
    }"""
    )
    assert overlaps == 0


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_12_at_the_end_the_bar_points_up_to_the_results_and_each_score_is_one_line(
    phone: Any, server: Any
) -> None:
    _base, rt = server
    ended(phone, rt, 4)
    lang = phone.evaluate("lang")
    shot(phone, f"12-end-{lang}")
    banner = phone.locator("#banner").inner_text()
    assert ("at the top" if lang == "en" else "en haut") in banner, banner
    assert "below" not in banner and "plus bas" not in banner
    phone.click("#banner a")  # the bar takes the family to the results
    phone.wait_for_function(
        "() => document.getElementById('winners').getBoundingClientRect().top >= 0"
        " && document.getElementById('winners').getBoundingClientRect().top < 400"
    )
    # each player's scores on one line, the cards per trek on a row of their own
    heights = phone.evaluate(
        "[...document.querySelectorAll('#breakdown tr.scores td:nth-child(4)')].map((c) => {"
        " const r = document.createRange(); r.selectNodeContents(c);"
        " return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; })"
    )
    assert heights == [1, 1, 1], heights  # the Treks column holds the points, on one line
    assert phone.evaluate(
        "document.getElementById('breakdown').getBoundingClientRect().right"
        " <= document.getElementById('end').getBoundingClientRect().right"
    ), "the table fits in its card"
    cards = phone.locator("#breakdown tr.trek-cards").all_inner_texts()
    words = "cards per trek" if lang == "en" else "cartes par voyage"
    assert len(cards) == 3 and all(words in c for c in cards)
    shot(phone, f"12-results-{lang}")


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_7_the_bar_s_undo_says_it_is_being_held_while_the_virtual_button_is_down(phone: Any) -> None:
    held: list[Any] = []
    phone.route("**/api/buttons/undo", lambda route: held.append(route))
    phone.click("#now-undo")
    lang = phone.evaluate("lang")
    phone.wait_for_function("() => document.getElementById('now-undo').getAttribute('aria-busy') === 'true'")
    label = phone.locator("#now-undo").inner_text()
    shot(phone, f"7-holding-{lang}")
    assert label == ("Holding Undo…" if lang == "en" else "Appui long…"), label
    held[0].continue_()
    phone.wait_for_function("() => !document.getElementById('now-undo').hasAttribute('aria-busy')")
    assert phone.locator("#now-undo").inner_text() == ("Undo" if lang == "en" else "Annuler")


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_11_new_game_checks_the_names_before_asking_to_replace_the_game(phone: Any, server: Any) -> None:
    _base, rt = server
    play_to_a_take_with_the_hint(rt)  # a game in progress
    drawn(phone, rt.table.version)
    game = rt.table.game_id
    dialogs: list[str] = []
    phone.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    phone.click("#host-toggle")
    phone.locator("#newgame").evaluate("f => f.closest('details').open = true")
    seats = phone.locator("#seats input[type=text]")
    first, second = seats.nth(0), seats.nth(1)
    assert first.get_attribute("maxlength") == "24"
    first.fill("")
    first.type("A" * 30)
    assert first.input_value() == "A" * 24, "the field takes what the companion accepts"
    first.fill("Ann")
    second.fill("ann")  # the same name to the table (case folded): the companion's check
    phone.click("#newgame button[type=submit]")
    phone.wait_for_selector("#last.bad")
    lang = phone.evaluate("lang")
    shot(phone, f"11-names-{lang}")
    assert dialogs == [], "asked to replace the game before the names were checked"
    assert ("share a name" if lang == "en" else "même nom") in phone.locator("#last").inner_text()
    assert rt.table.game_id == game
    second.fill("Ben")
    with phone.expect_event("dialog"):  # fine names: now the question (dismissed)
        phone.click("#newgame button[type=submit]")
    assert len(dialogs) == 1 and rt.table.game_id == game


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_13_a_name_is_written_as_its_player_typed_it(phone: Any, server: Any) -> None:
    import random

    from companion.engine import Take
    from tests.support.tables import play_turn

    _base, rt = server
    rng = random.Random(6)
    while not any(isinstance(e, Take) and e.player == "van Dijk" for e in rt.table.board.moves[-1:]):
        play_turn(rt, rng)
    drawn(phone, rt.table.version)
    last = phone.locator("#last").inner_text()
    shot(phone, f"13-name-{phone.evaluate('lang')}")
    assert last.startswith("van Dijk "), last


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_14_the_words_a_family_stumbled_on(phone: Any, server: Any) -> None:
    import json
    import re

    base, rt = server
    lang = phone.evaluate("lang")
    play_to_a_take_with_the_hint(rt)
    drawn(phone, rt.table.version)
    hint = phone.locator("#hint").inner_text()
    assert ("once for each" if lang == "en" else "une fois par cristal") in hint, hint
    parts = phone.locator("#players .player .parts").first.inner_text()
    label = "Trek points" if lang == "en" else "Points de voyage"
    assert re.search(rf"{label} -?\d", parts), parts  # points, not a count of treks
    from tests.support.browser import post

    post(base, "/api/undo")  # the take taken back: the log says so in agreeing words
    phone.wait_for_selector("#log li.undo")
    undo = phone.locator("#log li.undo").first.inner_text()
    undone = phone.locator("#log li.undone").first.inner_text()
    if lang == "fr":
        assert undo.startswith("Annulé\u202f: ") and " a rendu " in undo and "reprise" not in undo, undo
        assert undone.endswith("(coup annulé)"), undone
    ended(phone, rt, 9)
    axis = phone.evaluate("[...document.querySelectorAll('#chart text')].map((t) => t.textContent)")
    assert not any(re.search(r"\(\d+\)", a) for a in axis), axis  # no count of events and undos
    shot(phone, f"14-end-{lang}", full=True)
    french = json.loads((Path(__file__).resolve().parents[2] / "web/static/i18n/fr.json").read_text("utf-8"))
    text = json.dumps(french, ensure_ascii=False)
    assert "étiquette" not in text.lower(), "one word for a sticker: pastille"
    assert "Ponctuel\u202f:" not in text and "est reprise" not in text


def finish_games(base: str, rt: Any, count: int) -> None:
    """``count`` whole games on the table (a new one started after each but the last)."""
    import random

    from tests.support.browser import post
    from tests.support.tables import play_turn

    rng = random.Random(12)
    for n in range(count):
        while not rt.table.board.finished:
            play_turn(rt, rng)
        if n < count - 1:
            post(base, "/api/game/new", {"players": PLAYERS.split(","), "seed": n})


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_4_history_shows_a_rating_from_0_up_and_the_model_s_figures_by_their_names(
    server: Any, browser: Any, lang: str
) -> None:
    import re

    base, rt = server
    finish_games(base, rt, 2)
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.add_init_script(f"localStorage.setItem('lang', '{lang}')")
    page.goto(base + "/history")
    page.wait_for_selector(".pstat .rating b")
    shot(page, f"4-history-{lang}", full=True)
    ratings = page.locator(".pstat .rating b").all_inner_texts()
    assert len(ratings) == 3 and all(re.fullmatch(r"\d+", r) for r in ratings), ratings
    assert max(int(r) for r in ratings) > 0
    word = "Rating" if lang == "en" else "Cote"
    rating = page.locator(".pstat .rating").first.inner_text()
    assert rating.startswith(word) and "\u03bc" in rating and "\u03c3" in rating, rating
    note = page.locator("[data-i18n=h_rating_note]").inner_text()
    assert "Plackett" not in note and "Classement" not in note, note
    assert page.locator("body").inner_text().count("Classement") == 0  # the table's standings word


def test_18_after_create_the_edition_page_drops_the_read_only_warning_and_checks_the_name(
    server: Any, browser: Any
) -> None:
    base, _rt = server
    console: list[str] = []
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.on("console", lambda m: console.append(m.text))
    page.goto(base + "/edition")
    page.wait_for_selector("#login:not([hidden])")
    pin_entered(page, "2468", "#create:not([hidden])", button="#login-form button")
    name = page.locator("#new-name")
    name.fill("My Box!")
    assert not name.evaluate("i => i.checkValidity()"), "the name's pattern is a pattern Chromium uses"
    name.fill("my-box")
    assert name.evaluate("i => i.checkValidity()")
    assert not [m for m in console if "pattern" in m.lower()], console
    page.click("#create button")
    page.wait_for_selector("#create", state="hidden")
    page.wait_for_function("() => document.getElementById('progress').textContent.includes('0/36')")
    shot(page, "18-created")
    status = page.locator("#tag-status").inner_text()
    assert "cannot be changed" not in status and "ships with" not in status, status


def test_16_the_keypad_s_c_keeps_bce_and_bce_carries_over_to_the_next_card(server: Any, browser: Any) -> None:
    base, _rt = server
    page = browser.new_page(viewport={"width": 360, "height": 740})
    new_box(page, base, "day-one")
    page.click("#bce")
    for key in ("2", "2", "1", "C"):
        page.click(f"#keypad button:text-is('{key}')")
    assert page.locator("#bce").get_attribute("aria-pressed") == "true", "C cleared the digits only"
    page.click("#clear-card")  # the next card
    assert page.locator("#bce").get_attribute("aria-pressed") == "true", "BCE carries over"
    shot(page, "16-bce-kept")


@pytest.mark.parametrize("phone", ["en", "fr"], indirect=True)
def test_10_the_terminal_s_keys_work_in_the_page_s_reader_field(phone: Any, server: Any) -> None:
    _base, rt = server
    play_to_a_take_with_the_hint(rt)  # the mover holds a crystal
    drawn(phone, rt.table.version)
    phone.click("#host-toggle")
    assert not phone.evaluate("state.armed")
    phone.fill("#tag", "c")
    phone.click("#tap button")
    phone.wait_for_function("() => state && state.armed === 1")  # Crystal pressed, not a tag tapped
    assert "c" not in phone.locator("#last").inner_text().split(), "not 'Unknown tag c'"
    phone.fill("#tag", "u")
    phone.click("#tap button")
    phone.wait_for_function("() => state && !state.armed")
    if "ancestor" in rt.table.expect()["choices"]:
        assert phone.locator("#quick button[data-tap=ancestor]").count() == 1


def test_17_the_mock_reader_is_on_the_itineraries_and_ancestor_tabs_too(server: Any, browser: Any) -> None:
    base, _rt = server
    page = browser.new_page(viewport={"width": 360, "height": 740})
    new_box(page, base, "its-box")
    for tab, message in (("its", "#it-msg"), ("anc", "#anc-msg")):
        page.click(f"#tabs button[data-tab={tab}]")
        assert page.locator("#mock-tag").is_visible(), tab
        page.fill("#mock-tag", f"04{tab.upper()}")
        page.click("#mock-tap")
        page.wait_for_function(
            f"() => document.querySelector('{message}').textContent.includes('04{tab.upper()}')"
        )
        shot(page, f"17-mock-{tab}")
