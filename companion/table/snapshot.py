"""The table as JSON: what `GET /api/state` answers and what every live page draws.

The page's snapshot is projected once per change (cached by the table's version),
however many pages ask right after it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from companion.engine import Board
from companion.engine.scoring import Standing, winners
from companion.engine.state import HIDDEN
from companion.table.commit import CommittingTable
from companion.table.marks import MARKERS
from companion.table.page_text import COMPACT, PAGE_KEYS, PageText
from companion.table.view import Replay, page_state, replay, settled_past
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


#: The state's members before its players and after them (`Snapshots.state_members_of`).
HEAD_KEYS = ("game", "finished", "day")
TAIL_KEYS = ("winners", "turn", "row", "hidden", "ancestors_left", "pending", "expect", "last", "events",
             "version", "process", "mock", "turn_style", "armed")  # fmt: skip
#: The names an extra of the state may not have for its texts to be made apart: the state's
#: own members and the page's (an extra named as one takes its place, in the plain encoding).
OWN_KEYS = PAGE_KEYS | frozenset(HEAD_KEYS) | frozenset(TAIL_KEYS)


class Snapshots(CommittingTable):
    """The table's questions and its JSON projections."""

    turn_style: str
    page_cache: tuple[int, str] | None
    #: The state projected for the latest change, and what it was projected from.
    state_cache: tuple[tuple[Any, ...], dict[str, Any]] | None = None
    #: `state_parts`' answer (the board's standings, the state's members before and after
    #: its players) and its key (`state_key`): the state's text and dict are made of them,
    #: the page's snapshot shares the standings (the same board).
    parts_cache: tuple[tuple[Any, ...], list[Standing], dict[str, Any], dict[str, Any]] | None = None
    #: The board the latest standings are of, and they (the board itself: its next
    #: standings keep those of the players who did not move, `Board.standings`).
    board_standings: tuple[Board, list[Standing]] | None = None
    #: `expect`'s last answer and what it was worked out from (`turn_key`): the ring, the
    #: console and the state each ask it after every input.
    expect_cache: tuple[tuple[Any, ...], dict[str, Any] | None] | None = None
    #: `looks`' answer and what it was worked out from.
    looks_cache: tuple[tuple[Any, ...], tuple[list[str], list[int]]] | None = None
    #: `state_text_cache`'s members before and after ``players`` (`PageText.state`), same key.
    state_members: tuple[tuple[Any, ...], str, str] | None = None
    #: `state_cache`'s state as compact JSON text (`state_text`), with the same key.
    state_text_cache: tuple[tuple[Any, ...], str] | None = None
    #: Extras of every state: name -> function of the table (a coach's advice, say). A
    #: `companion.table.session.Session` shares one dict with each game it puts on the table.
    annotations: dict[str, Callable[[Any], Any]]
    #: The stored log's replay for the page, continued at each change.
    page_replay: Replay | None = None
    #: The page's snapshots as text, the parts that did not change kept (`companion.table.page_text`).
    page_encoder: PageText | None = None

    def expect(self) -> dict[str, Any] | None:
        """What the table waits for next, for the ring, the page and scripts: worked out once
        per change of the board or the turn's state (each caller gets its own copy)."""
        key = self.turn_key()
        cached = self.expect_cache
        if cached is None or cached[0] != key:
            cached = self.expect_cache = (key, self.work_out_expect())
        found = cached[1]
        return None if found is None else {**found, "choices": list(found["choices"])}

    def turn_key(self) -> tuple[Any, ...]:
        """What `expect` depends on: the board (the same object, its log's length and the
        table's, the version) and the turn's state. A change of the board goes through the
        stored log or replaces the board, as `projected`'s key assumes too."""
        board = self.board
        return (self.version, self.seq, board.move_count, board, self.pending, self.armed)

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
        """``GET /api/state``: the contract's standings plus what the table needs.

        Projected once per change (the version, with the log's length, the board, the
        latest outcome, the turn's state and the extras: a change that bypassed `emit` is
        still seen), however many pages, scripts and answers ask; each gets its own copy
        of the top level."""
        with self.lock:
            return dict(self.projected()[1])

    def state_text(self) -> str:
        """`state_json` as compact JSON text, encoded once per change (every answer to a
        control and every ``GET /api/state`` carries it): made of the state's members around
        its players (`state_parts`, shared with `projected`) and each player's text kept while
        they did not move (`PageText.state`), without the state's dict."""
        with self.lock:
            return self.keyed_state_text()[1]

    def keyed_state_text(self) -> tuple[tuple[Any, ...], str]:
        """`state_text` with its key (`state_key`); the caller holds the lock."""
        key = self.state_key()
        cached = self.state_text_cache
        if cached is None or cached[0] != key:
            if self.annotations.keys().isdisjoint(OWN_KEYS):
                standings, head, tail = self.state_parts(key)
                text, head_text, tail_text = self.encoder().state(head, tail, standings, *self.looks())
                self.state_members = (key, head_text, tail_text)
            else:  # an extra named as a state's or a page's member: the plain encoding
                text = COMPACT.encode(self.projected()[1])
            cached = self.state_text_cache = (key, text)
        return cached

    def encoder(self) -> PageText:
        """The table's `PageText` (its texts kept from one snapshot to the next)."""
        encoder = self.page_encoder
        if encoder is None:
            encoder = self.page_encoder = PageText()
        return encoder

    def looks(self) -> tuple[list[str], list[int]]:
        """Every player's colour and marker, in seat order: worked out again only when the
        stored colours or markers changed (each colour is checked by a pattern; the state and
        the page ask after every change). Shared: never change them."""
        markers = self.meta.get("markers")
        key = (
            tuple(self.colours),
            list(markers) if isinstance(markers, list) else markers,
            len(self.board.names),
        )
        cached = self.looks_cache
        if cached is None or cached[0] != key:
            seats = range(key[2])
            cached = self.looks_cache = (
                key,
                ([self.colour(i) for i in seats], [self.marker(i) for i in seats]),
            )
        return cached[1]

    def state_key(self) -> tuple[Any, ...]:
        """What the state is projected from: the version, with the log's length, the board,
        the latest outcome, the turn's state and the extras' names (a change that bypassed
        `emit` is still seen). The caller holds the lock."""
        return (
            self.version,
            self.seq,
            self.board.move_count,
            id(self.board),
            id(self.last),
            self.pending,
            self.armed,
            tuple(self.annotations),
        )

    def state_parts(self, key: tuple[Any, ...]) -> tuple[list[Standing], dict[str, Any], dict[str, Any]]:
        """The board's standings and the state's members before and after ``players``
        (`state_members_of`), made once per ``key`` (`state_key`) for both `state_text` and
        `projected` (an extra is asked once per change). The caller holds the lock; shared:
        never change them."""
        found = self.parts_cache
        if found is None or found[0] != key:
            board, kept = self.board, self.board_standings
            standings = board.standings(kept[1] if kept is not None and kept[0] is board else ())
            self.board_standings = (board, standings)
            head, tail = self.state_members_of(standings)
            found = self.parts_cache = (key, standings, head, tail)
        return found[1], found[2], found[3]

    def shared_standings(self, key: tuple[Any, ...]) -> list[Standing]:
        """The standings the state of ``key`` was projected with (`state_parts`)."""
        return self.state_parts(key)[0]

    def projected(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The state projected for the table as it is now, and its key: made again only when
        the key changed (the caller holds the lock; the dict is shared: never change it)."""
        key = self.state_key()
        cached = self.state_cache
        if cached is None or cached[0] != key:
            standings, head, tail = self.state_parts(key)
            cached = (key, self.project_state(standings, (head, tail)))
            self.state_cache = cached
        return cached

    def project_state(
        self,
        standings: list[Standing] | None = None,
        parts: tuple[dict[str, Any], dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The state as JSON, projected from the table now (the caller holds the lock;
        ``standings``: the board's, when the caller has them; ``parts``: the members around
        the players made of them, `state_members_of`)."""
        if standings is None:
            standings = self.board.standings()
        head, tail = self.state_members_of(standings) if parts is None else parts
        colours, markers = self.looks()
        return {
            **head,
            "players": [
                {**s.to_json(), "colour": colours[i], "marker": markers[i]} for i, s in enumerate(standings)
            ],
            **tail,
        }

    def state_members_of(self, standings: list[Standing]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The state's members before ``players`` (`HEAD_KEYS`) and after it (`TAIL_KEYS`,
        then the extras), from the table now and the board's ``standings``."""
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
            colours = list(self.looks()[0])
            continued = self.continued_replay()
            key, state = self.projected()
            shared = self.shared_standings(key)
            page = page_state(self.board, colours, self.stored, self.dealer is not None, continued, shared)
            markers = self.looks()[1]
            for seat, player in enumerate(page["players"]):
                player["marker"] = markers[seat]
            return {**state, **page}

    def page_text(self) -> tuple[int, str]:
        """`page_json` as compact JSON with its version, computed once per version
        however many pages are watching (they all ask right after each change)."""
        cached = self.page_cache
        if cached is not None and cached[0] == self.version:
            return cached  # no lock: the tuple is replaced whole, never changed in place
        with self.lock:
            cached = self.page_cache
            if cached is None or cached[0] != self.version:
                cached = (self.version, self.make_page_text())
                self.page_cache = cached
            return cached

    def make_page_text(self) -> str:
        """`page_json`'s text without building it (`PageText.page`): the state's text around
        its players (made for the tap's answer already), the replay continued, the parts that
        did not change kept. The caller holds the lock. An extra named as one of the page's
        members (which `page_json` would put in the extra's place) takes the plain way."""
        encoder = self.encoder()
        if not self.annotations.keys().isdisjoint(PAGE_KEYS):
            return encoder.encode(self.page_json())
        key, _ = self.keyed_state_text()
        members = self.state_members
        if members is None or members[0] is not key:  # never: `state_text` made them for this key
            return encoder.encode(self.page_json())
        board, stored = self.board, self.stored
        standings = self.shared_standings(key)
        past, same = settled_past(board, stored, self.dealer is not None, self.continued_replay(), standings)
        logged = past
        if not same:  # the stored log does not replay to the board's moves (see `page_state`)
            past = replay(board.setup, board.moves)
        colours, markers = self.looks()
        return encoder.page(board, members[1], members[2], past, logged, standings, colours, markers)

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
