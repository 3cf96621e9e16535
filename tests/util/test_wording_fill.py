"""`wording.fill` cuts each text at its choices and its params once and fills the pieces
(issue 26: four sentences a tap): over every sentence of both catalogues, and texts made up,
with params present, missing, numeric or not, it writes what `re.sub` with the two patterns
wrote, as it did before."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.util.wording import LANGUAGES, catalogue, fill, plural_category

_CHOICE = re.compile(r"\{(\w+)\|((?:[^|{}]|\{\w+\})*)\|((?:[^|{}]|\{\w+\})*)\}")
_PARAM = re.compile(r"\{(\w+)\}")


def fill_as_it_was(lang: str, text: str, params: dict[str, Any]) -> str:
    """The renderer as it was: a `re.sub` with a callback per choice, then per param."""

    def choose(match: re.Match[str]) -> str:
        name, one, other = match.groups()
        if name not in params:
            return match.group(0)
        try:
            number = float(params[name])
        except (TypeError, ValueError):
            return other
        return one if plural_category(lang, number) == "one" else other

    chosen = _CHOICE.sub(choose, text)
    return _PARAM.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), chosen)


def sentences(block: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for value in block.values():
        found += sentences(value) if isinstance(value, dict) else [value] if isinstance(value, str) else []
    return found


TEXTS = sorted({text for lang in LANGUAGES for text in sentences(catalogue(lang))})
NAMES = sorted({name for text in TEXTS for name in re.findall(r"\{(\w+)", text)})
values = st.one_of(
    st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=6), st.none(), st.just("{n}")
)
pieces = ["{", "}", "|", "n", "x", "{n}", "{n|a|b}", "{x|{n} a|b}", " "]
made_up = st.lists(st.sampled_from(pieces), max_size=8)


@settings(max_examples=400, deadline=None)
@given(
    text=st.one_of(st.sampled_from(TEXTS), made_up.map("".join)),
    lang=st.sampled_from(LANGUAGES),
    params=st.dictionaries(st.sampled_from([*NAMES, "n", "x"]), values, max_size=6),
)
def test_every_text_is_filled_as_re_sub_filled_it(text: str, lang: str, params: dict[str, Any]) -> None:
    assert fill(lang, text, params) == fill_as_it_was(lang, text, params)


def test_every_sentence_of_the_catalogues_with_all_its_params() -> None:
    for lang in LANGUAGES:
        for text in TEXTS:
            for n in (0, 1, 2, "many"):
                params = {name: n if name in ("n", "count") else f"<{name}>" for name in NAMES}
                params.update({name: n for name in re.findall(r"\{(\w+)\|", text)})
                assert fill(lang, text, params) == fill_as_it_was(lang, text, params), text
