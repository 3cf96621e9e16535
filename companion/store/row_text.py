"""The texts a stored row holds, its time and its event's JSON, made as `datetime` and `json`
make them but cheaper, since every tap writes them; property tests hold both to the originals.
"""

from __future__ import annotations

import json
import json.encoder
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any


def _encoder() -> Callable[[Any], str]:
    """`json.dumps` with its default settings, its C encoder made once (``json.dumps`` itself
    where there is none). No check for cycles, which the one encoder could not share between
    threads: an event's JSON form is a tree made for the call."""
    make = getattr(json.encoder, "c_make_encoder", None)  # typeshed does not declare it
    if make is None:  # pragma: no cover - CPython has it
        return json.dumps
    plain = json.JSONEncoder()
    try:
        encode = make(
            None,
            plain.default,
            json.encoder.encode_basestring_ascii,
            plain.indent,
            plain.key_separator,
            plain.item_separator,
            plain.sort_keys,
            plain.skipkeys,
            plain.allow_nan,
        )
    except TypeError:  # pragma: no cover - another Python's signature: the plain way
        return json.dumps

    def text(value: Any) -> str:
        if isinstance(value, str):  # as `JSONEncoder.encode`: a string alone is quoted directly
            return json.encoder.encode_basestring_ascii(value)
        return "".join(encode(value, 0))

    return text


#: ``json.dumps(value)``, the same text.
json_text = _encoder()

#: The last second `stamp` wrote, and its date and time ("2026-11-26T15:50:22").
_second: tuple[int, str] = (-1, "")


def stamp() -> str:
    """Now, as ``datetime.now(UTC).isoformat(timespec="milliseconds")`` writes it (the
    milliseconds truncated, as it truncates them): "2026-11-26T15:50:22.839+00:00"."""
    return stamp_of(time.time_ns())


def stamp_of(ns: int) -> str:
    """`stamp` of the time ``ns`` (nanoseconds since the epoch)."""
    global _second
    second, rest = divmod(ns, 1_000_000_000)
    known = _second
    if known[0] != second:
        whole = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:-6]
        known = _second = (second, whole)  # one tuple: a thread reads the old pair or the new
    return f"{known[1]}.{rest // 1_000_000:03d}+00:00"
