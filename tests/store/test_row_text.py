"""The texts a row keeps (`companion.store.row_text`) are those of `json.dumps` and
`datetime.isoformat`, which they replace on the tap's path (issue 26)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import ChooseItinerary, Reveal, Take, Undo
from companion.records.trekking import TREKKING
from companion.store.row_text import json_text, stamp, stamp_of

#: JSON values as a codec makes them (and more: floats, nesting, keys to escape, non-ASCII).
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(values)
def test_the_json_text_is_json_dumps(value: Any) -> None:
    assert json_text(value) == json.dumps(value)


@given(
    st.one_of(
        st.builds(Take, st.text(max_size=6), st.one_of(st.none(), st.text(max_size=6)), st.integers(0, 3),
                  st.lists(st.sampled_from(["person", "event", "éa"]), max_size=2).map(tuple)),
        st.builds(Reveal, st.text(max_size=6)),
        st.builds(ChooseItinerary, st.text(max_size=6), st.text(max_size=6)),
        st.builds(Undo, st.booleans()),
    )
)  # fmt: skip
def test_an_events_text_is_as_the_store_wrote_it(event: Any) -> None:
    obj = TREKKING.event_to_json(event)
    assert json_text(obj) == json.dumps(obj)


def test_what_json_dumps_refuses_is_refused() -> None:
    for bad in ({"x": object()}, {1j: 1}):
        with pytest.raises(TypeError):
            json.dumps(bad)
        with pytest.raises(TypeError):
            json_text(bad)
    nan = {"x": float("nan")}
    assert json_text(nan) == json.dumps(nan) == '{"x": NaN}'


@settings(max_examples=400)
@given(st.integers(0, 253_402_297_000_000_000_000), st.integers(0, 2_000_000_000))
def test_a_stamp_is_isoformat_in_milliseconds(ns: int, later: int) -> None:
    """Also a second stamp (another second, or the same one again): the kept date is not stale."""
    for at in (ns, ns + later, ns):
        expected = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=at // 1000)
        assert stamp_of(at) == expected.isoformat(timespec="milliseconds")


def test_a_stamp_is_now() -> None:
    before = datetime.now(UTC).isoformat(timespec="milliseconds")
    now = stamp()
    after = datetime.now(UTC).isoformat(timespec="milliseconds")
    assert before <= now <= after
