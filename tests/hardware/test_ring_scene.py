"""A `Scene` draws exactly what `render` draws, at every view and time, and says truly when nothing moves."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.ring import CUE_SECONDS, ClockView, RingLayout, Watch, render, stack_height
from companion.hardware.ring_scene import Scene

colours = st.tuples(*(st.integers(0, 255),) * 3)
watches = st.lists(st.builds(Watch, st.integers(0, 23), colours, st.integers(0, 3)), max_size=6)
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


@st.composite
def watches_only(draw: st.DrawFn) -> ClockView:
    """Views that draw only the watches (most changes in a game), often stacked: the ones
    `Scene` makes the short way (`Scene._watches_only`) on rings whose hours' LEDs are their own."""
    hour = st.integers(0, 4) | st.integers(0, 23)
    shown = tuple(draw(st.lists(st.builds(Watch, hour, colours, st.integers(0, 3)), max_size=6)))
    mover = draw(st.none() | st.integers(0, len(shown) - 1)) if shown else None
    return ClockView(
        watches=shown,
        mover=mover,
        waiting=draw(st.sampled_from([None, "card", "itinerary"])),  # no colour: nothing breathes
        cue=draw(st.sampled_from([None, "reject", "bonus", "day_end", "accept"])),
        cue_age=draw(st.floats(-1, 3, allow_nan=False)),
        winners=tuple(draw(st.lists(colours, max_size=4))) if draw(st.integers(0, 4)) == 0 else (),
    )


@settings(max_examples=600, deadline=None)
@given(watches_only(), layouts, times, times, st.floats(-1, 3, allow_nan=False))
def test_a_scene_of_watches_only_draws_what_render_draws(
    view: ClockView, layout: RingLayout, t: float, other: float, age: float
) -> None:
    """The short way (`Scene._watches_only`), held to `render` as the layers' walk is: every frame,
    the LEDs that move (`changing`), whether anything does (`moving`) and the glows' frames."""
    scene = Scene(view, layout)
    aged = replace(view, cue_age=age)
    assert scene.frame(t, view.cue_age) == render(view, layout, t)
    assert scene.frame(other, age) == render(aged, layout, other)
    if not scene.moving(view.cue_age):
        assert render(replace(view, cue_age=max(age, view.cue_age)), layout, other) == render(view, layout, t)
    leds = scene.changing(age)
    if leds is not None and scene.changing(view.cue_age) is not None:
        first, second = scene.frame(t, view.cue_age), scene.frame(other, age)
        assert [i for i in range(layout.leds) if first[i] != second[i] and i not in leds] == []
    late = max(age, 3.0)
    if scene.glows is not None and scene.changing(late) is not None:
        expected = render(replace(view, cue_age=late), layout, t)
        assert scene.frame_after(scene.frame(other, late), t) == expected
    if scene.glows is not None:
        assert [leds for _, leds in scene.glows] == [leds for _, leds in scene.writes]


@settings(max_examples=600, deadline=None)
@given(views(), layouts, times, st.floats(0, 10, allow_nan=False))
def test_a_scene_draws_what_render_draws(view: ClockView, layout: RingLayout, t: float, later: float) -> None:
    scene = Scene(view, layout)
    assert scene.frame(t, view.cue_age) == render(view, layout, t)
    aged = replace(view, cue_age=view.cue_age + later)
    assert scene.frame(t + later, aged.cue_age) == render(aged, layout, t + later)
    if not scene.moving(view.cue_age):  # nothing moves: the frame stays until the view changes
        assert render(aged, layout, t + later) == render(view, layout, t)


@given(views(), layouts)
def test_a_scene_moves_while_a_cue_that_draws_plays(view: ClockView, layout: RingLayout) -> None:
    for cue, seconds in CUE_SECONDS.items():
        playing = replace(view, cue=cue, cue_age=seconds / 2)
        assert Scene(playing, layout).moving(playing.cue_age)


def test_a_game_with_a_mover_moves_and_a_still_one_does_not() -> None:
    layout = RingLayout(24)
    still = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(5, (0, 0, 255), 0)))
    assert not Scene(still, layout).moving(99.0)
    assert Scene(replace(still, mover=0), layout).moving(99.0), "the mover's watch pulses"
    assert Scene(replace(still, cue="reject", cue_age=0.1), layout).moving(0.1)
    assert not Scene(replace(still, cue="reject", cue_age=0.1), layout).moving(0.8), "the flash is over"


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), min_size=1, max_size=6))
def test_a_watchs_height_is_its_place_in_its_hours_stack(seats: list[tuple[int, int]]) -> None:
    """`stack_height` against the sort it replaced: the latest arrival on top, ties by seat."""
    hours, seqs = [h for h, _ in seats], [q for _, q in seats]
    for seat in range(len(seats)):
        same = [j for j in range(len(seats)) if hours[j] == hours[seat]]
        assert stack_height(hours, seqs, seat) == sorted(same, key=lambda j: -seqs[j]).index(seat)


@settings(max_examples=600, deadline=None)
@given(views(), layouts, times, times, st.floats(-1, 3, allow_nan=False))
def test_two_frames_of_a_scene_differ_only_in_the_leds_it_names(
    view: ClockView, layout: RingLayout, t: float, other: float, age: float
) -> None:
    """What the ring compares and sends between two frames of one scene (`Scene.changing`): no
    LED outside it ever differs, while no cue draws and no winners turn (else it names none)."""
    scene = Scene(view, layout)
    leds, later = scene.changing(view.cue_age), scene.changing(age)
    if leds is None or later is None:
        ages = (view.cue_age, age)
        drawn = view.winners or any(view.cue == cue and a < s for cue, s in CUE_SECONDS.items() for a in ages)
        assert drawn, "only a cue that draws or the winners' colours make the whole frame move"
        return
    assert leds == later
    first, second = scene.frame(t, view.cue_age), scene.frame(other, age)
    assert [i for i in range(layout.leds) if first[i] != second[i] and i not in leds] == []


def test_a_pulsing_mover_changes_its_own_led_only() -> None:
    layout = RingLayout(24)
    view = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(5, (0, 0, 255), 0)), mover=1)
    assert Scene(view, layout).changing(99.0) == (layout.led(5),)
    assert Scene(replace(view, mover=None), layout).changing(99.0) == ()
    assert Scene(replace(view, cue="reject", cue_age=0.1), layout).changing(0.1) is None


@settings(max_examples=600, deadline=None)
@given(views(), layouts, times, times)
def test_a_frame_of_glows_is_made_from_any_earlier_one(
    view: ClockView, layout: RingLayout, t: float, earlier: float
) -> None:
    """`Scene.frame_after`: when every write is a glow (`Scene.glows`), the frame at ``t`` is an
    earlier frame with the glows' colours put on it, as `render` draws it, once no cue draws."""
    scene = Scene(view, layout)
    age = max(view.cue_age, 3.0)  # past every cue: `changing` names the LEDs
    if scene.glows is None or scene.changing(age) is None:
        return
    assert scene.frame_after(scene.frame(earlier, age), t) == render(replace(view, cue_age=age), layout, t)


def test_a_mover_alone_is_one_glow_and_a_blink_is_none() -> None:
    layout = RingLayout(24)
    view = ClockView(watches=(Watch(3, (255, 0, 0), 0), Watch(5, (0, 0, 255), 0)), mover=1)
    scene = Scene(view, layout)
    assert scene.glows is not None and [leds for _, leds in scene.glows] == [(layout.led(5),)]
    assert Scene(replace(view, preview=(5, 8)), layout).glows is None, "the landing LED blinks"
