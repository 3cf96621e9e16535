"""The page and the console say the same sentence: i18n.js's `message` and
`companion.util.wording` render a code and its params from the same catalogue, in both languages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.util.wording import say
from tests.support.browser import ARGS, chromium, playwright, served, watched_page

playwright()

#: Outcomes as the table sends them: variants (why, kind, more), plurals, a card's year, BCE.
OUTCOMES: list[tuple[str, dict[str, Any]]] = [
    (
        "preview",
        {"player": "Ann", "hours": 3, "landing": 7, "max": 2, "card": "c", "title": "Wheel", "year": -3500},
    ),
    ("armed", {"player": "Ann", "n": 1, "held": 3}),
    ("armed", {"player": "Ann", "n": 2, "held": 3}),
    ("armed_dropped", {"game": 4, "players": "Ann, Ben", "n": 0}),
    ("too_many_crystals", {"why": "held", "player": "Ben", "held": 1}),
    ("undone", {"kind": "take", "player": "Cy", "card": "ancestor"}),
    ("press_confirm", {"player": "Ann", "more": True}),
    (
        "card_not_available",
        {"why": "in_deck", "day": "II", "card": "c", "title": "Printing press", "year": 1440},
    ),
    ("no_itinerary_today", {"player": ""}),
    ("unknown_tag", {"why": "unknown", "tag": "04AB"}),
    # the rules core's refusals as `companion replay` prints them too (issue 22)
    ("unknown_tag", {"why": "ambiguous", "tag": "The", "matches": "I18 (The Hijra), I35 (The Curies)"}),
    ("no_ancestor_left", {"copies": 1}),
    ("no_ancestor_left", {"copies": 12}),
    (
        "card_not_available",
        {
            "why": "not_in_row",
            "card": "c",
            "title": "Wheel",
            "year": -3500,
            "row": [
                {"card": "I01", "title": "Marathon", "year": -490},
                {"card": "I02", "title": "Rome", "year": 44},
            ],
        },
    ),
    ("bad_event", {"why": "not_utf8", "byte": "0xff"}),
    ("itinerary_unavailable", {"why": "unknown", "itinerary": "T99", "known": "T01, T02"}),
    # where the Wild tokens went (issue 24: "The Wild tokens of Marc's Luther's... moved")
    ("wild_moved", {"player": "Marc", "card": "c", "title": "Luther", "year": 1517, "columns": ["person"]}),
    (
        "wild_moved",
        {"player": "Marc", "card": "c", "title": "Wheel", "year": -3500, "columns": ["event", "progress"]},
    ),
]
#: The page keeps a year and its era on one line (a no-break space, a non-breaking hyphen);
#: the console writes plain ones: the same sentence otherwise.
ON_ONE_LINE = str.maketrans({"\u00a0": " ", "\u2011": "-"})


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    with served(tmp_path, "Ann,Ben") as (base, _rt), chromium(ARGS) as browser:
        errors: list[str] = []
        shown = watched_page(browser, base + "/", errors, viewport={"width": 360, "height": 780})
        shown.wait_for_selector("#players .player")
        yield shown
        assert errors == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_page_renders_each_code_as_the_python_renderer_does(page: Any, lang: str) -> None:
    page.evaluate(f"lang = '{lang}'")
    for code, params in OUTCOMES:
        outcome = json.dumps({"accepted": True, "code": code, "params": params})
        shown = page.evaluate(f"message({outcome})")
        assert shown.translate(ON_ONE_LINE) == say(code, lang, **params), (code, params)


@pytest.mark.parametrize(("lang", "era"), [("en", "3500\u00a0BCE"), ("fr", "3500\u00a0av.\u00a0J.\u2011C.")])
def test_a_year_and_its_era_stay_on_one_line(page: Any, lang: str, era: str) -> None:
    page.evaluate(f"lang = '{lang}'")
    outcome = json.dumps(
        {"accepted": True, "code": "revealed", "params": {"card": "c", "title": "Wheel", "year": -3500}}
    )
    assert era in page.evaluate(f"message({outcome})")
