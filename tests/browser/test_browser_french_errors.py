"""A French page shows the server's refusals and the hardware status line in French.

The server sends each refusal's English ``error`` beside a ``code`` and ``params``, and
each part that is down with its English ``message`` and ``fix`` beside a ``code``; the
page words them from web/static/i18n.js (see tests/project/test_error_codes.py for the lists).
"""

from __future__ import annotations

from typing import Any

from companion.hardware.health import HardwareFault
from companion.table.access import ADDRESS_GUESSES_PER_MINUTE
from tests.support.browser import ARTIFACTS, log_in_as_host, pin_entered, playwright, watched_page

playwright()


#: The players of the table `server` (tests/conftest.py) serves for this module's tests.
PLAYERS = "Ann,Ben,Cy"


def french_page(browser: Any, base: str, errors: list[str]) -> Any:
    page = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 800})
    page.wait_for_selector("#players .player")
    if page.locator("#lang").inner_text() == "FR":
        page.click("#lang")
    page.wait_for_selector("html[lang=fr]")
    return page


def test_a_part_that_is_down_is_said_in_french_with_its_fix(server: Any, browser: Any) -> None:
    base, rt = server
    errors: list[str] = []
    rt.health.fail("ring", PermissionError(13, "Permission denied", "/dev/spidev0.0"))
    rt.health.fail(
        "reader",
        HardwareFault("reader_no_answer", version="0x00"),
    )
    page = french_page(browser, base, errors)
    page.reload()
    page.wait_for_selector("#hardware:not([hidden])")
    text = page.locator("#hardware").inner_text()
    assert (
        "anneau\u202f:" in text
        and "n'a pas le droit d'ouvrir son périphérique" in text
        and "/dev/spidev0.0" in text
    )
    assert "ajoutez-le au groupe spi" in text
    assert "lecteur\u202f:" in text and "ne répond pas" in text and "0x00" in text and "jamais 5 V" in text
    for english in ("may not open", "does not answer", "check the", "ring:", "reader:"):
        assert english not in text, english
    box = page.locator("#hardware").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, "fits a phone"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-360-hardware-down-fr.png"), full_page=True)
    page.click("#lang")  # back to English: the same line in English
    page.wait_for_selector("#hardware:has-text('may not open its device')")
    assert "ring:" in page.locator("#hardware").inner_text()
    assert errors == []


def test_the_servers_refusals_are_said_in_french(server: Any, browser: Any) -> None:
    base, rt = server
    errors: list[str] = []
    page = french_page(browser, base, errors)
    page.click("#host-toggle")
    pin_entered(page, "0000", "#login-why:has-text('Code de la table incorrect')")
    for _ in range(ADDRESS_GUESSES_PER_MINUTE):
        page.fill("#pin", "0000")
        page.click("#login button")
    page.wait_for_selector("#login-why:has-text('Trop de codes erronés depuis cet appareil')")
    assert "Too many" not in page.locator("#last").inner_text()
    rt.access.guard.reset()  # the host held Confirm at the table
    page.fill("#pin", "2468")
    page.click("#login button")
    page.wait_for_selector("#controls:not([hidden])")
    assert page.locator("#edition-link").inner_text().startswith("Votre boîte\u202f: transcrire")
    page.locator("#newgame").evaluate("form => form.closest('details').open = true")
    # the field takes 24 characters (issue 24 item 11): without that limit (an older page),
    # the companion's own refusal is said in French
    page.locator("#seats .seat input[type=text]").first.evaluate("i => i.removeAttribute('maxlength')")
    page.locator("#seats .seat input[type=text]").first.fill("Maximilienne-Théodora de Saint-Exupéry")
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("#last.bad:has-text('Un nom de joueur compte au plus 24 caractères')")
    assert "raccourcissez Maximilienne-Théodora de…" in page.locator("#last").inner_text()
    rt.mock = False  # as on real hardware: the virtual reader refuses
    page.fill("#tag", "ancestor")
    page.click("#tap button[type=submit]")
    page.wait_for_selector("#last.bad:has-text('Le lecteur virtuel')")
    assert "mode simulé" in page.locator("#last").inner_text()
    page.screenshot(path=str(ARTIFACTS / "phone-360-refusal-fr.png"), full_page=True)
    assert errors == []


def test_a_store_refusal_is_said_in_french_with_its_facts(server: Any, browser: Any) -> None:
    """The game store replaced under the running companion: a new game is refused (503) with
    the store's own code and params, so a French page says it in French, path included
    (it used to be ``not_saved`` with the store's English sentence as its detail)."""
    import os
    import shutil

    base, rt = server
    errors: list[str] = []
    page = french_page(browser, base, errors)
    log_in_as_host(page)
    other = rt.store.path.with_name("other.sqlite3")
    shutil.copy(rt.store.path, other)
    os.replace(other, rt.store.path)  # someone put another store there: it is not overwritten
    page.locator("#newgame").evaluate("form => form.closest('details').open = true")
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("#last.bad:has-text('a été remplacé pendant que le compagnon tournait')")
    last = page.locator("#last").inner_text()
    assert str(rt.store.path) in last and "Redémarrez le compagnon" in last, last
    assert "was replaced" not in last and "Not saved" not in last, last
    assert last.startswith("✗ Le stockage des parties "), "a sentence on its own starts with a capital"
    box = page.locator("#last").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, "fits a phone"
    page.screenshot(path=str(ARTIFACTS / "phone-360-store-refusal-fr.png"), full_page=True)
    page.locator("#last").screenshot(path=str(ARTIFACTS / "phone-360-store-refusal-fr-line.png"))
    assert errors == []


def test_a_move_the_store_refuses_is_said_in_french_with_its_cause(server: Any, browser: Any) -> None:
    """A tap the store cannot keep (its file replaced): the table's ``store_error`` carries the
    store's own code and facts, so a French page says the cause in French, not in English."""
    import os
    import shutil

    from tests.support.browser import post

    base, rt = server
    errors: list[str] = []
    page = french_page(browser, base, errors)
    other = rt.store.path.with_name("other.sqlite3")
    shutil.copy(rt.store.path, other)
    os.replace(other, rt.store.path)
    post(base, "/api/reader/tap", {"tag": rt.table.expect()["choices"][0]})
    page.wait_for_selector("#last.bad:has-text('Non enregistré, rien n')")
    last = page.locator("#last").inner_text()
    assert "a été remplacé pendant que le compagnon tournait" in last and str(rt.store.path) in last, last
    assert "was replaced" not in last and "Not saved" not in last, last
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "no sideways scroll"
    page.locator("#last").screenshot(path=str(ARTIFACTS / "phone-360-store-move-refused-fr.png"))
    assert errors == []
