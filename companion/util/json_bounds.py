"""One bounded JSON parser for what clients send: size, nesting depth and number length.

Python's decoder has no bounds of its own: deep nesting is a RecursionError and a 5,000-digit
number a ValueError, each an HTTP 500. The text is checked *before* it is decoded, in one
linear pass over its skeleton, so the decoder never sees what is out of bounds. No Flask here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from companion.util.wording import CodedError

#: Nesting allowed: a control's body nests 2 or 3 deep, an edition file about 5.
MAX_DEPTH = 32
#: Digits allowed in one number: a seed, a year or a count needs far fewer.
MAX_DIGITS = 40

#: A JSON string, escapes included (its brackets and digits are text, not structure).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_DIGITS + 1},}}")
_BRACKETS = re.compile(r"[\[\]{}]")


class BadJson(CodedError, ValueError):
    """Text a client sent that is not JSON within the bounds: a code and its params only,
    which the page words in its language (``str(exc)`` is the English catalogue's)."""


def check(text: str) -> None:
    """Raise `BadJson` if ``text`` nests deeper than `MAX_DEPTH` or holds a number longer
    than `MAX_DIGITS` digits; whether it is valid JSON is the decoder's question."""
    skeleton = _STRING.sub('""', text)
    if _LONG_NUMBER.search(skeleton):
        raise BadJson("json_number_too_long", max=MAX_DIGITS)
    depth = 0
    for bracket in _BRACKETS.finditer(skeleton):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > MAX_DEPTH:
            raise BadJson("json_too_deep", max=MAX_DEPTH)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: `json.loads` with ``parse_constant=_no_constant`` made its decoder at every call (a text
#: starting with a byte order mark, which `json.loads` refuses first, this one refuses too).
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def parse(data: bytes) -> Any:
    """The JSON value of a request body (UTF-8), within the bounds of `check`.

    Raises `BadJson` for anything else: not UTF-8, not JSON (``NaN`` and ``Infinity``
    included), too deep, a number too long. The body's size is bounded before this, by
    the HTTP server and Flask (``MAX_CONTENT_LENGTH``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadJson("json_invalid", why="not_utf8") from None
    check(text)
    try:
        return _DECODER.decode(text)
    except (ValueError, RecursionError):  # RecursionError cannot happen within MAX_DEPTH
        raise BadJson("json_invalid") from None
