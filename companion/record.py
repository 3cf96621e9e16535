"""Game records (``trekking/1``, JSON Lines) and replaying them through the engine.

A record is a setup line followed by events. Reading never stops at a bad event:
the engine rejects it (``bad_event`` for one that is not even readable) and the
replay goes on, exactly as at the table. Only a record that cannot be read at all
— no setup line, an unknown edition, an inline edition that fails validation —
raises `RecordError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from companion.editions import EditionNotFound, load_edition, shipped_edition
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
from companion.engine.scoring import explain_tie_break
from companion.text import printable

RECORD_FORMAT = "trekking/1"

#: The contract's bounds: a deeper or longer line counts as not JSON (``bad_event``).
MAX_DEPTH = 100
#: In bytes of UTF-8, as the line is on disk (an "é" is two).
MAX_LINE = 1024 * 1024


class RecordError(ValueError):
    """The record cannot be replayed at all; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class RecordLine:
    """One event line of a record with its 1-based line number."""

    line: int
    event: Event


@dataclass(frozen=True, slots=True)
class RejectedLine:
    line: int
    code: str
    message: str


@dataclass
class Replay:
    """The outcome of a replay: the game as it ended and every rejection."""

    board: Board
    rejected: list[RejectedLine] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The contract's output object."""
        board = self.board
        return {
            "finished": board.finished,
            "day": board.day,
            "players": [s.to_json() for s in board.standings()],
            "winners": board.winners(),
            "rejected": [{"line": r.line, "code": r.code} for r in self.rejected],
        }


def record_lines(text: str) -> list[str]:
    """The lines of a record: split at ``\n`` only (a ``\r`` before it is dropped).

    Not `str.splitlines`: it also breaks at U+2028, U+2029, U+0085 and a lone ``\r``,
    which JSON allows inside a string (a player's name), so a valid setup line would
    come apart and stop being JSON."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _meaningful(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, text in enumerate(lines, start=1):
        stripped = text.strip(" \t\r")  # JSON's own whitespace; U+2028 and kin are content
        if stripped and not stripped.startswith("#"):
            yield number, stripped


class NotJson(ValueError):
    """A line the contract counts as not JSON; the message says why."""


def load_line(line: str) -> Any:
    """Decode one record line within the contract's bounds (1 MB of UTF-8, nesting 100 deep).

    Raises `NotJson` for anything else, including what Python's decoder raises besides
    `json.JSONDecodeError`: an integer too long to convert, nesting beyond the stack."""
    if len(line) > MAX_LINE or (
        len(line) * 4 > MAX_LINE and len(line.encode("utf-8", "surrogatepass")) > MAX_LINE
    ):
        raise NotJson("the line is longer than 1 MB")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise NotJson(f"the line is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise NotJson(f"the line nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise NotJson(f"the line is not usable JSON ({exc})") from None
    if _depth(obj) > MAX_DEPTH:
        raise NotJson(f"the line nests deeper than {MAX_DEPTH} levels")
    return obj


def _depth(obj: Any) -> int:
    """How deep arrays and objects nest in ``obj`` (a scalar is 0), without recursion."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(obj, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                return deepest
        todo.extend((child, depth) for child in item if isinstance(child, (list, dict)))
    return deepest


def parse_setup(obj: Any, editions: Callable[[str], Edition] = shipped_edition) -> Setup:
    """Build the `Setup` from a decoded setup line.

    ``editions`` resolves an edition *name*: by default only the shipped ones (the
    table's stored games, which keep an owner's edition inline); `parse_record`
    (``companion replay``) also reads a path, a regular file the user named.
    """
    if not isinstance(obj, dict) or obj.get("type") != "setup":
        raise RecordError('the first line must be the setup: {"type": "setup", ...}')
    version = obj.get("record", RECORD_FORMAT)
    if version != RECORD_FORMAT:
        raise RecordError(
            f"record format {version!r} is not supported (this companion reads {RECORD_FORMAT})"
        )
    edition_field = obj.get("edition")
    try:
        if isinstance(edition_field, str):
            edition = editions(edition_field)
        elif isinstance(edition_field, dict):
            edition = parse_edition(edition_field)
        else:
            raise RecordError('the setup needs "edition": an edition name or an inline edition object')
    except EditionNotFound as exc:
        raise RecordError(str(exc)) from None
    except EditionError as exc:
        raise RecordError(f"the edition is not valid: {exc}") from None
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError('the setup needs "players": a list of 1 to 4 names')
    stack = obj.get("watch_stack", players)
    if not isinstance(stack, list) or not all(isinstance(p, str) for p in stack):
        raise RecordError('"watch_stack" must be a list of the players\' names, top first')
    decks = obj.get("decks")
    if decks is not None and (
        not isinstance(decks, dict)
        or not all(isinstance(v, list) and all(isinstance(c, str) for c in v) for v in decks.values())
    ):
        raise RecordError('"decks" must map I, II and III to lists of card ids, top first')
    try:
        return make_setup(edition, players, stack, decks)
    except SetupError as exc:
        raise RecordError(f"the setup is not valid: {exc}") from None


def parse_record(text: str) -> tuple[Setup, list[RecordLine]]:
    """Split a record into its setup and its event lines."""
    lines = _meaningful(record_lines(text))
    first = next(lines, None)
    if first is None:
        raise RecordError("the record is empty: it needs a setup line")
    try:
        setup_obj = load_line(first[1])
    except NotJson as exc:
        raise RecordError(f"line {first[0]}: the setup line: {exc}") from None
    setup = parse_setup(setup_obj, editions=load_edition)
    events: list[RecordLine] = []
    for number, raw in lines:
        try:
            obj = load_line(raw)
        except NotJson as exc:
            events.append(RecordLine(number, Malformed(None, str(exc))))
            continue
        events.append(RecordLine(number, parse_event(obj)))
    return setup, events


def replay_events(setup: Setup, events: Iterable[RecordLine]) -> Replay:
    """Feed events to a fresh game, collecting rejections."""
    result = Replay(Board(setup))
    push = result.board.push
    for item in events:
        rejection = push(item.event)
        if rejection is not None:
            result.rejected.append(RejectedLine(item.line, rejection.code, rejection.message))
    return result


def replay_text(text: str) -> Replay:
    """Replay a whole record given as text."""
    setup, events = parse_record(text)
    return replay_events(setup, events)


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


def format_standings(replay: Replay) -> str:
    """The readable default output of ``companion replay``."""
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
    if replay.rejected:
        lines += ["", f"Rejected events ({len(replay.rejected)}):"]
        lines += [f"  line {r.line}: {r.code}: {r.message}" for r in replay.rejected]
    # Names and rejected values come from the record: an ANSI escape or a carriage return
    # in them would recolour or overwrite the terminal, so they print as visible escapes.
    return "\n".join(printable(line) for line in lines)
