"""A new game checked before the page asks "replace the game in progress?" (issue 24 item 11):
``POST /api/game/new`` with ``"check": true`` answers the refusal a start would get, and starts
nothing; the refusal of an edition still being transcribed says how many Itineraries it has and
needs, and which Day decks lack cards."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from companion.editions import EditionLibrary
from companion.util.wording import say
from tests.support.tables import api_client

PIN = {"X-Table-Pin": "2468"}


@pytest.fixture
def env(tmp_path: Path) -> Any:
    with api_client(tmp_path) as client:
        yield client


def small_box(rt: Any, itineraries: int, drop_cards: int) -> str:
    """An owner's edition with ``itineraries`` Itineraries and ``drop_cards`` Day I cards fewer."""
    library = EditionLibrary(rt.store.path.parent)
    obj = copy.deepcopy(library.raw("reference"))
    obj["name"] = "half-box"
    obj["itineraries"] = obj["itineraries"][:itineraries]
    day1 = [c for c in obj["cards"] if c["day"] == 1][:drop_cards]
    obj["cards"] = [c for c in obj["cards"] if c not in day1]
    library.save("half-box", obj)
    return "half-box"


def test_a_check_answers_the_refusal_a_start_would_get_and_starts_nothing(env: Any) -> None:
    http, rt = env
    game = rt.table.game_id
    refused = http.post("/api/game/new", json={"players": ["ann", "Ann"], "check": True}, headers=PIN)
    assert refused.status_code == 400 and refused.get_json()["code"] == "duplicate_names"
    fine = http.post("/api/game/new", json={"players": ["Ann", "Ben"], "check": True}, headers=PIN)
    assert fine.status_code == 200 and fine.get_json()["ok"] is True
    # the seats as Start gives them: the form shows each one's colour and marker (issue 37 item 1)
    assert [seat["name"] for seat in fine.get_json()["seats"]] == ["Ann", "Ben"]
    assert rt.table.game_id == game, "a check starts no game"


def test_the_refusal_of_an_unfinished_edition_says_what_it_has_needs_and_lacks(env: Any) -> None:
    """From the page (and a script), a draft is refused by what it lacks (issue 37 item 2); from
    the command line (`checked_setup`), which may try a box being transcribed, by its Itineraries."""
    from companion.table.game_setup import GameSetupError, checked_setup

    http, rt = env
    name = small_box(rt, itineraries=4, drop_cards=5)
    for check in (True, False):
        refused = http.post(
            "/api/game/new", json={"players": ["A", "B", "C"], "edition": name, "check": check}, headers=PIN
        )
        body = refused.get_json()
        assert refused.status_code == 400 and body["code"] == "edition_incomplete", body
        assert body["params"]["day1"] == 31 and body["params"]["itineraries"] == 4
        assert "Days I, II, III: 31, 36, 36 of 36 cards; itineraries: 4 of 24" in body["error"]
    with pytest.raises(GameSetupError) as cli:
        checked_setup(rt.data_dir, ["A", "B", "C"], rt.config, None, name)
    assert cli.value.code == "too_few_itineraries"
    params = cli.value.params
    assert params["have"] == 4 and params["need"] == 9 and params["day1"] == 31
    for lang in ("en", "fr"):
        text = say(cli.value.code, lang, **params)
        assert "4" in text and "9" in text and "31" in text and "36" in text, text
    assert "Days I, II, III have 31, 36, 36 of 36 cards" in str(cli.value)
    # the same edition with every card but too few Itineraries: the cards are not mentioned
    name = small_box(rt, itineraries=4, drop_cards=0)
    with pytest.raises(GameSetupError) as cli:
        checked_setup(rt.data_dir, ["A", "B"], rt.config, None, name)
    assert cli.value.params.get("why") is None and "cards" not in str(cli.value)
    assert str(cli.value).startswith("The half-box edition has 4 Itineraries; 2 players need 6 (3 each)")
