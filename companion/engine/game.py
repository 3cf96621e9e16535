"""`Game`: a state plus the stack of accepted events, with push and pop.

Modelled on python-chess's ``Board``: `push` applies a move (here any event) and
remembers the state it replaced, `pop` takes the last one back. Undo is simply
`pop`, so taking back a take that ended a Day restores the previous Day exactly.
The live table, ``replay`` and crash recovery all drive a `Game` the same way:
feed it the event log in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from companion.engine.events import ChooseItinerary, Event, Take, Undo
from companion.engine.rejections import NOTHING_TO_UNDO, Rejection
from companion.engine.rules import apply
from companion.engine.scoring import Standing, standings, winners
from companion.engine.state import GameState, Setup, initial_state
from companion.engine.tokens import ANCESTOR


@dataclass(frozen=True, slots=True)
class TakeOption:
    """A legal way to take a card: the card and how many crystals may be spent."""

    card: str
    position: int  # Departures Row position, -1 for an Ancestor
    hours: int
    max_crystals: int


class Game:
    """One game being refereed."""

    def __init__(self, setup: Setup, state: GameState | None = None) -> None:
        self.setup = setup
        self.state = state if state is not None else initial_state(setup)
        self._stack: list[tuple[Event, GameState]] = []

    # --- moves ------------------------------------------------------------------

    def push(self, event: Event) -> Rejection | None:
        """Apply an event; ``None`` when accepted, else the rejection (state unchanged)."""
        if isinstance(event, Undo):
            if not self._stack:
                return Rejection(NOTHING_TO_UNDO, "There is nothing to undo.")
            self.pop()
            return None
        result = apply(self.setup, self.state, event)
        if isinstance(result, Rejection):
            return result
        self._stack.append((event, self.state))
        self.state = result
        return None

    def pop(self) -> Event:
        """Take back the last accepted event and return it."""
        event, previous = self._stack.pop()
        self.state = previous
        return event

    @property
    def moves(self) -> list[Event]:
        """The accepted events still in effect, oldest first."""
        return [event for event, _ in self._stack]

    @property
    def last_move(self) -> Event | None:
        return self._stack[-1][0] if self._stack else None

    # --- questions ----------------------------------------------------------------

    @property
    def turn(self) -> str | None:
        """The name of the player to move, or ``None`` once the game is over."""
        return None if self.state.finished else self.setup.players[self.state.turn]

    def needs_itinerary(self) -> list[str]:
        """Players who must still choose an Itinerary for the current Day."""
        if self.state.finished or not self.setup.edition.itineraries:
            return []
        return [n for n, p in zip(self.setup.players, self.state.players, strict=True) if p.itinerary < 0]

    def itinerary_choices(self, player: str) -> list[str]:
        """Itinerary ids ``player`` may choose now (empty if they already chose)."""
        who = self.setup.player_index[player]
        state = self.state
        if state.finished or state.players[who].itinerary >= 0:
            return []
        taken = {p.itinerary for p in state.players}
        used = state.players[who].used
        return [
            it.id
            for i, it in enumerate(self.setup.edition.itineraries)
            if not used >> i & 1 and i not in taken
        ]

    def take_options(self) -> Iterator[TakeOption]:
        """Every card the player to move may take now, with the crystal range.

        Cheap enough for bots to call every turn: it reads the row and the
        player's counters only.
        """
        state = self.state
        if state.finished:
            return
        edition = self.setup.edition
        player = state.players[state.turn]
        if player.itinerary < 0 and edition.itineraries:
            return
        for position in range(len(state.row) - 1, -1, -1):
            index = state.row[position]
            if index >= 0:
                card = edition.cards[index]
                yield TakeOption(card.id, position, card.hours, min(player.crystals, card.hours - 1))
        ancestor = edition.ancestor
        if ancestor is not None and state.ancestors_left > 0 and player.trek_len > 0:
            yield TakeOption(ANCESTOR, -1, ancestor.hours, min(player.crystals, ancestor.hours - 1))

    def is_legal(self, event: Take | ChooseItinerary) -> bool:
        """True if ``event`` would be accepted now (nothing changes)."""
        return not isinstance(apply(self.setup, self.state, event), Rejection)

    def standings(self) -> list[Standing]:
        return standings(self.setup, self.state)

    def winners(self) -> list[str]:
        """The winners once the game is over; empty before."""
        return winners(self.standings()) if self.state.finished else []
