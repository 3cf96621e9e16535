"""`companion.table.seats`: who holds which seat, as a model says, and the same after a restart.

Any sequence of claims, releases and games (Hypothesis): a seat is held by one phone at most,
a phone holds one seat at most, a claim of a seat another phone holds changes nothing, a
finished game or another game frees every seat, and the file read back (a restart) holds
what memory held, never a phone's id.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.table.seats import Seats

PLAYERS = ["Ann", "Ben", "Zoé", "ZOÉ"]  # the last two are one player (`name_key`)
PHONES = ["phone-a-0000000000", "phone-b-0000000000", "phone-c-0000000000"]

step = st.one_of(
    st.tuples(st.just("claim"), st.sampled_from(PLAYERS), st.sampled_from(PHONES)),
    st.tuples(st.just("release"), st.sampled_from(PLAYERS), st.just("")),
    st.tuples(st.just("game"), st.sampled_from(["1", "2"]), st.sampled_from(["playing", "finished"])),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(step, max_size=30))
def test_seats_follow_the_model_and_survive_a_restart(steps: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seats.json"
        seats = Seats(path)
        game, playing = 1, True
        model: dict[str, str] = {}  # player's key -> the phone holding the seat
        for kind, what, who in steps:
            if kind == "game":
                if int(what) != game or who == "finished":
                    model = {}  # another game, or this one ended: every seat is free
                game, playing = int(what), who == "playing"
            elif kind == "claim":
                key = what.casefold()
                mine = next((p for p, phone in model.items() if phone == who), None)
                if not playing:
                    expected = None
                elif key in model:
                    expected = key if model[key] == who else None
                elif mine is not None:
                    expected = mine
                else:
                    model[key] = who
                    expected = key
                got = seats.claim(game, playing, what, who)
                assert (got or "").casefold() == (expected or "")
            else:
                assert seats.release(game, playing, what) == (model.pop(what.casefold(), None) is not None)
            assert sorted(n.casefold() for n in seats.held(game, playing)) == sorted(model)
            for phone in PHONES:
                seat = seats.seat_of(game, playing, phone)
                assert (seat or "").casefold() == next((p for p, ph in model.items() if ph == phone), "")
        again = Seats(path)  # the restart reads what was kept
        assert sorted(again.held(game, playing)) == sorted(seats.held(game, playing))
        kept = path.read_text(encoding="utf-8") if path.exists() else ""
        assert not any(phone in kept for phone in PHONES)
