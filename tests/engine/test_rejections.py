"""Every rejection code: when it applies, which wins, what it says, and that nothing changes."""

from __future__ import annotations

import pytest

from companion.engine import CODES, Board, ChooseItinerary, Event, Malformed, Reveal, Take, Undo, parse_event
from companion.engine import rejections as r
from companion.util.wording import say
from tests.support.builders import board, card, deck_for_row, edition, filler, first_card, three_short_days

ITINERARIES = [
    {"id": "A", "columns": {"person": [None, 2], "event": [1]}, "rows": [3]},
    {"id": "B", "columns": {"person": [1], "innovation": [2]}, "rows": []},
    {"id": "C", "columns": {"progress": [5]}, "rows": []},
]


def two_player_board(itineraries: bool = True) -> Board:
    """Ann and Ben; Ben's watch on top, so Ben moves first. Row 0-5: f0, c1..c5."""
    ed = edition(
        [*(card(f"c{h}", 1000 + h, h) for h in range(1, 6)), *filler("f", 10, start_year=1500)],
        itineraries=ITINERARIES if itineraries else [],
        ancestors={"2": 1},
    )
    deck = deck_for_row(["f0", "c1", "c2", "c3", "c4", "c5"], [f"f{i}" for i in range(1, 10)])
    return board(ed, ["Ann", "Ben"], ["Ben", "Ann"], {"I": deck})


def rejects(b: Board, event: Event, code: str, *words: str) -> str:
    """Assert ``event`` is rejected with ``code`` and a sentence naming ``words``; state unchanged.
    The sentence is the catalogue's (the engine gives the code and its facts): the words
    ``companion replay`` prints and the table says."""
    before = b.snapshot()
    moves = b.moves
    rejection = b.push(event)
    assert rejection is not None, f"{event} was accepted"
    assert rejection.code == code, rejection
    message = say(rejection.code, **rejection.params)
    for word in words:
        assert word in message, (word, message)
    assert "{" not in say(rejection.code, "fr", **rejection.params), "every fact the French names is given"
    assert b.snapshot() == before
    assert b.moves == moves
    return message


def test_codes_are_listed_in_contract_precedence() -> None:
    assert CODES[0] == "game_over" and CODES[1] == "bad_event" and CODES[-1] == "nothing_to_undo"
    assert len(CODES) == len(set(CODES)) == 12


def test_game_over_for_takes_itineraries_and_reveals_but_undo_still_works() -> None:
    b = three_short_days()
    for _ in range(3):
        assert b.push(Take(first_card(b))) is None
    assert b.finished
    rejects(b, Take("f1"), r.GAME_OVER, "over")
    rejects(b, ChooseItinerary("Ann", "A"), r.GAME_OVER)
    rejects(b, Reveal("f1"), r.GAME_OVER)
    rejects(b, Malformed("take", "missing card"), r.GAME_OVER)
    assert b.push(Undo()) is None
    assert not b.finished


def test_bad_event_for_malformed_events() -> None:
    b = two_player_board()
    for raw in (
        [1, 2],
        {"type": "dance"},
        {"card": "c1"},
        {"type": "take"},
        {"type": "take", "card": 7},
        {"type": "take", "card": "c1", "crystals": -1},
        {"type": "take", "card": "c1", "crystals": 1.5},
        {"type": "take", "card": "c1", "crystals": "2"},
        {"type": "take", "card": "c1", "crystals": True},
        {"type": "take", "card": "c1", "wild": ["purple"]},
        {"type": "take", "card": "c1", "wild": "person"},
        {"type": "take", "card": "c1", "wild": None},
        {"type": "take", "card": "c1", "crystals": None},
        {"type": "take", "card": "c1", "player": None},
        {"type": "take", "card": "c1", "player": ""},
        {"type": "take", "card": "c1", "player": 3},
        {"type": "itinerary", "player": "Ann", "itinerary": 5},
        {"type": None},
        {"type": "itinerary", "player": "Ann"},
        {"type": "reveal"},
    ):
        rejects(b, parse_event(raw), r.BAD_EVENT)


def test_bad_event_for_a_player_not_in_the_game() -> None:
    b = two_player_board()
    rejects(b, Take("c1", player="Zed"), r.BAD_EVENT, "Zed", "Ann, Ben")
    rejects(b, ChooseItinerary("Zed", "A"), r.BAD_EVENT, "Zed")


def test_bad_event_beats_not_your_turn_and_reveal_is_refused_when_decks_are_known() -> None:
    b = two_player_board()
    rejects(b, Reveal("c1"), r.BAD_EVENT, "deal")


def test_not_your_turn_names_both_players_and_hours() -> None:
    b = two_player_board()
    message = rejects(b, Take("c1", player="Ann"), r.NOT_YOUR_TURN, "Ben", "Ann", "hour 0")
    assert "Ben's turn" in message


def test_not_your_turn_beats_itinerary_required() -> None:
    b = two_player_board()
    rejects(b, Take("c1", player="Ann"), r.NOT_YOUR_TURN)


def test_itinerary_required_before_a_take() -> None:
    b = two_player_board()
    rejects(b, Take("c1"), r.ITINERARY_REQUIRED, "Ben", "Day I")
    # Ann choosing does not help Ben.
    assert b.push(ChooseItinerary("Ann", "A")) is None
    rejects(b, Take("ancestor"), r.ITINERARY_REQUIRED, "Ben")
    rejects(b, Take("nope"), r.ITINERARY_REQUIRED)


def test_no_itinerary_needed_when_the_edition_has_none() -> None:
    b = two_player_board(itineraries=False)
    assert b.push(Take("c1")) is None


def test_no_ancestor_left_beats_ancestor_cannot_start_trek() -> None:
    b = two_player_board(itineraries=False)  # one Ancestor copy in this game
    assert b.push(Take("c1", player="Ben")) is None  # Ben at 1
    rejects(b, Take("ancestor", player="Ann"), r.ANCESTOR_CANNOT_START_TREK, "Ann")
    assert b.push(Take("c2", player="Ann")) is None  # Ann at 2
    assert b.push(Take("ancestor", player="Ben")) is None  # Ben at 2, on top
    assert b.ancestors_left == 0
    rejects(b, Take("ancestor", player="Ben"), r.NO_ANCESTOR_LEFT, "1 Ancestor card")
    assert b.push(Take("c3", player="Ben")) is None  # Ben at 5: Ann, who has a trek, to move
    rejects(b, Take("ancestor", player="Ann"), r.NO_ANCESTOR_LEFT)


def test_ancestor_cannot_start_a_trek() -> None:
    b = two_player_board(itineraries=False)
    rejects(b, Take("ancestor"), r.ANCESTOR_CANNOT_START_TREK, "Ben", "History card first")


def test_unknown_card() -> None:
    b = two_player_board(itineraries=False)
    rejects(b, Take("no-such-card"), r.UNKNOWN_CARD, "no-such-card")
    rejects(b, Take("no-such-card", crystals=99), r.UNKNOWN_CARD)


def test_card_not_available_lists_the_row() -> None:
    b = two_player_board(itineraries=False)
    rejects(
        b, Take("f9"), r.CARD_NOT_AVAILABLE, "F9", "F0 (1500), C1 (1001), C2 (1002), C3 (1003), C4 (1004)"
    )
    rejects(b, Take("f9", crystals=99), r.CARD_NOT_AVAILABLE)


def test_too_many_crystals_names_the_player_and_the_numbers() -> None:
    b = two_player_board(itineraries=False)
    message = rejects(b, Take("c3", crystals=2), r.TOO_MANY_CRYSTALS)
    assert message == "Ben holds 1 crystal and cannot spend 2."


def test_too_many_crystals_beats_cost_below_one() -> None:
    b = two_player_board(itineraries=False)
    rejects(b, Take("c1", crystals=5), r.TOO_MANY_CRYSTALS)


def test_cost_below_one() -> None:
    b = two_player_board(itineraries=False)
    message = rejects(b, Take("c1", crystals=1), r.COST_BELOW_ONE, "1 hour", "Ben", "0 crystals")
    assert "at least 1 hour" in message
    assert b.push(Take("c2", crystals=1)) is None, "2 hours less 1 crystal is fine"
    assert b.hour[b.names.index("Ben")] == 1


@pytest.mark.parametrize(
    ("events", "bad", "words"),
    [
        ([], ChooseItinerary("Ann", "Z"), ["Z", "A, B, C"]),
        ([ChooseItinerary("Ann", "A")], ChooseItinerary("Ann", "B"), ["already follows Itinerary A"]),
        ([ChooseItinerary("Ann", "A")], ChooseItinerary("Ben", "A"), ["Ann already follows Itinerary A"]),
    ],
)
def test_itinerary_unavailable(events: list[Event], bad: Event, words: list[str]) -> None:
    b = two_player_board()
    for e in events:
        assert b.push(e) is None
    rejects(b, bad, r.ITINERARY_UNAVAILABLE, *words)


def test_an_itinerary_used_on_an_earlier_day_is_unavailable() -> None:
    ed = edition(filler("a", 8, day=1) + filler("b", 8, day=2, hours=12), itineraries=ITINERARIES)
    b = board(ed, ["Ann"])
    assert b.push(ChooseItinerary("Ann", "A")) is None
    while b.day == 1:
        assert b.push(Take(first_card(b))) is None
    rejects(b, ChooseItinerary("Ann", "A"), r.ITINERARY_UNAVAILABLE, "earlier Day")
    assert b.push(ChooseItinerary("Ann", "B")) is None


def test_nothing_to_undo() -> None:
    b = two_player_board()
    rejection = b.push(Undo())
    assert rejection is not None and rejection.code == r.NOTHING_TO_UNDO
    assert b.push(ChooseItinerary("Ann", "A")) is None
    assert b.push(Undo()) is None
    assert b.itinerary == [-1, -1]
    rejection = b.push(Undo())
    assert rejection is not None and rejection.code == r.NOTHING_TO_UNDO
