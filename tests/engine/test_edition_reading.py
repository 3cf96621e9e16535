"""Reading an edition's cards in one pass reads them as the field-by-field checks do.

`parse_edition` takes a well-formed card in one pass of type tests (issue 26: an inline
edition's cards were a replay's main cost) and leaves any other card to the checks that say
what is wrong. Whatever the cards hold, the outcome must be the checks' own: the same cards,
or the same problems, in the same order.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import edition as edition_module
from companion.engine.edition import EditionError, parse_edition
from tests.support.strategies import editions

#: Values at and past every bound a card field has, and of every JSON type.
ODD = st.sampled_from([
    None, True, False, 0, 1, 3, 4, 12, 13, -1, 1.0, "", "  ", "1", "ancestor", "d1-0",
    ["person"], ["sideways"], ["crystal", "wild"], [], {},
])  # fmt: skip
FIELDS = st.sampled_from(["id", "title", "year", "day", "hours", "gains", "note"])


def outcome(obj: dict[str, Any]) -> Any:
    try:
        ed = parse_edition(obj)
    except EditionError as exc:
        return ("refused", exc.problems)
    return ("read", ed.cards, ed.warnings, ed.tables)


@settings(max_examples=150, deadline=None)
@given(
    base=editions(),
    changes=st.lists(st.tuples(st.integers(0, 40), FIELDS, ODD), min_size=1, max_size=4),
    duplicate=st.booleans(),
)
def test_a_card_read_in_one_pass_is_read_as_the_checks_read_it(
    base: dict[str, Any], changes: list[tuple[int, str, Any]], duplicate: bool
) -> None:
    cards = base["cards"]
    for index, field, value in changes:
        cards[index % len(cards)][field] = value
    if duplicate:
        cards.append(dict(cards[0]))
    fast = outcome(base)
    with mock.patch.object(edition_module, "_well_formed_card", lambda card, seen: None):
        slow = outcome(base)
    assert fast[0] == slow[0]
    assert fast[1:3] == slow[1:3]


def test_a_card_refused_by_the_one_pass_is_reported_by_the_checks() -> None:
    base: dict[str, Any] = {
        "cards": [{"id": "a", "year": 1, "day": 1, "hours": True}],
        "slots": [[]] * 6,
        "treks": [1] * 10,
    }
    with pytest.raises(EditionError, match=r"cards\[0\] \(a\)\.hours: error: must be a whole number"):
        parse_edition(base)
