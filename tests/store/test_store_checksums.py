"""Issue 16 item 6: damage inside a stored row is found, set aside, and shown until acknowledged.

Before: one changed byte in a stored take started the companion normally with lower totals
and 57 acknowledged events skipped (only the console said so); a changed itinerary id
changed the standings without a word. Now every row has a checksum, chained to the row
before it, and the table keeps the events before the first damaged one, sets the rest
aside in the same file (with a copy of the whole store beside it) and shows the damage on
the page, the console and the journal until the host acknowledges it.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine import Board, ChooseItinerary, Take
from companion.records.trekking import TREKKING
from companion.run.runtime import Runtime
from companion.store.log import DAMAGE_CODES, SCHEMA_VERSION, Store
from companion.web.app import create_app
from tests.support.codes import ROOT, words
from tests.support.stores import change_one_byte, played, rows, start, take_seq
from tests.support.tables import play_turn


def standings_of(path: Path, events: int) -> list[Any]:
    """The standings of the first ``events`` stored events, replayed by the engine."""
    store = Store(path, TREKKING)
    game = store.load(store.current_game() or 0)
    store.close()
    board = Board(game.setup)
    for event in game.events[:events]:
        assert board.push(event) is None
    return [s.to_json() for s in board.standings()]


def state(rt: Runtime) -> dict[str, Any]:
    app = create_app(rt)
    app.testing = True
    answer = app.test_client().get("/api/state")
    assert answer.status_code == 200
    return dict(answer.get_json())


@pytest.mark.parametrize("kind", [Take, ChooseItinerary], ids=["take", "itinerary"])
def test_one_changed_byte_in_a_stored_event_is_shown_set_aside_and_nothing_is_deleted(
    tmp_path: Path, kind: type
) -> None:
    db = tmp_path / "companion.sqlite3"
    stored = played(tmp_path)
    seq = take_seq(stored, kind, len(stored) // 3)
    text = dict(stored)[seq]
    if kind is Take:  # the card taken: "card": "E07" -> another card's id
        digit = text[text.index('"card": "') + 11]
        damaged = change_one_byte(db, seq, digit, "1" if digit != "1" else "2")
    else:  # the itinerary chosen: "itinerary": "T05" -> another itinerary
        digit = text[text.index('"itinerary": "') + 16]
        damaged = change_one_byte(db, seq, digit, "1" if digit != "1" else "2")
    assert damaged != text
    expected = standings_of(tmp_path, seq - 1)

    said: list[str] = []
    rt = start(tmp_path, said)
    shown = state(rt)
    # the page: a status line with the code and its facts, in the state JSON
    assert [(s["code"], s["params"]["kept"], s["params"]["next"]) for s in shown["store"]] == [
        ("store_event_damaged", seq - 1, seq)
    ]
    notice = shown["store"][0]
    copy = Path(notice["params"]["copy"])
    assert notice["params"]["withheld"] == len(stored) - seq + 1 and copy.parent == tmp_path
    # the console (the journal under systemd)
    assert any(f"saved event {seq} is damaged" in line and str(copy) in line for line in said), said
    # the standings are those before the damage, said so, never a silent recount with events skipped
    assert not any("skipped" in line for line in said)
    assert rt.table.seq == seq - 1 == shown["events"]
    assert [{k: p[k] for k in e} for p, e in zip(shown["players"], expected, strict=True)] == expected
    rt.stop()

    # nothing is deleted from the file: every stored row is in the log or set aside, as it was
    kept = rows(db)[: seq - 1]
    aside = rows(db, "set_aside")
    assert kept == stored[: seq - 1]
    assert aside == [*stored[: seq - 1], (seq, damaged), *stored[seq:]][seq - 1 :]
    # and the copy beside it is the store as it was found, damaged row included
    assert rows(copy) == [*stored[: seq - 1], (seq, damaged), *stored[seq:]]


def test_the_damage_is_shown_at_every_start_until_the_host_acknowledges_it(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    stored = played(tmp_path)
    seq = take_seq(stored, Take, 10)
    text = dict(stored)[seq]
    change_one_byte(db, seq, text[text.index('"card": "') + 11], "9")
    start(tmp_path).stop()
    said: list[str] = []
    rt = start(tmp_path, said)  # the next start: the game checks, the damage is still shown
    assert [s["code"] for s in state(rt)["store"]] == ["store_event_damaged"]
    assert any("is damaged" in line for line in said)
    rng = random.Random(4)
    for _ in range(5):  # play goes on from the last good event, chained on
        play_turn(rt, rng)
    app = create_app(rt)
    app.testing = True
    http = app.test_client()
    assert http.post("/api/store/acknowledge").status_code == 401  # the host's, with the PIN
    assert state(rt)["store"] != []
    answer = http.post("/api/store/acknowledge", headers={"X-Table-Pin": "2468"})
    assert answer.status_code == 200 and answer.get_json() == {"acknowledged": 1}
    assert state(rt)["store"] == []
    moves = rt.table.board.moves
    rt.stop()
    said.clear()
    rt = start(tmp_path, said)
    assert state(rt)["store"] == [] and not any("damaged" in line for line in said)
    assert rt.table.board.moves == moves, "the moves played after the damage check and resume"
    rt.stop()


def test_a_deleted_or_reordered_row_is_found_by_the_chain(tmp_path: Path) -> None:
    for case in ("deleted", "reordered", "last deleted"):
        path = tmp_path / case
        stored = played(path, turns=20)
        with sqlite3.connect(path / "companion.sqlite3") as db:
            if case == "deleted":
                db.execute("DELETE FROM events WHERE seq = 8")
            elif case == "last deleted":
                db.execute("DELETE FROM events WHERE seq = ?", (len(stored),))
            else:  # two rows swap their events (each row's own fields unchanged otherwise)
                db.execute(
                    "UPDATE events SET event = CASE seq WHEN 8 THEN ? ELSE ? END WHERE seq IN (8, 9)",
                    (dict(stored)[9], dict(stored)[8]),
                )
        rt = start(path)
        found = state(rt)["store"]
        rt.stop()
        if case == "last deleted":
            assert [(s["code"], s["params"]["kept"]) for s in found] == [
                ("store_events_missing", len(stored) - 1)
            ]
        else:
            assert [(s["code"], s["params"]["kept"]) for s in found] == [("store_event_damaged", 7)], case


def test_a_damaged_setup_is_not_resumed_and_is_kept(tmp_path: Path) -> None:
    stored = played(tmp_path, turns=10)
    with sqlite3.connect(tmp_path / "companion.sqlite3") as db:
        setup = db.execute("SELECT setup FROM games WHERE id = 1").fetchone()[0]
        db.execute("UPDATE games SET setup = ? WHERE id = 1", (setup.replace('"Ben"', '"Bob"'),))
    said: list[str] = []
    rt = start(tmp_path, said)
    found = state(rt)["store"]
    assert [(s["code"], s["params"]["withheld"]) for s in found] == [("store_setup_damaged", len(stored))]
    assert rt.table.game_id != 1 and any("setup" in line and "damaged" in line for line in said)
    rt.stop()
    assert rows(tmp_path / "companion.sqlite3") == stored, "its events stay where they are"


def legacy_copy(source: Path, target: Path) -> None:
    """``source``'s store as a companion before checksums wrote it (schema version 0)."""
    target.mkdir()
    with sqlite3.connect(target / "companion.sqlite3") as db:
        db.executescript(
            """
            CREATE TABLE games (id INTEGER PRIMARY KEY, created TEXT NOT NULL, setup TEXT NOT NULL,
                                meta TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE events (game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
                                 event TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (game_id, seq));
            CREATE TABLE current (one INTEGER PRIMARY KEY CHECK (one = 1), game_id INTEGER NOT NULL);
            """
        )
        db.execute("ATTACH ? AS new", (str(source / "companion.sqlite3"),))
        db.execute("INSERT INTO games SELECT id, created, setup, meta, finished FROM new.games")
        db.execute("INSERT INTO events SELECT game_id, seq, event, at FROM new.events")
        db.execute("INSERT INTO current SELECT * FROM new.current")


def test_a_store_without_checksums_is_upgraded_once_says_so_and_is_guarded_from_then_on(
    tmp_path: Path,
) -> None:
    stored = played(tmp_path / "new", turns=30)
    old = tmp_path / "old"
    legacy_copy(tmp_path / "new", old)
    said: list[str] = []
    rt = start(old, said)
    assert any("was upgraded: checksums now guard its 1 game and" in line for line in said), said
    assert state(rt)["store"] == []
    assert len(rt.table.stored) >= len(stored)  # every event resumed (the dealer may add reveals)
    rt.stop()
    with sqlite3.connect(old / "companion.sqlite3") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    said.clear()
    start(old, said).stop()
    assert not any("upgraded" in line for line in said), "once"
    seq = take_seq(stored, Take, 5)
    text = dict(stored)[seq]
    change_one_byte(old / "companion.sqlite3", seq, text[text.index('"card": "') + 11], "9")
    rt = start(old)
    assert [s["code"] for s in state(rt)["store"]] == ["store_event_damaged"]
    rt.stop()


def test_every_damage_has_its_sentence_and_fix_in_english_and_french_and_in_the_api() -> None:
    codes = set(DAMAGE_CODES.values())
    for language, keys in words("hw").items():
        wanted = codes | {c + ".fix" for c in codes} | {"part.store", "store_ack"}
        assert wanted - keys == set(), (language, wanted - keys)
    spec = json.loads((ROOT / "companion" / "openapi.json").read_text(encoding="utf-8"))
    answer = spec["paths"]["/api/state"]["get"]["responses"]["200"]["content"]["application/json"]
    assert set(answer["schema"]["properties"]["store"]["items"]["properties"]["code"]["enum"]) == codes
    assert "post" in spec["paths"]["/api/store/acknowledge"]


def test_export_of_a_damaged_game_says_the_record_is_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.run.cli import main

    stored = played(tmp_path, turns=20)
    with sqlite3.connect(tmp_path / "companion.sqlite3") as db:
        db.execute("DELETE FROM events WHERE seq = 5")
    assert main(["export", "--data-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 + 4 and len(stored) > 5
    assert "game 1 is damaged after event 4" in err and "first 4 events only" in err


def test_the_upgrade_is_said_by_whichever_command_opens_the_store_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.run.cli import main

    played(tmp_path / "new", turns=6)
    legacy_copy(tmp_path / "new", tmp_path / "old")
    assert main(["games", "--data-dir", str(tmp_path / "old")]) == 0
    assert "was upgraded: checksums now guard its 1 game" in capsys.readouterr().err
    assert main(["games", "--data-dir", str(tmp_path / "old")]) == 0
    assert "upgraded" not in capsys.readouterr().err, "once"


def test_companion_run_says_so_on_its_console_and_its_page(tmp_path: Path) -> None:
    """The same through `companion run` as a process: its stdout (the journal under systemd)
    and its /api/state."""
    import signal
    import subprocess
    import sys
    import time
    import urllib.error

    from tests.support.daemon import call, free_port

    data = tmp_path / "data"
    stored = played(data, turns=20)
    seq = take_seq(stored, Take, 4)
    text = dict(stored)[seq]
    change_one_byte(data / "companion.sqlite3", seq, text[text.index('"card": "') + 11], "9")
    port, console = free_port(), tmp_path / "console.txt"
    with console.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--mock", "--data-dir", str(data), "--port", str(port),
             "--pin", "2468"],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    shown = call(port, "/api/state", timeout=2)
                    break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    assert proc.poll() is None and time.monotonic() < deadline, console.read_text()
                    time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
    assert [(s["code"], s["params"]["next"]) for s in shown["store"]] == [("store_event_damaged", seq)]
    said = console.read_text()
    assert f"Warning: the game store is damaged: game 1's saved event {seq} is damaged" in said, said
    assert "Traceback" not in said


@given(
    previous=st.text(),
    game_id=st.integers(min_value=0, max_value=2**62),
    seq=st.integers(min_value=0, max_value=2**62),
    event=st.text(),
    at=st.text(),
)
def test_the_fast_event_checksum_is_the_digest_of_its_row(
    previous: str, game_id: int, seq: int, event: str, at: str
) -> None:
    """event_sum writes its JSON directly (issue 21: checking 500 games at start took seconds);
    it must stay the checksum every stored row already carries."""
    from companion.store.checksums import digest as _digest
    from companion.store.log import event_sum

    assert event_sum(previous, game_id, seq, event, at) == _digest([previous, game_id, seq, event, at])
