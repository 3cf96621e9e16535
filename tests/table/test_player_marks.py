"""One player, one colour and marker (issue 24, item 5): given once, kept with the players,
the same game after game; no two seats of a game share a colour (the ring), no two players
shown together share a (colour, marker) pair (told apart without colour)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.table.marks import MARKERS, seat_marks
from companion.util.config import DEFAULT_PALETTE, Config

PALETTE = list(DEFAULT_PALETTE)
BLUE, ORANGE, GREEN, PINK = PALETTE


def marks_of(store: Store, game: int) -> list[tuple[str, int]]:
    meta = store.load(game).meta
    return list(zip(meta["colours"], meta["markers"], strict=True))


def test_a_player_keeps_their_colour_and_marker_whatever_their_seat(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    first = new_game(store, ["Ann", "Ben", "Cy"], Config(), seed=1)
    ann, ben, cy = marks_of(store, first)
    assert [ann, ben, cy] == [(BLUE, 0), (ORANGE, 1), (GREEN, 2)], "a first game: a marker each"
    second = new_game(store, ["cy", "Dee", "ANN"], Config(), seed=2)  # other seats, other spellings
    cy2, dee, ann2 = marks_of(store, second)
    assert (cy2, ann2) == (cy, ann), "the same pair at another seat"
    assert dee == (PINK, 3), "a new player: a marker no one has, a colour free at the table and no one's"
    eve = marks_of(store, new_game(store, ["Eve", "Ben"], Config(), seed=3))[0]
    assert eve == (BLUE, 4), "every colour is someone's: the first free here, with a marker no one has"
    together = marks_of(store, new_game(store, ["Ann", "Eve"], Config(), seed=4))
    assert together[0] == ann
    assert together[1] == (ORANGE, 4), "Eve shares Ann's colour: the later seat takes the next free one"
    assert store.player_marks()["eve"] == eve, "for that game only: her own pair is kept"
    store.close()


def test_a_colour_picked_on_the_form_becomes_the_players(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    new_game(store, ["Ann", "Ben"], Config(), seed=1)
    game = new_game(store, ["Ann", "Ben"], Config(), colours=["#D55E00", None], seed=2)  # type: ignore[list-item]
    assert [c for c, _ in marks_of(store, game)] == ["#D55E00", ORANGE]
    assert store.player_marks()["ann"][0] == "#D55E00"
    store.close()


def test_a_merged_spelling_has_its_players_pair(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    new_game(store, ["Alexandra", "Ben"], Config(), seed=1)
    store.merge_player("alex", "alexandra", "Alexandra")
    game = new_game(store, ["Ben", "Alex"], Config(), seed=2)
    assert marks_of(store, game)[1] == store.player_marks()["alexandra"]
    store.close()


names = st.lists(st.sampled_from([f"p{i}" for i in range(40)]), min_size=1, max_size=4, unique=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(names, min_size=1, max_size=25))
def test_seats_never_share_a_colour_and_players_never_share_a_pair(games: list[list[str]]) -> None:
    known: dict[str, tuple[str, int]] = {}
    for keys in games:
        colours, markers, keep = seat_marks(keys, [], PALETTE, known)
        assert len({c.upper() for c in colours}) == len(keys), "the ring tells seats apart by colour"
        known.update(keep)
        for key, colour, marker in zip(keys, colours, markers, strict=True):
            assert 0 <= marker < MARKERS
            assert known[key][1] == marker, "a seat shows its player's marker"
            if colour == known[key][0]:
                assert (colour, marker) == known[key]
        if len(known) <= len(PALETTE) * MARKERS:
            assert len(set(known.values())) == len(known), "no two players share a pair"
