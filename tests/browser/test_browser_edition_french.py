"""A French phone on the edition page (/edition) reads the companion's refusals in French.

The server sends each refusal's English ``error`` beside a ``code`` and ``params``; the
page words them from web/static/i18n.js (tests/editions/test_edition_error_codes.py checks every
code has its English and French sentence). Chromium at 360 px, the page's language set
to French as the table's page keeps it (``localStorage`` ``lang``).
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.browser import ARTIFACTS, last_shot, pin_entered, playwright, sticker_then_1969

expect = playwright().expect
ROOT = Path(__file__).resolve().parents[2]


def request(base: str, path: str) -> urllib.request.Request:
    """A GET as a script sends it (the table PIN in ``X-Table-Pin``)."""
    return urllib.request.Request(base + path, headers={"X-Table-Pin": "2468"})


def french_phone(browser: Any, url: str, errors: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 360, "height": 780})
    page.add_init_script("localStorage.setItem('lang', 'fr')")
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page


def logged_in_french_phone(browser: Any, base: str, errors: list[str]) -> Any:
    """The edition page on a French phone, logged in with the table PIN (its create form open)."""
    page = french_phone(browser, base + "/edition", errors)
    page.wait_for_selector("#login:not([hidden])")
    pin_entered(page, "2468", "#create:not([hidden])", button="#login-form button")
    return page


def test_the_edition_pages_refusals_are_said_in_french(server: Any, browser: Any) -> None:
    base, _ = server
    errors: list[str] = []
    page = french_phone(browser, base + "/edition", errors)
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#pin", "0000")
    page.click("#login-form button")
    expect(page.locator("#login-msg")).to_have_text("Code de la table incorrect.")

    pin_entered(page, "2468", "#create:not([hidden])", button="#login-form button")
    page.fill("#new-name", "ma-boite")
    page.click("#create button")
    expect(page.locator("#progress")).to_contain_text("Jour I\u202f: 0/36")

    # the same name again: the library refuses, and says so in French
    page.click("#open-create")
    page.fill("#new-name", "ma-boite")
    page.click("#create button")
    taken = "Une édition s'appelle déjà ma-boite\u202f; choisissez un autre nom."
    expect(page.locator("#progress")).to_have_text(taken)
    expect(page.locator("#card-msg")).to_have_text(taken)

    # a card saved with its sticker: the binding and the likely mistake are said in French too
    # (the answer's `binding` and `checks`)
    sticker_then_1969(page, base, "04A1", "04A1")
    page.click("#save-card")
    expect(page.locator("#card-msg")).to_have_text(
        "I01 enregistrée (1969). La pastille 04A1 est maintenant I01. Carte suivante. À vérifier\u202f: "
        "1969 est hors des années du Jour I (37000 av. J.-C. à 1903)\u202f: vérifiez l'année et le Jour"
    )

    # a value of the trek table that is no number: the field's refusal, in French
    page.click("#tabs button[data-tab='mat']")
    page.locator("#treks input").nth(9).fill("dix")
    page.click("#save-mat")
    expect(page.locator("#mat-msg")).to_have_text("« dix » n'est pas un nombre entier de points.")
    box = page.locator("#mat-msg").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, "fits a phone"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "edition-phone-360-refusal-fr.png"), full_page=True)
    for english in ("already", "is not a whole number", "Wrong table PIN", "is now", "outside"):
        assert english not in page.locator("body").inner_text(), english

    # the itinerary grid: its columns, its keys and its reminder in French, on a phone's width
    page.click("#tabs button[data-tab='its']")
    heads = page.locator("#grid .head").all_inner_texts()
    assert heads == ["Perso.", "Événem.", "Innov.", "Progrès", "rangée"], heads
    palette = page.locator("#palette").inner_text()
    assert "vide" in palette and "fin" in palette and "plain" not in palette and "end" not in palette
    page.click("#grid button[data-cell='0,2']")  # the person column is 3 deep ...
    page.click("#palette button[data-v='1']")
    page.click("#save-it")  # ... but only one space is filled
    expect(page.locator("#it-msg")).to_contain_text("Remplissez les cases encadrées de Personnage, ou ⏎ fin")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scroll"
    last_shot(page, "edition-phone-360-itinerary-fr", errors)


def test_an_invalid_edition_is_said_in_french_and_an_unknown_code_in_english(
    server: Any, browser: Any
) -> None:
    base, _ = server
    errors: list[str] = []
    page = logged_in_french_phone(browser, base, errors)
    shared = json.loads(urllib.request.urlopen(request(base, "/api/library/reference/export")).read())
    shared["cards"][0]["hours"] = 0
    shared["cards"][1]["hours"] = 0
    page.click("#tabs button[data-tab='share']")
    page.set_input_files(
        "#import-file",
        files=[
            {
                "name": "box.json",
                "mimeType": "application/json",
                "buffer": json.dumps(shared, indent=1).encode(),
            }
        ],
    )
    said = page.locator("#share-msg")
    expect(said).to_contain_text(
        "Cette édition a 2 problèmes à corriger d'abord"
        " (le premier\u202f: line 7: cards[0] (I01).hours)\u202f:"
    )
    assert "must be at least 1, not 0" in said.inner_text(), "the engine's problems follow, as they are"

    # a refusal whose code this page does not know: the server's English, not nothing
    page.route(
        "**/api/library",
        lambda route: (
            route.fulfill(
                status=400,
                content_type="application/json",
                body=json.dumps({"error": "Some new refusal.", "code": "from_a_newer_companion"}),
            )
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    page.fill("#new-name", "ma-boite")  # the form is open: this table has no edition of its own yet
    page.click("#create button")
    expect(page.locator("#progress")).to_have_text("Some new refusal.")
    assert errors == []


def test_the_edition_pages_labels_are_french_and_its_tabs_read_whole(server: Any, browser: Any) -> None:
    """Every placeholder and accessible label the page carries in English is French on a
    French phone (a screen reader reads them), and no tab's name is cut off at 360 px."""
    base, _ = server
    html = (ROOT / "web" / "static" / "edition.html").read_text(encoding="utf-8")
    # the page's English labels, less those French spells the same
    labels = re.findall(r'(?:placeholder|aria-label)="([^"]*[A-Za-z]{3}[^"]*)"', html)
    english = set(labels) - {"my-box", "Note"}
    errors: list[str] = []
    page = logged_in_french_phone(browser, base, errors)
    page.fill("#new-name", "libelles")
    page.click("#create button")
    page.wait_for_selector("#tabs:not([hidden])")
    shown = page.evaluate(
        """() => [...document.querySelectorAll('[placeholder], [aria-label]')].flatMap(
            (el) => [el.getAttribute('placeholder'), el.getAttribute('aria-label')]).filter(Boolean)"""
    )
    assert english and not english & set(shown), sorted(english & set(shown))
    # the fixed words, named by their data-i18n keys: the tabs, a hint, the tab's own title
    french = json.loads((ROOT / "web" / "static" / "i18n" / "fr.json").read_text(encoding="utf-8"))
    tabs = ("edp_cards", "edp_itineraries", "edp_playmat", "edp_ancestor", "edp_share")
    assert page.locator("#tabs button").all_inner_texts() == [french[k] for k in tabs]
    assert page.locator("#tab-cards p.hint").inner_text() == french["edp_the_next_card_s"]
    assert page.title() == french["edp_page_title"] and page.locator("html").get_attribute("lang") == "fr"
    assert [label for label in shown if re.search(r"\bcards?\b", label)] == []  # the labels the script makes
    cut = page.evaluate(
        "() => [...document.querySelectorAll('#tabs button')].filter((b) => b.scrollWidth > b.clientWidth)"
        ".map((b) => b.textContent)"
    )
    assert cut == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    last_shot(page, "edition-phone-360-fr-tabs", errors, full=False)


def test_a_sticker_the_store_refuses_to_bind_is_said_in_french(
    server: Any, browser: Any, monkeypatch: Any
) -> None:
    """The card is saved, the store refuses the sticker's binding (not a full disk): the answer's
    ``binding`` carries the store's own code and params, so a French page says why in French
    (it showed the store's English sentence, the ``detail`` of ``not_saved``)."""
    from companion.store.log import StoreError

    base, rt = server
    errors: list[str] = []
    page = logged_in_french_phone(browser, base, errors)
    page.fill("#new-name", "ma-boite")
    page.click("#create button")
    expect(page.locator("#progress")).to_contain_text("Jour I\u202f: 0/36")
    sticker_then_1969(page, base, "07D1", "07D1")

    def refused(*_: Any, **__: Any) -> None:
        raise StoreError("store_write_failed", path="/srv/companion.sqlite3", cause="disk I/O error")

    monkeypatch.setattr(rt.store, "_write", refused)  # the tags' database: the edition file is elsewhere
    page.click("#save-card")
    expect(page.locator("#card-msg")).to_contain_text(
        "impossible d'enregistrer dans /srv/companion.sqlite3 (disk I/O error)\u202f; rien n'a changé"
    )
    text = page.locator("#card-msg").inner_text()
    assert "could not save" not in text and "store_write_failed" not in text, text
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scroll"
    page.screenshot(path=str(ARTIFACTS / "edition-phone-360-store-refusal-fr.png"), full_page=True)
    page.locator("#card-msg").screenshot(path=str(ARTIFACTS / "edition-phone-360-store-refusal-fr-line.png"))
    assert "07D1" not in rt.store.tags()
    assert errors == []
