"""The turn: the take being prepared and how crystals are spent (the quick or the confirm
turn), as a small declared state machine the live table drives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Board, Take
from companion.engine.events import fields_json

#: How crystals are spent: chosen before the tap ("quick") or after it, then Confirm ("confirm").
TURN_STYLES = ("quick", "confirm")


@dataclass(frozen=True)
class Pending:
    """A take being prepared: the card is chosen, crystals are being counted."""

    player: str
    card: str
    hours: int
    crystals: int
    max_crystals: int
    from_hour: int

    @property
    def landing(self) -> int:
        return min(12, self.from_hour + self.hours - self.crystals)

    @classmethod
    def from_json(cls, data: dict[str, Any], board: Board) -> Pending | None:
        """A stored pending take, if it still fits the board (else None)."""
        try:
            player, card, crystals = str(data["player"]), str(data["card"]), int(data["crystals"])
        except (KeyError, TypeError, ValueError):
            return None
        if player != board.player_to_move or board.check(Take(card, player, crystals)) is not None:
            return None
        option = next((o for o in board.take_options() if o.card == card), None)
        if option is None or crystals > option.max_crystals:
            return None
        return cls(player, card, option.hours, crystals, option.max_crystals, board.hour[board.turn])

    def to_json(self) -> dict[str, Any]:
        return fields_json(self, "player", "card", "hours", "crystals", "max_crystals", "landing")


# --- the turn as a declared state machine --------------------------------------------------
#
# Three states: nothing being prepared (`None`, "idle"), crystals chosen before the tap
# (`Armed`, the quick turn), and a take waiting for Confirm (`Pending`). Four inputs: a
# tap of a card the rules let the player take (`TakeTap`; any other tap is `OtherTap`),
# Crystal, Confirm and Undo. `step` looks the pair up in `TRANSITIONS` and returns a
# `Step`: the next state and what the table must do (store the new state and answer with
# a code, commit a take, refuse, or pass the input on to the rest of the table). Pure:
# no store, no lock, no clock, so every transition is tested in memory.

IDLE = "idle"
ARMED = "crystals_armed"
PENDING = "take_pending_confirm"


@dataclass(frozen=True)
class Armed:
    """Quick turn: crystals ``player`` chose before tapping a card."""

    player: str
    crystals: int


TurnState = Armed | Pending | None


@dataclass(frozen=True)
class TakeTap:
    """A tap of a card the rules let the player to move take now (``max_crystals``: the most
    the card allows; ``from_hour``: where their watch stands)."""

    player: str
    card: str
    hours: int
    max_crystals: int
    from_hour: int


@dataclass(frozen=True)
class OtherTap:
    """Any other tap: an Itinerary, a reveal, a card the rules refuse (``card``: its id)."""

    card: str


@dataclass(frozen=True)
class Crystal:
    """Crystal pressed. ``player``: the player to move (None once the game is over), who
    holds ``held`` crystals and ``needs_itinerary`` first this Day."""

    player: str | None
    held: int
    needs_itinerary: bool = False


@dataclass(frozen=True)
class Confirm:
    """Confirm pressed."""


@dataclass(frozen=True)
class UndoPress:
    """Undo held."""


TurnInput = TakeTap | OtherTap | Crystal | Confirm | UndoPress

#: What the table does with a step.
SAVE = "save"  # store the new state (a restart resumes it), answer with the code
COMMIT = "commit"  # commit ``take`` (the state after is idle)
REJECT = "reject"  # refuse with the code; nothing changes
PASS = "pass"  # not the turn's to answer: store the new state if it changed, then go on


@dataclass(frozen=True)
class Step:
    """One transition: the state after it, the action, and the outcome's code and params."""

    state: TurnState
    action: str
    code: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    take: Take | None = None
    #: The committed take's hour cost, as the tap found it (the options are not scanned again).
    hours: int | None = None


def state_kind(state: TurnState) -> str:
    if isinstance(state, Pending):
        return PENDING
    return ARMED if isinstance(state, Armed) else IDLE


#: Each input's kind, by its class.
INPUT_KINDS: dict[type, str] = {
    TakeTap: "tap_card",
    OtherTap: "tap_other",
    Crystal: "crystal",
    Confirm: "confirm",
    UndoPress: "undo",
}


def input_kind(event: TurnInput) -> str:
    return INPUT_KINDS[type(event)]


def _take(style: str, state: TurnState, tap: TakeTap) -> Step:
    """A take tapped while nothing (or crystals chosen before it) is being prepared."""
    if style == "quick":
        armed = state.crystals if isinstance(state, Armed) and state.player == tap.player else 0
        if armed <= tap.max_crystals:
            return Step(None, COMMIT, take=Take(tap.card, tap.player, armed, ()), hours=tap.hours)
        # more crystals chosen than this card allows: the most it allows, and the player decides
        capped = Pending(tap.player, tap.card, tap.hours, tap.max_crystals, tap.max_crystals, tap.from_hour)
        params = {"player": tap.player, "armed": armed, "max": tap.max_crystals, "hours": tap.hours}
        if tap.max_crystals == 0:  # a 1-hour card: not "0 of 1 can be spent" but why, and the crystal stays
            params["why"] = "min_cost"
        return Step(capped, SAVE, "preview_capped", {**params, "landing": capped.landing, "card": tap.card})
    if tap.max_crystals == 0:
        return Step(None, COMMIT, take=Take(tap.card, tap.player, 0, ()), hours=tap.hours)
    pending = Pending(tap.player, tap.card, tap.hours, 0, tap.max_crystals, tap.from_hour)
    params = {"player": tap.player, "hours": tap.hours, "landing": pending.landing, "max": tap.max_crystals}
    return Step(pending, SAVE, "preview", {**params, "card": tap.card})


def _tap_while_pending(style: str, state: TurnState, tap: TakeTap | OtherTap) -> Step:
    """The card being prepared again: Confirm is awaited; any other card changes one's mind."""
    assert isinstance(state, Pending)
    if tap.card == state.card:
        more = state.crystals < state.max_crystals
        return Step(state, REJECT, "press_confirm", {"player": state.player, "more": more})
    if isinstance(tap, TakeTap):
        return _take(style, None, tap)
    return Step(None, PASS)


def _pass(style: str, state: TurnState, event: TurnInput) -> Step:
    return Step(state, PASS)


def _arm(style: str, state: TurnState, press: Crystal) -> Step:
    """Crystal before the tap: the quick turn chooses one more; the confirm turn refuses."""
    if style != "quick":
        return Step(state, REJECT, "crystal_first")
    name = press.player
    if name is None:
        return Step(state, REJECT, "game_over")
    if press.needs_itinerary:
        return Step(state, REJECT, "itinerary_first", {"player": name})
    armed = state.crystals if isinstance(state, Armed) and state.player == name else 0
    if armed >= press.held:
        return Step(state, REJECT, "too_many_crystals", {"why": "held", "player": name, "held": press.held})
    return Step(Armed(name, armed + 1), SAVE, "armed", {"player": name, "n": armed + 1, "held": press.held})


def _spend(style: str, state: TurnState, press: Crystal) -> Step:
    """Crystal on a take being prepared: one hour less, up to what the card allows."""
    assert isinstance(state, Pending)
    if state.crystals >= state.max_crystals:
        why = "held" if press.held <= state.crystals else "min_cost"
        return Step(
            state, REJECT, "too_many_crystals", {"why": why, "player": state.player, "held": press.held}
        )
    more = Pending(
        state.player, state.card, state.hours, state.crystals + 1, state.max_crystals, state.from_hour
    )
    params = {"player": state.player, "n": more.crystals, "landing": more.landing}
    return Step(more, SAVE, "crystal_spent", params)


def _nothing_to_confirm(style: str, state: TurnState, press: Confirm) -> Step:
    return Step(state, REJECT, "nothing_to_confirm")


def _confirm(style: str, state: TurnState, press: Confirm) -> Step:
    assert isinstance(state, Pending)
    return Step(None, COMMIT, take=Take(state.card, state.player, state.crystals, ()), hours=state.hours)


def _cancel(style: str, state: TurnState, press: UndoPress) -> Step:
    return Step(None, SAVE, "take_cancelled")


def _put_back(style: str, state: TurnState, press: UndoPress) -> Step:
    assert isinstance(state, Armed)
    return Step(None, SAVE, "armed_cleared", {"player": state.player, "n": state.crystals})


#: (state, input) -> transition. Every pair is declared: `tests/engine/test_turn_machine.py` checks
#: that none is missing and walks each one.
TRANSITIONS: dict[tuple[str, str], Callable[[str, TurnState, Any], Step]] = {
    (IDLE, "tap_card"): _take,
    (IDLE, "tap_other"): _pass,
    (IDLE, "crystal"): _arm,
    (IDLE, "confirm"): _nothing_to_confirm,
    (IDLE, "undo"): _pass,  # nothing being prepared: Undo takes back the last event
    (ARMED, "tap_card"): _take,
    (ARMED, "tap_other"): _pass,  # another player's Itinerary, a reveal: still chosen
    (ARMED, "crystal"): _arm,
    (ARMED, "confirm"): _nothing_to_confirm,
    (ARMED, "undo"): _put_back,
    (PENDING, "tap_card"): _tap_while_pending,
    (PENDING, "tap_other"): _tap_while_pending,
    (PENDING, "crystal"): _spend,
    (PENDING, "confirm"): _confirm,
    (PENDING, "undo"): _cancel,
}


def step(style: str, state: TurnState, event: TurnInput) -> Step:
    """The transition from ``state`` on ``event`` in turn style ``style`` ("quick" or "confirm")."""
    return TRANSITIONS[state_kind(state), input_kind(event)](style, state, event)
