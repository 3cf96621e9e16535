"""The itinerary memos of the shipped editions, computed beforehand and shipped beside them.

A process's first replays spent most of their time filling itinerary memos, one first-time
step at a time, and filling them all when an edition loads cost more than a replay (issue 26).
So the memos of every shipped edition's Itinerary cards are computed here once, when the
editions or the rules change (``scripts/itinerary-memos`` writes ``itineraries.memo``), and
loaded in about a millisecond. Each is keyed by its card's content, not by its edition's name,
so an inline copy of a shipped edition, or an owner's edition keeping a printed card, finds it
too; any other card keeps the lazy memo.

Nothing in the file is trusted blindly: it is `marshal` data (values only, never code) with
a CRC of its payload and the engine's `MEMO_VERSION`; a file that is missing, damaged or of
another version is ignored (every step is then computed when first needed, as before); and a
table takes an offered memo only when a sample of its steps matches its own rules
(`ItineraryTable.matches`). ``tests/editions/test_memos.py`` checks the shipped file whole.
"""

from __future__ import annotations

import functools
import marshal
import zlib
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from companion.engine.edition import Edition
from companion.engine.itinerary import MEMO_VERSION, MemoKey, Step

#: The file beside the shipped editions.
MEMO_FILE = "itineraries.memo"
#: What the file's outer tuple starts with.
MAGIC = "trekking-itinerary-memos"

Memos = dict[MemoKey, list[Step | None]]


def compute_memos(editions: Iterable[Edition]) -> Memos:
    """Every itinerary's whole memo, by card, for ``editions`` (a card printed twice once)."""
    memos: Memos = {}
    for edition in editions:
        for table in edition.rules.itineraries:
            if table.key not in memos:
                fresh = type(table)(table.lengths, table.spaces, table.rows, table.radix, [])
                fresh.complete()  # on a copy: the edition's own tables stay as they were
                memos[table.key] = list(fresh.steps)
    return memos


def encode_memos(memos: Memos) -> bytes:
    """The file's bytes. Equal steps are one object (about 2,600 distinct among 27,000 for
    the reference edition), which `marshal` writes once and refers to after: the file is a
    third of the size and loads six times faster."""
    distinct: dict[Step | None, Step | None] = {}
    payload = marshal.dumps(
        [(key, [distinct.setdefault(s, s) for s in steps]) for key, steps in memos.items()]
    )
    return marshal.dumps((MAGIC, MEMO_VERSION, zlib.crc32(payload), payload))


def decode_memos(data: bytes) -> Memos:
    """The memos in a file's bytes, or none when the file is not one this engine wrote:
    anything else (damaged, another version, another format) is ignored, never raised."""
    try:
        magic, version, crc, payload = marshal.loads(data)
        if magic != MAGIC or version != MEMO_VERSION or zlib.crc32(payload) != crc:
            return {}
        return {key: steps for key, steps in marshal.loads(payload)}
    except (EOFError, ValueError, TypeError):  # what marshal raises on bad data; unpacking
        return {}


@functools.cache
def shipped_memos() -> Memos:
    """The shipped memos, read once per process (none if the file is missing)."""
    try:
        data = resources.files(__package__).joinpath(MEMO_FILE).read_bytes()
    except OSError:
        return {}
    return decode_memos(data)


def offer_memos(edition: Edition) -> Edition:
    """Offer each of ``edition``'s itineraries the shipped memo of its card, if there is one
    (taken, once checked, when the itinerary is first played). Returns ``edition``."""
    memos = shipped_memos()
    if memos:
        for table in edition.rules.itineraries:
            steps = memos.get(table.key)
            if steps is not None:
                table.offer(steps)
    return edition


def write_shipped_memos() -> Path:
    """Write ``itineraries.memo`` for the shipped editions (``scripts/itinerary-memos``, when
    they or the rules change); returns its path."""
    import json

    from companion.engine.edition import parse_edition

    folder = Path(__file__).parent
    files = sorted(folder.glob("*.json"))
    memos = compute_memos(parse_edition(json.loads(f.read_text("utf-8")), default_name=f.stem) for f in files)
    path = folder / MEMO_FILE
    path.write_bytes(encode_memos(memos))
    return path
