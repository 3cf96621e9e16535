"""`moving` says truly when the ring's picture stays the same, so the ring's thread may sleep."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.ring import CUE_SECONDS, ClockView, RingLayout, Watch, moving, render, stack_height

colours = st.tuples(*(st.integers(0, 255),) * 3)
watches = st.lists(
    st.builds(Watch, st.integers(0, 4) | st.integers(0, 23), colours, st.integers(0, 3)), max_size=6
)
layouts = st.builds(RingLayout, st.sampled_from([8, 12, 16, 24, 36, 60]), st.integers(0, 59), st.booleans())
times = st.floats(0, 1e5, allow_nan=False)


@st.composite
def views(draw: st.DrawFn) -> ClockView:
    shown = tuple(draw(watches))
    mover = draw(st.none() | st.integers(0, len(shown) - 1)) if shown else None
    return ClockView(
        watches=shown,
        mover=mover,
        preview=draw(st.none() | st.tuples(st.integers(0, 14), st.integers(0, 20))),
        waiting=draw(st.sampled_from([None, "reveal", "itinerary", "card"])),
        waiting_colour=draw(st.none() | colours),
        cue=draw(st.sampled_from([None, "reject", "bonus", "day_end", "accept"])),
        cue_age=draw(st.floats(-1, 3, allow_nan=False)),
        winners=tuple(draw(st.lists(colours, max_size=4))) if draw(st.integers(0, 4)) == 0 else (),
        armed=draw(st.integers(0, 13)),
    )


@settings(max_examples=600, deadline=None)
@given(views(), layouts, times, times, st.floats(0, 10, allow_nan=False))
def test_a_picture_that_does_not_move_stays_until_the_view_changes(
    view: ClockView, layout: RingLayout, t: float, other: float, later: float
) -> None:
    if not moving(view, layout):
        aged = replace(view, cue_age=view.cue_age + later)
        assert render(aged, layout, other) == render(view, layout, t)


@given(views(), layouts)
def test_a_picture_moves_while_a_cue_that_draws_plays(view: ClockView, layout: RingLayout) -> None:
    for cue, seconds in CUE_SECONDS.items():
        assert moving(replace(view, cue=cue, cue_age=seconds / 2), layout)


def test_a_game_with_a_mover_moves_and_a_still_one_does_not() -> None:
    layout = RingLayout(24)
    still = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(5, (0, 0, 255), 0)))
    assert not moving(still, layout)
    assert moving(replace(still, mover=0), layout), "the mover's watch pulses"
    assert moving(replace(still, cue="reject", cue_age=0.1), layout)
    assert not moving(replace(still, cue="reject", cue_age=0.8), layout), "the flash is over"
    stacked = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(3, (0, 0, 255), 1)))
    assert not moving(stacked, layout), "a 24-LED ring shows a stack side by side"
    assert moving(stacked, RingLayout(12)), "a 12-LED ring shows a stack's watches in turn"


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), min_size=1, max_size=6))
def test_a_watchs_height_is_its_place_in_its_hours_stack(seats: list[tuple[int, int]]) -> None:
    """`stack_height` against a sort: the latest arrival on top, ties by seat."""
    hours, seqs = [h for h, _ in seats], [q for _, q in seats]
    for seat in range(len(seats)):
        same = [j for j in range(len(seats)) if hours[j] == hours[seat]]
        assert stack_height(hours, seqs, seat) == sorted(same, key=lambda j: -seqs[j]).index(seat)
