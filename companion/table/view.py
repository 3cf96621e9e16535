"""What the page shows, derived from the board and its event log.

The engine keeps only what the rules need (trek lengths, not which cards; the
current totals, not their history). The page wants more: each trek's cards and
years, a readable event log. All of it
is recomputed here by replaying the accepted events on a fresh board — the
event log is the truth, so nothing is stored twice and nothing can drift.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Board, ChooseItinerary, Event, Reveal, Setup, Take, Undo, explain_tie_break
from companion.engine.edition import Edition, Itinerary, Space
from companion.engine.scoring import Standing
from companion.engine.tokens import ANCESTOR, COLUMNS, DAY_NAMES


@dataclass
class Move:
    """An event still in effect after the replay, with what the page draws of it."""

    event: Event
    entry: dict[str, Any]  # its log entry
    seat: int  # whose turn it was (a take's player)
    starts_trek: bool  # a take whose card began a new trek


@dataclass
class Past:
    """The stored log replayed once: the page's log of it, undos listed, and the moves
    still in effect (the treks are drawn from those; a finished game's chart from its
    stored log, `companion.records.story`)."""

    #: The log's entries: never changed once in it (an undo puts a marked copy in its entry's
    #: place), so a snapshot may hold them past the next change.
    log: list[dict[str, Any]] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    #: `treks`' last answer: (players, how many moves, the top move, the treks).
    _treks: tuple[int, int, Move | None, list[list[list[dict[str, Any]]]]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def events(self) -> list[Event]:
        """The events still in effect: the board's moves when the log is the board's."""
        return [move.event for move in self.moves]

    def treks(self, players: int) -> list[list[list[dict[str, Any]]]]:
        """Per player, their treks (completed, then the current one) as card lists, continued
        from the last answer when the moves only grew since (its top move, compared by
        identity, still in place). The lists are extended in place: a caller keeping them
        past the next call copies them."""
        moves = self.moves
        cached = self._treks
        if cached is not None and cached[0] == players and cached[1] <= len(moves):
            _, done, top, treks = cached
            if done == 0 or moves[done - 1] is top:
                self._add_treks(treks, moves[done:])
                self._treks = (players, len(moves), moves[-1] if moves else None, treks)
                return treks
        treks = [[] for _ in range(players)]
        self._add_treks(treks, moves)
        self._treks = (players, len(moves), moves[-1] if moves else None, treks)
        return treks

    @staticmethod
    def _add_treks(treks: list[list[list[dict[str, Any]]]], moves: Sequence[Move]) -> None:
        for move in moves:
            event, entry = move.event, move.entry
            if not isinstance(event, Take):
                continue
            card = {"id": entry["card"], "title": entry["title"], "year": entry["year"]}
            if event.card == ANCESTOR:
                card["ancestor"] = True
            elif move.starts_trek:
                treks[move.seat].append([])
            treks[move.seat][-1].append(card)


def replay(setup: Setup, stored: Sequence[Event], dealt: bool = False) -> Past:
    """Replay a stored log once, for both the page's event log and the moves in effect.

    A person's undo keeps the entry it took back (marked ``undone``) and adds an ``undo``
    entry naming it, so a host can see what Undo took back; a correction's own undos leave no
    trace. ``dealt``: the reveals are the mock dealer's and go with their take."""
    return Replay(setup, stored, dealt).advance()


class Replay:
    """A `replay` that can be continued: the stored log only grows, so each change replays
    only the events stored since the last snapshot, and gives the `Past` a whole replay would
    (an undo takes the board back exactly, and the log's entries never change once in it).
    Kept because a whole replay at each change grew with the game (docs/benchmarks.md);
    dropped in one place, `Snapshots.continued_replay` (`continues`)."""

    def __init__(self, setup: Setup, source: Sequence[Event], dealt: bool = False) -> None:
        self.setup, self.source, self.dealt = setup, source, dealt
        self.board = Board(setup)
        self.past = Past()
        #: How many of ``source``'s events were replayed, and the last of them.
        self.count = 0
        self.last: Event | None = None
        #: `same_moves`' last agreement: a board, how many moves, the board's mark of the
        #: top one (`Board.move_mark`) and the replay's top `Move` (none when 0 moves).
        self.agreed: tuple[Board, int, object, Move | None] | None = None

    def same_moves(self, board: Board) -> bool:
        """Whether the moves in effect are ``board``'s (``past.events == board.moves``), with
        only the moves above the last agreement compared: both stacks change only at their
        top, the board's marks and the replay's moves are new at each push, so the same mark
        and the same `Move` at the agreed depth mean the same moves up to there."""
        moves, count = self.past.moves, board.move_count
        agreed, start = self.agreed, 0
        if agreed is not None and agreed[0] is board:
            depth = agreed[1]
            if (
                depth <= len(moves)
                and depth <= count
                and (
                    depth == 0 or (moves[depth - 1] is agreed[3] and board.move_mark(depth - 1) is agreed[2])
                )
            ):
                start = depth
        same = len(moves) == count and [m.event for m in moves[start:]] == board.moves_from(start)
        if same:
            self.agreed = (
                board,
                count,
                board.move_mark(count - 1) if count else None,
                moves[-1] if count else None,
            )
        return same

    def continues(self, setup: Setup, source: Sequence[Event], dealt: bool) -> bool:
        """Whether ``source`` is the log this replay read, grown since (never changed before)."""
        return (
            setup is self.setup
            and source is self.source
            and dealt == self.dealt
            and len(source) >= self.count
            and (self.count == 0 or source[self.count - 1] is self.last)
        )

    def advance(self) -> Past:
        """Replay the events stored since the last call; the past as a whole replay gives it."""
        fresh, past, dealt, source = self.board, self.past, self.dealt, self.source
        log, moves = past.log, past.moves
        for n in range(self.count + 1, len(source) + 1):
            event = source[n - 1]
            if type(event) is not Undo:
                who = fresh.turn
                entry = _push(fresh, event, n)
                if entry is not None:
                    log.append(entry)
                    moves.append(Move(event, entry, who, type(event) is Take and fresh.trek_len[who] == 1))
                continue
            if fresh.push(event) is not None:  # nothing to undo: nothing happened
                continue
            undone = moves.pop().entry
            at = next(i for i in range(len(log) - 1, -1, -1) if log[i] is undone)
            if event.correction:
                del log[at]
                continue
            log[at] = {**{k: v for k, v in undone.items() if k != "day_end"}, "undone": True}
            if dealt and undone["kind"] == "reveal":
                continue
            gone = {k: undone[k] for k in _NAMED if k in undone}
            log.append({"n": n, "day": fresh.day, "kind": "undo", "event": gone})
        if len(source) > self.count:
            self.count, self.last = len(source), source[-1]
        return past


#: What an ``undo`` entry names of the entry it took back.
_NAMED = ("kind", "player", "card", "title", "year", "itinerary")


def _push(fresh: Board, event: Event, n: int) -> dict[str, Any] | None:
    """Push ``event`` on ``fresh`` and describe it for the log (None if it was refused)."""
    edition = fresh.edition
    who = fresh.turn
    day = fresh.day
    year = fresh.trek_year[who] if who >= 0 else 0
    if fresh.push(event) is not None:
        return None
    entry: dict[str, Any]
    if isinstance(event, Take):  # each kind's entry in one literal, in the log's order of keys
        if event.card == ANCESTOR:
            card, title = ANCESTOR, "Ancestor"
        else:
            info = edition.card(event.card)
            card, title, year = info.id, info.title, info.year
        entry = {
            "n": n, "day": day, "kind": _kind(event), "player": fresh.names[who], "card": card,
            "title": title, "year": year, "crystals": event.crystals,
            "hour": fresh.hour[who] if fresh.day == day else 12,
        }  # fmt: skip
    elif isinstance(event, ChooseItinerary):
        entry = {
            "n": n,
            "day": day,
            "kind": _kind(event),
            "player": event.player,
            "itinerary": event.itinerary,
        }
    elif isinstance(event, Reveal):
        info = edition.card(event.card)
        entry = {
            "n": n,
            "day": day,
            "kind": _kind(event),
            "card": info.id,
            "title": info.title,
            "year": info.year,
        }
    else:
        entry = {"n": n, "day": day, "kind": _kind(event)}
    if fresh.day != day or fresh.finished:
        entry["day_end"] = DAY_NAMES[day - 1]
    return entry


#: The log's kind of each event type.
_KINDS: dict[type, str] = {Take: "take", ChooseItinerary: "itinerary", Reveal: "reveal"}


def _kind(event: Event) -> str:
    return _KINDS.get(type(event), "other")


def itinerary_view(board: Board, seat: int) -> dict[str, Any] | None:
    """A player's Itinerary today: its spaces, how deep each column is covered, the next rewards."""
    index = board.itinerary[seat]
    if index < 0:
        return None
    it, depths = board.edition.itineraries[index], board.column_depths(seat)
    columns = [
        itinerary_column(kind, spaces, depth)
        for kind, spaces, depth in zip(COLUMNS, it.columns, depths, strict=True)
    ]
    return {"id": it.id, "columns": columns, "rows": itinerary_rows(it, depths)}


def itinerary_column(kind: str, spaces: Sequence[Space], depth: int) -> dict[str, Any]:
    """A column of an Itinerary's view: its spaces, how deep they are covered, the next one."""
    nxt = spaces[depth] if depth < len(spaces) else None
    return {"kind": kind, "spaces": list(spaces), "covered": depth, "next": nxt, "full": depth >= len(spaces)}


def itinerary_rows(it: Itinerary, depths: Sequence[int]) -> list[dict[str, Any]]:
    """An Itinerary's rows in its view: each one's reward, and whether its spaces are all covered."""
    rows = []
    for i, reward in enumerate(it.rows):
        members = [c for c, spaces in enumerate(it.columns) if len(spaces) > i]
        done = all(depths[c] > i for c in members)
        rows.append({"reward": reward, "complete": done})
    return rows


#: `edition_view`'s last answer, and the edition it is of.
_edition_view: tuple[Edition, dict[str, Any]] | None = None


def edition_view(edition: Edition) -> dict[str, Any]:
    """The snapshot's ``edition``: its name and the layout of its Itineraries. The same for every
    snapshot of a game, so built once per edition and shared (only encoded: never change it)."""
    global _edition_view
    cached = _edition_view
    if cached is None or cached[0] is not edition:
        view = {
            "name": edition.name,
            "title": edition.title,
            "itineraries": list(edition.itinerary_index),
            # spaces per column (person, event, innovation, progress): the cards have no titles
            "itinerary_spaces": {it.id: [len(c) for c in it.columns] for it in edition.itineraries},
            # a card's title in other languages (an owner's box in French): the page shows its language's
            "titles": {c.id: dict(c.titles) for c in edition.cards if c.titles},
        }
        cached = _edition_view = (edition, view)
    return cached[1]


def used_itineraries(edition: Edition, used: int) -> list[str]:
    """The ids of the Itineraries a player has used (bit ``i`` of ``used``: the edition's
    ``i``-th), in the edition's order."""
    return [it.id for i, it in enumerate(edition.itineraries) if used >> i & 1]


def replayed_past(
    board: Board, stored: Sequence[Event] | None, dealt: bool, continued: Replay | None
) -> tuple[Past, bool]:
    """``stored`` replayed (``continued``, else afresh: see `page_state`), and whether its moves
    in effect are the board's."""
    replayed = (
        continued
        if continued is not None
        else Replay(board.setup, board.moves if stored is None else stored, dealt)
    )
    past = replayed.advance()
    return past, replayed.same_moves(board)


def row_entry(edition: Edition, position: int, index: int) -> dict[str, Any]:
    """A position of the Departures Row as the page draws it: the card there (``index``: the
    edition's, -1 none, -2 hidden), the position's bonus."""
    return {
        "position": position,
        "card": row_card(edition, index),
        "hidden": index == -2,
        "bonus": list(edition.slots[position]),
    }


def row_card(edition: Edition, index: int) -> dict[str, Any] | None:
    """The card at a position of the row (`row_entry`), None where none is face up."""
    if index < 0:
        return None
    info = edition.cards[index]
    return {"id": info.id, "title": info.title, "year": info.year, "hours": info.hours,
            "gains": list(info.gains), "note": info.note}  # fmt: skip


def stack_order(board: Board) -> list[int]:
    """The seats by hour, then stack (the top one first): the turn order and the Clock's stacks."""
    return sorted(range(len(board.names)), key=lambda i: (board.hour[i], -board.seq[i]))


def page_state(
    board: Board,
    colours: list[str],
    stored: Sequence[Event] | None = None,
    dealt: bool = False,
    continued: Replay | None = None,
    standings: list[Standing] | None = None,
) -> dict[str, Any]:
    """Everything the page draws, besides the table's own fields (expect, pending, last).

    ``stored``: the table's whole stored log, undos included, for the event log (without it
    the log lists the moves in effect); ``continued``: a `Replay` of it to continue instead;
    ``standings``: the board's, when the caller has them already."""
    past, same = replayed_past(board, stored, dealt, continued)
    log = past.log
    if not same:
        past = replay(board.setup, board.moves)
    treks_of = past.treks(len(board.names))
    edition = board.edition
    if standings is None:
        standings = board.standings()
    order = stack_order(board)
    players = []
    for seat, s in enumerate(standings):
        treks = treks_of[seat]
        players.append({
            **s.to_json(),
            "colour": colours[seat] if seat < len(colours) else "#FFFFFF",
            "current_trek": treks[-1] if treks else [],
            "completed_treks": treks[:-1],
            "itinerary": itinerary_view(board, seat),
            "used_itineraries": used_itineraries(edition, board.used[seat]),
        })  # fmt: skip
    row = [row_entry(edition, position, index) for position, index in enumerate(board.row)]
    result: dict[str, Any] = {
        "edition": edition_view(edition),
        "players": players,
        "order": [board.names[i] for i in order if board.hour[i] < 12],
        # every watch by hour, then stack (the top one first): the page's Clock stacks them so
        "stack": [board.names[i] for i in order],
        "row_cards": row,
        "log": log[-60:],
        "log_length": len(log),
        "ancestor": None if edition.ancestor is None else {
            "hours": edition.ancestor.hours, "gains": list(edition.ancestor.gains)},
    }  # fmt: skip
    if board.finished:
        result["tie_break"] = explain_tie_break(standings)
    return result
