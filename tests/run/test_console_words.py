"""The console's and the journal's own lines come from the catalogues (issue 17, item 4): what
`companion run` says at start, the CLI's counts, the table's journal lines. Their English is the
English catalogue's (unchanged where it was already good; a count is worded by its plural, never
"file(s)"), and the French catalogue says each of them too."""

from __future__ import annotations

import ast
import os
import re
import time
from pathlib import Path

import pytest

from companion.run.cli import main
from companion.run.console import describe_expect
from companion.run.startup import build_runtime
from companion.util.config import Config
from companion.util.wording import catalogue, fill, say, template
from tests.support.tables import make_runtime

ROOT = Path(__file__).resolve().parents[2]


def test_a_fresh_start_says_its_lines_in_the_catalogues_english(tmp_path: Path) -> None:
    """A first start, with a save that never finished left in the library: the orphan is
    counted in the singular, the new game is said as before, both from the catalogue."""
    folder = tmp_path / "editions"
    folder.mkdir(mode=0o700, parents=True)
    orphan = folder / ".my-box.json.a1b2c3.tmp"
    orphan.write_text("{")
    old = time.time() - 3600
    os.utime(orphan, (old, old))
    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=said.append)
    rt.stop()
    removed = (
        "Removed 1 temporary file of an edition save that never finished: .my-box.json.a1b2c3.tmp "
        "(each edition is as it was before that save)."
    )
    started = (
        "No game in progress: started game 1 for Alex and Sam (start another from the page's Host menu)."
    )
    assert removed in said and started in said, said
    french = say("game_started", "fr", game=1, first="Alex", last="Sam")
    assert french.startswith("Aucune partie en cours\u202f: partie 1 commencée pour Alex et Sam"), french


def test_the_cli_counts_in_the_singular_and_the_plural(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`companion games` names a game's events with the plural rule: "1 event" (it printed
    "1 events"), "2 events"; the columns stay where they were."""
    from companion.store.log import Store

    rows = [(2, "2026-01-02", True, 2), (1, "2026-01-01", False, 1)]
    monkeypatch.setattr(Store, "games", lambda self: iter(rows))
    assert main(["games", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "    2  2026-01-02  finished  2 events",
        "    1  2026-01-01  in play   1 event",
    ]
    assert [say("game_events", "fr", n=n) for n in (1, 2)] == ["1 événement", "2 événements"]


@pytest.mark.parametrize(
    ("code", "params", "one", "two"),
    [
        ("tags_enrolled", {}, "1 tag enrolled.", "2 tags enrolled."),
        ("stickers_done", {}, "1 sticker written and checked.", "2 stickers written and checked."),
        (
            "check_errors",
            {"path": "x.json"},
            "x.json: 1 error; the edition cannot be used until it is fixed.",
            "x.json: 2 errors; the edition cannot be used until they are fixed.",
        ),
        ("doctor_passed", {"passed": 1}, "1 of 1 check passed.", "1 of 2 checks passed."),
    ],
)
def test_a_console_count_is_worded_by_the_plural_rule(
    code: str, params: dict[str, object], one: str, two: str
) -> None:
    assert say(code, n=1, **params) == one and say(code, n=2, **params) == two
    french = [say(code, "fr", n=n, **params) for n in (1, 2)]
    assert french[0] != french[1] and all("(s)" not in f and "{" not in f for f in french), french


def test_what_the_table_waits_for_is_the_catalogues_sentence(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben", seed=3)
    try:
        expect = rt.table.expect()
        assert expect is not None
        text = describe_expect(rt.table)
        assert text == say(f"expect_{expect['kind']}", player=expect["player"], n=0), text
        assert "{" not in text and text.startswith("Waiting for")
    finally:
        rt.stop()


def test_the_journal_says_a_refusal_and_a_reveal_from_the_catalogue(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben", seed=3)
    logged: list[str] = []
    rt.table.log = logged.append
    try:
        refused = rt.tap("ancestor")
    finally:
        rt.stop()
    assert not refused.accepted and logged[-1] == f"Not accepted: {refused.message}", logged
    assert say("journal_refused", "fr", message="x") == "Refusé\u202f: x"
    reveal = say("journal_reveal", card="I01", title="Writing", year=-3200, hours=2)
    assert reveal == "dealer reveals I01: Writing (3200 BCE), 2 h"


# The console's codes, found in the package's source: each has its sentence in both languages.


def said_codes() -> set[str]:
    """The first argument of every ``say("code", ...)`` / ``words("code", ...)`` in the package
    (`companion.util.wording.say`, imported as ``words`` where ``say`` is a callback's name)."""
    codes = set()
    for path in sorted((ROOT / "companion").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"say", "words"}
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and " " not in node.args[0].value
            ):
                codes.add(node.args[0].value)
    return codes


def test_every_code_the_console_says_has_a_sentence_in_both_languages() -> None:
    codes = said_codes()
    assert {"not_a_pi", "game_started", "pin_shown", "port_free", "journal_refused", "part_down"} <= codes
    for lang in ("en", "fr"):
        for code in codes:
            words = catalogue(lang)
            variants = [k for b in ("msg", "hw", "console") for k in words[b] if k.startswith(code + ".")]
            assert template(code, lang) is not None or variants, (lang, code)
    for kind in ("cards", "itineraries"):  # said as f"ed_wrote_{kind}"
        assert template(f"ed_wrote_{kind}", "fr") is not None


def test_a_console_key_is_in_no_other_block() -> None:
    """`companion.util.wording.template` looks in ``msg``, ``hw``, ``console``, then the page's words:
    a console key another block also had would never be said."""
    for lang in ("en", "fr"):
        words = catalogue(lang)
        console = set(words["console"])
        assert not console & (set(words["msg"]) | set(words["hw"]) | set(words)), lang


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("n", [1, 2])
def test_every_console_sentence_fills_with_its_params(lang: str, n: int) -> None:
    """Each console sentence, every param given (a count as ``n``): no placeholder or plural
    choice is left unfilled (a malformed ``{n|one|other}`` would show as written), no "(s)"."""
    param = re.compile(r"\{(\w+)(?:\||\})")
    for key, text in catalogue(lang)["console"].items():
        said = fill(lang, text, {name: n for name in param.findall(text)})
        assert "{" not in said and "(s)" not in said and said.strip(), (key, said)
