"""The table as JSON: what `GET /api/state` answers and what every live page draws.

One projection per version (`Projection`): the state is projected and encoded once per
change of the table's version, the page's snapshot made and encoded once (by the change
itself while pages watch, else when first asked), however many pages, polls and answers
read them. A page's field is written in one place, `companion.table.view.page_state`; the
state's in `Snapshots.state_members_of`. A reader of the state never waits long for the
table's lock: an input that holds it through a slow store write leaves the reader the latest
projection (`READ_WAIT`).
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Callable
from typing import Any

from companion.engine import Board
from companion.engine.scoring import Standing, winners
from companion.engine.state import HIDDEN
from companion.table.commit import CommittingTable
from companion.table.marks import MARKERS
from companion.table.view import Replay, page_state
from companion.util.config import DEFAULT_PALETTE, colour_problem

#: This process, named in every snapshot. Versions count up only within one process (a
#: new game continues its predecessor's count), so a page compares the versions of two
#: snapshots of the same process and takes any snapshot of a new one (after a restart).
PROCESS = secrets.token_hex(4)


def itinerary_player(board: Board) -> str | None:
    """The next player, in stack order (top first), still without an Itinerary today."""
    if not board.has_itineraries:
        return None
    itinerary, hour, seq = board.itinerary, board.hour, board.seq
    found = -1
    for i in range(len(board.names)):  # the first of the highest (-hour, seq): a plain loop, asked per change
        if itinerary[i] < 0 and (found < 0 or (-hour[i], seq[i]) > (-hour[found], seq[found])):
            found = i
    return None if found < 0 else board.names[found]


#: The snapshots' compact JSON: ``json.dumps(value, separators=(",", ":"))``, without its check
#: for containers that hold themselves (a projection is built fresh and never refers to itself).
COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)
#: Seconds a reader of the state waits for the table's lock before it takes the latest
#: projection instead (an input holds the lock through its store write: SQLite's busy
#: timeout, a slow SD card).
READ_WAIT = 0.25


class Projection:
    """The table as its readers see it at one version: the state (shared: never change it),
    its text, the standings it was made of, and the page's text once asked (`Snapshots.page_text`)."""

    __slots__ = ("asked", "extras", "page_text", "standings", "state", "state_text", "version")

    def __init__(
        self, version: int, extras: tuple[str, ...], state: dict[str, Any], standings: list[Standing]
    ) -> None:
        self.version, self.extras, self.state, self.standings = version, extras, state, standings
        self.state_text = COMPACT.encode(state)
        self.page_text: str | None = None
        #: Whether a page asked for `page_text` (not only the change that made it ahead).
        self.asked = False


class Snapshots(CommittingTable):
    """The table's questions and its JSON projections."""

    turn_style: str
    #: The latest projection (`projection`): replaced whole, its page's text set once.
    latest: Projection | None = None
    #: Extras of every state: name -> function of the table (a coach's advice, say). A
    #: `companion.table.session.Session` shares one dict with each game it puts on the table.
    annotations: dict[str, Callable[[Any], Any]]
    #: The stored log's replay for the page, continued at each change: replaying the whole
    #: log at each change grew with the game (`companion.table.view.Replay`).
    page_replay: Replay | None = None

    def expect(self) -> dict[str, Any] | None:
        """What the table waits for next, for the ring, the page and scripts (the caller
        holds the lock)."""
        return self.work_out_expect()

    def work_out_expect(self) -> dict[str, Any] | None:
        """`expect` worked out from the board and the turn's state (the caller holds the lock)."""
        board = self.board
        if board.finished:
            return None
        if self.pending is not None:
            return {"kind": "confirm", "player": self.pending.player, "choices": [self.pending.card]}
        if board.waiting_position() >= 0:
            choices = [
                c.id
                for i, c in enumerate(board.edition.cards)
                if c.day == board.day and not board.revealed >> i & 1
            ]
            return {"kind": "reveal", "player": None, "choices": choices}
        waiting = itinerary_player(board)
        if waiting is not None:
            return {"kind": "itinerary", "player": waiting, "choices": board.itinerary_choices(waiting)}
        return {
            "kind": "take",
            "player": board.player_to_move,
            "choices": board.take_cards(),
            "crystals": self.armed_crystals(),
        }

    def armed_crystals(self) -> int:
        """Quick turn: crystals the player to move has chosen for the card they tap next."""
        armed = self.armed
        return armed[1] if armed is not None and armed[0] == self.board.player_to_move else 0

    def state_json(self) -> dict[str, Any]:
        """``GET /api/state``: the contract's standings plus what the table needs (a copy of
        the projection's top level)."""
        return dict(self.projection().state)

    def state_text(self) -> str:
        """`state_json` as compact JSON text: every answer to a control and every
        ``GET /api/state`` carries it. Waits at most `READ_WAIT` for the table's lock."""
        return self.projection(READ_WAIT).state_text

    def current(self, found: Projection | None) -> bool:
        """Whether ``found`` is of the table as it is: its version and extras."""
        return found is not None and found.version == self.version and found.extras == tuple(self.annotations)

    def projection(self, wait: float = -1) -> Projection:
        """The projection of the table's version, made by the first reader after a change.
        Read without the lock when it is current; ``wait``: seconds to wait for the lock
        before taking the latest projection instead (-1: as long as it takes)."""
        found = self.latest
        if self.current(found):
            assert found is not None
            return found
        if not self.lock.acquire(timeout=wait):
            if found is not None:
                return found
            self.lock.acquire()
        try:
            found = self.latest
            if found is None or not self.current(found):
                standings = self.board.standings()
                found = self.latest = Projection(
                    self.version, tuple(self.annotations), self.project_state(standings), standings
                )
            return found
        finally:
            self.lock.release()

    def looks(self) -> tuple[list[str], list[int]]:
        """Every player's colour and marker, in seat order."""
        seats = range(len(self.board.names))
        return [self.colour(i) for i in seats], [self.marker(i) for i in seats]

    def project_state(self, standings: list[Standing] | None = None) -> dict[str, Any]:
        """The state as JSON, projected from the table now (the caller holds the lock;
        ``standings``: the board's, when the caller has them)."""
        if standings is None:
            standings = self.board.standings()
        head, tail = self.state_members_of(standings)
        colours, markers = self.looks()
        return {
            **head,
            "players": [
                {**s.to_json(), "colour": colours[i], "marker": markers[i]} for i, s in enumerate(standings)
            ],
            **tail,
        }

    def state_members_of(self, standings: list[Standing]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The state's members before ``players`` and after it (then the extras), from the
        table now and the board's ``standings``."""
        board = self.board
        cards = board.edition.cards
        head = {"game": self.game_id, "finished": board.finished, "day": board.day}
        tail = {
            "winners": winners(standings) if board.finished else [],
            "turn": board.player_to_move,
            "row": [cards[c].id if c >= 0 else None for c in board.row],
            "hidden": [c == HIDDEN for c in board.row],
            "ancestors_left": board.ancestors_left,
            "pending": None if self.pending is None else self.pending.to_json(),
            "expect": self.expect(),
            "last": self.last.to_json(),
            "events": self.seq,
            "version": self.version,
            "process": PROCESS,
            "mock": bool(self.meta.get("mock")),
            "turn_style": self.turn_style,
            "armed": self.armed_crystals(),
            **{name: extra(self) for name, extra in self.annotations.items()},
        }
        return head, tail

    def page_json(self) -> dict[str, Any]:
        """The state plus what the live page draws (treks' cards, the log, the score chart)."""
        with self.lock:
            found = self.projection()
            return self.page_of(found)

    def page_of(self, found: Projection) -> dict[str, Any]:
        """The page's snapshot of ``found``, the current projection (the caller holds the lock)."""
        colours, markers = self.looks()
        page = page_state(
            self.board,
            colours,
            self.stored,
            self.dealer is not None,
            self.continued_replay(),
            found.standings,
        )
        for seat, player in enumerate(page["players"]):
            player["marker"] = markers[seat]
        return {**found.state, **page}

    def page_text(self) -> tuple[int, str]:
        """`page_json` as compact JSON with its version, made once per version however many
        pages are watching (they all ask right after each change)."""
        found = self.latest
        if not (self.current(found) and found is not None and found.page_text is not None):
            with self.lock:
                found = self.page_made()
        found.asked = True
        assert found.page_text is not None
        return found.version, found.page_text

    def page_made(self) -> Projection:
        """The current projection with its page's text (the caller holds the lock)."""
        found = self.projection()
        if found.page_text is None:
            found.page_text = COMPACT.encode(self.page_of(found))
        return found

    def wake(self) -> None:
        """Tell the live pages of a change, with their snapshot made first when a page read the
        last one: made here, by the thread that made the change, what it changed in hand (made
        by the pages' writer once woken, it cost a fifth more: docs/benchmarks.md). A snapshot
        that fails here is made again, and said, by the first page to ask."""
        found = self.latest
        if found is not None and found.asked and found.version != self.version:
            with contextlib.suppress(Exception), self.lock:  # the pages' writer asks again and logs it
                self.page_made()
        super().wake()

    def continued_replay(self) -> Replay:
        """The replay of the stored log for the page, continued from the last snapshot's
        (`companion.table.view.Replay`), or a new one if the log is not the one it read."""
        dealt = self.dealer is not None
        continued = self.page_replay
        if continued is None or not continued.continues(self.board.setup, self.stored, dealt):
            continued = self.page_replay = Replay(self.board.setup, self.stored, dealt)
        return continued

    def marker(self, seat: int) -> int:
        """A player's marker (`companion.table.marks`); an older game's seats, which have
        none, take the page's markers in seat order, as its end chart drew them."""
        markers = self.meta.get("markers")
        marker = markers[seat] if isinstance(markers, list) and seat < len(markers) else seat
        return marker % MARKERS if isinstance(marker, int) else seat % MARKERS

    def colour(self, seat: int) -> str:
        """A player's colour; a stored one that is not "#rrggbb" (older games) falls back to the palette."""
        colour = self.colours[seat] if seat < len(self.colours) else ""
        return colour if colour_problem(colour) is None else DEFAULT_PALETTE[seat % len(DEFAULT_PALETTE)]
