"""Game records (``trekking/1``, JSON Lines) and replaying them through the engine.

A bad event is rejected and the replay goes on, as at the table; only a record that cannot be
read at all raises `RecordError`. A record is replayed as it is read, in bounded memory: a
64 MB hostile record must not need gigabytes on a Pi.
"""

from __future__ import annotations

import functools
import io
import json
import marshal
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import IO, Any, BinaryIO

from companion.editions import EditionNotFound, load_edition, offer_memos, shipped_edition
from companion.engine import (
    Board,
    Edition,
    EditionError,
    Event,
    Malformed,
    Setup,
    SetupError,
    event_to_json,
    make_setup,
    parse_edition,
    parse_event,
)
from companion.engine.edition import edition_to_json
from companion.engine.rejections import CODES, Rejection
from companion.engine.scoring import explain_tie_break
from companion.util.files import too_large
from companion.util.text import printable
from companion.util.wording import CodedError, say

RECORD_FORMAT = "trekking/1"

#: The contract's bounds: a deeper or longer line counts as not JSON (``bad_event``).
MAX_DEPTH = 100
#: In bytes of UTF-8, as the line is on disk (an "é" is two).
MAX_LINE = 1024 * 1024
#: Rejections kept with their sentence for the readable output; later ones keep line and code.
MESSAGES_KEPT = 1000
#: JSON's own whitespace around a line's object (U+2028 and kin are content, not blanks).
_BLANK = b" \t\r"
#: How much of an overlong line is read at a time while it is skipped.
_PIECE = 1 << 16


class RecordError(CodedError, ValueError):
    """The record cannot be replayed at all: a code and its facts, worded by the catalogues
    (``str(exc)`` is the English one, a line that follows ``error:``)."""


@dataclass(frozen=True, slots=True)
class RejectedLine:
    """A rejected line; ``params`` (its sentence's facts) is ``None`` past the first
    `MESSAGES_KEPT` rejections."""

    line: int
    code: str
    params: Mapping[str, Any] | None

    def message(self, lang: str = "en") -> str | None:
        """The sentence the table says for this rejection, in ``lang`` (None if not kept)."""
        return None if self.params is None else say(self.code, lang, **self.params)


class Rejections:
    """Every rejected line of a replay, in order, a few bytes each: the contract's output
    lists every one, and a hostile record can hold millions. The facts of the sentences are
    kept for the first `MESSAGES_KEPT` only."""

    __slots__ = ("_codes", "_lines", "messages")

    def __init__(self) -> None:
        self._lines = array("I")  # 4 bytes a line number: a 64 MB record has at most 2**26 lines
        self._codes = bytearray()
        self.messages: list[Mapping[str, Any]] = []

    def add(self, line: int, rejection: Rejection) -> None:
        self._lines.append(line)
        self._codes.append(_CODE_INDEX[rejection.code])
        if len(self.messages) < MESSAGES_KEPT:
            self.messages.append(rejection.params)

    def __len__(self) -> int:
        return len(self._codes)

    def __iter__(self) -> Iterator[RejectedLine]:
        messages = self.messages
        kept = len(messages)
        for i, (line, code) in enumerate(zip(self._lines, self._codes, strict=True)):
            yield RejectedLine(line, CODES[code], messages[i] if i < kept else None)

    def pairs(self) -> Iterator[tuple[int, str]]:
        """(line, code) of each rejection, in order."""
        return ((line, CODES[code]) for line, code in zip(self._lines, self._codes, strict=True))

    def counts(self) -> Counter[str]:
        """How many rejections each code has."""
        return Counter(CODES[code] for code in self._codes)


_CODE_INDEX = {code: i for i, code in enumerate(CODES)}


def game_result(board: Board) -> dict[str, Any]:
    """The standings as ``companion replay --json`` gives them, without the rejections: also
    what the committed stream tells in `GameFinished`."""
    return {
        "finished": board.finished,
        "day": board.day,
        "players": [s.to_json() for s in board.standings()],
        "winners": board.winners(),
    }


@dataclass
class Replay:
    """The outcome of a replay: the game as it ended and every rejection."""

    board: Board
    rejected: Rejections = field(default_factory=Rejections)

    def to_json(self) -> dict[str, Any]:
        """The contract's output object."""
        rejected = [{"line": n, "code": c} for n, c in self.rejected.pairs()]
        return {**game_result(self.board), "rejected": rejected}

    def write_json(self, out: IO[str]) -> None:
        """Write ``json.dumps(self.to_json())`` to ``out`` without building it whole.

        Two million rejections would make a list of two million dicts and a 60 MB string;
        written in slices, the output costs no more memory than a few thousand entries."""
        head = json.dumps({**game_result(self.board), "rejected": []})
        assert head.endswith("[]}")  # "rejected" is the last key, as in the contract
        out.write(head[:-2])
        entries = (f'{{"line": {n}, "code": {_JSON_CODE[c]}}}' for n, c in self.rejected.pairs())
        separator = ""
        while chunk := ", ".join(islice(entries, 10_000)):
            out.write(separator + chunk)
            separator = ", "
        out.write("]}")


_JSON_CODE = {code: json.dumps(code) for code in CODES}


def record_lines(stream: BinaryIO, limit: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """The meaningful lines of a record read from ``stream``, as they are read: each with its
    1-based number and its bytes stripped of JSON whitespace, or ``None`` for a line longer
    than `MAX_LINE` (the contract counts it as not JSON). Blank lines and comments are skipped.

    Lines end at ``\n`` only (a ``\r`` before it is dropped): not `bytes.splitlines`, which
    also breaks at a lone ``\r``, part of a line by the contract. Bytes, not text: one line
    that is not UTF-8 is one bad line, not an unreadable record (it is decoded by
    `decode_line`). ``limit``: more bytes than that raise `companion.util.files.FileRefused`."""
    read = stream.readline
    size = MAX_LINE + 2  # a line of MAX_LINE bytes, "\r\n" included
    total = 0

    def readline(piece_size: int) -> bytes:  # an overlong line's further pieces, counted too
        nonlocal total
        piece = read(piece_size)
        total += len(piece)
        if limit is not None and total > limit:
            raise too_large(limit)
        return piece

    number = 0
    # The common line is read, counted and stripped here without a call of ours: this loop is
    # a replay's per-line cost before any JSON.
    while raw := read(size):
        number += 1
        total += len(raw)
        if limit is not None and total > limit:
            raise too_large(limit)
        if len(raw) == size and not raw.endswith(b"\n"):
            content = _long_line(raw, readline)
        else:
            content = raw.strip(_BLANK_NL)
        if content is None or (content and content[0] != _HASH):
            yield number, content


_BLANK_NL = _BLANK + b"\n"
_HASH = ord("#")


def _long_line(head: bytes, readline: Callable[[int], bytes]) -> bytes | None:
    """The rest of a line that did not fit in `MAX_LINE` + 2 bytes, read in pieces: its content
    without the blanks around it when that is within `MAX_LINE` (a blank or a comment line
    gives ``b""`` / the ``#``), else ``None``. Memory stays bounded whatever the line's length:
    content beyond the bound is not kept, nor blanks beyond it after the content."""
    content = bytearray()
    end = 0  # the content's length without its trailing blanks
    gap = False  # blanks over MAX_LINE were dropped after the content: any more content is too much
    too_long = comment = False
    piece = head
    while True:
        body = piece[:-1] if piece.endswith(b"\n") else piece
        if not (too_long or comment):
            if not content:
                body = body.lstrip(_BLANK)
                comment = body.startswith(b"#")
            stripped = body.rstrip(_BLANK)
            if stripped and gap:
                too_long = True
            elif stripped:
                content += body
                end = len(content) - (len(body) - len(stripped))
                too_long = end > MAX_LINE
            elif not gap:
                content += body
            if too_long:
                content.clear()
            elif len(content) - end > MAX_LINE:
                del content[end:]
                gap = True
        if piece.endswith(b"\n") or not piece:
            break
        piece = readline(_PIECE)
    if comment:
        return b"#"
    return None if too_long else bytes(content[:end])


class NotJson(ValueError):
    """A line the contract counts as not JSON: ``why`` and ``facts`` say what is wrong, as the
    catalogues' ``bad_event.<why>`` words it (the engine rejects the line with them)."""

    def __init__(self, why: str, /, **facts: Any) -> None:
        super().__init__(why)
        self.why = why
        self.facts = facts


def decode_line(content: bytes | None) -> Any:
    """Decode one line from `record_lines`: UTF-8 text, then `load_line`.

    JSON text is UTF-8 (RFC 8259), so a line that is not is not JSON: ``bad_event`` for an
    event, the same from a file as from standard input."""
    if content is None:
        raise NotJson("too_long")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotJson("not_utf8", byte=f"0x{content[exc.start]:02x}") from None
    return load_line(text)


def load_line(line: str) -> Any:
    """Decode one record line within the contract's bounds (1 MB of UTF-8, nesting 100 deep).

    Raises `NotJson` for anything else, including what Python's decoder raises besides
    `json.JSONDecodeError`: an integer too long to convert, nesting beyond the stack."""
    if len(line) > MAX_LINE or (
        len(line) * 4 > MAX_LINE and len(line.encode("utf-8", "surrogatepass")) > MAX_LINE
    ):
        raise NotJson("too_long")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise NotJson("not_json", detail=exc.msg) from None
    except RecursionError:
        raise NotJson("too_deep", max=MAX_DEPTH) from None
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise NotJson("not_usable", detail=str(exc)) from None
    # Nesting deeper than MAX_DEPTH needs more opening brackets than that: most lines are
    # not walked at all (a replay of millions of lines spends its time here otherwise).
    if line.count("[") + line.count("{") > MAX_DEPTH and _depth(line) > MAX_DEPTH:
        raise NotJson("too_deep", max=MAX_DEPTH)
    return obj


#: Every byte but quotes and brackets, deleted by `bytes.translate`; any other byte of valid
#: JSON outside a string (UTF-8's multi-byte sequences are all inside strings) means nothing here.
_NOT_STRUCTURE = bytes(c for c in range(256) if chr(c) not in '"[]{}')
#: Opening brackets to "(", closing ones to ")": in valid JSON they pair up whatever their kind.
_PARENTHESES = bytes.maketrans(b"[{]}", b"(())")


def _depth(line: str) -> int:
    """How deep arrays and objects nest in the valid JSON text ``line`` (a scalar is 0), read
    from the text in C-speed passes rather than by walking the decoded object (a large inline
    edition's setup line would cost more than the rest of its replay)."""
    text = line.encode("utf-8", "surrogatepass")
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = text.translate(None, _NOT_STRUCTURE).split(b'"')[::2]
    brackets = b"".join(outside).translate(_PARENTHESES)
    depth = 0
    while brackets:
        brackets = brackets.replace(b"()", b"")
        depth += 1
    return depth


@functools.lru_cache(maxsize=8)
def _inline_edition(key: bytes) -> Edition:
    """An inline edition, parsed once per value however many records carry it (the table's
    stored games each keep the owner's edition inline). ``key`` is the decoded object's
    `marshal` form, so two records share an edition only when their objects are equal and
    typed alike (``1``, ``1.0`` and ``true`` differ). Its itineraries are offered the shipped
    memos of the same cards (`offer_memos`)."""
    return offer_memos(parse_edition(marshal.loads(key)))


def parse_inline_edition(obj: dict[str, Any]) -> Edition:
    """The `Edition` of a setup line's inline edition object, parsed once per value."""
    try:
        key = marshal.dumps(obj)
    except ValueError:  # nested past marshal's depth (a setup line's own nesting is bounded first)
        return offer_memos(parse_edition(obj))
    return _inline_edition(key)


def parse_setup(obj: Any, editions: Callable[[str], Edition] = shipped_edition) -> Setup:
    """Build the `Setup` from a decoded setup line.

    ``editions`` resolves an edition *name*: by default only the shipped ones (the
    table's stored games, which keep an owner's edition inline); `parse_record`
    (``companion replay``) also reads a path, a regular file the user named.
    """
    if not isinstance(obj, dict) or obj.get("type") != "setup":
        raise RecordError("record_setup_first")
    version = obj.get("record", RECORD_FORMAT)
    if version != RECORD_FORMAT:
        raise RecordError("record_format", version=repr(version), supported=RECORD_FORMAT)
    edition_field = obj.get("edition")
    try:
        if isinstance(edition_field, str):
            edition = editions(edition_field)
        elif isinstance(edition_field, dict):
            edition = parse_inline_edition(edition_field)
        else:
            raise RecordError("record_no_edition")
    except EditionNotFound as exc:  # its English names the edition and where it was looked for
        raise RecordError("record_edition_unknown", detail=str(exc)) from None
    except EditionError as exc:
        raise RecordError("record_edition_invalid", detail=str(exc)) from None
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("record_players")
    stack = obj.get("watch_stack", players)
    if not isinstance(stack, list) or not all(isinstance(p, str) for p in stack):
        raise RecordError("record_watch_stack")
    decks = obj.get("decks")
    if decks is not None and (
        not isinstance(decks, dict)
        or not all(isinstance(v, list) and all(isinstance(c, str) for c in v) for v in decks.values())
    ):
        raise RecordError("record_decks")
    try:
        return make_setup(edition, players, stack, decks)
    except SetupError as exc:
        raise RecordError("record_setup_invalid", detail=str(exc)) from None


def replay_stream(stream: BinaryIO, limit: int | None = None) -> Replay:
    """Replay a record as it is read from ``stream`` (binary), at most ``limit`` bytes of it."""
    lines = record_lines(stream, limit)
    first = next(lines, None)
    if first is None:
        raise RecordError("record_empty")
    try:
        setup_obj = decode_line(first[1])
    except NotJson as exc:
        raise RecordError("record_setup_not_json", line=first[0], why=exc.why, **exc.facts) from None
    setup = parse_setup(setup_obj, editions=load_edition)
    result = Replay(Board(setup))
    push = result.board.push
    add = result.rejected.add
    for number, content in lines:
        try:
            event = parse_event(decode_line(content))
        except NotJson as exc:
            event = Malformed(None, exc.why, exc.facts)
        rejection = push(event)
        if rejection is not None:
            add(number, rejection)
    return result


def replay_text(text: str) -> Replay:
    """Replay a whole record given as text."""
    return replay_stream(io.BytesIO(text.encode("utf-8", "surrogatepass")))


def write_record(setup: Setup, events: Iterable[Event], inline_edition: bool = False) -> str:
    """A ``trekking/1`` record of accepted events (the export format)."""
    head: dict[str, Any] = {
        "type": "setup",
        "record": RECORD_FORMAT,
        "players": list(setup.players),
        "watch_stack": list(setup.watch_stack),
        "edition": edition_to_json(setup.edition) if inline_edition else setup.edition.name,
    }
    if setup.decks is not None:
        head["decks"] = {name: setup.deck_ids(day) for day, name in ((1, "I"), (2, "II"), (3, "III"))}
    out = [json.dumps(head)]
    out.extend(json.dumps(event_to_json(e)) for e in events)
    return "\n".join(out) + "\n"


def setup_to_json(setup: Setup) -> dict[str, Any]:
    """A setup as its record's setup line (the edition by name, as `write_record` writes it)."""
    head: dict[str, Any] = json.loads(write_record(setup, ()))
    return head


class TrekkingCodec:
    """Trekking's records for the store (`companion.store.log.GameCodec`): the ``trekking/1``
    setup line and events, read and written by the same functions as ``companion replay``."""

    format = RECORD_FORMAT
    setup_to_json = staticmethod(setup_to_json)
    setup_from_json = staticmethod(parse_setup)
    event_to_json = staticmethod(event_to_json)
    event_from_json = staticmethod(parse_event)


#: The codec every companion store is opened with: ``Store(folder, TREKKING)``.
TREKKING = TrekkingCodec()


def format_standings(replay: Replay, lang: str = "en") -> str:
    """The readable default output of ``companion replay``; each rejection is the catalogue's
    sentence in ``lang``, the words the table says for it (the rest is English for now)."""
    board = replay.board
    rows = board.standings()
    day_name = ("I", "II", "III")[board.day - 1]
    status = "finished" if board.finished else f"in play, Day {day_name}, {board.player_to_move} to move"
    lines = [f"Game {status}.", ""]
    header = (
        f"{'Player':<12} {'Track':>5} {'Crystals':>8} {'Treks':>6} {'Total':>6}  {'Hour':>4}  Trek lengths"
    )
    lines.append(header)
    lines.append("-" * len(header))
    for r in sorted(rows, key=lambda r: -r.total):
        treks = " ".join(str(n) for n in r.treks) or "-"
        lines.append(
            f"{r.name:<12} {r.track:>5} {r.crystals:>8} {r.trek_points:>6} {r.total:>6}  {r.hour:>4}  {treks}"
        )
    if board.finished:
        lines += ["", explain_tie_break(rows)]
    rejected = replay.rejected
    if rejected:
        lines += ["", f"Rejected events ({len(rejected)}):"]
        for item in rejected:
            message = item.message(lang)
            if message is None:  # a hostile record's millions: counted, not listed
                counts = ", ".join(f"{code} {n}" for code, n in rejected.counts().items())
                lines.append(
                    f"  ... {len(rejected) - MESSAGES_KEPT} more; all {len(rejected)} by code: {counts} "
                    "(--json lists each line)"
                )
                break
            lines.append(f"  line {item.line}: {item.code}: {message}")
    # Names and rejected values come from the record: an ANSI escape or a carriage return
    # in them would recolour or overwrite the terminal, so they print as visible escapes.
    return "\n".join(printable(line) for line in lines)
