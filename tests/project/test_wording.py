"""One wording layer: every sentence in one catalogue per language (web/static/i18n/*.json),
read by the page and by `companion.util.wording` for the console, the API's English and the logs."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from companion.engine.rejections import CODES
from companion.engine.words import plural, year_text
from companion.hardware.health import HardwareFault, diagnose
from companion.store.log import DAMAGE_CODES, DamageNotice
from companion.table.outcomes import OUTCOME_CODES
from companion.util.wording import catalogue, fill, plural_category, say, took_text
from tests.support.codes import hardware_codes, server_codes
from tests.support.tables import api_app, client_from, make_runtime, play_turn

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = ROOT / "web" / "static" / "i18n"
#: ``{name}`` and the ``name`` of ``{name|one|other}``: the facts a sentence uses.
PARAM = re.compile(r"\{(\w+)(?:\||\})")
#: Params whose values are English (an OS error's text, a part's English name): a French
#: sentence says the same without them, since a French page never shows English.
ENGLISH_VALUES = {"detail", "error", "part"}


def entries(lang: str) -> dict[str, str]:
    """Every sentence of a catalogue, by block-qualified key ("msg/took", "hw/spi_off.fix", "title")."""
    words = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    flat: dict[str, str] = {}
    for key, value in words.items():
        if isinstance(value, dict):
            flat.update({f"{key}/{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def table_codes() -> set[str]:
    """The codes the table's outcomes name (``CUE_X, "code"``, and `OUTCOME_CODES`), as
    test_turn_and_messages finds them."""
    modules = sorted((ROOT / "companion" / "table").glob("*.py"))  # the table package's modules
    source = "".join(path.read_text(encoding="utf-8") for path in modules)
    found = set(re.findall(r"CUE_[A-Z]+,\s*\"([a-z_]+)\"", source)) | {"took", "undone"}
    return found | set(OUTCOME_CODES)  # the codes declared once (companion.table.outcomes)


def test_both_catalogues_have_the_same_sentences_and_every_value_is_a_sentence() -> None:
    english, french = entries("en"), entries("fr")
    assert len(english) > 300
    assert set(english) == set(french), set(english) ^ set(french)
    for key in english:
        assert isinstance(english[key], str) and english[key].strip(), key
        assert isinstance(french[key], str) and french[key].strip(), key


def test_each_english_sentence_uses_the_same_params_as_its_french_one() -> None:
    english, french = entries("en"), entries("fr")
    differ = {}
    for key in english:
        en, fr = set(PARAM.findall(english[key])), set(PARAM.findall(french[key]))
        if fr - en or en - fr - ENGLISH_VALUES:
            differ[key] = (en, fr)
    assert differ == {}


def test_every_code_python_emits_has_a_sentence() -> None:
    words = catalogue("en")
    for code in table_codes() | set(CODES) | server_codes():
        assert code in words["msg"] or any(k.startswith(code + ".") for k in words["msg"]), code
    for code in hardware_codes():
        assert code in words["hw"] and f"{code}.fix" in words["hw"], code
    assert {"preview", "armed", "no_wild", "store_error", "disk_full"} <= table_codes()


def test_the_renderer_fills_params_and_picks_variants_as_the_catalogue_says() -> None:
    template = catalogue("en")["msg"]["preview"]
    facts = {"player": "Ann", "hours": 3, "landing": 7, "max": 2}
    expected = template
    for name, value in {**facts, "c": "The wheel (3500 BCE)"}.items():
        expected = expected.replace("{" + name + "}", str(value))
    assert say("preview", **facts, card="c1", title="The wheel", year=-3500) == expected
    assert "{" not in expected and "3500 BCE" in expected
    assert say("undone", kind="itinerary", player="Ann", itinerary="T2") == catalogue("en")["msg"][
        "undone.itinerary"
    ].replace("{player}", "Ann").replace("{itinerary}", "T2")
    assert say("press_confirm", player="Ben", more=True).endswith("Crystal to spend one more.")
    assert say("no_itinerary_today", player="").startswith("That player has not chosen")
    assert say("spi_off.fix").startswith("the reader is on SPI1")
    assert say("card_not_available", "fr", why="revealed", card="ancestor") == "L'Ancêtre a déjà été révélée."


def test_the_plural_rule_agrees_with_the_english_helper_and_with_cldr_french() -> None:
    for n in range(6):
        assert say("spent", n=n) == f"{plural(n, 'crystal')} spent"
    assert [plural_category("fr", n) for n in (0, 1, 2, 5)] == ["one", "one", "other", "other"]
    assert [plural_category("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert say("spent", "fr", n=0) == "0 cristal dépensé" and say("spent", "fr", n=2) == "2 cristaux dépensés"
    assert fill("en", "{n|it|them} and {m|one|more}", {"n": 1}) == "it and {m|one|more}", "unknown stays"


def test_a_card_is_written_with_the_year_helper() -> None:
    for year in (-3500, 0, 79, 1492):
        assert say("revealed", card="x", title="T", year=year) == f"Revealed T ({year_text(year)})."


@pytest.mark.parametrize("turn", ["confirm", "quick"])
def test_every_outcome_of_a_played_game_is_its_catalogue_sentence(tmp_path: Path, turn: str) -> None:
    """The console's English is the catalogue's: for every outcome the table makes, the
    rules engine's refusals too, its message is the sentence its code and params render to."""
    rt = make_runtime(tmp_path, "Ann,Ben,Cy", seed=3, turn=turn)
    seen: list[Any] = []
    rt.table.listeners.append(lambda _table, outcome: seen.append(outcome))
    rng = random.Random(5)
    try:
        rt.press("confirm")  # nothing to confirm, or (quick) nothing pending either
        rt.tap("ancestor")  # the engine refuses it (no Itinerary yet, or no Trek to add it to)
        rt.press("crystal")
        for _ in range(40):
            if rt.table.expect() is None:
                break
            play_turn(rt, rng)
        rt.press("undo")
        rt.press("undo")
        unknown = rt.tap("no-such-sticker-here")
    finally:
        rt.stop()
    assert unknown.code == "unknown_tag" and unknown.message == say("unknown_tag", **unknown.params), unknown
    codes = set()
    for outcome in seen:
        params = outcome.params
        expected = took_text(params) if outcome.code == "took" else say(outcome.code, **params)
        assert outcome.message == expected, outcome
        codes.add(outcome.code)
    assert {"took", "undone", "itinerary_chosen"} <= codes and codes & set(CODES) - table_codes(), codes


def test_the_apis_english_error_is_the_catalogue_sentence_of_its_code(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, _rt):
        http = client_from(app)
        pin = {"X-Table-Pin": "2468"}
        answers = [
            http.post("/api/login", json={"pin": "0000"}),
            http.post("/api/game/new", json={"players": ["N" * 30]}, headers=pin),
            http.post("/api/game/new", json={"players": ["Ann"], "edition": "atlantis"}, headers=pin),
            http.post("/api/reader/tap", json={"tag": "ABC"}),
            http.get("/api/bgstats/999"),
        ]
    for answer in answers:
        body = answer.get_json()
        expected = say(body["code"], **body.get("params", {}))
        assert answer.status_code >= 400 and body["error"] == expected, body
    assert [a.get_json()["code"] for a in answers] == [
        "wrong_pin",
        "name_too_long",
        "unknown_edition",
        "login_needed",
        "no_finished_game",
    ]


@pytest.mark.parametrize(
    ("part", "exc"),
    [
        ("ring", PermissionError(13, "Permission denied", "/dev/spidev0.0")),
        ("buttons", PermissionError(13, "Permission denied", "/dev/gpiochip0")),
        ("reader", FileNotFoundError(2, "No such file", "/dev/spidev1.0")),
        ("reader", ImportError("No module named 'spidev'")),
        ("buttons", ImportError("Unable to load any default pin factory")),
        ("ring", FileNotFoundError(2, "No such file", "/dev/spidev0.0")),
        ("reader", OSError("timeout")),
        ("buttons", OSError("timeout")),
        ("ring", OSError("timeout")),
        ("ring", HardwareFault("ring_spi_refused", device="/dev/spidev0.0", user="trekking")),
    ],
)
def test_a_hardware_fault_is_worded_by_the_catalogue(part: str, exc: BaseException) -> None:
    """The console's and the journal's cause and fix are the page's English sentences."""
    found = diagnose(part, exc)
    assert found.message == say(found.code, **found.params) and "{" not in found.message
    assert found.fix == say(f"{found.code}.fix", **found.params) and found.fix


@pytest.mark.parametrize("code", sorted(DAMAGE_CODES.values()))
@pytest.mark.parametrize("count", [1, 3])
def test_a_damage_notice_is_worded_by_the_catalogue(code: str, count: int) -> None:
    facts = {"kept": 4, "withheld": count, "dropped": count, "copy": "/data/store.damaged-1",
             "store": "/data/companion.sqlite3", "journal": "/data/store-wal.foreign-1"}  # fmt: skip
    notice = DamageNotice(1, "2026-01-01T00:00:00", 7, code, facts)
    page = notice.to_json()["params"]
    assert notice.message == say(code, **page) and "{" not in notice.message
    assert notice.fix == say(f"{code}.fix") and "Seen" in notice.fix
    if code == "store_event_damaged":
        assert ("that event is" if count == 1 else f"the {count} events from there on are") in notice.message


#: Elements with no end tag: they hold no text, so the parser below does not stack them.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class PageWords(HTMLParser):
    """A page's fixed words: each ``data-i18n*`` key with the English the HTML carries for it,
    and every English text or label with no key (a French page would show it in English)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str | None], list[str]]] = []
        self.keyed: list[tuple[str, str]] = []  # (key, the English the HTML shows for it)
        self.unkeyed: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for attr, data in (("placeholder", "data-i18n-placeholder"), ("aria-label", "data-i18n-label")):
            if a.get(data):
                self.keyed.append((str(a[data]), str(a.get(attr))))
            elif a.get(attr):
                self.unkeyed.append(str(a[attr]))
        if tag not in VOID:
            self.stack.append((tag, a, []))

    def handle_endtag(self, tag: str) -> None:
        _, a, text = self.stack.pop()
        words = "".join(text)
        if a.get("data-i18n"):
            self.keyed.append((str(a["data-i18n"]), words))
        elif self.stack:
            self.stack[-1][2].append(words)

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1][2].append(data)
            if not any(x.get("data-i18n") for _, x, _ in self.stack) and re.search(r"[A-Za-z]{3}", data):
                self.unkeyed.append(data.strip())


def test_the_edition_page_names_the_catalogue_key_of_each_of_its_words() -> None:
    """edition.html's fixed words are put in the page's language by their ``data-i18n``,
    ``data-i18n-placeholder`` and ``data-i18n-label`` keys (as index.html's are), not by
    matching its English text: each key is in both catalogues with the English the HTML
    shows, no English text or label is left without one, and no page key is left unused."""
    parser = PageWords()
    parser.feed((ROOT / "web" / "static" / "edition.html").read_text(encoding="utf-8"))
    english, french = entries("en"), entries("fr")
    assert len(parser.keyed) > 50
    for key, shown in parser.keyed:
        assert english.get(key) == shown, (key, english.get(key), shown)
        assert key in french, key
    # a Day's Roman numeral and the new edition's example name are the same in French
    assert [w for w in parser.unkeyed if not re.fullmatch(r"[IVX]+|my-box", w)] == []
    used = {key for key, _ in parser.keyed}
    assert {k for k in english if k.startswith("edp_")} <= used, "a page key no element names"
