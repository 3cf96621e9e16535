"""`Board`: the game in play, its move stack, and the rules that change it.

Modelled on python-chess's ``Board``: `push` applies an event after checking it and keeps just
enough to take it back, `pop` restores the previous state exactly (undo is `pop`, across a
Day's end too). The live table, ``replay`` and crash recovery all feed it the event log in
order; `snapshot` gives the immutable `GameState` and `apply` is the pure form. The state is
plain per-player lists because the simulator referees thousands of games a second.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from companion.engine.edition import Edition
from companion.engine.events import ChooseItinerary, Event, Malformed, Reveal, Take, Undo
from companion.engine.itinerary import place_tokens
from companion.engine.rejections import (
    ANCESTOR_CANNOT_START_TREK,
    BAD_EVENT,
    CARD_NOT_AVAILABLE,
    COST_BELOW_ONE,
    GAME_OVER,
    ITINERARY_REQUIRED,
    ITINERARY_UNAVAILABLE,
    NO_ANCESTOR_LEFT,
    NOT_YOUR_TURN,
    NOTHING_TO_UNDO,
    TOO_MANY_CRYSTALS,
    UNKNOWN_CARD,
    Rejection,
)
from companion.engine.scoring import Standing, winners
from companion.engine.state import EMPTY, HIDDEN, GameState, PlayerState, Setup, deal
from companion.engine.tables import RuleTables
from companion.engine.tokens import (
    ANCESTOR,
    CRYSTAL_CODE,
    DAY_NAMES,
    DAYS,
    HOURS_PER_DAY,
    PUNCTUALITY_BONUS,
    ROW_SIZE,
    STARTING_CRYSTALS,
)

# Undo records start with their kind.
_TAKE, _ITINERARY, _REVEAL = 0, 1, 2
#: Turn-order keys are hour * HOUR_WEIGHT - seq: hour first, then the stack.
HOUR_WEIGHT = 1 << 32
#: A key above this belongs to a watch at 12, which never takes a turn.
LAST_TURN_KEY = (HOURS_PER_DAY - 1) * HOUR_WEIGHT


class TakeOption(NamedTuple):
    """A legal way to take a card: the card and how many crystals may be spent."""

    card: str
    position: int  # Departures Row position, -1 for an Ancestor
    hours: int
    max_crystals: int


class Board:
    """One game being refereed: mutable state plus the stack of accepted events."""

    __slots__ = (
        "_stack",
        "ancestors_left",
        "card_index",
        "crystals",
        "day",
        "deck",
        "deck_size",
        "drawn",
        "edition",
        "fills",
        "finished",
        "has_itineraries",
        "hour",
        "itinerary",
        "names",
        "next_seq",
        "order",
        "revealed",
        "row",
        "seq",
        "setup",
        "tables",
        "track",
        "trek_len",
        "trek_year",
        "treks",
        "turn",
        "used",
    )  # fmt: skip

    setup: Setup
    edition: Edition
    tables: RuleTables
    card_index: Mapping[str, int]
    names: tuple[str, ...]
    has_itineraries: bool
    day: int
    finished: bool
    hour: list[int]
    seq: list[int]
    order: list[int]
    track: list[int]
    crystals: list[int]
    itinerary: list[int]
    used: list[int]
    fills: list[int]
    treks: list[list[int]]
    trek_len: list[int]
    trek_year: list[int]
    row: list[int]
    drawn: int
    deck: tuple[int, ...] | None
    deck_size: int
    revealed: int
    ancestors_left: int
    next_seq: int
    turn: int

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        edition = self.edition = setup.edition
        self.tables = edition.rules
        self.card_index = edition.card_index
        self.names = setup.players
        self.has_itineraries = bool(edition.itineraries)
        n = len(setup.players)
        stack_seq = {name: n - 1 - i for i, name in enumerate(setup.watch_stack)}  # top first
        self.day = 1
        self.finished = False
        self.hour = [0] * n
        self.seq = [stack_seq[name] for name in setup.players]
        self.track = [0] * n
        self.crystals = [STARTING_CRYSTALS] * n
        self.itinerary = [-1] * n
        self.used = [0] * n
        self.fills = [0] * n  # itinerary progress numbers (see companion.engine.itinerary)
        self.treks = [[] for _ in range(n)]
        self.trek_len = [0] * n
        self.trek_year = [0] * n
        self._deal(1)
        self.revealed = 0
        self.ancestors_left = edition.ancestor_copies(n)
        self.next_seq = n
        self._reorder()
        if self._stalled():  # a Day I deck with nothing in it: on to Day II (or the end)
            self._end_day()
        self._stack: list[tuple[Event, tuple[Any, ...]]] = []

    # --- moves -----------------------------------------------------------------------

    def push(self, event: Event) -> Rejection | None:
        """Apply an event: ``None`` when accepted, else the rejection (nothing changes)."""
        kind = type(event)
        if kind is Take:
            result = self._take(event)  # type: ignore[arg-type]
        elif kind is ChooseItinerary:
            result = self._choose_itinerary(event)  # type: ignore[arg-type]
        elif kind is Undo:
            if not self._stack:
                return Rejection(NOTHING_TO_UNDO)
            self.pop()
            return None
        elif kind is Reveal:
            result = self._reveal(event)  # type: ignore[arg-type]
        elif kind is Malformed:
            assert isinstance(event, Malformed)
            if self.finished and event.kind in ("take", "itinerary", "reveal"):
                return Rejection(GAME_OVER)
            return Rejection(BAD_EVENT, why=event.why, **event.facts)
        else:
            raise TypeError(f"not an event: {event!r}")
        if type(result) is Rejection:
            return result
        self._stack.append((event, result))  # type: ignore[arg-type]
        return None

    def push_unrecorded(self, event: Event) -> Rejection | None:
        """`push` without the undo record: the same checks and the same new state, but `pop`
        cannot take it back. The coach's rollouts never undo (a property test checks every
        result against `push`); an undo is refused like one on an empty board."""
        kind = type(event)
        if kind is Take:
            result = self._take(event, False)  # type: ignore[arg-type]
            return result if type(result) is Rejection else None
        if kind is Undo:
            return Rejection(NOTHING_TO_UNDO)
        stack, self._stack = self._stack, []
        try:
            return self.push(event)
        finally:
            self._stack = stack

    def fork(self, setup: Setup) -> Board:
        """This position on another `Setup` of the same game (same edition and players, its
        decks dealt again), with an empty move stack: a rollout's start, cheaper than
        `from_snapshot` (only the lists a take changes are copied)."""
        board = Board.__new__(Board)
        board.setup = setup
        board.edition, board.tables, board.card_index = self.edition, self.tables, self.card_index
        board.names, board.has_itineraries = self.names, self.has_itineraries
        board.day, board.finished, board.turn = self.day, self.finished, self.turn
        board.hour, board.seq, board.order = self.hour[:], self.seq[:], self.order[:]
        board.track, board.crystals = self.track[:], self.crystals[:]
        board.itinerary, board.used, board.fills = self.itinerary[:], self.used[:], self.fills[:]
        board.treks = [t[:] for t in self.treks]
        board.trek_len, board.trek_year = self.trek_len[:], self.trek_year[:]
        board.row, board.drawn, board.revealed = self.row[:], self.drawn, self.revealed
        board.deck = None if setup.decks is None else setup.decks[self.day - 1]
        board.deck_size = setup.day_sizes[self.day - 1]
        board.ancestors_left, board.next_seq = self.ancestors_left, self.next_seq
        board._stack = []
        return board

    def pop(self) -> Event:
        """Take back the last accepted event and return it (IndexError if none)."""
        event, record = self._stack.pop()
        kind = record[0]
        if kind == _TAKE:
            self._undo_take(record)
        elif kind == _ITINERARY:
            _, who, itinerary, used = record
            self.itinerary[who] = itinerary
            self.used[who] = used
        else:
            _, position, revealed = record
            self.row[position] = HIDDEN
            self.revealed = revealed
        return event

    @property
    def moves(self) -> list[Event]:
        """The accepted events still in effect, oldest first."""
        return [event for event, _ in self._stack]

    @property
    def move_count(self) -> int:
        """``len(moves)`` without the list (the table's caches ask it after every change)."""
        return len(self._stack)

    def moves_from(self, start: int) -> list[Event]:
        """``moves[start:]`` without the moves below (the page's replay checks only the top)."""
        return [event for event, _ in self._stack[start:]]

    def move_mark(self, at: int) -> object:
        """The entry of the ``at``-th move (0 the oldest) on the undo stack, to compare by
        identity: the stack changes only at its top and every push makes a new entry, so
        while the same entry is at ``at`` the moves up to it are the same."""
        return self._stack[at]

    # --- taking a card ---------------------------------------------------------------------

    def _take_refused(self, player: str | None, who: int) -> Rejection | None:
        """Why no take is accepted now, whatever the card: the game is over, the player named
        is not playing or not the one to move, or they have no Itinerary yet."""
        if self.finished:
            return Rejection(GAME_OVER)
        if player is not None:
            named = self.setup.player_index.get(player)
            if named is None:
                return self._not_playing(player)
            if named != who:
                return self._not_your_turn(named)
        if self.itinerary[who] < 0 and self.has_itineraries:
            return Rejection(ITINERARY_REQUIRED, player=self.names[who], day=DAY_NAMES[self.day - 1])
        return None

    def _taken(self, card_id: str, who: int, trek_len: int) -> tuple[Any, ...] | Rejection:
        """What taking ``card_id`` takes: (card index, Row position, year, hours, benefit codes),
        -1 for the Ancestor's index, position and year; or why it cannot be taken."""
        if card_id == ANCESTOR:
            ancestor = self.edition.ancestor
            if self.ancestors_left <= 0 or ancestor is None:
                copies = self.edition.ancestor_copies(len(self.names))
                return Rejection(NO_ANCESTOR_LEFT, copies=copies)
            if not trek_len:
                return Rejection(ANCESTOR_CANNOT_START_TREK, player=self.names[who])
            return -1, -1, -1, ancestor.hours, ancestor.gain_codes
        index = self.card_index.get(card_id)
        if index is None:
            return Rejection(UNKNOWN_CARD, card=card_id, edition=self.edition.name)
        try:
            position = self.row.index(index)
        except ValueError:
            return self._not_in_row(index)
        hours, year, by_position = self.tables.take[index]
        return index, position, year, hours, by_position[position]

    def _take(self, event: Take, keep: bool = True) -> tuple[Any, ...] | Rejection:
        """Check and apply a take; returns its undo record (an empty tuple when not ``keep``)
        or the rejection. The simulator's hot path: no text is formatted unless it rejects."""
        who = self.turn
        card_id, player, spent, wild = event
        refused = self._take_refused(player, who)
        if refused is not None:
            return refused
        itinerary = self.itinerary[who]
        tables = self.tables
        row = self.row
        trek_len = self.trek_len[who]
        taken = self._taken(card_id, who, trek_len)
        if isinstance(taken, Rejection):
            return taken
        index, position, year, hours, gains = taken
        crystals = self.crystals
        held = crystals[who]
        if spent:
            if spent > held:
                return Rejection(TOO_MANY_CRYSTALS, player=self.names[who], held=held, spent=spent)
            if hours - spent < 1:
                return self._cost_below_one(who, index, hours)

        # The event is legal: remember what it changes, then change it.
        hour, track = self.hour, self.track
        old_hour, old_track = hour[who], track[who]
        trek_year = self.trek_year[who]
        treks = self.treks[who]
        seq = self.next_seq
        record = (
            _TAKE, who, old_hour, self.seq[who], old_track, held, self.fills[who], len(treks),
            trek_len, trek_year, tuple(row), self.drawn, self.ancestors_left, seq, None,
        ) if keep else ()  # fmt: skip

        # 2. the watch: never past 12; the bonus only for landing exactly on it
        arrival = old_hour + hours - spent
        if arrival >= HOURS_PER_DAY:
            if arrival == HOURS_PER_DAY:
                old_track += PUNCTUALITY_BONUS
            arrival = HOURS_PER_DAY
        hour[who] = arrival
        self.seq[who] = seq
        self.next_seq = seq + 1

        # 3. benefits: the card's, then the playmat position's (joined in `gains`)
        held -= spent
        if itinerary >= 0:
            progress, points, gained = place_tokens(
                tables.itineraries[itinerary], self.fills[who], gains, wild
            )
            self.fills[who] = progress
            old_track += points
            held += gained
        elif gains:
            held += gains.count(CRYSTAL_CODE)
        track[who] = old_track
        crystals[who] = held

        # 4. the trek: a later year joins; the same or an earlier year starts a new one
        if index < 0:
            self.trek_len[who] = trek_len + 1
        else:
            if trek_len and year > trek_year:
                self.trek_len[who] = trek_len + 1
            else:
                if trek_len:
                    treks.append(trek_len)
                self.trek_len[who] = 1
            self.trek_year[who] = year

        # 5. slide the row right and refill position 0 from the deck
        if position >= 0:
            if position:
                row[2 : position + 1] = row[1:position]
                row[1] = row[0]
            drawn = self.drawn
            if drawn < self.deck_size:
                deck = self.deck
                row[0] = HIDDEN if deck is None else deck[drawn]
                self.drawn = drawn + 1
            else:
                row[0] = EMPTY
        else:
            self.ancestors_left -= 1

        # 6. the watch furthest behind moves next (top of the stack among ties);
        #    every watch at 12 ends the Day
        order = self.order
        order[who] = arrival * HOUR_WEIGHT - seq
        first = min(order)
        if first > LAST_TURN_KEY:
            day_end = self._end_day()
            return (*record[:-1], day_end) if keep else record
        self.turn = order.index(first)
        # a row can only be all empty once the deck is spent: most takes skip the check
        if self.drawn >= self.deck_size and self._stalled():
            day_end = self._end_day()
            return (*record[:-1], day_end) if keep else record
        return record

    def settle_day(self) -> bool:
        """End the Day if it is over (every watch at 12, or nothing left to take) and say
        whether it ended. For moves applied outside `push` by `companion.engine.playout`,
        which keeps the turn order itself and asks for this only when its keys say so."""
        if min(self.order) > LAST_TURN_KEY or self._stalled():
            self._end_day()
            return True
        return False

    def _stalled(self) -> bool:
        """No one can take anything: the row is empty and the player to move cannot take an
        Ancestor. Neither rulebook covers it; the team's rule (also in docs): the Day ends at
        once, with no Punctuality Bonus, so no state the board can be in waits forever."""
        if any(card != EMPTY for card in self.row):
            return False
        return self.ancestors_left <= 0 or self.edition.ancestor is None or not self.trek_len[self.turn]

    def _reorder(self) -> None:
        """Recompute the turn-order keys (by hour, then stacking: higher ``seq`` is nearer the
        top) and the player to move, the smallest key; the take keeps them up to date."""
        self.order = [h * HOUR_WEIGHT - s for h, s in zip(self.hour, self.seq, strict=True)]
        first = min(self.order)
        self.turn = -1 if self.finished or first > LAST_TURN_KEY else self.order.index(first)

    def _end_day(self) -> tuple[Any, ...]:
        """Every watch is at 12: end the game after Day III, else set up the next Day (the next
        deck dealt, itineraries gone, watches at 0 in the stack order they ended in; treks and
        crystals kept). Returns what undo needs to come back."""
        day = self.day
        if day >= DAYS:
            self.finished = True
            self.turn = -1
            return (day, None, None, None, None, None)
        record = (day, self.itinerary[:], self.fills[:], tuple(self.row), self.drawn, self.hour[:])
        n = len(self.names)
        self.day = day + 1
        self.hour = [0] * n
        self.itinerary = [-1] * n
        self.fills = [0] * n
        self._deal(self.day)
        self._reorder()
        if self._stalled():
            # The new Day starts with nothing to take: it ends at once too. Its own record
            # is not needed: undoing the take restores everything from this Day's record.
            self._end_day()
        return record

    def _deal(self, day: int) -> None:
        """Lay out ``day``'s Departures Row and make its deck the one refills draw from."""
        row, self.drawn = deal(self.setup, day)
        self.row = list(row)
        self.deck = None if self.setup.decks is None else self.setup.decks[day - 1]
        self.deck_size = self.setup.day_sizes[day - 1]

    def _undo_take(self, record: tuple[Any, ...]) -> None:
        (_, who, hour, seq, track, crystals, fills, ntreks, trek_len, trek_year,
         row, drawn, ancestors_left, next_seq, day_end) = record  # fmt: skip
        if day_end is not None:
            day, itineraries, all_fills, _, _, hours = day_end
            self.day = day
            self.finished = False
            if itineraries is not None:
                self.hour = hours
                self.itinerary = itineraries
                self.fills = all_fills
                self._deal(day)  # for deck and deck_size; row and drawn are restored below
        self.hour[who] = hour
        self.seq[who] = seq
        self.track[who] = track
        self.crystals[who] = crystals
        self.fills[who] = fills
        del self.treks[who][ntreks:]
        self.trek_len[who] = trek_len
        self.trek_year[who] = trek_year
        self.row = list(row)
        self.drawn = drawn
        self.ancestors_left = ancestors_left
        self.next_seq = next_seq
        self._reorder()

    # --- choosing an Itinerary ------------------------------------------------------------

    def _choose_itinerary(self, event: ChooseItinerary) -> tuple[Any, ...] | Rejection:
        """A player picks this Day's Itinerary: one not used by them before nor by anyone today."""
        if self.finished:
            return Rejection(GAME_OVER)
        who = self.setup.player_index.get(event.player)
        if who is None:
            return self._not_playing(event.player)
        edition = self.edition
        day = DAY_NAMES[self.day - 1]
        index = edition.itinerary_index.get(event.itinerary)
        if index is None:
            known = ", ".join(edition.itinerary_index) or "-"
            return Rejection(ITINERARY_UNAVAILABLE, why="unknown", itinerary=event.itinerary, known=known)
        current = self.itinerary[who]
        if current >= 0:
            return Rejection(
                ITINERARY_UNAVAILABLE,
                why="has_one",
                player=event.player,
                itinerary=edition.itineraries[current].id,
                day=day,
            )
        if self.used[who] >> index & 1:
            return Rejection(
                ITINERARY_UNAVAILABLE, why="used", player=event.player, itinerary=event.itinerary
            )
        if index in self.itinerary:
            other = self.names[self.itinerary.index(index)]
            return Rejection(
                ITINERARY_UNAVAILABLE, why="taken", player=other, itinerary=event.itinerary, day=day
            )
        record = (_ITINERARY, who, current, self.used[who])
        self.itinerary[who] = index
        self.used[who] |= 1 << index
        return record

    # --- revealing a card ---------------------------------------------------------------------

    def _reveal(self, event: Reveal) -> tuple[Any, ...] | Rejection:
        """The table shows a card: it fills the oldest position still waiting for one."""
        if self.finished:
            return Rejection(GAME_OVER)
        if not self.setup.reveals:
            return Rejection(BAD_EVENT, why="dealt")
        index = self.card_index.get(event.card)
        if index is None:
            return Rejection(UNKNOWN_CARD, card=event.card, edition=self.edition.name)
        card = self.edition.cards[index]
        if self.revealed >> index & 1:
            return Rejection(CARD_NOT_AVAILABLE, why="revealed", **_card_params(card))
        if card.day != self.day:
            return Rejection(
                CARD_NOT_AVAILABLE,
                why="other_day",
                **_card_params(card),
                deck=DAY_NAMES[card.day - 1],
                day=DAY_NAMES[self.day - 1],
            )
        waiting = self.waiting_position()
        if waiting < 0:
            return Rejection(CARD_NOT_AVAILABLE, why="no_gap", **_card_params(card))
        record = (_REVEAL, waiting, self.revealed)
        self.row[waiting] = index
        self.revealed |= 1 << index
        return record

    def waiting_position(self) -> int:
        """The position the next reveal fills (oldest card still hidden), or -1. Asked several
        times a tap (the turn, the ring, the state), mostly of a row with nothing hidden: that
        is one search in C before the positions are walked."""
        row = self.row
        if HIDDEN not in row:
            return -1
        for position in range(ROW_SIZE - 1, -1, -1):
            if row[position] == HIDDEN:
                return position
        return -1

    # --- rejection messages ------------------------------------------------------------------

    def _not_playing(self, name: str) -> Rejection:
        return Rejection(BAD_EVENT, why="not_playing", player=name, players=", ".join(self.names))

    def _not_your_turn(self, named: int) -> Rejection:
        who = self.turn
        return Rejection(
            NOT_YOUR_TURN,
            turn=self.names[who],
            turn_hour=self.hour[who],
            player=self.names[named],
            hour=self.hour[named],
        )

    def _cost_below_one(self, who: int, index: int, hours: int) -> Rejection:
        card = _card_params(self.edition.cards[index]) if index >= 0 else {"card": ANCESTOR}
        return Rejection(COST_BELOW_ONE, **card, hours=hours, player=self.names[who], max=hours - 1)

    def _not_in_row(self, index: int) -> Rejection:
        """The card is not face up in the row; ``row`` lists those that are, each as the table
        shows it (its id, title and year: the sentence writes "Title (year)", never the id)."""
        shown = [_card_params(self.edition.cards[c]) for c in self.row if c >= 0]
        card = _card_params(self.edition.cards[index])
        return Rejection(CARD_NOT_AVAILABLE, why="not_in_row", **card, row=shown)

    # --- questions --------------------------------------------------------------------------

    @property
    def player_to_move(self) -> str | None:
        """The name of the player to move, or ``None`` once the game is over."""
        return None if self.finished else self.names[self.turn]

    def needs_itinerary(self) -> list[str]:
        """Players who must still choose an Itinerary for the current Day."""
        if self.finished or not self.has_itineraries:
            return []
        return [n for n, it in zip(self.names, self.itinerary, strict=True) if it < 0]

    def itinerary_choices(self, player: str) -> list[str]:
        """Itinerary ids ``player`` may choose now (empty if they already chose)."""
        who = self.setup.player_index[player]
        if self.finished or self.itinerary[who] >= 0:
            return []
        used = self.used[who]
        return [
            it.id
            for i, it in enumerate(self.edition.itineraries)
            if not used >> i & 1 and i not in self.itinerary
        ]

    def take_options(self) -> Iterator[TakeOption]:
        """Every card the player to move may take now, with the most crystals they may spend."""
        if self.finished:
            return
        who = self.turn
        if self.itinerary[who] < 0 and self.has_itineraries:
            return
        held = self.crystals[who]
        for position in range(ROW_SIZE - 1, -1, -1):
            index = self.row[position]
            if index >= 0:
                card = self.edition.cards[index]
                yield TakeOption(card.id, position, card.hours, min(held, card.hours - 1))
        ancestor = self.edition.ancestor
        if ancestor is not None and self.ancestors_left > 0 and self.trek_len[who] > 0:
            yield TakeOption(ANCESTOR, -1, ancestor.hours, min(held, ancestor.hours - 1))

    def take_cards(self) -> list[str]:
        """The cards of `take_options`, in its order, without the options (the table lists
        them after every change, in what it waits for)."""
        if self.finished:
            return []
        who = self.turn
        if self.itinerary[who] < 0 and self.has_itineraries:
            return []
        cards, row, found = self.edition.cards, self.row, []
        for position in range(ROW_SIZE - 1, -1, -1):
            index = row[position]
            if index >= 0:
                found.append(cards[index].id)
        if self.edition.ancestor is not None and self.ancestors_left > 0 and self.trek_len[who] > 0:
            found.append(ANCESTOR)
        return found

    def check(self, event: Event) -> Rejection | None:
        """Why ``event`` would be refused now (None: it would be accepted); nothing changes."""
        if type(event) is Undo:  # an undo is checked without taking anything back
            return None if self._stack else Rejection(NOTHING_TO_UNDO)
        rejection = self.push(event)
        if rejection is None:
            self.pop()
        return rejection

    def snapshot(self) -> GameState:
        """The whole state as an immutable value."""
        players = tuple(
            PlayerState(
                self.hour[i],
                self.seq[i],
                self.track[i],
                self.crystals[i],
                self.itinerary[i],
                self.used[i],
                self.column_depths(i),
                tuple(self.treks[i]),
                self.trek_len[i],
                self.trek_year[i],
            )
            for i in range(len(self.names))
        )
        return GameState(
            self.day, self.finished, players, tuple(self.row), self.drawn, self.revealed,
            self.ancestors_left, self.next_seq, self.turn,
        )  # fmt: skip

    @classmethod
    def from_snapshot(cls, setup: Setup, state: GameState) -> Board:
        """A board in ``state`` with an empty move stack."""
        board = cls(setup)
        board.day, board.finished = state.day, state.finished
        board._deal(state.day)  # that Day's deck for the refills; its row and drawn are set below
        for i, p in enumerate(state.players):
            board.hour[i], board.seq[i], board.track[i], board.crystals[i] = (
                p.hour,
                p.seq,
                p.track,
                p.crystals,
            )
            board.itinerary[i], board.used[i] = p.itinerary, p.used
            if p.itinerary >= 0:
                board.fills[i] = board.tables.itineraries[p.itinerary].encode(p.fills)
            board.treks[i], board.trek_len[i], board.trek_year[i] = list(p.treks), p.trek_len, p.trek_year
        board.row, board.drawn, board.revealed = list(state.row), state.drawn, state.revealed
        board.ancestors_left, board.next_seq = state.ancestors_left, state.next_seq
        board._reorder()
        return board

    def column_depths(self, who: int) -> tuple[int, int, int, int]:
        """How many spaces of each itinerary column the player has covered this Day."""
        itinerary = self.itinerary[who]
        if itinerary < 0:
            return (0, 0, 0, 0)
        return self.tables.itineraries[itinerary].decode(self.fills[who])

    def trek_lengths(self, who: int) -> tuple[int, ...]:
        """A player's treks: completed ones in order, the current one last."""
        current = self.trek_len[who]
        return (*self.treks[who], current) if current else tuple(self.treks[who])

    def standings(self, previous: Sequence[Standing] = ()) -> list[Standing]:
        """Every player's score as if the game ended now, in setup order. ``previous``: this
        board's standings of an earlier call; a player whose figures are all the same keeps
        that very `Standing`, so the table's kept texts can compare them by identity."""
        points = self.edition.trek_points
        track, crystals, hour, current, done = self.track, self.crystals, self.hour, self.trek_len, self.treks
        result = []
        kept = len(previous)
        for i, name in enumerate(self.names):
            treks = (*done[i], current[i]) if current[i] else tuple(done[i])  # `trek_lengths`
            if i < kept:
                was = previous[i]
                if (
                    was.track == track[i]
                    and was.crystals == crystals[i]
                    and was.hour == hour[i]
                    and was.treks == treks
                    and was.name == name
                ):
                    result.append(was)
                    continue
            trek_points = sum(map(points, treks))
            total = track[i] + crystals[i] + trek_points
            result.append(Standing(name, track[i], crystals[i], trek_points, total, treks, hour[i]))
        return result

    def winners(self) -> list[str]:
        """The winners once the game is over; empty before."""
        return winners(self.standings()) if self.finished else []


def apply(setup: Setup, state: GameState, event: Event) -> GameState | Rejection:
    """The pure form of the rules: the state after ``event``, or why it is refused (undo needs
    a move stack: only a `Board` takes it)."""
    if isinstance(event, Undo):
        raise TypeError("undo needs the move stack: use Board.push")
    board = Board.from_snapshot(setup, state)
    rejection = board.push(event)
    return rejection if rejection is not None else board.snapshot()


def _card_params(card: Any) -> dict[str, Any]:
    """A card in a rejection's params: its id, title and year (the page writes the year its way)."""
    return {"card": card.id, "title": card.title, "year": card.year}
