"""Issue 21 item 8: store damage said on the console, the journal and the page, wherever it is.

Damage in a finished game that is not the one on the table was said only on the history page
("1 game could not be read"); a zero-length ``companion.sqlite3`` silently became a new store.
"""

from __future__ import annotations

from pathlib import Path

from companion.history.past import Replays
from companion.records.trekking import TREKKING
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.util.config import Config
from tests.support.games import finished_game
from tests.support.tables import FAST_BUTTONS


def start(data: Path, said: list[str]) -> Runtime:
    """A start, its check of the finished games (a thread beside the table) waited for."""
    rt = build_runtime(Config(buttons=FAST_BUTTONS), data, mock=True, pin="2468", say=said.append)
    for thread in rt.threads:
        if thread.name == "finished-games":
            thread.join(timeout=60)
            assert not thread.is_alive()
    return rt


def test_damage_in_a_finished_game_not_on_the_table_is_copied_aside_and_said(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    damaged, _ = finished_game(store, ["Ann", "Ben"], 40)
    finished_game(store, ["Cy", "Ben"], 41)
    store.new_game({"type": "setup", "players": ["Ann", "Ben"], "watch_stack": ["Ann", "Ben"],
                    "edition": "reference"}, {})  # fmt: skip
    store._write([("UPDATE events SET at = 'changed' WHERE game_id = ? AND seq = 5", (damaged,))])
    store.close()

    said: list[str] = []
    rt = start(tmp_path, said)
    try:
        line = next(s for s in said if f"finished game {damaged} is damaged" in s)
        assert line.startswith("Warning: the game store is damaged") and "saved event 5" in line
        [notice] = rt.store_damage()
        assert notice["code"] == "store_finished_damaged" and notice["params"]["game"] == damaged
        copy = Path(notice["params"]["copy"])
        assert copy.exists() and copy.name.startswith("companion.sqlite3.damaged-")
        assert rt.history(Replays()).unreadable == [damaged], "the history still leaves it out"
    finally:
        rt.stop()
    said.clear()
    rt = start(tmp_path, said)  # said at every start until the host has seen it, recorded once
    try:
        assert len(rt.store_damage()) == 1 and any(f"finished game {damaged}" in s for s in said)
        assert rt.acknowledge_damage() == 1
    finally:
        rt.stop()
    said.clear()
    rt = start(tmp_path, said)
    try:
        assert rt.store_damage() == [] and not any("damaged" in s for s in said), "seen: not again"
    finally:
        rt.stop()


def test_a_zero_length_store_is_kept_aside_and_said(tmp_path: Path) -> None:
    (tmp_path / "companion.sqlite3").write_bytes(b"")
    said: list[str] = []
    rt = start(tmp_path, said)
    try:
        assert any("was an empty file (0 bytes)" in s for s in said), said
        [notice] = rt.store_damage()
        assert notice["code"] == "store_was_empty"
        kept = Path(notice["params"]["copy"])
        assert kept.name.startswith("companion.sqlite3.empty-") and kept.stat().st_size == 0
        assert (tmp_path / "companion.sqlite3").stat().st_size > 0, "a new store beside it"
    finally:
        rt.stop()
    said.clear()
    rt = start(tmp_path, said)  # the new store is not empty: nothing more is kept aside
    try:
        assert len(list(tmp_path.glob("companion.sqlite3.empty-*"))) == 1
    finally:
        rt.stop()
