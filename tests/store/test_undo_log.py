"""The page's event log shows an undo (issue 16, item 12): it no longer silently disappears.

A person's undo keeps the entry it took back (marked ``undone``) and adds an ``undo``
entry naming it; a correction's own undo steps leave no trace; the log is derived from
the stored events, so a restarted companion shows the same.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from companion.engine import Take, Undo, event_to_json, parse_event
from companion.records.trekking import replay_text
from tests.support.tables import api_client, make_runtime, play_turn


def page_log(rt: Any) -> list[dict[str, Any]]:
    log: list[dict[str, Any]] = rt.table.page_json()["log"]
    return log


def first_take(rt: Any) -> dict[str, Any]:
    """Play until someone has taken a card; return the take's log entry."""
    rng = random.Random(1)
    while not any(e["kind"] == "take" for e in page_log(rt)):
        play_turn(rt, rng)
    return next(e for e in page_log(rt) if e["kind"] == "take")


def test_an_undone_take_stays_in_the_log_with_an_undo_entry_naming_it(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    take = first_take(rt)
    before = len(page_log(rt))
    assert rt.table.undo().accepted
    log = page_log(rt)
    assert len(log) == before + 1  # the take's own entry stays; one undo entry, not one per dealer reveal
    undo = log[-1]
    assert undo["kind"] == "undo"
    assert "undone" not in undo  # the undo itself stands
    assert undo["event"] == {k: take[k] for k in ("kind", "player", "card", "title", "year")}
    taken_back = next(e for e in log if e["n"] == take["n"])
    assert taken_back["undone"] is True and "day_end" not in taken_back
    assert not any(e.get("undone") is True for e in log if e["kind"] == "itinerary")
    rt.stop()


def test_a_restarted_table_shows_the_same_log_undos_included(tmp_path: Path) -> None:
    from companion.run.startup import build_runtime

    rt = make_runtime(tmp_path)
    first_take(rt)
    assert rt.table.undo().accepted
    log = page_log(rt)
    config = rt.config
    rt.stop()
    restarted = build_runtime(config, tmp_path, mock=True, pin="2468", say=lambda _: None)
    assert page_log(restarted) == log
    restarted.stop()


def test_a_correction_leaves_no_undo_in_the_log(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    first_take(rt)
    chose = next(e for e in page_log(rt) if e["kind"] == "itinerary")
    player = chose["player"]
    used = {e["itinerary"] for e in page_log(rt) if e["kind"] == "itinerary"}
    other = next(i for i in rt.table.board.edition.itinerary_index if i not in used)
    count = len(page_log(rt))
    assert rt.table.correct_itinerary(player, other).accepted
    log = page_log(rt)
    assert len(log) == count and not any(e["kind"] == "undo" or e.get("undone") for e in log)
    assert [e["itinerary"] for e in log if e["kind"] == "itinerary" and e["player"] == player] == [other]
    # the stored record marks those steps, and replays the same (the contract ignores the field)
    record = rt.store.export(rt.table.game_id)
    assert '{"type": "undo", "correction": true}' in record
    assert replay_text(record).to_json()["rejected"] == []
    rt.stop()


def test_a_correction_undo_round_trips_and_plays_as_any_undo() -> None:
    assert parse_event(event_to_json(Undo(correction=True))) == Undo(correction=True)
    assert parse_event({"type": "undo"}) == Undo() and event_to_json(Undo()) == {"type": "undo"}
    assert parse_event({"type": "undo", "correction": "yes"}) == Undo()  # only true marks it
    assert isinstance(parse_event({"type": "take", "card": "c1"}), Take)


# --- the server's side: an undo names the table it saw --------------------------------------------

PIN = {"X-Table-Pin": "2468"}


def test_an_undo_naming_a_table_that_changed_since_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        first_take(rt)
        first_take_count = len(rt.table.board.moves)
        seen = http.get("/api/state").get_json()
        shown = {"version": seen["version"], "process": seen["process"]}
        done = http.post("/api/undo", json=shown, headers=PIN).get_json()
        assert done["outcome"]["accepted"] and done["outcome"]["code"] == "undone"
        after = rt.table.board.snapshot(), rt.table.version, len(rt.table.board.moves)
        assert after[2] < first_take_count
        again = http.post("/api/undo", json=shown, headers=PIN).get_json()  # the same tap, repeated
        assert not again["outcome"]["accepted"] and again["outcome"]["code"] == "undo_stale"
        assert (rt.table.board.snapshot(), rt.table.version, len(rt.table.board.moves)) == after
        restarted = {"version": rt.table.version, "process": "an-older-process"}
        refused = http.post("/api/undo", json=restarted, headers=PIN).get_json()["outcome"]
        assert refused["code"] == "undo_stale"
        fresh = {"version": rt.table.version, "process": seen["process"]}
        assert http.post("/api/undo", json=fresh, headers=PIN).get_json()["outcome"]["accepted"]


def test_an_undo_without_a_version_still_works_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        first_take(rt)
        for bad in ({"version": "3", "process": "x"}, {"version": True, "process": "x"}, {"version": 3}):
            answer = http.post("/api/undo", json=bad, headers=PIN)
            assert answer.status_code == 400 and answer.get_json()["code"] == "bad_undo_version"
        assert http.post("/api/undo", headers=PIN).get_json()["outcome"]["accepted"]  # scripts: as before
