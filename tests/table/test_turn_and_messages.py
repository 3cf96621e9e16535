"""The quick turn (crystals before the tap), messages as code + params, and the
console's and the table's words (issue 11)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from companion.engine import Take
from companion.hardware.ring import CRYSTAL, ClockView, RingLayout, Watch, render, view_of
from companion.run.console import describe_expect
from companion.table import Table
from tests.support.tables import make_runtime, play_turn


def _to_take(rt, rng: random.Random, crystals: int = 0, spare: bool = False):  # type: ignore[no-untyped-def]
    """Play until the player to move can take a card with ``crystals`` crystals
    (and, with ``spare``, holds more crystals than the card allows)."""
    table = rt.table
    for _ in range(400):
        expect = table.expect()
        if expect["kind"] == "itinerary":
            assert rt.tap(expect["choices"][0]).accepted
            continue
        held = table.board.crystals[table.board.turn]
        for option in table.board.take_options():
            if option.max_crystals >= crystals and (not spare or held > option.max_crystals):
                return option
        play_turn(rt, rng)
    raise AssertionError("no such take in 400 steps")


def test_a_take_that_spends_no_crystal_is_one_tap(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    option = _to_take(rt, random.Random(1), crystals=1)  # the mover holds a crystal: the old flow waited
    events = table.seq
    outcome = rt.tap(option.card)
    assert outcome.accepted and outcome.code == "took" and table.pending is None
    take = next(e for e in reversed(table.board.moves) if isinstance(e, Take))
    assert take.card == option.card and take.crystals == 0
    assert table.seq > events
    rt.stop()


def test_crystals_pressed_before_the_tap_are_spent_by_it(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    option = _to_take(rt, random.Random(2), crystals=1)
    mover = table.board.player_to_move
    events = table.seq
    armed = rt.press("crystal")
    assert armed.accepted and armed.code == "armed" and armed.params["n"] == 1
    assert table.seq == events, "choosing a crystal commits nothing"
    assert table.state_json()["armed"] == 1 and table.expect()["crystals"] == 1
    assert view_of(table, 0.0).armed == 1, "the ring shows the chosen crystal"
    assert "1 crystal chosen" in describe_expect(table)
    outcome = rt.tap(option.card)
    assert outcome.accepted and outcome.params["crystals"] == 1
    take = table.board.moves[-1] if isinstance(table.board.moves[-1], Take) else table.board.moves[-2]
    assert isinstance(take, Take) and take.player == mover and take.crystals == 1
    assert table.state_json()["armed"] == 0, "the chosen crystals belonged to that take"
    rt.stop()


def test_undo_puts_chosen_crystals_back_without_touching_the_log(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    _to_take(rt, random.Random(3), crystals=1)
    events, moves = table.seq, list(table.board.moves)
    assert rt.press("crystal").accepted
    undo = rt.press("undo")
    assert undo.accepted and undo.code == "armed_cleared"
    assert table.seq == events and table.board.moves == moves and table.state_json()["armed"] == 0
    rt.stop()


def test_more_crystals_than_held_are_refused(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    _to_take(rt, random.Random(4))
    held = table.board.crystals[table.board.turn]
    for _ in range(held):
        assert rt.press("crystal").accepted
    refused = rt.press("crystal")
    assert not refused.accepted and refused.code == "too_many_crystals" and refused.params["held"] == held
    rt.stop()


def test_more_crystals_than_the_card_allows_wait_for_confirm_at_the_most_it_allows(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy", seed=5)
    table = rt.table
    option = _to_take(rt, random.Random(5), spare=True)
    held = table.board.crystals[table.board.turn]
    for _ in range(held):
        assert rt.press("crystal").accepted
    outcome = rt.tap(option.card)
    assert (
        outcome.accepted and outcome.code == "preview_capped" and outcome.params["max"] == option.max_crystals
    )
    assert table.pending is not None and table.pending.crystals == option.max_crystals
    assert rt.press("confirm").accepted
    take = next(e for e in reversed(table.board.moves) if isinstance(e, Take))
    assert take.crystals == option.max_crystals
    rt.stop()


def test_the_confirm_turn_style_remains_an_option(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, turn="confirm")
    table = rt.table
    option = _to_take(rt, random.Random(1), crystals=1)
    assert table.board.crystals[table.board.turn] > 0
    assert rt.tap(option.card).code == "preview" and table.pending is not None
    assert rt.press("confirm").code == "took"
    rt.stop()


def test_the_ring_shows_crystals_chosen_before_the_tap() -> None:
    layout = RingLayout(12)
    view = ClockView(watches=(Watch(3, (0, 0, 255), 0),), mover=0, armed=2)
    on, off = render(view, layout, 0.0), render(view, layout, 0.5)
    assert on[4] == on[5] == CRYSTAL and on[6] != CRYSTAL
    assert off[4] != CRYSTAL, "it blinks"
    assert CRYSTAL not in render(ClockView(watches=view.watches, mover=0), layout, 0.0)


def test_a_card_still_in_the_deck_is_named_as_such(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    board = table.board
    unseen = next(
        c.id for i, c in enumerate(board.edition.cards) if c.day == board.day and not board.revealed >> i & 1
    )
    outcome = rt.tap(unseen)
    assert not outcome.accepted and outcome.code == "card_not_available"
    assert "still in the Day I deck" in outcome.message and "waiting" not in outcome.message
    assert outcome.params["why"] == "in_deck" and outcome.params["card"] == unseen
    rt.stop()


def test_rejections_carry_params_for_the_page(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    row_card = table.state_json()["row"][3]
    outcome = rt.tap(row_card)  # nobody has an Itinerary yet
    assert outcome.code == "itinerary_required" and outcome.params["player"] == table.expect()["player"]
    assert outcome.to_json()["params"]["day"] == "I"
    unknown = rt.tap("04A2B3C4")
    assert unknown.params == {"tag": "04A2B3C4", "why": "unknown"}
    assert "Enrol a tag" in unknown.message and "companion enroll" not in unknown.message
    rt.stop()


def test_correcting_an_itinerary_without_a_player_names_the_problem(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    outcome = rt.table.correct_itinerary("", "T01")
    assert not outcome.accepted and outcome.code == "no_itinerary_today"
    assert outcome.message.startswith("That player has not chosen")
    rt.stop()


def test_moving_wilds_of_a_take_that_had_none_is_refused(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, seed=6)
    table = rt.table
    rng = random.Random(6)
    for _ in range(300):
        play_turn(rt, rng)
        index = (
            max(i for i, e in enumerate(table.board.moves) if isinstance(e, Take))
            if any(isinstance(e, Take) for e in table.board.moves)
            else None
        )
        if index is not None and table._wilds_of(index) == 0:
            break
    events = table.seq
    outcome = table.correct_wild(["person"])
    assert not outcome.accepted and outcome.code == "no_wild" and "placed no Wild" in outcome.message
    assert table.seq == events
    rt.stop()


def test_the_console_says_what_the_table_waits_for_in_words(tmp_path: Path) -> None:
    said: list[str] = []
    rt = make_runtime(tmp_path)
    text = describe_expect(rt.table)
    assert text.startswith("Waiting for ") and "{" not in text and "Itinerary" in text
    rt.say = said.append
    game = rt.start_game(["Ann", "Bob"], None, "reference", 3)
    assert f"New game {game} started from the page: Ann, Bob." in said
    logged: list[str] = []
    table = Table(rt.store, rt.store.load(rt.table.game_id), log=logged.append)
    table.correct_itinerary("", "T01")
    assert logged[-1].startswith("Not accepted: That player has not chosen")
    rt.stop()


def test_the_quick_turn_needs_fewer_inputs_per_take_than_the_confirm_turn() -> None:
    """benchmarks/bench_turn.py's short run, as a user runs it (no test imports `benchmarks/`)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "benchmarks.bench_turn", "--games", "2", "--players", "3", "--json"]
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=root).stdout
    confirm, quick = json.loads(out)
    assert confirm["takes"] == quick["takes"], "the same games"
    assert quick["mean_inputs_per_take"] < confirm["mean_inputs_per_take"]
    assert quick["histogram"]["1"] > confirm["histogram"]["1"], "a take spending nothing is one tap"


def test_at_a_real_table_the_take_prompts_the_reveal_of_the_new_deck_top(tmp_path: Path) -> None:
    from companion.records.trekking import TREKKING
    from companion.store.log import Store
    from companion.table.game_setup import new_game
    from companion.util.config import Config

    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config(), seed=4, mock=False)  # no dealer: people reveal
    table = Table(store, store.load(game), log=lambda _: None, turn="quick")
    board = table.board
    deck = [c.id for c in board.edition.cards if c.day == 1]
    while table.expect()["kind"] == "reveal":  # the dealt row, card by card
        assert view_of(table, 0.0).waiting == "reveal", "the ring's comet asks for the card"
        assert "tap it to reveal it" in describe_expect(table)
        assert table.tap(next(c for c in deck if c not in table.state_json()["row"])).accepted
    while table.expect()["kind"] == "itinerary":
        assert table.tap(table.expect()["choices"][0]).accepted
    took = table.tap(table.state_json()["row"][3])
    assert took.accepted and took.params.get("reveal") is True
    assert took.message.endswith("Tap the new top card of the deck to reveal it.")
    assert table.expect()["kind"] == "reveal" and view_of(table, 0.0).waiting == "reveal"
    store.close()


def test_the_console_ring_sends_no_colour_codes_into_a_pipe(tmp_path: Path) -> None:
    from companion.run.console import print_ring

    said: list[str] = []
    rt = make_runtime(tmp_path)
    rt.say = said.append
    rt.table.listeners.append(print_ring(rt, colour=False))
    rt.tap(rt.table.expect()["choices"][0])
    assert said and all("\x1b[" not in line for line in said)
    assert said[-1].startswith("Waiting for ")
    rt.table.listeners[-1] = print_ring(rt, colour=True)
    rt.tap(rt.table.expect()["choices"][0])
    assert "\x1b[" in said[-1], "a terminal still gets the coloured ring"
    rt.stop()


def test_the_ring_prompts_the_reveal_of_the_deck_top_on_every_hour() -> None:
    from companion.hardware.ring import MARKER, WHITE

    layout = RingLayout(24)
    watches = (Watch(9, (0, 0, 255), 0),)
    for t in (0.0, 0.4, 0.75, 1.1):
        frame = render(ClockView(watches=watches, waiting="reveal"), layout, t)
        hours = [frame[layout.led(h)] for h in range(12) if h != 9]
        assert all(c[0] > MARKER[0] and c[0] == c[2] for c in hours), "every free hour glows white"
        assert frame[layout.led(9)] == (0, 0, 255), "the watches stay visible"
        assert max(frame)[0] >= int(WHITE[0] * 0.9), "a bright comet runs round"


def test_every_message_code_has_a_sentence_in_english_and_french() -> None:
    """The page writes outcomes from their code: a code without a sentence would show English."""
    import re

    from companion.engine.rejections import CODES
    from companion.table.outcomes import OUTCOME_CODES

    root = Path(__file__).resolve().parents[2]
    table = sorted((root / "companion" / "table").glob("*.py"))  # the table package's modules
    source = "".join(p.read_text() for p in table) + "".join(
        (root / "companion" / n).read_text() for n in ("run/runtime.py", "run/startup.py")
    )
    codes = set(CODES) | set(re.findall(r"CUE_[A-Z]+,\s*\"([a-z_]+)\"", source)) | {"took", "unknown_tag"}
    codes |= set(OUTCOME_CODES)  # the table's codes, declared once (companion.table.outcomes)
    assert {"armed", "preview_capped", "no_wild", "in_deck"} - codes == {"in_deck"}, "the scan finds codes"
    for name in ("en", "fr"):
        keys = set(json.loads((root / "web" / "static" / "i18n" / f"{name}.json").read_text())["msg"])
        missing = {c for c in codes if c not in keys and not any(k.startswith(c + ".") for k in keys)}
        assert not missing, (name, missing)


def test_crystals_chosen_stay_chosen_while_another_player_taps_an_itinerary(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy", seed=8)
    table = rt.table
    assert rt.tap(table.expect()["choices"][0]).accepted  # the first player's Itinerary
    mover = table.board.player_to_move
    assert table.expect()["kind"] == "itinerary" and table.expect()["player"] != mover
    assert table.board.crystals[table.board.turn] >= 1
    assert rt.press("crystal").accepted
    assert rt.tap(table.expect()["choices"][0]).accepted  # someone else's Itinerary
    assert table.armed_crystals() == 1, "still chosen"
    while table.expect()["kind"] == "itinerary":
        assert rt.tap(table.expect()["choices"][0]).accepted
    option = next(o for o in table.board.take_options() if o.max_crystals >= 1)
    assert rt.tap(option.card).accepted
    take = next(e for e in reversed(table.board.moves) if isinstance(e, Take))
    assert take.player == mover and take.crystals == 1
    rt.stop()


def test_the_game_a_fresh_companion_starts_has_names_that_read_in_both_languages(tmp_path: Path) -> None:
    """Issue 11, French: the first game's players were "Blue" and "Orange" (English words)."""
    from companion.run.startup import build_runtime
    from companion.table.game_setup import FIRST_PLAYERS
    from companion.util.config import Config

    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, say=said.append)
    try:
        assert list(rt.table.board.names) == list(FIRST_PLAYERS) == ["Alex", "Sam"]
        assert any("started game" in line and "Alex and Sam" in line for line in said)
    finally:
        rt.stop()
