"""The shipped itinerary memos (`companion.editions.memos`): current, taken only when they are
the card's own, ignored when damaged, and never a change to what a token scores (issue 26)."""

from __future__ import annotations

import functools
import json
import marshal
import zlib
from pathlib import Path
from typing import Any

import pytest

from companion.editions import load_edition, read_edition_text, shipped_names
from companion.editions.memos import (
    MAGIC,
    MEMO_FILE,
    compute_memos,
    decode_memos,
    encode_memos,
    offer_memos,
    shipped_memos,
)
from companion.engine import parse_edition
from companion.engine.itinerary import MEMO_VERSION, ItineraryTable

FOLDER = Path(__file__).resolve().parents[2] / "companion" / "editions"
REFERENCE = FOLDER / "reference.json"


def fresh_reference(**changes: Any) -> Any:
    """The reference edition read anew from its text (not the process's cached one)."""
    obj = json.loads(REFERENCE.read_text())
    obj.update(changes)
    return read_edition_text(json.dumps(obj), "reference.json", "reference")


def twin(table: ItineraryTable) -> ItineraryTable:
    """The same card with an empty memo and nothing offered."""
    return ItineraryTable(table.lengths, table.spaces, table.rows, table.radix, [])


def test_the_shipped_file_is_every_shipped_itinerary_memo_whole() -> None:
    """Fails after a change to a shipped edition's itineraries or to how a step is computed
    until ``scripts/itinerary-memos`` writes the file again (and MEMO_VERSION is raised for
    a rule change)."""
    shipped = decode_memos((FOLDER / MEMO_FILE).read_bytes())
    assert shipped, f"{MEMO_FILE} is missing, damaged or not of MEMO_VERSION {MEMO_VERSION}"
    editions = [parse_edition(json.loads((FOLDER / f"{n}.json").read_text())) for n in shipped_names()]
    fresh = compute_memos(editions)
    assert set(shipped) == fresh.keys()
    for key, steps in fresh.items():
        assert shipped.steps(key) == steps
        assert None not in steps  # whole: no step left to compute during play


def test_a_shipped_edition_takes_its_memos_when_an_itinerary_is_first_played() -> None:
    edition = fresh_reference()
    table = edition.rules.itineraries[3]
    assert table.steps == [] and table.offered  # offered, not yet read: nothing checked
    assert table.memo() == shipped_memos().steps(table.key)
    assert table.offered == []
    edition.rules.complete()  # the coach's whole memo: nothing left to compute
    assert all(t.steps == shipped_memos().steps(t.key) for t in edition.rules.itineraries)


def test_an_edition_with_a_changed_card_gets_no_memo_for_it() -> None:
    obj = json.loads(REFERENCE.read_text())
    obj["itineraries"][0]["rows"][0] += 1  # a row's reward changed: not the printed card
    edition = offer_memos(parse_edition(obj))
    changed, kept = edition.rules.itineraries[0], edition.rules.itineraries[1]
    assert not changed.offered and kept.offered
    assert changed.memo() == [None] * (changed.states * 5)  # computed as play reaches each step


def test_a_memo_whose_sampled_steps_are_not_the_cards_own_is_refused() -> None:
    table = load_edition("reference").rules.itineraries[0]
    good = shipped_memos().steps(table.key)
    assert good is not None
    first = good[0]
    assert isinstance(first, tuple)
    wrong = [(first[0], first[1] + 1, first[2]), *good[1:]]  # state 0 is always in the sample
    for bad in (wrong, good[:-5], good + [None] * 5, None):
        fresh = twin(table)
        fresh.offer(functools.partial(lambda steps: steps, bad))
        assert fresh.memo() == [None] * len(good)
        fresh.complete()
        assert fresh.steps == good  # every step computed from the card instead


def test_a_memo_is_offered_only_to_a_table_with_no_memo_yet() -> None:
    table = twin(load_edition("reference").rules.itineraries[0])
    table.step(0, 0)
    table.offer(lambda: shipped_memos().steps(table.key))
    assert not table.offered
    assert table.steps.count(None) == len(table.steps) - 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-100],  # cut short
        lambda data: data[:-40] + bytes(40),  # payload overwritten: its CRC no longer matches
        lambda data: b"not marshal at all",
        lambda data: marshal.dumps((MAGIC, MEMO_VERSION + 1, *marshal.loads(data)[2:])),  # stale rules
        lambda data: marshal.dumps(("another-format", *marshal.loads(data)[1:])),
        lambda data: marshal.dumps([1, 2, 3]),
        lambda data: marshal.dumps((MAGIC, MEMO_VERSION, zlib.crc32(b"[]"), b"[]")),  # a list, not marshal
    ],
)
def test_a_damaged_or_stale_file_is_ignored(damage: Any) -> None:
    data = (FOLDER / MEMO_FILE).read_bytes()
    assert decode_memos(data)
    assert not decode_memos(damage(data))


def test_a_memo_with_an_index_past_the_steps_is_none() -> None:
    memos = compute_memos([load_edition("reference")])
    key = next(iter(memos))
    stored = decode_memos(encode_memos({key: memos[key]}))
    assert stored.steps(key) == memos[key]
    stored.pool = stored.pool[:-1]  # the last distinct step gone: some index points past the pool
    assert stored.steps(key) is None
    stored.indices[key] = stored.indices[key][:-1]  # not a whole number of indices
    assert stored.steps(key) is None
    assert stored.reader(((0, 0, 0, 0), (), ())) is None  # a card the file does not have


def test_the_file_round_trips_with_each_distinct_step_once() -> None:
    memos = compute_memos([load_edition("reference")])
    decoded = decode_memos(encode_memos(memos))
    assert {key: decoded.steps(key) for key in decoded} == memos
    distinct = {step for steps in memos.values() for step in steps}
    assert len(decoded.pool) == len(distinct) < sum(len(steps) for steps in memos.values()) / 5
