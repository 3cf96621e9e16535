"""`companion.util.wording.fill` splits each sentence at its params once and skips the plural
search where a sentence has no choice: it must give what the two ``re.sub`` passes it replaced
give (kept here as the oracle), for every catalogue sentence and for any text and params."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from companion.util.wording import _CHOICE, _PARAM, LANGUAGES, catalogue, chooser, fill


def fill_as_before(lang: str, text: str, params: dict[str, Any]) -> str:
    """`fill` as it was: the choices substituted, then every param, by ``re.sub``."""
    chosen = _CHOICE.sub(chooser(lang, params), text)
    return _PARAM.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), chosen)


def sentences(words: dict[str, Any]) -> list[str]:
    found = []
    for value in words.values():
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            found += sentences(value)
    return found


NAMES = st.sampled_from(["n", "player", "c", "x", "kind", "count"])
VALUES = st.one_of(st.integers(-3, 3), st.text(max_size=4), st.floats(allow_nan=True), st.none())


@given(params=st.dictionaries(NAMES, VALUES, max_size=4))
def test_every_catalogue_sentence_is_filled_as_before(params: dict[str, Any]) -> None:
    for lang in LANGUAGES:
        for text in sentences(catalogue(lang)):
            assert fill(lang, text, params) == fill_as_before(lang, text, params)


PIECES = st.sampled_from(
    ["{n}", "{player}", "{x|a|b}", "{n|{n} one|{n} others}", "{", "}", "|", "a", " ", "{}", "é"]
)


@given(
    lang=st.sampled_from(LANGUAGES),
    text=st.lists(PIECES, max_size=8).map("".join),
    params=st.dictionaries(NAMES, VALUES, max_size=4),
)
def test_any_text_is_filled_as_before(lang: str, text: str, params: dict[str, Any]) -> None:
    assert fill(lang, text, params) == fill_as_before(lang, text, params)
