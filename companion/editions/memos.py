"""The itinerary memos of the shipped editions, computed beforehand and shipped beside them.

Filling itinerary memos was most of a process's first replays, so ``scripts/itinerary-memos``
computes those of every shipped Itinerary card once (``itineraries.memo``), keyed by the card's
content, so an inline copy or an owner's edition keeping a printed card finds them too. Nothing
is trusted blindly: `marshal` values with a CRC and the engine's `MEMO_VERSION`; a bad file is
ignored, and a table takes an offered memo only when a sample of it matches its own rules.
"""

from __future__ import annotations

import functools
import marshal
import sys
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from companion.engine.edition import Edition
from companion.engine.itinerary import MEMO_VERSION, MemoKey, Step

#: The file beside the shipped editions.
MEMO_FILE = "itineraries.memo"
#: What the file's outer tuple starts with.
MAGIC = "trekking-itinerary-memos"

#: Whole memos, by card.
Memos = dict[MemoKey, list[Step | None]]


def _numbers(typecode: str, blob: bytes) -> array[int] | None:
    """The 32-bit integers ``blob`` holds, little-endian (``None`` if it is not a whole number)."""
    numbers = array(typecode)
    if numbers.itemsize != 4 or len(blob) % 4:  # every platform Python runs on has 32-bit ints
        return None
    numbers.frombytes(blob)
    if sys.byteorder == "big":  # pragma: no cover - the Pi and the PC are little-endian
        numbers.byteswap()
    return numbers


def _blob(typecode: str, values: Iterable[int]) -> bytes:
    """`_numbers`' inverse."""
    numbers = array(typecode, values)
    if sys.byteorder == "big":  # pragma: no cover
        numbers.byteswap()
    return numbers.tobytes()


class Stored:
    """The file's memos: every distinct step once (``pool``), and each card's memo as indices
    into it (``indices``), turned into its steps when its itinerary is first played; both
    little-endian 32-bit integers, which read far quicker than `marshal` tuples."""

    __slots__ = ("indices", "pool")

    def __init__(self, pool: Sequence[Step] = (), indices: dict[MemoKey, bytes] | None = None) -> None:
        self.pool = pool
        self.indices = indices or {}

    def __len__(self) -> int:
        return len(self.indices)

    def __iter__(self) -> Iterator[MemoKey]:
        return iter(self.indices)

    def steps(self, key: MemoKey) -> list[object] | None:
        """The memo of the card ``key`` (``None``: no such card, or an index out of the pool)."""
        blob = self.indices.get(key)
        numbers = None if blob is None else _numbers("I", blob)
        if numbers is None:
            return None
        pool = self.pool
        try:
            return [pool[i] for i in numbers]
        except IndexError:
            return None

    def reader(self, key: MemoKey) -> Callable[[], list[object] | None] | None:
        """What reads the memo of the card ``key`` when asked (``None``: the file has none)."""
        return functools.partial(self.steps, key) if key in self.indices else None


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
    """The file's bytes (`Stored`): the distinct steps once, then each memo as indices, so that
    a memo is read only when its itinerary is played (a list of tuples per memo in `marshal`
    took twice as long)."""
    pool: dict[Step, int] = {}
    indices = []
    for key, steps in memos.items():
        assert None not in steps, "a whole memo"
        indices.append((key, _blob("I", [pool.setdefault(s, len(pool)) for s in steps if s is not None])))
    payload = marshal.dumps((_blob("i", [n for step in pool for n in step]), indices))
    return marshal.dumps((MAGIC, MEMO_VERSION, zlib.crc32(payload), payload))


def decode_memos(data: bytes) -> Stored:
    """The memos in a file's bytes, or none when the file is not one this engine wrote:
    anything else (damaged, another version, another format) is ignored, never raised."""
    try:
        magic, version, crc, payload = marshal.loads(data)
        if magic != MAGIC or version != MEMO_VERSION or zlib.crc32(payload) != crc:
            return Stored()
        steps, indices = marshal.loads(payload)
        numbers = _numbers("i", steps)
        stored = Stored((), {key: blob for key, blob in indices})
    except (EOFError, ValueError, TypeError):  # what marshal raises on bad data; unpacking
        return Stored()
    if numbers is None or len(numbers) % 3 or not all(type(b) is bytes for b in stored.indices.values()):
        return Stored()
    stored.pool = list(zip(numbers[0::3], numbers[1::3], numbers[2::3], strict=True))
    return stored


@functools.cache
def shipped_memos() -> Stored:
    """The shipped memos, read once per process (none if the file is missing)."""
    try:
        data = Path(__file__).resolve().with_name(MEMO_FILE).read_bytes()
    except OSError:
        return Stored()
    return decode_memos(data)


def offer_memos(edition: Edition) -> Edition:
    """Offer each of ``edition``'s itineraries the shipped memo of its card, if there is one
    (read and, once checked, taken when the itinerary is first played). Returns ``edition``."""
    memos = shipped_memos()
    if memos:
        for table in edition.rules.itineraries:
            read = memos.reader(table.key)
            if read is not None:
                table.offer(read)
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
