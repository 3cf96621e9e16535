"""A record carrying a shipped edition inline replays with that edition's memos computed
beforehand, as a record naming it does (issue 26: the first replays of a process)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.editions.memos import shipped_memos
from companion.records.trekking import parse_inline_edition, replay_text, write_record

REFERENCE = Path(__file__).resolve().parents[2] / "companion" / "editions" / "reference.json"


def test_an_inline_copy_of_a_shipped_edition_is_offered_its_memos() -> None:
    obj = json.loads(REFERENCE.read_text())
    obj["name"] = "a copy kept inline"  # the same cards under another name
    edition = parse_inline_edition(obj)
    memos = shipped_memos()
    for table in edition.rules.itineraries:
        assert table.offered or table.steps  # offered, or already taken by an earlier replay
        assert table.memo() == memos.steps(table.key)


def test_named_and_inline_records_replay_alike_with_the_memos() -> None:
    rng = random.Random(26)
    edition = load_edition("reference")
    for players in (2, 3, 4):
        setup = random_setup(edition, ["Ann", "Ben", "Cy", "Dee"][:players], rng)
        board, _, _ = play_game(setup, "random", rng)
        named = replay_text(write_record(setup, board.moves))
        inline = replay_text(write_record(setup, board.moves, inline_edition=True))
        assert named.to_json() == inline.to_json()
        assert [s.to_json() for s in named.board.standings()] == [s.to_json() for s in board.standings()]
