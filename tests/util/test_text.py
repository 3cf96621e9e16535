"""`companion.util.text.printable`: its quick answer for a line with nothing to escape is the
one its character-by-character check gives."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from companion.util.text import _UNSAFE, printable


def escaped(text: str) -> str:
    """`printable` as it was written first: every character looked at."""
    return "".join(
        c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) in _UNSAFE else c for c in text
    )


@given(st.text())
def test_printable_escapes_exactly_the_unsafe_characters(text: str) -> None:
    assert printable(text) == escaped(text)


def test_a_usual_line_is_returned_as_it_is() -> None:
    line = "Zoé took 1905 Einstein (3 h) — punctual!"
    assert printable(line) is line
    assert printable("a\u202eb\nc") == "a\\u202eb\\nc"
