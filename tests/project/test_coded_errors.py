"""One wording layer for the refusals that were still written by hand (issues 17 and 22, item 4).

`GameSetupError`, `LibraryError`, `EnrolRefused`, `HardwareFault`, the settings' `ConfigError`,
the store's `StoreError` and `DiskFull`, a record's `RecordError`, a request's `BadJson` and an
edition's `FieldError` carry only a ``code`` and ``params``; their English (``str(exc)``: the CLI,
the console, the journal) is the English catalogue's sentence, and the French catalogue has the
same sentence. The codes are found in the source with `ast`, so a raise site added later is
checked without a new test.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.editions import FieldError, LibraryError
from companion.hardware.health import HardwareFault
from companion.records.trekking import TREKKING, RecordError
from companion.store.log import DiskFull, Store, StoreError
from companion.table.enrol import EnrolRefused
from companion.table.game_setup import GameSetupError, new_game
from companion.util.config import Config, ConfigError
from companion.util.json_bounds import BadJson
from companion.util.wording import CodedError, say, template
from tests.support.tables import api_client

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
CLASSES: dict[str, type[CodedError]] = {
    "GameSetupError": GameSetupError,
    "LibraryError": LibraryError,
    "EnrolRefused": EnrolRefused,
    "HardwareFault": HardwareFault,
    "StoreError": StoreError,
    "DiskFull": DiskFull,
    "ConfigError": ConfigError,
    "RecordError": RecordError,
    "BadJson": BadJson,
    "FieldError": FieldError,
}
CODE = re.compile(r"[a-z][a-z0-9_]*")
#: A sentence's placeholders: ``{name}`` and the ``name`` of ``{name|one|other}``.
PLACEHOLDER = re.compile(r"\{(\w+)(?:\||\})")


def raise_sites() -> Iterator[tuple[str, str, str, set[str] | None]]:
    """(class, code, "module:line", the params it names or None when it spreads a dict) of
    every construction of the four classes in the package whose code is written there."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", "")
            if name not in CLASSES:
                continue
            written = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            written += [
                k.value.value
                for k in node.keywords
                if k.arg == "code" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
            ]  # the signature before the catalogue held the English
            codes = [c for c in written if CODE.fullmatch(c)]
            if not codes:
                continue
            spread = any(k.arg is None for k in node.keywords)
            named = None if spread else {k.arg for k in node.keywords if k.arg not in (None, "code")}
            yield name, codes[0], f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", named


SITES = sorted(raise_sites())


def test_the_scan_finds_the_raise_sites() -> None:
    found = {(cls, code) for cls, code, _, _ in SITES}
    assert {
        ("GameSetupError", "duplicate_names"),
        ("GameSetupError", "too_few_itineraries"),
        ("LibraryError", "edition_incomplete_base"),
        ("LibraryError", "shipped_read_only"),
        ("EnrolRefused", "enrol_taken"),
        ("HardwareFault", "reader_no_answer"),
        ("HardwareFault", "button_unreadable"),
        ("HardwareFault", "ring_spi_missing"),
        ("StoreError", "store_write_failed"),
        ("StoreError", "store_running_pid"),
        ("StoreError", "store_data_dir"),
        ("StoreError", "store_events_checksum"),
        ("DiskFull", "store_full_write"),
        ("DiskFull", "store_full_start"),
        ("ConfigError", "config_value"),
        ("ConfigError", "config_toml"),
        ("RecordError", "record_empty"),
        ("RecordError", "record_setup_not_json"),
        ("BadJson", "json_too_deep"),
        ("FieldError", "field_day"),
        ("FieldError", "ancestor_copies_cli"),
    } <= found, found
    assert {cls for cls, _ in found} == set(CLASSES)


def sample(names: set[str]) -> dict[str, Any]:
    """A value for each param: a number, which every placeholder and plural choice can take."""
    return {name: 3 for name in names}


@pytest.mark.parametrize(("cls", "code", "where", "named"), SITES, ids=[s[2] for s in SITES])
def test_every_raise_site_is_worded_by_both_catalogues(
    cls: str, code: str, where: str, named: set[str] | None
) -> None:
    params = sample(named or set())
    if cls == "HardwareFault":
        params["part"] = "reader"  # `diagnose` adds the part, which some sentences name
    exc = CLASSES[cls](code, **params)
    assert exc.code == code and exc.params == params
    assert str(exc) == say(code, "en", **params), where
    assert template(code, "fr") is not None, f"{where}: no French sentence for {code}"
    assert say(code, "fr", **params) != say(code, "en", **params), f"{where}: the French is the English"
    if named is not None:  # every fact the sentences use is given where the error is raised
        for lang in ("en", "fr"):
            wanted = set(PLACEHOLDER.findall(template(code, lang) or "")) - {"part", "c"}
            assert wanted <= named, f"{where}: {code} ({lang}) needs {sorted(wanted - named)}"
    if cls == "HardwareFault":
        fault = exc
        assert isinstance(fault, HardwareFault)
        assert fault.fix == say(f"{code}.fix", "en", **params) and template(f"{code}.fix", "fr")


def test_the_english_of_an_error_is_the_catalogues_sentence() -> None:
    """What the CLI prints for these errors, taken from the English catalogue."""
    assert str(GameSetupError("duplicate_names")) == "Two players share a name; give each a different one."
    taken = EnrolRefused("enrol_taken", tag="04A1", known="I12")
    assert str(taken) == say("enrol_taken", tag="04A1", known="I12") and "already enrolled as I12" in str(
        taken
    )
    fault = HardwareFault("reader_no_answer", version="0x00")
    assert "does not answer" in str(fault) and "0x00" in str(fault) and "wiring.md" in fault.fix


def test_an_incomplete_edition_names_what_is_still_the_base_editions_in_words() -> None:
    """`from_base` is a count per kind for the page; the English says it in words, as the page does."""
    facts = {
        "edition": "my-box",
        "day1": 0,
        "day2": 1,
        "day3": 36,
        "per_day": 36,
        "itineraries": 0,
        "of": 24,
        "from_base": {"parts": ["ancestor", "treks"], "cards": 1, "itineraries": 3},
    }
    english = str(LibraryError("edition_incomplete_base", **facts))
    assert "the Ancestor, the trek table, 1 card, 3 itineraries" in english, english
    french = say("edition_incomplete_base", "fr", **facts)
    assert "l'Ancêtre, la table des voyages, 1 carte, 3 itinéraires" in french, french


# What the English says now that it comes from the catalogue: nothing the raise sites said is lost.

PIN = {"X-Table-Pin": "2468"}


def test_too_many_players_are_named_and_none_has_its_own_sentence(tmp_path: Path, capsys: Any) -> None:
    """`companion new` listed the names it counted, and said "not 0 (none)" for no name."""
    from companion.run.cli import main

    data = ["--data-dir", str(tmp_path), "--mock"]
    assert main(["new", "--players", "A,B,C,D,E", *data]) == 2
    assert "not 5: A, B, C, D, E." in capsys.readouterr().err
    assert main(["new", "--players", ",", *data]) == 2
    assert "no name was given" in capsys.readouterr().err
    store = Store(tmp_path, TREKKING)
    with pytest.raises(GameSetupError) as caught:
        new_game(store, [f"P{n}" for n in range(12)], Config())
    assert caught.value.params == {"n": 12, "names": "P0, P1, P2, P3, P4, P5, P6, P7, …"}
    store.close()


def test_the_page_is_told_which_characters_of_a_name_show_nothing(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, _):
        answer = http.post("/api/game/new", json={"players": ["Ann", "\u3164"]}, headers=PIN).get_json()
    assert answer["code"] == "name_invisible" and answer["params"] == {"chars": "U+3164"}
    assert "U+3164 shows nothing" in answer["error"]
    assert "celui-ci n'affiche rien (U+3164)" in say("name_invisible", "fr", **answer["params"])


def test_an_enrolment_answer_is_the_pages_english_sentence(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        card = rt.table.board.edition.card("I12")
        body = {"tag": "AB12", "card": "I12", "hours": 3, "gains": ["event"]}
        answer = http.post("/api/enroll", json=body, headers=PIN).get_json()
        itinerary = rt.table.board.edition.itineraries[0].id
        plain = http.post("/api/enroll", json={"tag": "CD34", "card": itinerary}, headers=PIN).get_json()
    assert answer["message"] == (
        f"Tag AB12 is now {card.title} ({-card.year} BCE). Your values are saved to your own edition."
    )
    assert answer["message"].startswith(say("enrolled", **answer["params"]))
    assert plain["message"] == f"Tag CD34 is now Itinerary {itinerary}.", plain


def test_an_enrolment_whose_own_edition_lacks_the_card_is_refused(tmp_path: Path) -> None:
    """The owner's edition no longer has the card (removed on *Your box*): the page's enrolment
    with values was an answer 500 (a StopIteration); now a refusal that names the card and file."""
    from companion.editions import EditionLibrary, mine_name

    with api_client(tmp_path) as (http, rt):
        own = EditionLibrary(rt.data_dir).path(mine_name(rt.edition().name))
        own.parent.mkdir(parents=True, exist_ok=True)
        own.write_text('{"cards": []}\n')
        body = {"tag": "AB12", "card": "I12", "hours": 3, "gains": ["event"]}
        answer = http.post("/api/enroll", json=body, headers=PIN)
        assert answer.status_code == 400, answer.get_json()
        assert answer.get_json()["code"] == "enrol_card_gone"
        assert answer.get_json()["params"] == {"card": "I12", "file": str(own)}
        assert "The tag was not enrolled: I12 is no longer in your edition" in answer.get_json()["error"]
        assert "AB12" not in rt.store.tags()
        assert own.read_text() == '{"cards": []}\n', "the owner's file is left as it was"


def test_the_console_enrolment_says_the_same_and_enrols_nothing(tmp_path: Path) -> None:
    from companion.editions import load_edition
    from companion.table.enrol import Enroller

    store = Store(tmp_path, TREKKING)
    own = tmp_path / "editions" / "mine.json"
    own.parent.mkdir()
    own.write_text("[]\n")  # no cards: the card chosen is no longer there
    said: list[str] = []
    lines = iter(["marathon", "1", "4 event"])
    enroller = Enroller(store, load_edition("reference"), own, lambda _: next(lines, None), said.append)
    enroller.data = {"cards": [{"id": "I12", "hours": 3, "gains": []}]}  # as read at the start
    assert enroller.enroll_one("AA01")
    assert said[-1] == str(EnrolRefused("enrol_card_gone", card="I12", file=str(own)))
    assert "no longer in your edition" in said[-1] and store.tags() == {}
    store.close()


def test_a_button_that_can_no_longer_be_read_is_named() -> None:
    """The raise site named the button ("the confirm button's pin GPIO6"); the catalogue does too."""
    from companion.hardware.buttons import Buttons
    from companion.util.config import ButtonSettings

    class Gone:
        @property
        def value(self) -> int:
            raise OSError("the GPIO chip went away")

    buttons = Buttons.__new__(Buttons)  # its pins only: gpiozero is not needed to read one
    buttons.settings, buttons.buttons = ButtonSettings(), {"confirm": Gone()}
    with pytest.raises(HardwareFault) as caught:
        buttons.check()
    assert "the confirm button's pin GPIO6 can no longer be read" in str(caught.value)
    assert "bouton confirm" in say("button_unreadable", "fr", **caught.value.params)
    assert "lsof /dev/gpiochip0" in caught.value.fix


def test_the_pin_rule_is_the_catalogues() -> None:
    """`--pin` and the PIN file are checked by one rule, worded in the catalogues like the page's."""
    from companion.table.access import table_pin
    from companion.util.config import pin_problem

    assert pin_problem("12") == say("pin_rule", "en") and "4 to 8 digits" in say("pin_rule", "en")
    assert pin_problem("4821") is None and "4 à 8 chiffres" in say("pin_rule", "fr")
    with pytest.raises(ValueError, match="--pin '12': a table PIN is 4 to 8 digits"):
        table_pin("", "12", Path("/nonexistent"))


# The store's refusals: the English the raise sites wrote, now the catalogue's, word for word.

FREE = (
    "Free some space on it (delete files you do not need) or move the data directory to a bigger disk, "
    "then try again."
)


def test_the_stores_refusals_say_what_their_raise_sites_said(tmp_path: Path) -> None:
    import os

    store = Store(tmp_path, TREKKING)
    store.enroll("04A1", "I12", "reference")
    with pytest.raises(StoreError) as taken:
        store.enroll("04A1", "I07", "reference")
    assert str(taken.value) == "tag 04A1 is already enrolled as I12; unenroll it first"
    assert taken.value.code == "store_tag_enrolled" and taken.value.params == {"tag": "04A1", "known": "I12"}
    assert say("store_tag_enrolled", "fr", **taken.value.params).startswith("la pastille 04A1 est déjà")
    with pytest.raises(StoreError) as missing:
        store.load(9)
    assert str(missing.value) == f"there is no game 9 in {store.path}"
    assert say("store_no_game", "fr", **missing.value.params) == f"il n'y a pas de partie 9 dans {store.path}"
    store.claim()
    other = Store(tmp_path, TREKKING)
    with pytest.raises(StoreError) as running:
        other.claim()
    assert str(running.value) == (
        f"a companion is running on {tmp_path} (process {os.getpid()}). Start a new game from its page "
        "(Host, then New game), or stop it first."
    )
    assert running.value.params == {"folder": str(tmp_path), "pid": os.getpid()}
    other.close()
    store.close()
    assert str(StoreError("store_running", folder="/srv/data")) == (
        "a companion is running on /srv/data. Start a new game from its page (Host, then New game), "
        "or stop it first."
    )


def test_a_full_disk_says_what_could_not_be_done_and_what_to_do() -> None:
    for code, doing in (
        ("store_full_open", "the game store cannot be opened; nothing was lost"),
        ("store_full_write", "nothing was saved and nothing changed"),
        ("store_full_copy", "the damaged store cannot be copied aside"),
        ("store_full_start", "the companion cannot start; nothing was lost"),
    ):
        full = DiskFull(code, folder="/srv/data")
        assert str(full) == f"the disk holding /srv/data is full, so {doing}. {FREE}", code
        assert isinstance(full, StoreError) and full.params == {"folder": "/srv/data"}
        assert "le disque qui contient /srv/data est plein" in say(code, "fr", folder="/srv/data")


def test_a_store_that_fails_a_write_names_the_systems_cause(tmp_path: Path) -> None:
    """The system's (or SQLite's) own English stays a param, ``cause``: the rest is the catalogue's."""
    import sqlite3

    store = Store(tmp_path, TREKKING)

    def refuse() -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    with pytest.raises(StoreError) as caught:
        store._transaction(refuse)
    assert (
        str(caught.value)
        == f"could not save to {store.path} (attempt to write a readonly database); nothing changed"
    )
    assert caught.value.params == {"path": str(store.path), "cause": "attempt to write a readonly database"}
    assert say("store_write_failed", "fr", **caught.value.params).startswith("impossible d'enregistrer dans")
    store.close()


def test_a_game_whose_setup_is_damaged_keeps_its_damage_and_says_so(tmp_path: Path) -> None:
    from companion.store.log import GameDamaged

    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config())
    with store._lock:
        store._db.execute("UPDATE games SET setup = replace(setup, 'Ann', 'Anne') WHERE id = ?", (game,))
    with pytest.raises(GameDamaged) as caught:
        store.load(game)
    assert (
        str(caught.value) == f"game {game}'s setup in {store.path} is damaged (its checksum does not match)"
    )
    assert caught.value.code == "store_setup_checksum" and caught.value.damage.game == game
    assert caught.value.params == {"game": game, "path": str(store.path)}, (
        "the damage is no param of the sentence"
    )
    store.close()


def test_a_store_refusal_reaches_the_page_with_its_own_code_and_params(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not ``not_saved`` with the store's English as its ``detail`` (a French page showed it):
    the store's code and params, with the statuses as before (503; 400 for an enrolment)."""
    facts = {"game": 4, "path": "/srv/companion.sqlite3", "cause": "database disk image is malformed"}

    def unreadable(*_: Any, **__: Any) -> Any:
        raise StoreError("store_read_failed", **facts)

    def refused(*_: Any, **__: Any) -> Any:
        raise StoreError("store_write_failed", path="/srv/companion.sqlite3", cause="disk I/O error")

    with api_client(tmp_path) as (http, rt):
        monkeypatch.setattr(rt, "history", unreadable)
        answer = http.get("/api/history")
        assert answer.status_code == 503
        assert answer.get_json() == {
            "code": "store_read_failed",
            "params": facts,
            "error": str(StoreError("store_read_failed", **facts)),
        }
        monkeypatch.setattr(rt.store, "_write", refused)
        enrolment = http.post("/api/enroll", json={"tag": "AB12", "card": "I12"}, headers=PIN)
        assert enrolment.status_code == 400
        assert enrolment.get_json()["code"] == "store_write_failed"
        assert enrolment.get_json()["params"] == {"path": "/srv/companion.sqlite3", "cause": "disk I/O error"}
        assert "AB12" not in rt.store.tags()
    assert say("store_read_failed", "fr", **facts).startswith("impossible de lire la partie 4")


def test_a_move_the_store_refuses_carries_the_stores_code_for_the_page(tmp_path: Path) -> None:
    """The table's ``store_error`` keeps its English (``error``: the store's sentence) and adds
    the store's own code and facts, which the page words in its language (web/static/i18n.js)."""
    import os

    from tests.support.tables import make_runtime

    rt = make_runtime(tmp_path / "a")
    other = Store(tmp_path / "b", TREKKING)
    other.close()
    for suffix in ("-wal", "-shm"):
        (tmp_path / "a" / f"companion.sqlite3{suffix}").unlink(missing_ok=True)
    os.replace(tmp_path / "b" / "companion.sqlite3", tmp_path / "a" / "companion.sqlite3")
    out = rt.tap(rt.table.expect()["choices"][0])  # type: ignore[index]
    path = str(tmp_path / "a" / "companion.sqlite3")
    assert out.code == "store_error" and out.params["store"] == "store_replaced"
    assert out.params["facts"] == {"path": path}
    assert out.message == "Not saved, nothing changed: " + say("store_replaced", path=path)
    french = say("store_error", "fr", error=say("store_replaced", "fr", **out.params["facts"]))
    assert (
        french.startswith("Non enregistré, rien n'a changé\u202f: le stockage des parties") and path in french
    )
    rt.stop()


# The rules core's refusals (issue 22, item 4): the engine gives a code and its facts, and
# `companion replay` prints the sentence the table says, in every language.


@pytest.mark.parametrize(
    ("tap", "event", "code"),
    [
        ("ancestor", {"type": "take", "card": "ancestor", "player": "Ann"}, "ancestor_cannot_start_trek"),
        ("III01", {"type": "reveal", "card": "III01"}, "card_not_available"),
    ],
)
def test_replay_and_the_table_word_a_rejection_the_same_in_english_and_french(
    tmp_path: Path, tap: str, event: dict[str, Any], code: str
) -> None:
    """The table refuses a tap; the same game's record with that event replayed says the same
    sentence (`format_standings`, what ``companion replay`` prints) in English and in French."""
    import json

    from companion.engine import event_to_json
    from companion.records.trekking import format_standings, replay_text, write_record
    from tests.support.tables import make_runtime

    rt = make_runtime(tmp_path)
    table = rt.table
    while table.expect()["kind"] == "itinerary":
        assert rt.tap(table.expect()["choices"][0]).accepted  # type: ignore[index]
    refused = rt.tap(tap)
    assert not refused.accepted and refused.code == code, refused
    moves = [json.dumps(event_to_json(e)) for e in table.board.moves]
    text = write_record(table.setup, []) + "\n".join([*moves, json.dumps(event)]) + "\n"
    rt.stop()
    replay = replay_text(text)
    [line] = list(replay.rejected)
    assert line.code == refused.code and line.line == len(moves) + 2
    assert line.message("en") == refused.message == say(refused.code, "en", **refused.params)
    assert line.message("fr") == say(refused.code, "fr", **refused.params) != line.message("en")
    for lang in ("en", "fr"):
        assert f"line {line.line}: {code}: {line.message(lang)}" in format_standings(replay, lang)


def test_every_rejection_the_engine_makes_is_worded_by_both_catalogues() -> None:
    """Each ``Rejection(code, why=...)`` and ``Malformed(kind, why)`` in the rules core and the
    record reader has its own sentence (``code.why``) in English and French, with every fact it
    names given where it is made (a missing variant would fall back to the bare code's sentence)."""
    found: set[tuple[str, str]] = set()
    for path in (*sorted((PACKAGE / "engine").glob("*.py")), PACKAGE / "records" / "trekking.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
            whys = [
                k.value.value
                for k in node.keywords
                if k.arg == "why" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
            ]
            if name == "Rejection" and whys:
                code = node.args[0]
                assert isinstance(code, ast.Name), ast.dump(code)
                found.add((code.id.lower(), whys[0]))
            elif name in ("Malformed", "NotJson"):
                literal = node.args[1 if name == "Malformed" else 0]
                if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
                    found.add(("bad_event", literal.value))
    assert {("bad_event", "dealt"), ("bad_event", "take_card"), ("bad_event", "not_utf8")} <= found
    assert {("card_not_available", "not_in_row"), ("itinerary_unavailable", "taken")} <= found
    for code, why in sorted(found):
        for lang in ("en", "fr"):
            assert catalogue_has(f"{code}.{why}", lang), f"{code}.{why} has no {lang} sentence"


def catalogue_has(key: str, lang: str) -> bool:
    from companion.util.wording import catalogue

    return key in catalogue(lang)["msg"]
