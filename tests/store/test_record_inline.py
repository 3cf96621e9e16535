"""A record's setup line read at the speed of a named edition's (issue 26): an inline edition
is parsed once however many records carry it, and the nesting bound is read from the line's
text. Both give what they gave before: the same editions and standings, the same refusals."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.engine.edition import edition_to_json
from companion.records.trekking import (
    MAX_DEPTH,
    NotJson,
    RecordError,
    _depth,
    load_line,
    replay_text,
    write_record,
)


def walked_depth(obj: Any) -> int:
    """The nesting of a decoded value, walked item by item (the former check)."""
    if isinstance(obj, dict):
        return 1 + max((walked_depth(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((walked_depth(v) for v in obj), default=0)
    return 0


TRICKY = st.text(alphabet=st.sampled_from([*'ab"\\[]{}/é\n\t u', "\u2028", "😀"]), max_size=8)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(value=JSON, ascii_only=st.booleans(), spaced=st.booleans())
def test_the_depth_read_from_the_text_is_the_depth_of_the_value(
    value: Any, ascii_only: bool, spaced: bool
) -> None:
    """Strings holding brackets, quotes and backslashes (escaped or not, ASCII or not) are text."""
    text = json.dumps(value, ensure_ascii=ascii_only, indent=1 if spaced else None)
    assert _depth(text) == walked_depth(value)


def test_a_line_nested_past_the_bound_is_still_refused_and_one_at_it_read() -> None:
    at = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_line(at) == json.loads(at)
    with pytest.raises(NotJson, match="too_deep"):
        load_line("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    # brackets in text are text: a long string of them nests nothing
    assert load_line(json.dumps(["[" * 500])) == ["[" * 500]


def records(games: int, inline: bool) -> list[str]:
    edition = load_edition("reference")
    rng = random.Random(4)
    out = []
    for _ in range(games):
        setup = random_setup(edition, ["Ann", "Ben", "Cy"], rng)
        board, _, _ = play_game(setup, "random", rng)
        out.append(write_record(setup, board.moves, inline_edition=inline))
    return out


def test_records_carrying_one_inline_edition_share_it_and_replay_as_the_named_ones() -> None:
    named, inline = records(3, inline=False), records(3, inline=True)
    replays = [replay_text(text) for text in inline]
    assert replays[0].board.edition is replays[1].board.edition is replays[2].board.edition
    for by_name, carried in zip(named, replays, strict=True):
        assert replay_text(by_name).board.standings() == carried.board.standings()


def test_an_edition_differing_only_in_a_types_value_is_not_taken_for_another() -> None:
    edition = edition_to_json(load_edition("reference"))
    first, second = json.loads(json.dumps(edition)), json.loads(json.dumps(edition))
    first["name"], second["name"] = "mine", "mine"
    second["cards"][0]["hours"] = float(second["cards"][0]["hours"])  # 3.0 is not the integer 3
    head = {"type": "setup", "record": "trekking/1", "players": ["Ann", "Ben"]}
    a = replay_text(json.dumps({**head, "edition": first}))
    with pytest.raises(RecordError) as refused:
        replay_text(json.dumps({**head, "edition": second}))
    assert a.board.edition.name == "mine"
    assert "hours" in str(refused.value)


def test_an_invalid_inline_edition_is_refused_every_time() -> None:
    head = {"type": "setup", "record": "trekking/1", "players": ["Ann"], "edition": {"name": "x", "cards": 3}}
    messages = []
    for _ in range(2):
        with pytest.raises(RecordError) as refused:
            replay_text(json.dumps(head))
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "the edition is not valid" in messages[0]
