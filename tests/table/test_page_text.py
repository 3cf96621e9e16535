"""The page's snapshot text keeps the parts that did not change (`companion.table.page_text`) and
is still, after every change, exactly ``json.dumps(snapshot, separators=(",", ":"))``: whole
games with undos and corrections, parts changed in place, and random sequences of pages."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import ChooseItinerary
from companion.engine.tokens import COLUMNS
from companion.table.page_text import PageText
from tests.support.tables import make_runtime, play_turn


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def test_whole_games_give_the_text_json_gives(tmp_path: Path) -> None:
    for n, (players, turn) in enumerate([("Ann,Ben,Cy,Dee", "quick"), ("Ann,Ben,Cy", "confirm")]):
        rt = make_runtime(tmp_path / str(n), players=players, seed=n + 5, turn=turn)
        rng = random.Random(n)
        table = rt.table
        while not table.board.finished:
            play_turn(rt, rng)
            roll = rng.random()
            if roll < 0.15:
                table.undo()
            elif roll < 0.2:
                table.correct_wild([rng.choice(COLUMNS)])
            elif roll < 0.25:
                chosen = [e for e in table.board.moves if isinstance(e, ChooseItinerary)]
                if chosen:
                    itineraries = list(table.board.edition.itinerary_index)
                    table.correct_itinerary(chosen[-1].player, rng.choice(itineraries))
            assert table.page_text()[1] == dumps(table.page_json())
        rt.stop()


def page(log: list[dict[str, Any]], chart: list[list[int]], treks: list[list[Any]]) -> dict[str, Any]:
    return {
        "version": 1,
        "players": [{"name": "Ann", "completed_treks": treks, "itinerary": {"id": "I1"}}],
        "edition": {"name": "e", "itinerary_spaces": {"I1": [1, 2]}},
        "log": log,
        "chart": chart,
    }


def test_parts_changed_in_place_are_encoded_again() -> None:
    log = [{"n": 1, "kind": "take", "card": "C1"}, {"n": 2, "kind": "take", "card": "C2"}]
    chart, treks = [[0, 0], [3, 0]], [[{"id": "C1"}]]
    shown = page(log, chart, treks)
    text = PageText()
    assert text.encode(shown) == dumps(shown)
    log[1]["undone"] = True  # a later undo marks the entry it took back
    chart[1][0] = 4
    treks[0].append({"id": "C2"})
    # the edition's block and each Itinerary's view are shared, never changed: others come anew
    shown["players"][0]["itinerary"] = {"id": "I2"}
    shown["edition"] = {**shown["edition"], "name": "f"}
    assert text.encode(shown) == dumps(shown)
    log.append({"n": 3, "kind": "undo", "event": {"card": "C2"}})
    del log[0]  # the oldest entry leaves the page's window
    chart.pop()
    treks[:] = []
    assert text.encode(shown) == dumps(shown)


NAMES = st.text(alphabet=st.sampled_from(["a", "é", '"', "\\", "\x00", "u", "0", "\u2028", "🙂"]), max_size=6)
ENTRY = st.fixed_dictionaries(
    {"kind": st.sampled_from(["take", "reveal", "undo"]), "player": NAMES, "year": st.integers(-3000, 2100)},
    optional={"undone": st.just(True), "event": st.dictionaries(NAMES, NAMES, max_size=2)},
)
STEP = st.tuples(
    st.lists(ENTRY, max_size=3),  # entries added to the log
    st.integers(0, 3),  # the oldest entries dropped from the window
    st.lists(st.integers(0, 3), max_size=2),  # entries marked undone (from the end)
    st.lists(st.lists(st.integers(-5, 90), min_size=2, max_size=2), max_size=3),  # chart rows added
    st.integers(0, 2),  # chart rows taken off
    st.lists(st.lists(st.fixed_dictionaries({"id": NAMES}), max_size=3), max_size=3),  # treks made afresh
    NAMES,  # the first player's name
)


@settings(max_examples=150, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=12))
def test_any_sequence_of_pages_gives_the_text_json_gives(steps: list[Any]) -> None:
    text, number = PageText(), 0
    log: list[dict[str, Any]] = []
    chart: list[list[int]] = [[0, 0]]
    treks: list[list[Any]] = []
    for added, dropped, undone, rows, taken, fresh, name in steps:
        for entry in added:
            number += 1
            log.append({"n": number, **entry})
        del log[:dropped]
        for back in undone:
            if back < len(log):
                log[-1 - back]["undone"] = True
        chart += rows
        del chart[max(1, len(chart) - taken) :]
        if fresh:
            treks = fresh
        shown = page(log, chart, treks)
        shown["players"][0]["name"] = name
        assert text.encode(shown) == dumps(shown)
