"""The rulebook's worked examples, each played on a small edition."""

from __future__ import annotations

from companion.engine import Board, Take, make_setup
from companion.engine.state import GameState, PlayerState
from tests.support.builders import board, card, deck_for_row, edition, filler


def test_nick_pays_two_crystals_to_take_the_1324_card_for_one_hour() -> None:
    # Nick first picks up a second crystal, then spends both on the 3-hour 1324 card.
    ed = edition(
        [card("gift", 1300, hours=1, gains=["crystal"]), card("mansa", 1324, hours=3), *filler("f", 8)]
    )
    b = board(ed, ["Nick"], decks={"I": deck_for_row(["f0", "gift", "mansa", "f1", "f2", "f3"], ["f4"])})
    assert b.push(Take("gift")) is None
    assert (b.hour[0], b.crystals[0]) == (1, 2)
    assert b.push(Take("mansa", crystals=2)) is None
    assert b.hour[0] == 2, "3 hours less 2 crystals moves the watch 1 hour"
    assert b.crystals[0] == 0, "spent crystals go back to the supply"


def test_the_49_bce_card_moves_the_watch_two_hours() -> None:
    ed = edition([card("rubicon", -49, hours=2), *filler("f", 8)])
    b = board(ed, ["Red"], decks={"I": deck_for_row(["f0", "f1", "rubicon", "f2", "f3", "f4"])})
    assert b.push(Take("rubicon")) is None
    assert b.hour[0] == 2
    assert b.trek_year[0] == -49


def test_tim_takes_1271_after_1519_and_starts_a_new_trek() -> None:
    ed = edition([card("wheel", -3500), card("magellan", 1519), card("polo", 1271), *filler("f", 8)])
    b = board(ed, ["Tim"], decks={"I": deck_for_row(["f0", "wheel", "magellan", "polo", "f1", "f2"])})
    for cid in ("wheel", "magellan"):
        assert b.push(Take(cid)) is None
    assert b.trek_lengths(0) == (2,)
    assert b.push(Take("polo")) is None
    assert b.trek_lengths(0) == (2, 1), "1271 is earlier than 1519: the old trek closes, a new one starts"
    assert b.trek_year[0] == 1271


def _kira_after_ancestor() -> Board:
    ed = edition(
        [
            card("c1900", 1900, 1),
            card("c1933", 1933, 1),
            card("same", 1933, 1),
            card("later", 1934, 1),
            *filler("f", 8),
        ]
    )
    b = board(ed, ["Kira"], decks={"I": deck_for_row(["f0", "c1900", "c1933", "same", "later", "f1"])})
    for cid in ("c1900", "c1933", "ancestor"):
        assert b.push(Take(cid)) is None
    assert b.trek_lengths(0) == (3,), "the Ancestor joins the current trek"
    return b


def test_kiras_ancestor_counts_as_1933_so_1934_continues_the_trek() -> None:
    b = _kira_after_ancestor()
    assert b.trek_year[0] == 1933
    assert b.push(Take("later")) is None
    assert b.trek_lengths(0) == (4,)


def test_kiras_ancestor_counts_as_1933_so_another_1933_starts_a_new_trek() -> None:
    b = _kira_after_ancestor()
    assert b.push(Take("same")) is None
    assert b.trek_lengths(0) == (3, 1), "the same year is not later: it breaks the trek"


def _at_ten() -> Board:
    """Ann, playing solo, at 10 o'clock with a 2-hour and a 5-hour card on offer."""
    ed = edition(
        [card("five", 1000, 5), card("big", 1100, 5), card("two", 1200, 2), *filler("f", 8, hours=5)]
    )
    b = board(ed, ["Ann"], decks={"I": deck_for_row(["f0", "five", "f1", "big", "two", "f2"])})
    assert b.push(Take("five")) is None
    assert b.push(Take("f1")) is None
    assert b.hour[0] == 10
    return b


def test_landing_exactly_on_12_scores_the_punctuality_bonus() -> None:
    b = _at_ten()
    assert b.push(Take("two")) is None
    assert b.track[0] == 3
    assert b.day == 2, "alone at 12: the Day ends"


def test_a_five_hour_card_from_10_stops_at_12_without_bonus() -> None:
    b = _at_ten()
    before = b.snapshot()
    assert b.push(Take("big")) is None
    assert b.track[0] == 0, "moving past 12 stops at 12 with no bonus"
    assert b.day == 2
    b.pop()
    assert b.snapshot() == before


def test_an_ancestor_landing_exactly_on_12_scores_the_bonus_too() -> None:
    ed = edition(
        [card("a", 1000, 5), card("b", 1100, 5), *filler("f", 8)], ancestor={"hours": 2, "gains": []}
    )
    b = board(ed, ["Ann"], decks={"I": deck_for_row(["f0", "f1", "a", "b", "f2", "f3"])})
    assert b.push(Take("a")) is None
    assert b.push(Take("b")) is None
    assert b.push(Take("ancestor")) is None
    assert b.track[0] == 3
    assert b.day == 2


def test_gabes_final_score_is_track_plus_crystals_plus_treks() -> None:
    # Gabe: 32 on the track, 1 unspent crystal, treks worth 24 (a 9-card trek here).
    ed = edition(filler("f", 8))
    setup = make_setup(ed, ["Gabe"], ["Gabe"], {"I": [f"f{i}" for i in range(8)]})
    gabe = PlayerState(12, 0, 32, 1, -1, 0, (0, 0, 0, 0), (), 9, 1950)
    state = GameState(3, True, (gabe,), (-1,) * 6, 8, 0, 6, 50, -1)
    b = Board.from_snapshot(setup, state)
    (standing,) = b.standings()
    assert (standing.track, standing.crystals, standing.trek_points, standing.total) == (32, 1, 24, 57)
    assert b.winners() == ["Gabe"]
