"""The quick/confirm turn as a pure state machine (`companion.table.turn`), in memory.

No store, no lock, no runtime: each declared transition is walked here, the rejections
included, in both turn styles where they differ.
"""

from __future__ import annotations

import itertools

import pytest

from companion.engine import Take
from companion.table.outcomes import OUTCOME_CODES
from companion.table.turn import (
    ARMED,
    COMMIT,
    IDLE,
    PASS,
    PENDING,
    REJECT,
    SAVE,
    TRANSITIONS,
    TURN_STYLES,
    Armed,
    Confirm,
    Crystal,
    OtherTap,
    Pending,
    TakeTap,
    UndoPress,
    input_kind,
    state_kind,
    step,
)

ANN_CARD = TakeTap("Ann", "I07", hours=4, max_crystals=3, from_hour=2)
PENDING_I07 = Pending("Ann", "I07", hours=4, crystals=1, max_crystals=3, from_hour=2)
INPUTS = (ANN_CARD, OtherTap("I01"), Crystal("Ann", 2), Confirm(), UndoPress())
STATES = (None, Armed("Ann", 1), PENDING_I07)


def test_every_state_and_input_pair_is_declared() -> None:
    kinds = {input_kind(event) for event in INPUTS}
    assert {state_kind(state) for state in STATES} == {IDLE, ARMED, PENDING}
    assert set(TRANSITIONS) == set(itertools.product((IDLE, ARMED, PENDING), kinds))


@pytest.mark.parametrize("style", TURN_STYLES)
@pytest.mark.parametrize("state", STATES, ids=state_kind)
@pytest.mark.parametrize("event", INPUTS, ids=input_kind)
def test_every_answer_is_a_declared_code_with_its_params(style: str, state: object, event: object) -> None:
    done = step(style, state, event)  # type: ignore[arg-type]
    assert done.action in (SAVE, COMMIT, REJECT, PASS)
    if done.action in (SAVE, REJECT):
        assert done.code in OUTCOME_CODES
        assert set(done.params) <= set(OUTCOME_CODES[done.code].params), done
        assert OUTCOME_CODES[done.code].accepted == (done.action == SAVE) or done.code == "press_confirm"
    if done.action == REJECT:
        assert done.state == state, "a refusal changes nothing"
    if done.action == COMMIT:
        assert done.state is None and isinstance(done.take, Take)


# --- idle ------------------------------------------------------------------------------------


def test_idle_quick_tap_takes_at_once_spending_nothing() -> None:
    done = step("quick", None, ANN_CARD)
    assert (done.action, done.state, done.take) == (COMMIT, None, Take("I07", "Ann", 0, ()))


def test_idle_confirm_tap_shows_the_preview_and_waits() -> None:
    done = step("confirm", None, ANN_CARD)
    assert done.action == SAVE and done.code == "preview"
    assert done.state == Pending("Ann", "I07", 4, 0, 3, 2)
    assert done.params == {"player": "Ann", "hours": 4, "landing": 6, "max": 3, "card": "I07"}


def test_idle_confirm_tap_of_a_card_that_allows_no_crystal_takes_at_once() -> None:
    tap = TakeTap("Ann", "I02", hours=1, max_crystals=0, from_hour=5)
    done = step("confirm", None, tap)
    assert (done.action, done.take) == (COMMIT, Take("I02", "Ann", 0, ()))


@pytest.mark.parametrize("style", TURN_STYLES)
def test_idle_other_tap_and_undo_pass_on(style: str) -> None:
    assert step(style, None, OtherTap("I01")) == step(style, None, UndoPress())
    assert step(style, None, UndoPress()).action == PASS and step(style, None, UndoPress()).state is None


@pytest.mark.parametrize("style", TURN_STYLES)
def test_idle_confirm_is_refused(style: str) -> None:
    done = step(style, None, Confirm())
    assert (done.action, done.code, done.state) == (REJECT, "nothing_to_confirm", None)


def test_idle_quick_crystal_chooses_one() -> None:
    done = step("quick", None, Crystal("Ann", 2))
    assert (done.action, done.code, done.state) == (SAVE, "armed", Armed("Ann", 1))
    assert done.params == {"player": "Ann", "n": 1, "held": 2}


def test_idle_confirm_crystal_asks_for_a_card_first() -> None:
    done = step("confirm", None, Crystal("Ann", 2))
    assert (done.action, done.code) == (REJECT, "crystal_first")


@pytest.mark.parametrize(
    ("press", "code"),
    [
        (Crystal(None, 0), "game_over"),
        (Crystal("Ann", 2, needs_itinerary=True), "itinerary_first"),
        (Crystal("Ann", 0), "too_many_crystals"),
    ],
)
def test_idle_quick_crystal_refusals(press: Crystal, code: str) -> None:
    done = step("quick", None, press)
    assert (done.action, done.code, done.state) == (REJECT, code, None)


# --- crystals armed (quick turn) -------------------------------------------------------------


def test_armed_tap_takes_with_the_chosen_crystals() -> None:
    done = step("quick", Armed("Ann", 2), ANN_CARD)
    assert (done.action, done.take) == (COMMIT, Take("I07", "Ann", 2, ()))
    at_limit = step("quick", Armed("Ann", 3), ANN_CARD)
    assert (at_limit.action, at_limit.take) == (COMMIT, Take("I07", "Ann", 3, ())), "as many as allowed"


def test_armed_for_another_player_is_not_spent_by_this_one() -> None:
    done = step("quick", Armed("Ben", 2), ANN_CARD)
    assert done.take == Take("I07", "Ann", 0, ())


def test_armed_beyond_the_cards_limit_waits_for_confirm_at_its_limit() -> None:
    done = step("quick", Armed("Ann", 5), ANN_CARD)
    assert (done.action, done.code) == (SAVE, "preview_capped")
    assert done.state == Pending("Ann", "I07", 4, 3, 3, 2)
    assert done.params["armed"] == 5 and done.params["max"] == 3 and done.params["landing"] == 3


def test_armed_crystal_chooses_one_more_up_to_what_is_held() -> None:
    assert step("quick", Armed("Ann", 1), Crystal("Ann", 2)).state == Armed("Ann", 2)
    refused = step("quick", Armed("Ann", 2), Crystal("Ann", 2))
    assert (refused.action, refused.code, refused.params["why"]) == (REJECT, "too_many_crystals", "held")
    assert refused.state == Armed("Ann", 2)


def test_armed_other_tap_leaves_them_chosen() -> None:
    done = step("quick", Armed("Ann", 1), OtherTap("IT3"))
    assert (done.action, done.state) == (PASS, Armed("Ann", 1))


def test_armed_confirm_is_refused() -> None:
    done = step("quick", Armed("Ann", 1), Confirm())
    assert (done.action, done.code, done.state) == (REJECT, "nothing_to_confirm", Armed("Ann", 1))


def test_armed_undo_puts_them_back() -> None:
    done = step("quick", Armed("Ann", 2), UndoPress())
    assert (done.action, done.code, done.state) == (SAVE, "armed_cleared", None)
    assert done.params == {"player": "Ann", "n": 2}


# --- a take pending its Confirm --------------------------------------------------------------


@pytest.mark.parametrize("style", TURN_STYLES)
def test_pending_tap_of_the_same_card_asks_for_confirm(style: str) -> None:
    done = step(style, PENDING_I07, OtherTap("I07"))
    assert (done.action, done.code, done.state) == (REJECT, "press_confirm", PENDING_I07)
    assert done.params == {"player": "Ann", "more": True}
    full = Pending("Ann", "I07", 4, 3, 3, 2)
    assert step(style, full, ANN_CARD).params["more"] is False


@pytest.mark.parametrize("style", TURN_STYLES)
def test_pending_tap_of_another_card_changes_ones_mind(style: str) -> None:
    done = step(style, PENDING_I07, OtherTap("IT3"))
    assert (done.action, done.state) == (PASS, None)
    other = TakeTap("Ann", "I09", hours=2, max_crystals=1, from_hour=2)
    assert step(style, PENDING_I07, other) == step(style, None, other)


@pytest.mark.parametrize("style", TURN_STYLES)
def test_pending_crystal_spends_one_more(style: str) -> None:
    done = step(style, PENDING_I07, Crystal("Ann", 3))
    assert (done.action, done.code) == (SAVE, "crystal_spent")
    assert done.state == Pending("Ann", "I07", 4, 2, 3, 2)
    assert done.params == {"player": "Ann", "n": 2, "landing": 4}


@pytest.mark.parametrize(("held", "why"), [(1, "held"), (5, "min_cost")])
def test_pending_crystal_past_the_cards_limit_says_why(held: int, why: str) -> None:
    full = Pending("Ann", "I07", 4, max(1, min(held, 3)), max(1, min(held, 3)), 2)
    done = step("confirm", full, Crystal("Ann", held))
    assert (done.action, done.code, done.state) == (REJECT, "too_many_crystals", full)
    assert done.params == {"why": why, "player": "Ann", "held": held}


@pytest.mark.parametrize("style", TURN_STYLES)
def test_pending_confirm_commits_the_take_with_its_crystals(style: str) -> None:
    done = step(style, PENDING_I07, Confirm())
    assert (done.action, done.state, done.take) == (COMMIT, None, Take("I07", "Ann", 1, ()))


@pytest.mark.parametrize("style", TURN_STYLES)
def test_pending_undo_cancels_the_take(style: str) -> None:
    done = step(style, PENDING_I07, UndoPress())
    assert (done.action, done.code, done.state) == (SAVE, "take_cancelled", None)
