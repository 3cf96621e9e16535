"""Turn order, the Departures Row, benefits, itineraries, treks and Days."""

from __future__ import annotations

import pytest

from companion.engine import Board, ChooseItinerary, Take, Undo, make_setup
from companion.engine import rejections as r
from tests.support.builders import (
    board,
    card,
    deck_for_row,
    edition,
    filler,
    first_card,
    row_ids,
    three_short_days,
)

# --- setup and turn order ------------------------------------------------------------


def test_setup_gives_one_crystal_each_and_the_top_watch_moves_first() -> None:
    ed = edition(filler("f", 10))
    b = board(ed, ["Ann", "Ben", "Cy"], ["Cy", "Ann", "Ben"])
    assert b.crystals == [1, 1, 1]
    assert b.hour == [0, 0, 0]
    assert b.player_to_move == "Cy"
    assert b.ancestors_left == 9


@pytest.mark.parametrize(("players", "copies"), [(1, 6), (2, 6), (3, 9), (4, 12)])
def test_ancestor_copies_follow_the_player_count_and_solo_uses_two(players: int, copies: int) -> None:
    ed = edition(filler("f", 10))
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    assert board(ed, names).ancestors_left == copies


def test_the_watch_furthest_behind_moves_and_may_move_several_times() -> None:
    ed = edition([card("one", 1001, 1), card("four", 1004, 4), card("two", 1002, 2), *filler("f", 10)])
    b = board(
        ed, ["Ann", "Ben"], ["Ann", "Ben"], {"I": deck_for_row(["f0", "one", "four", "two", "f1", "f2"])}
    )
    assert b.player_to_move == "Ann"
    assert b.push(Take("four")) is None  # Ann at 4
    assert b.player_to_move == "Ben"
    assert b.push(Take("one")) is None  # Ben at 1: still furthest behind
    assert b.player_to_move == "Ben"
    assert b.push(Take("two")) is None  # Ben at 3
    assert b.player_to_move == "Ben"


def test_a_watch_landing_on_another_is_stacked_on_top_and_moves_first() -> None:
    ed = edition([card("two", 1002, 2), card("two_b", 1003, 2), *filler("f", 10, hours=1)])
    b = board(
        ed, ["Ann", "Ben"], ["Ann", "Ben"], {"I": deck_for_row(["f0", "two", "two_b", "f1", "f2", "f3"])}
    )
    assert b.push(Take("two")) is None  # Ann at 2
    assert b.push(Take("two_b")) is None  # Ben at 2, on top of Ann
    assert b.player_to_move == "Ben"
    assert b.push(Take("f1", player="Ben")) is None  # Ben at 3
    assert b.player_to_move == "Ann"


# --- the Departures Row -----------------------------------------------------------------


def test_dealing_puts_the_first_card_at_position_5_and_the_sixth_on_the_deck() -> None:
    ed = edition(filler("d", 10))
    b = board(ed, ["Ann"], decks={"I": [f"d{i}" for i in range(10)]})
    assert row_ids(b) == ["d5", "d4", "d3", "d2", "d1", "d0"]


def test_taking_slides_cards_right_and_refills_from_the_deck() -> None:
    ed = edition(filler("d", 10, hours=1))
    b = board(ed, ["Ann"], decks={"I": [f"d{i}" for i in range(10)]})
    assert b.push(Take("d2")) is None  # position 3
    assert row_ids(b) == ["d6", "d5", "d4", "d3", "d1", "d0"]
    assert b.push(Take("d6")) is None  # position 0: only the deck's top changes
    assert row_ids(b) == ["d7", "d5", "d4", "d3", "d1", "d0"]
    assert b.push(Take("d0")) is None  # position 5: everything slides
    assert row_ids(b) == ["d8", "d7", "d5", "d4", "d3", "d1"]


def test_an_empty_deck_leaves_positions_empty() -> None:
    ed = edition(filler("d", 7, hours=1))
    b = board(ed, ["Ann"], decks={"I": [f"d{i}" for i in range(7)]})
    assert b.push(Take("d0")) is None
    assert row_ids(b) == ["d6", "d5", "d4", "d3", "d2", "d1"]
    assert b.push(Take("d1")) is None
    assert row_ids(b) == [None, "d6", "d5", "d4", "d3", "d2"]
    assert b.push(Take("d3")) is None
    assert row_ids(b) == [None, None, "d6", "d5", "d4", "d2"]


def test_a_short_deck_deals_a_partial_row() -> None:
    ed = edition(filler("d", 3))
    b = board(ed, ["Ann"], decks={"I": ["d0", "d1", "d2"]})
    assert row_ids(b) == [None, None, None, "d2", "d1", "d0"]


# --- benefits and itineraries ------------------------------------------------------------

ITINERARY = {
    "id": "A",
    "columns": {
        "person": [None, 2, "crystal"],
        "event": [1, None, 3],
        "innovation": [None, 2],
        "progress": [],
    },
    "rows": [None, 5, 6],
}
SLOTS = [[], ["event"], ["person"], ["crystal"], ["innovation"], ["progress"]]


def itinerary_board(*cards: dict[str, object], row: list[str] | None = None) -> Board:
    ed = edition([*cards, *filler("f", 12, start_year=1500, hours=1)], slots=SLOTS, itineraries=[ITINERARY])
    names = row or ["f0", "f1", "f2", "f3", "f4", "f5"]
    b = board(ed, ["Ann"], decks={"I": deck_for_row(names, [f"f{i}" for i in range(6, 12)])})
    assert b.push(ChooseItinerary("Ann", "A")) is None
    return b


def test_card_benefits_then_the_playmat_position() -> None:
    b = itinerary_board(card("x", 1000, 1, ["event", "crystal"]), row=["f0", "f1", "f2", "x", "f3", "f4"])
    assert b.push(Take("x")) is None  # position 3 gives a crystal
    assert b.track[0] == 1, "event covers the 1"
    assert b.crystals[0] == 3, "1 at the start, 1 from the card, 1 from the playmat"
    assert b.column_depths(0) == (0, 1, 0, 0)


def test_tokens_fill_top_down_and_a_full_column_loses_the_token() -> None:
    b = itinerary_board(
        card("x", 1000, 1, ["innovation", "innovation", "innovation"]),
        row=["x", "f0", "f1", "f2", "f3", "f4"],
    )
    assert b.push(Take("x")) is None  # position 0: no playmat benefit
    assert b.column_depths(0) == (0, 0, 2, 0), "the third innovation has no space and is lost"
    assert b.track[0] == 2


def test_covering_a_crystal_space_gives_a_crystal() -> None:
    b = itinerary_board(
        card("x", 1000, 1, ["person", "person", "person"]), row=["x", "f0", "f1", "f2", "f3", "f4"]
    )
    assert b.push(Take("x")) is None
    assert b.track[0] == 2 and b.crystals[0] == 2


def test_completing_a_row_scores_its_reward_once() -> None:
    # Row 1 needs person, event and innovation covered at depth 2 (progress is empty).
    b = itinerary_board(
        card("x", 1000, 1, ["person", "person", "event", "event"]),
        card("y", 1001, 1, ["innovation", "innovation"]),
        row=["x", "y", "f0", "f1", "f2", "f3"],
    )
    assert b.push(Take("x")) is None
    assert b.track[0] == 2 + 1, "person 2, event 1; row 1 not complete yet"
    assert b.push(Take("y")) is None  # y stayed at position 1, whose playmat benefit is an event
    assert b.column_depths(0)[:3] == (2, 3, 2)
    # innovation's 2, event's 3, and row 1 (person, event, innovation covered 2 deep) pays 5.
    assert b.track[0] == 3 + 2 + 3 + 5


def test_wild_goes_to_the_named_column() -> None:
    b = itinerary_board(card("x", 1000, 1, ["wild"]), row=["x", "f0", "f1", "f2", "f3", "f4"])
    assert b.push(Take("x", wild=("event",))) is None
    assert b.column_depths(0) == (0, 1, 0, 0) and b.track[0] == 1


def test_extra_wild_entries_are_ignored() -> None:
    b = itinerary_board(card("x", 1000, 1, ["wild"]), row=["x", "f0", "f1", "f2", "f3", "f4"])
    assert b.push(Take("x", wild=("event", "person", "person"))) is None
    assert b.column_depths(0) == (0, 1, 0, 0)


def test_an_unnamed_wild_goes_to_the_column_scoring_most_now() -> None:
    # Top spaces: person plain (0), event 1, innovation plain (0): event wins.
    b = itinerary_board(card("x", 1000, 1, ["wild"]), row=["x", "f0", "f1", "f2", "f3", "f4"])
    assert b.push(Take("x")) is None
    assert b.column_depths(0) == (0, 1, 0, 0) and b.track[0] == 1


def test_unnamed_wilds_take_the_best_space_each_in_turn() -> None:
    b = itinerary_board(
        card("x", 1000, 1, ["person", "event", "event"]),
        card("w", 1001, 1, ["wild", "wild"]),
        row=["x", "w", "f0", "f1", "f2", "f3"],
    )
    assert b.push(Take("x")) is None  # person 1 deep, event 2 deep
    # Next spaces: person 2, event 3, innovation plain. The first Wild takes event's 3,
    # the second person's 2; the playmat's event (position 1) then finds event full.
    assert b.push(Take("w")) is None
    assert b.column_depths(0) == (2, 3, 0, 0)
    assert b.track[0] == 1 + 3 + 2  # event 1 (from x), then event 3 and person 2


def test_an_unnamed_wild_counts_a_row_reward_and_ties_go_to_the_first_column() -> None:
    it = {"id": "T", "columns": {"person": [1, 1], "event": [1], "innovation": [None]}, "rows": [4]}
    cards = [card("w", 1000, 1, ["wild"]), card("e", 1001, 1, ["event", "person"]), *filler("f", 8)]
    ed = edition(cards, itineraries=[it])
    b = board(ed, ["Ann"], decks={"I": deck_for_row(["w", "e", "f0", "f1", "f2", "f3"], ["f4", "f5"])})
    assert b.push(ChooseItinerary("Ann", "T")) is None
    assert b.push(Take("e")) is None  # event and person covered: row 0 waits for innovation
    # person's next space is worth 1; innovation's is plain but completes row 0 (4).
    assert b.push(Take("w")) is None
    assert b.column_depths(0) == (1, 1, 1, 0)
    assert b.track[0] == 1 + 1 + 4

    b2 = board(ed, ["Ann"], decks={"I": deck_for_row(["w", "e", "f0", "f1", "f2", "f3"], ["f4", "f5"])})
    assert b2.push(ChooseItinerary("Ann", "T")) is None
    assert b2.push(Take("w")) is None  # person 1 and event 1 tie: person comes first
    assert b2.column_depths(0) == (1, 0, 0, 0)


def test_crystals_gained_on_a_turn_cannot_pay_for_it() -> None:
    b = itinerary_board(card("x", 1000, 3, ["crystal", "crystal"]), row=["x", "f0", "f1", "f2", "f3", "f4"])
    rejection = b.push(Take("x", crystals=2))
    assert rejection is not None and rejection.code == r.TOO_MANY_CRYSTALS
    assert b.push(Take("x", crystals=1)) is None
    assert b.hour[0] == 2 and b.crystals[0] == 2


# --- treks --------------------------------------------------------------------------------


def test_treks_carry_across_days() -> None:
    ed = edition(
        [
            card("a", 100, 12, day=1),
            card("b", 200, 12, day=2),
            card("c", 300, 12, day=3),
            *filler("x", 6, day=1, hours=12),
            *filler("y", 6, day=2, hours=12),
            *filler("z", 6, day=3, hours=12),
        ]
    )
    b = board(ed, ["Ann"], decks={
        "I": deck_for_row(["a", "x0", "x1", "x2", "x3", "x4"]),
        "II": deck_for_row(["b", "y0", "y1", "y2", "y3", "y4"]),
        "III": deck_for_row(["c", "z0", "z1", "z2", "z3", "z4"]),
    })  # fmt: skip
    for cid in ("a", "b", "c"):
        assert b.push(Take(cid)) is None
    assert b.finished
    assert b.trek_lengths(0) == (3,)
    assert b.standings()[0].trek_points == 3


def test_trek_table_past_ten_cards_adds_trek_beyond_each() -> None:
    ed = edition(filler("f", 8), trek_beyond=3)
    assert [ed.trek_points(n) for n in (1, 2, 10, 11, 13)] == [-1, 1, 30, 33, 39]


# --- Days and the end ----------------------------------------------------------------------


def test_end_of_day_deals_the_next_deck_and_keeps_stack_crystals_and_treks() -> None:
    b = three_short_days(
        ["Ann", "Ben"], itineraries=[{"id": i, "columns": {"person": [1]}, "rows": []} for i in "ABCDEF"]
    )
    b.push(ChooseItinerary("Ann", "A"))
    b.push(ChooseItinerary("Ben", "B"))
    first = b.player_to_move
    assert b.push(Take(first_card(b))) is None
    second = b.player_to_move
    assert second != first
    assert b.push(Take(first_card(b))) is None
    assert b.day == 2
    assert b.hour == [0, 0]
    assert b.player_to_move == second, "the last watch to reach 12 is on top of the stack"
    assert b.itinerary == [-1, -1], "new itineraries each Day"
    assert all(b.edition.cards[c].day == 2 for c in b.row)
    assert b.crystals == [1, 1] and b.trek_lengths(0) == (1,)


def test_the_game_ends_after_day_three_with_winners() -> None:
    b = three_short_days(["Ann", "Ben"])
    for _ in range(6):
        assert b.push(Take(first_card(b))) is None
    assert b.finished and b.day == 3
    assert b.player_to_move is None
    assert b.hour == [12, 12]
    assert b.winners()


def test_undo_across_the_end_of_a_day_restores_it_exactly() -> None:
    b = three_short_days(["Ann", "Ben"])
    assert b.push(Take(first_card(b))) is None
    before = b.snapshot()
    assert b.push(Take(first_card(b))) is None
    assert b.day == 2
    assert b.push(Undo()) is None
    assert b.snapshot() == before


def test_undo_after_the_game_ended() -> None:
    b = three_short_days()
    for _ in range(2):
        b.push(Take(first_card(b)))
    before = b.snapshot()
    b.push(Take(first_card(b)))
    assert b.finished
    assert b.push(Undo()) is None
    assert b.snapshot() == before and not b.finished


def test_solo_game_runs_three_days() -> None:
    b = three_short_days(["Solo"])
    for _ in range(3):
        assert b.push(Take(first_card(b))) is None
    assert b.finished and b.winners() == ["Solo"]


def test_tie_break_on_treks_then_shared_victory() -> None:
    ed = edition(filler("f", 8))
    from companion.engine.scoring import Standing, explain_tie_break, winners

    a = Standing("Ann", 10, 0, 5, 15, (3, 1), 12)
    b_ = Standing("Ben", 10, 0, 5, 15, (2, 2), 12)
    c = Standing("Cy", 10, 0, 5, 15, (3, 1), 12)
    assert winners([a, b_]) == ["Ann"]
    assert "longest trek" in explain_tie_break([a, b_])
    assert winners([a, b_, c]) == ["Ann", "Cy"]
    assert "share" in explain_tie_break([a, b_, c])
    d = Standing("Dee", 10, 0, 5, 15, (3,), 12)
    assert winners([a, d]) == ["Ann"], "a missing trek counts as 0"
    assert "second longest" in explain_tie_break([a, d])
    assert ed.trek_points(0) == 0


def test_setup_errors_are_clear() -> None:
    from companion.engine import SetupError

    ed = edition(filler("f", 8))
    with pytest.raises(SetupError, match="1 to 4 players"):
        make_setup(ed, ["A", "B", "C", "D", "E"])
    with pytest.raises(SetupError, match="share a name"):
        make_setup(ed, ["A", "A"])
    with pytest.raises(SetupError, match="watch stack"):
        make_setup(ed, ["A", "B"], ["A"])
    with pytest.raises(SetupError, match="not in the edition"):
        make_setup(ed, ["A"], ["A"], {"I": ["nope"]})
    with pytest.raises(SetupError, match="twice"):
        make_setup(ed, ["A"], ["A"], {"I": ["f1"], "II": ["f1"]})


# --- legality questions and the pure form ------------------------------------------------------


def test_take_options_list_the_row_and_the_ancestor_with_crystal_limits() -> None:
    ed = edition([card("one", 1001, 1), card("three", 1003, 3), *filler("f", 10)])
    b = board(ed, ["Ann"], decks={"I": deck_for_row(["f0", "one", "three", "f1", "f2", "f3"])})
    options = {o.card: o for o in b.take_options()}
    assert set(options) == {"f0", "one", "three", "f1", "f2", "f3"}, "no trek yet: no Ancestor"
    assert options["one"].max_crystals == 0 and options["three"].max_crystals == 1
    assert b.push(Take("three")) is None
    options = {o.card: o for o in b.take_options()}
    assert "ancestor" in options and options["ancestor"].position == -1


def test_check_answers_without_changing_anything() -> None:
    ed = edition([card("one", 1001, 1), *filler("f", 10)])
    b = board(ed, ["Ann"], decks={"I": deck_for_row(["f0", "one", "f1", "f2", "f3", "f4"])})
    before = b.snapshot()
    assert b.check(Take("one")) is None
    assert b.check(Take("one", crystals=1)) is not None
    assert b.check(Take("f9")) is not None
    assert b.check(Undo()) is not None
    assert b.snapshot() == before and b.moves == []
    assert b.push(Take("one")) is None
    after = b.snapshot()
    assert b.check(Undo()) is None
    assert b.snapshot() == after, "checking an undo takes nothing back"


def test_no_ancestor_left_is_reported_before_ancestor_cannot_start_trek() -> None:
    ed = edition(filler("f", 10), ancestors={"2": 0})
    b = board(ed, ["Ann"])
    rejection = b.push(Take("ancestor"))
    assert rejection is not None and rejection.code == r.NO_ANCESTOR_LEFT


def test_apply_is_the_pure_form_of_push() -> None:
    from companion.engine import apply

    ed = edition([card("one", 1001, 1), *filler("f", 10)])
    b = board(ed, ["Ann"], decks={"I": deck_for_row(["f0", "one", "f1", "f2", "f3", "f4"])})
    state = b.snapshot()
    after = apply(b.setup, state, Take("one"))
    assert b.snapshot() == state, "apply leaves its input alone"
    assert b.push(Take("one")) is None
    assert after == b.snapshot()
    rejection = apply(b.setup, state, Take("zzz"))
    assert rejection == b.push(Take("zzz"))
    with pytest.raises(TypeError):
        apply(b.setup, state, Undo())
