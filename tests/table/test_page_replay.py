"""The page's snapshot replays the stored log once (`companion.table.view.replay`) and shows
exactly what the two replays it replaced showed: one over the moves in effect (the treks
and the score chart), one over the stored log (the event log with its undos).

The two former passes are kept here, as they were, as the oracle: whole games at the
mocked table (quick and confirm turns, undos, corrections, Ancestors, to the end) compare
the whole page JSON after every step, and a property compares the one pass with the two
over random logs with undos, corrections' undo steps and refused events.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.coach.simulate import random_setup
from companion.editions import load_edition
from companion.engine import Board, ChooseItinerary, Event, Reveal, Take, Undo, make_setup
from companion.engine.tokens import ANCESTOR, COLUMNS
from companion.run.runtime import Runtime
from companion.table.view import Replay, _push, page_state, replay
from tests.support.tables import make_runtime, play_turn

# --- the oracle: the two passes as they were ---------------------------------------------


@dataclass
class TwoPassHistory:
    treks: list[list[list[dict[str, Any]]]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)


def history(board: Board) -> TwoPassHistory:
    """The former first pass: the board's moves in effect replayed."""
    fresh = Board(board.setup)
    result = TwoPassHistory(treks=[[] for _ in board.names])
    for n, event in enumerate(board.moves, start=1):
        who = fresh.turn
        entry = _push(fresh, event, n)
        assert entry is not None
        if isinstance(event, Take):
            treks = result.treks[who]
            card = {"id": entry["card"], "title": entry["title"], "year": entry["year"]}
            if event.card == ANCESTOR:
                card["ancestor"] = True
            elif fresh.trek_len[who] == 1:
                treks.append([])
            treks[-1].append(card)
        result.log.append(entry)
    return result


def event_log(board: Board, stored: list[Event], dealt: bool) -> list[dict[str, Any]]:
    """The former second pass: the stored log replayed, undos listed."""
    fresh = Board(board.setup)
    log: list[dict[str, Any]] = []
    in_effect: list[dict[str, Any]] = []
    for n, event in enumerate(stored, start=1):
        if not isinstance(event, Undo):
            entry = _push(fresh, event, n)
            if entry is not None:
                log.append(entry)
                in_effect.append(entry)
        elif fresh.push(event) is None:
            undone = in_effect.pop()
            if event.correction:
                log.remove(next(e for e in reversed(log) if e is undone))
                continue
            undone["undone"] = True
            undone.pop("day_end", None)
            if not (dealt and undone["kind"] == "reveal"):
                named = ("kind", "player", "card", "title", "year", "itinerary")
                log.append({"n": n, "day": fresh.day, "kind": "undo",
                            "event": {k: undone[k] for k in named if k in undone}})  # fmt: skip
    return log


def two_pass_page(new: dict[str, Any], board: Board, stored: list[Event], dealt: bool) -> dict[str, Any]:
    """The page JSON as the two passes made it: ``new``'s other fields (which the change
    left alone) with the treks and the log the two passes gave."""
    past = history(board)
    log = event_log(board, stored, dealt)
    players = [
        {**player, "current_trek": treks[-1] if treks else [], "completed_treks": treks[:-1]}
        for player, treks in zip(new["players"], past.treks, strict=True)
    ]
    return {**new, "players": players, "log": log[-60:], "log_length": len(log)}


# --- whole games at the table ------------------------------------------------------------


def assert_page_as_before(rt: Runtime) -> dict[str, Any]:
    table = rt.table
    page = table.page_json()
    assert page == two_pass_page(page, table.board, table.stored, table.dealer is not None)
    return page


def correct_something(rt: Runtime, rng: random.Random) -> None:
    """A host's correction: the latest take's Wild tokens, or an Itinerary of today."""
    table = rt.table
    if rng.random() < 0.5:
        table.correct_wild([rng.choice(COLUMNS) for _ in range(rng.randint(1, 2))])
        return
    chosen = [e for e in table.board.moves if isinstance(e, ChooseItinerary)]
    if chosen:
        latest = chosen[-1]
        table.correct_itinerary(latest.player, rng.choice(list(table.board.edition.itinerary_index)))


def play_checked(rt: Runtime, seed: int) -> list[Event]:
    """Play ``rt``'s game to its end with undos and corrections, the page checked after every step."""
    rng = random.Random(seed)
    assert_page_as_before(rt)
    while not rt.table.board.finished:
        play_turn(rt, rng)
        assert_page_as_before(rt)
        roll = rng.random()
        if roll < 0.2:
            rt.table.undo()
            assert_page_as_before(rt)
        elif roll < 0.3:
            correct_something(rt, rng)
            assert_page_as_before(rt)
    page = assert_page_as_before(rt)
    assert page["finished"] and "tie_break" in page
    return list(rt.table.stored)


def test_whole_games_show_the_page_the_two_passes_showed(tmp_path: Path) -> None:
    stored: list[Event] = []
    games = [("Ann,Ben", "quick"), ("Ann,Ben,Cy", "confirm"), ("Ann,Ben,Cy,Dee", "quick")]
    for n, (players, turn) in enumerate(games):
        rt = make_runtime(tmp_path / str(n), players=players, seed=n + 1, turn=turn)
        stored += play_checked(rt, seed=n)
        rt.stop()
    # the games met what the one pass must get right
    takes = [e for e in stored if isinstance(e, Take)]
    assert any(e.card == ANCESTOR for e in takes)
    assert any(isinstance(e, Undo) and e.correction for e in stored)
    assert any(isinstance(e, Undo) and not e.correction for e in stored)
    assert any(e.crystals for e in takes)


def test_a_log_that_is_not_the_boards_leaves_the_treks_the_boards(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    rng = random.Random(2)
    for _ in range(12):
        play_turn(rt, rng)
    board = rt.table.board
    for stored in ([], list(rt.table.stored)[:5]):
        page = page_state(board, ["#0072B2", "#E69F00"], stored, dealt=True)
        assert page == two_pass_page(page, board, stored, dealt=True)
        assert "chart" not in page, "a game's chart comes from its stored log (/api/story), not each snapshot"
    rt.stop()


# --- the one pass against the two over random logs ---------------------------------------

EDITION = load_edition("reference")


@st.composite
def stored_logs(draw: st.DrawFn) -> tuple[Board, list[Event]]:
    """A game's stored log: legal moves, a person's undos, a correction's undo steps
    (undo back, then moves again), a refused event, an undo of nothing; the decks
    shuffled (the simulator's) or unknown, each new deck top revealed (a real table's)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    names = ["Ann", "Ben", "Cy", "Dee"][: draw(st.integers(1, 4))]
    setup = random_setup(EDITION, names, rng) if draw(st.booleans()) else make_setup(EDITION, names)
    board = Board(setup)
    stored: list[Event] = []
    for _ in range(draw(st.integers(0, 120))):
        if board.finished:
            break
        step = draw(st.sampled_from(["move"] * 6 + ["undo", "correct", "refused"]))
        if step in ("undo", "correct"):
            for _ in range(draw(st.integers(1, 3)) if step == "correct" else 1):
                refused = board.push(Undo()) is not None
                stored.append(Undo(correction=step == "correct" and not refused))
            continue
        if step == "refused":
            stored.append(Take(card="no-such-card", player=board.names[0]))
            continue
        event: Event
        needs = board.needs_itinerary()
        if board.waiting_position() >= 0:
            day = [(i, c.id) for i, c in enumerate(EDITION.cards) if c.day == board.day]
            unseen = [card for i, card in day if not board.revealed >> i & 1]
            event = Reveal(rng.choice(unseen))
        elif needs:
            choices = board.itinerary_choices(needs[0])
            event = ChooseItinerary(needs[0], rng.choice(choices))
        else:
            option = rng.choice(list(board.take_options()))
            spend = rng.randint(0, option.max_crystals)
            event = Take(card=option.card, player=board.names[board.turn], crystals=spend)
        assert board.push(event) is None
        stored.append(event)
    return board, stored


@settings(max_examples=150, deadline=None)
@given(game=stored_logs(), dealt=st.booleans())
def test_one_pass_gives_the_log_and_treks_of_the_two(game: tuple[Board, list[Event]], dealt: bool) -> None:
    board, stored = game
    past = replay(board.setup, stored, dealt)
    before = history(board)
    assert past.events == board.moves
    assert not board.moves or any(isinstance(e, Reveal) for e in board.moves) == (board.setup.decks is None)
    assert past.log == event_log(board, stored, dealt)
    assert past.treks(len(board.names)) == before.treks
    # without the stored log, the log lists the moves in effect, as before
    assert replay(board.setup, board.moves).log == before.log


# --- a continued replay against a whole one ----------------------------------------------


@settings(max_examples=150, deadline=None)
@given(game=stored_logs(), dealt=st.booleans(), cuts=st.lists(st.integers(0, 200), max_size=12))
def test_a_continued_replay_gives_the_page_a_whole_replay_gives(
    game: tuple[Board, list[Event]], dealt: bool, cuts: list[int]
) -> None:
    """The table's stored log only grows: the page's snapshot continues its last replay
    (`Replay`) with the events stored since. At every length the log grows through (any
    cuts: a step of one event, of several, of none), its page is byte for byte the page
    of a whole replay."""
    whole_board, whole = game
    stored: list[Event] = []  # the table's log: one list, grown in place
    continued = Replay(whole_board.setup, stored, dealt)
    board = Board(whole_board.setup)
    colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"]
    for end in [*sorted(min(cut, len(whole)) for cut in cuts), len(whole)]:
        for event in whole[len(stored) : end]:
            board.push(event)  # a refused one changes nothing, as at the table
            stored.append(event)
        assert continued.continues(board.setup, stored, dealt)
        page = page_state(board, colours, stored, dealt, continued)
        fresh = page_state(board, colours, list(stored), dealt)
        assert json.dumps(page) == json.dumps(fresh)


def test_a_replay_does_not_continue_a_log_that_was_replaced_or_changed() -> None:
    setup = make_setup(EDITION, ["Ann", "Ben"])
    stored: list[Event] = [Undo()]
    continued = Replay(setup, stored)
    continued.advance()
    assert continued.continues(setup, stored, False)
    assert not continued.continues(setup, list(stored), False)  # another game's list
    assert not continued.continues(setup, stored, True)
    assert not continued.continues(make_setup(EDITION, ["Ann", "Ben"]), stored, False)
    stored[0] = Undo(correction=True)  # changed where it was already replayed
    assert not continued.continues(setup, stored, False)
    del stored[:]
    assert not continued.continues(setup, stored, False)


def legal_events(board: Board) -> list[Event]:
    """Every event ``board`` would accept now (reveals, Itinerary choices, takes and spends)."""
    if board.finished:
        return []
    if board.waiting_position() >= 0:
        day = [(i, c.id) for i, c in enumerate(EDITION.cards) if c.day == board.day]
        return [Reveal(card) for i, card in day if not board.revealed >> i & 1]
    needs = board.needs_itinerary()
    if needs:
        return [ChooseItinerary(needs[0], it) for it in board.itinerary_choices(needs[0])]
    player = board.names[board.turn]
    return [
        Take(card=o.card, player=player, crystals=spend)
        for o in board.take_options()
        for spend in range(o.max_crystals + 1)
    ]


@settings(max_examples=150, deadline=None)
@given(
    game=stored_logs(),
    dealt=st.booleans(),
    steps=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(["follow", "back", "other"])), max_size=12),
    pick=st.randoms(use_true_random=False),
)
def test_the_replays_moves_are_the_boards_exactly_when_they_are(
    game: tuple[Board, list[Event]], dealt: bool, steps: list[tuple[int, str]], pick: random.Random
) -> None:
    """`Replay.same_moves` compares only the moves above its last agreement with the board:
    at every length of the stored log, with the board following it, or some moves taken back
    (and pushed again), or its top move another one, it answers ``past.events == board.moves``."""
    whole_board, whole = game
    stored: list[Event] = []
    continued = Replay(whole_board.setup, stored, dealt)
    board = Board(whole_board.setup)
    for cut, detour in [*sorted(steps), (len(whole), "follow")]:
        for event in whole[len(stored) : min(cut, len(whole))]:
            board.push(event)
            stored.append(event)
        continued.advance()
        assert continued.same_moves(board) == (continued.past.events == board.moves)
        if detour == "follow" or not board.moves:
            continue
        taken = [
            board.pop() for _ in range(pick.randint(1, min(3, board.move_count)) if detour == "back" else 1)
        ]
        if detour == "other":
            others = [e for e in legal_events(board) if e != taken[0]]
            if others:
                board.push(pick.choice(others))
                assert continued.same_moves(board) is False
                board.pop()
        assert continued.same_moves(board) == (continued.past.events == board.moves)
        for event in reversed(taken):  # the board as the log has it again, each move pushed anew
            assert board.push(event) is None
        assert continued.same_moves(board) == (continued.past.events == board.moves)
