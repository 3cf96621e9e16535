"""`companion.util.wording.say` keeps each sentence it made by code, language and params (plain
params only): said again, it must be exactly the sentence made afresh (`said`), for every code
of the catalogues and any params, however many times and in whatever order they are said."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.util import wording
from companion.util.wording import LANGUAGES, catalogue, said, say

CODES = sorted(
    {
        key
        for block in ("msg", "hw", "console")
        for key in catalogue("en")[block]
        if isinstance(catalogue("en")[block][key], str)
    }
)
NAMES = ["player", "card", "title", "year", "n", "crystals", "kind", "why", "more", "w", "d", "e", "hours"]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "Ann", "ancestor", "C12", "The Wheel", "take", "armed"]),
    st.floats(-2, 2),
    st.lists(st.sampled_from(["Ann", "person", "event"]), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(
    said_list=st.lists(
        st.tuples(
            st.sampled_from(CODES),
            st.sampled_from(LANGUAGES),
            st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=4),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_a_kept_sentence_is_the_one_made_afresh(said_list: list[tuple[str, str, dict[str, Any]]]) -> None:
    for _ in range(2):  # the second time from what was kept
        for code, lang, params in said_list:
            assert say(code, lang, **params) == said(code, lang, params)


def test_equal_params_of_other_types_are_kept_apart() -> None:
    """1 and True are equal (and hash alike) but read "1" and "True": never one for the other."""
    for first, second in ((1, True), (True, 1), (0, False)):
        wording._SAID.clear()
        assert say("spent", n=first) == said("spent", "en", {"n": first})
        assert say("spent", n=second) == said("spent", "en", {"n": second})
    assert say("spent", n=1) != say("spent", n=2)


def test_the_kept_sentences_stay_bounded() -> None:
    wording._SAID.clear()
    for n in range(wording.SAID_KEPT + 10):
        assert say("spent", n=n) == said("spent", "en", {"n": n})
    assert 0 < len(wording._SAID) <= wording.SAID_KEPT
