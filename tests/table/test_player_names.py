"""Issue 16, item 10: look-alike and invisible player names.

"Zoé" typed with a composed é (NFC) and with e + a combining accent (NFD) look the same on the
page and the ring's legend, and a name of Hangul fillers (U+3164) shows nothing: a game of
such names has players nobody can tell apart. Names are composed where they enter, compared
after folding, and a name that shows nothing is refused with a code the page words.
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table.game_setup import GameSetupError, new_game
from companion.util.config import Config
from companion.util.text import name_key, player_name, visible
from tests.support.codes import refused
from tests.support.tables import api_client, free_itinerary, make_runtime, play_turn

PIN = {"X-Table-Pin": "2468"}
NFC = unicodedata.normalize("NFC", "Zoé")
NFD = unicodedata.normalize("NFD", "Zoé")
FILLER = "\u3164"  # HANGUL FILLER: a letter to Unicode, nothing on the screen


def test_the_two_spellings_differ_until_composed() -> None:
    assert NFC != NFD and len(NFD) == len(NFC) + 1
    assert player_name(NFD) == NFC and player_name(f" \x1b{NFD}\u202e\t") == NFC


@pytest.mark.parametrize(
    ("a", "b"),
    [(NFC, NFD), ("ann", "Ann"), ("Ann", "Ann" + FILLER), ("Ann Lee", "Ann  Lee"), ("\uff21nn", "Ann")],
)
def test_look_alike_names_have_one_key(a: str, b: str) -> None:
    assert name_key(player_name(a)) == name_key(player_name(b))


def test_names_that_show_nothing_are_told_apart_from_names() -> None:
    for blank in (FILLER, FILLER * 3, "\u2800", "\u115f\u1160", "\uffa0", "\u0301", "\u3000"):
        assert not visible(player_name(blank)), repr(blank)
    for name in ("Ann", "Zoé", NFD, "李", "7", "★", "Ann" + FILLER, "❤\ufe0f"):
        assert visible(name), repr(name)


@pytest.mark.parametrize(
    ("players", "code"),
    [
        ([NFC, NFD], "duplicate_names"),
        (["Ann", "ann"], "duplicate_names"),
        (["Ann", "Ann" + FILLER], "duplicate_names"),
        (["Ann", FILLER], "name_invisible"),
        (["Ann", FILLER + "\u200b" + FILLER], "name_invisible"),
    ],
)
def test_a_new_game_refuses_look_alike_and_invisible_names(
    tmp_path: Path, players: list[str], code: str
) -> None:
    store = Store(tmp_path, TREKKING)
    with pytest.raises(GameSetupError) as caught:
        new_game(store, players, Config(), seed=1)
    assert caught.value.code == code
    assert list(store.games()) == [], "no game is stored"
    store.close()


def test_a_name_is_kept_composed_whatever_its_spelling(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    game = new_game(store, [NFD, "Ben"], Config(), seed=1)
    assert store.load(game).setup.players == (NFC, "Ben")
    assert json.loads(store.export(game).splitlines()[0])["watch_stack"] in ([NFC, "Ben"], ["Ben", NFC])
    store.close()


def test_the_page_and_api_refuse_them_with_a_code_worded_in_both_languages(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        refused(
            http.post("/api/game/new", json={"players": ["Ann", FILLER]}, headers=PIN), 400, "name_invisible"
        )
        refused(http.post("/api/game/new", json={"players": [NFC, NFD]}, headers=PIN), 400, "duplicate_names")
        started = http.post("/api/game/new", json={"players": [NFD, "Ben"]}, headers=PIN)
        assert started.status_code == 200 and rt.table.board.names == (NFC, "Ben")


def test_the_command_line_refuses_them_too(tmp_path: Path, capsys: Any) -> None:
    from companion.run.cli import main

    data = ["--data-dir", str(tmp_path), "--mock"]
    assert main(["new", "--players", f"{NFC},{NFD}", *data]) == 2
    assert "Two players share a name" in capsys.readouterr().err
    assert main(["new", "--players", f"Ann,{FILLER}", *data]) == 2
    assert "U+3164 shows nothing" in capsys.readouterr().err
    assert main(["new", "--players", f"{NFD},Ben", *data]) == 0
    store = Store(tmp_path, TREKKING)
    assert store.load(store.current_game() or 0).setup.players == (NFC, "Ben")
    store.close()


def test_a_correction_finds_the_player_by_the_same_name_in_another_spelling(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, f"{NFC},Ben")
    rng = random.Random(4)
    while rt.table.expect()["kind"] == "itinerary":  # type: ignore[index]
        play_turn(rt, rng)
    from companion.web.app import create_app

    app = create_app(rt)
    app.testing = True
    other = free_itinerary(rt, NFC)
    answer = app.test_client().post(
        "/api/correct/itinerary", json={"player": NFD.upper(), "itinerary": other}, headers=PIN
    )
    assert answer.status_code == 200 and answer.get_json()["outcome"]["accepted"], answer.get_json()
    rt.stop()
