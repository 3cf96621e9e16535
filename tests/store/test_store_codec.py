"""Issue 22 item 2: the store knows no game. It is given a codec (a format name, the setup
and events to and from JSON) and keeps each game with its format's name.

A toy game that is not Trekking (a race to a sum) is stored, reloaded and checked by the
same checksums; a game in a format the codec does not read is refused with a sentence; a
store written before formats were recorded is upgraded once, its games marked
``trekking/1`` (the only format there was).
"""

from __future__ import annotations

import ast
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.records.trekking import TREKKING
from companion.store.log import LEGACY_FORMAT, SCHEMA_VERSION, Store, StoreError, event_sum
from companion.util.wording import say

PACKAGE = Path(__file__).resolve().parents[2] / "companion"


@dataclass(frozen=True)
class Race:
    """The toy game's setup: who plays and the sum that wins."""

    players: tuple[str, ...]
    goal: int


@dataclass(frozen=True)
class Add:
    """The toy game's one event: a player adds to the running sum."""

    player: str
    n: int


class RaceCodec:
    """A codec for the toy game, written as a game's author would write one."""

    format = "race/1"

    def setup_to_json(self, setup: Race) -> dict[str, Any]:
        return {"type": "setup", "players": list(setup.players), "goal": setup.goal}

    def setup_from_json(self, obj: dict[str, Any]) -> Race:
        goal = obj.get("goal")
        if not isinstance(goal, int):
            raise ValueError("a race needs a goal")
        return Race(tuple(obj["players"]), goal)

    def event_to_json(self, event: Add) -> dict[str, Any]:
        return {"player": event.player, "n": event.n}

    def event_from_json(self, obj: Any) -> Add:
        if not isinstance(obj, dict) or not isinstance(obj.get("n"), int):
            raise ValueError("an add needs n")
        return Add(str(obj["player"]), obj["n"])


RACE = RaceCodec()


def race_game(store: Store) -> int:
    game = store.new_game(RACE.setup_to_json(Race(("Ann", "Ben"), 10)), {})
    store.write_events(game, 1, [Add("Ann", 3), Add("Ben", 4)], None)
    store.write_events(game, 3, [Add("Ann", 5)], True)
    return game


def test_a_toy_game_is_stored_reloaded_and_checked_by_the_same_checksums(tmp_path: Path) -> None:
    store = Store(tmp_path, RACE)
    game = race_game(store)
    store.close()
    again = Store(tmp_path, RACE)
    loaded = again.load(game)
    assert loaded.setup == Race(("Ann", "Ben"), 10)
    assert loaded.events == (Add("Ann", 3), Add("Ben", 4), Add("Ann", 5))
    assert loaded.finished and loaded.damage is None
    assert [row.seq for row in loaded.rows] == [1, 2, 3]
    assert again.export(game).splitlines()[0] == (
        '{"type": "setup", "players": ["Ann", "Ben"], "goal": 10, "record": "race/1"}'
    )
    again.close()
    with sqlite3.connect(tmp_path / "companion.sqlite3") as db:  # a byte changed on the card
        db.execute("""UPDATE events SET event = '{"player": "Ben", "n": 9}' WHERE seq = 2""")
    damaged = Store(tmp_path, RACE).load(game)
    assert damaged.events == (Add("Ann", 3),), "the chain stops at the changed row"
    assert damaged.damage is not None and damaged.damage.kind == "event"


def test_an_event_the_codec_cannot_read_is_damage_like_a_bad_checksum(tmp_path: Path) -> None:
    store = Store(tmp_path, RACE)
    game = race_game(store)
    store.close()
    with sqlite3.connect(tmp_path / "companion.sqlite3") as db:  # the right checksum, a wrong program
        db.execute("""UPDATE events SET event = '{"player": "Ben"}' WHERE seq = 3""")
        db.execute("UPDATE games SET head = ?", (_chain(db, game),))
    loaded = Store(tmp_path, RACE).load(game)
    assert len(loaded.events) == 2
    assert loaded.damage is not None and loaded.damage.kept == 2


def _chain(db: sqlite3.Connection, game: int) -> str:
    """The head of ``game``'s chain recomputed over its rows as stored (a program that wrote
    a bad event with its checksum); every row's sum is set on the way."""
    (head,) = db.execute("SELECT sum FROM games WHERE id = ?", (game,)).fetchone()
    rows = db.execute("SELECT seq, event, at FROM events WHERE game_id = ? ORDER BY seq", (game,)).fetchall()
    for seq, text, at in rows:
        head = event_sum(head, game, seq, text, at)
        db.execute("UPDATE events SET sum = ? WHERE game_id = ? AND seq = ?", (head, game, seq))
    return str(head)


def test_a_game_in_another_format_is_refused_with_a_sentence_and_left_as_it_is(tmp_path: Path) -> None:
    store = Store(tmp_path, RACE)
    game = race_game(store)
    store.close()
    trekking = Store(tmp_path, TREKKING)
    with pytest.raises(StoreError) as refused:
        trekking.load(game)
    assert refused.value.code == "store_game_format"
    assert refused.value.params["format"] == "race/1" and refused.value.params["reads"] == "trekking/1"
    assert "does not read" in str(refused.value)
    assert "ne lit pas" in say("store_game_format", "fr", **refused.value.params)
    trekking.close()
    assert Store(tmp_path, RACE).load(game).events[-1] == Add("Ann", 5), "nothing was changed"


def test_a_store_from_before_formats_is_upgraded_once_and_marks_its_games_trekking(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    game = store.new_game({"type": "setup", "players": ["Ann", "Ben"], "edition": "reference"}, {})
    store.close()
    path = tmp_path / "companion.sqlite3"
    with sqlite3.connect(path) as db:  # what a schema-1 companion wrote: no format column
        db.execute("ALTER TABLE games DROP COLUMN format")
        db.execute("PRAGMA user_version = 1")
    upgraded = Store(tmp_path, TREKKING)
    assert upgraded.upgraded is None, "no checksum was computed: nothing to say"
    assert upgraded.load(game).setup.players == ("Ann", "Ben")
    upgraded.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        assert db.execute("SELECT format FROM games").fetchall() == [(LEGACY_FORMAT,)]
    with pytest.raises(StoreError):  # a toy game's program opening it is told, not fed Trekking
        Store(tmp_path, RACE).load(game)


#: The companion modules the store may import: helpers that import only the standard library.
STORE_HELPERS = {
    "companion.store.wal",
    "companion.store.wal_owner",
    "companion.store.checksums",
    "companion.store.codec",
    "companion.store.damage",
    "companion.store.errors",
    "companion.store.private_files",
    "companion.store.schema",
    "companion.store.runner",
    "companion.util.wording",
    "companion.util.files",
}


def companion_imports(module: str) -> set[str]:
    """Every module ``module``'s source imports (lazy ones too), read with `ast`."""
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_store_imports_only_the_standard_library_and_stdlib_only_helpers() -> None:
    stdlib = sys.stdlib_module_names | {"__future__"}
    imported = companion_imports("companion.store.log")
    assert {name for name in imported if name.split(".")[0] not in stdlib} <= STORE_HELPERS
    for helper in STORE_HELPERS:
        outside = {name for name in companion_imports(helper) if name.split(".")[0] not in stdlib}
        assert outside <= STORE_HELPERS, f"{helper} imports {outside}"


def test_no_store_module_imports_the_rules_core() -> None:
    """Issue 35 item 4: the store knows no game; its sentences come from the catalogues
    (the WAL's damage message took `plural` from the engine)."""
    for path in sorted((PACKAGE / "store").glob("*.py")):
        module = f"companion.store.{path.stem}"
        engine = {name for name in companion_imports(module) if name.startswith("companion.engine")}
        assert not engine, f"{module} imports {engine}"
