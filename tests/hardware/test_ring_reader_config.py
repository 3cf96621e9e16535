"""Pure pieces of the table: ring frames, tag debounce and resolution, settings."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.editions import load_edition
from companion.hardware.reader import ReaderLoop, TagDebouncer
from companion.hardware.ring import (
    GOLD,
    MARKER,
    OFF,
    RED,
    ClockView,
    RingLayout,
    SimulatedRing,
    Watch,
    brightness_now,
    render,
)
from companion.table.tags import TagResolver
from companion.util.config import Config, ConfigError, RingSettings, load_config, parse_config
from companion.util.wording import say

BLUE, ORANGE, GREEN = (0, 114, 178), (230, 159, 0), (0, 158, 115)


# --- ring frames ------------------------------------------------------------------------------


@pytest.mark.parametrize("leds", [12, 16, 24, 60])
def test_hours_map_to_leds_around_the_ring(leds: int) -> None:
    layout = RingLayout(leds)
    assert layout.led(0) == layout.led(12) == 0
    assert layout.led(6) == leds // 2
    assert len({layout.led(h) for h in range(12)}) == 12
    assert RingLayout(leds, twelve=3, clockwise=False).led(1) == (3 - round(leds / 12)) % leds


@pytest.mark.parametrize("leds", [12, 16, 24, 60])
def test_every_watch_shows_at_its_hour_in_its_colour(leds: int) -> None:
    layout = RingLayout(leds)
    view = ClockView(watches=(Watch(3, BLUE, 0), Watch(7, ORANGE, 0)))
    frame = render(view, layout, 0.0)
    assert frame[layout.led(3)] == BLUE and frame[layout.led(7)] == ORANGE
    assert frame[layout.led(5)] == MARKER, "the other hours are faint markers"
    assert len(frame) == leds


def test_stacked_watches_on_a_24_led_ring_show_side_by_side_top_first() -> None:
    layout = RingLayout(24)
    view = ClockView(watches=(Watch(4, BLUE, 1), Watch(4, ORANGE, 0)))
    frame = render(view, layout, 0.0)
    assert frame[layout.led(4)] == ORANGE, "the top watch sits on the hour"
    assert frame[layout.led(4) + 1] == tuple(int(c * 0.4) for c in BLUE)


def test_stacked_watches_on_a_12_led_ring_take_turns_top_first() -> None:
    layout = RingLayout(12)
    view = ClockView(watches=(Watch(4, BLUE, 1), Watch(4, ORANGE, 0), Watch(4, GREEN, 2)))
    seen = [render(view, layout, t)[4] for t in (0.0, 0.7, 1.3, 1.9)]
    assert seen[0] == ORANGE and BLUE in seen and GREEN in seen


def test_the_player_to_move_pulses() -> None:
    layout = RingLayout(24)
    view = ClockView(watches=(Watch(2, BLUE, 0), Watch(5, ORANGE, 0)), mover=0)
    levels = {render(view, layout, t)[layout.led(2)] for t in (0.0, 0.3, 0.6, 0.9)}
    assert len(levels) > 1
    assert {render(view, layout, t)[layout.led(5)] for t in (0.0, 0.3)} == {ORANGE}


def test_landing_preview_lights_the_path_and_blinks_the_landing() -> None:
    layout = RingLayout(12)
    view = ClockView(watches=(Watch(2, BLUE, 0),), mover=0, preview=(2, 5))
    on, off = render(view, layout, 0.0), render(view, layout, 0.3)
    assert on[3] == on[4] == tuple(int(c * 0.25) for c in BLUE)
    assert on[5] == BLUE and off[5] == MARKER


def test_cues_rejection_bonus_and_day_end() -> None:
    layout = RingLayout(24)
    watches = (Watch(0, BLUE, 0), Watch(0, ORANGE, 1))
    reject = render(ClockView(watches=watches, cue="reject", cue_age=0.1), layout, 0.0)
    assert set(reject) == {RED}
    faded = render(ClockView(watches=watches, cue="reject", cue_age=5.0), layout, 0.0)
    assert RED not in faded, "a cue lasts a moment"
    bonus = render(ClockView(watches=watches, cue="bonus", cue_age=0.2), layout, 0.0)
    assert GOLD in bonus
    wipe = render(ClockView(watches=watches, cue="day_end", cue_age=1.0), layout, 0.0)
    assert BLUE in wipe and ORANGE in wipe


def test_waiting_for_a_reveal_or_an_itinerary_and_the_winner() -> None:
    layout = RingLayout(24)
    comet = render(ClockView(waiting="reveal"), layout, 0.2)
    assert any(c not in (OFF, MARKER) for c in comet)
    glow = render(ClockView(waiting="itinerary", waiting_colour=ORANGE), layout, 0.5)
    assert all(glow[layout.led(h)][0] > glow[layout.led(h)][2] for h in range(12)), "orange-tinted hours"
    won = render(ClockView(winners=(GREEN,)), layout, 0.0)
    assert set(won) == {GREEN}


def test_simulated_ring_is_a_pixelbuf_that_keeps_what_it_showed() -> None:
    ring = SimulatedRing(12, brightness=0.5)
    ring[:] = [BLUE] * 12
    ring.show()
    assert ring.shown[0] == tuple(int(c * 0.5) for c in BLUE) or ring.shown[0][2] in (88, 89)
    assert ring.shows == 1


def test_night_brightness() -> None:
    s = RingSettings(brightness=0.3, night_brightness=0.05, night_from="22:00", night_until="07:00")
    assert brightness_now(s, datetime(2026, 1, 1, 23, 30)) == 0.05
    assert brightness_now(s, datetime(2026, 1, 1, 6, 59)) == 0.05
    assert brightness_now(s, datetime(2026, 1, 1, 12, 0)) == 0.3


# --- the reader -------------------------------------------------------------------------------


def test_a_held_tag_counts_once_and_flicker_is_tolerated() -> None:
    d = TagDebouncer(window=0.5)
    readings = [("A", 0.0), ("A", 0.1), (None, 0.2), ("A", 0.3), (None, 0.4), ("A", 0.6), ("A", 2.0)]
    assert [d.feed(uid, t) for uid, t in readings] == ["A", None, None, None, None, None, None]


def test_a_tag_counts_again_after_it_was_away_for_the_window() -> None:
    d = TagDebouncer(window=0.5)
    assert d.feed("A", 0.0) == "A"
    assert d.feed(None, 0.2) is None
    assert d.feed(None, 0.6) is None
    assert d.feed("A", 0.7) == "A"


def test_a_different_tag_counts_at_once() -> None:
    d = TagDebouncer(window=0.5)
    assert d.feed("A", 0.0) == "A"
    assert d.feed("B", 0.1) == "B"


def test_reader_loop_polls_and_survives_errors() -> None:
    readings = iter(["A", "A", None, OSError("spi"), None, None, "B"])
    taps: list[str] = []
    errors: list[Exception] = []
    clock = iter(x * 0.3 for x in range(100))

    def read() -> str | None:
        item = next(readings)
        if isinstance(item, Exception):
            raise item
        return item

    loop = ReaderLoop(
        read, taps.append, 0.01, TagDebouncer(0.5), clock=lambda: next(clock), on_error=errors.append
    )
    for _ in range(7):
        loop.poll()
    assert taps == ["A", "B"] and len(errors) == 1 and loop.polls == 7


def test_resolver_enrolled_tags_text_ids_and_title_prefixes() -> None:
    ed = load_edition("reference")
    r = TagResolver(ed, {"1234": "I07"})
    assert r.resolve("1234") == ("I07", {})
    assert r.resolve("trek:II05") == ("II05", {})
    assert r.resolve("ancestor") == ("ancestor", {})
    assert r.resolve("T03") == ("T03", {})
    assert r.resolve("Great Pyramid")[0] == "I07"
    card, why = r.resolve("The")
    assert card is None and why["why"] == "ambiguous" and why["tag"] == "The"
    assert "matches several cards: I" in say("unknown_tag", **why), "the matches are named"
    assert "correspond à plusieurs cartes\u202f: I" in say("unknown_tag", "fr", **why)
    card, why = r.resolve("99887766")
    assert card is None and why == {"tag": "99887766", "why": "unknown"}
    assert "Enrol a tag" in say("unknown_tag", **why) and "Enregistrer une pastille" in say(
        "unknown_tag", "fr", **why
    )


# --- settings ---------------------------------------------------------------------------------


def test_the_example_config_is_the_defaults() -> None:
    example = Path(__file__).resolve().parents[2] / "companion" / "config.example.toml"
    parsed = load_config(example)
    assert (parsed.table, parsed.reader, parsed.ring, parsed.buttons, parsed.palette) == (
        Config().table, Config().reader, Config().ring, Config().buttons, Config().palette,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[ring]\nleds = 13\n", "line 2: ring.leds = 13 must be 12, 16, 24 or 60"),
        (
            '[ring]\n\nbrightness = "high"\n',
            "line 3: ring.brightness must be a number such as 0.5",
        ),
        ("[ring]\nbrightness = 1.5\n", "between 0.0 and 1.0"),
        ('[ring]\ndirection = "up"\n', '"clockwise" or "counterclockwise"'),
        ('[ring]\nnight_from = "25:00"\n', "a time"),
        ("[buttons]\nundo = 40\n", "BCM GPIO number"),
        ("[reader]\npoll_interval = 0\n", "between 0.005 and 5"),
        ("[reader]\nspeed = 3\n", "has no setting 'speed'"),
        ('[table]\npin = "12"\n', "4 to 8 digits"),
        ("[table]\nport = 70000\n", "port number"),
        ("[disco]\n", "unknown section [disco]"),
        ('[players]\npalette = ["red"]\n', "palette must list 4 or more colours"),
        ("[ring\n", "not valid TOML"),
    ],
)
def test_bad_settings_name_the_file_and_line(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=None) as info:
        parse_config(text, "my.toml")
    assert str(info.value).startswith("my.toml")
    assert fragment in str(info.value)


def test_missing_config_file() -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config("/nonexistent/config.toml")


@given(
    st.lists(st.tuples(*[st.integers(-5, 300)] * 3), max_size=30),
    st.sampled_from([0.0, 0.08, 0.3, 0.5, 1.0, 1.4, -0.2]),
)
def test_a_dimmed_frame_is_each_channel_dimmed(frame: list[tuple[int, int, int]], k: float) -> None:
    """The looked-up dimming (`dim_table`) gives what `dim` gives, channel by channel."""
    from companion.hardware.ring import dim, dimmed

    assert dimmed(frame, k) == [(dim(r, k), dim(g, k), dim(b, k)) for r, g, b in frame]
