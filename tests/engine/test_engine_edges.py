"""The engine's edges the outside audit found, settled by the record contract (issue 12, item 9)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import (
    Board,
    ChooseItinerary,
    Reveal,
    Take,
    apply,
    make_setup,
    parse_edition,
    parse_event,
)
from companion.engine import rejections as r
from companion.engine.edition import MAX_CARDS, MAX_COLUMN_SPACES, MAX_ITINERARIES, EditionError
from companion.engine.itinerary import ItineraryTable, place_tokens
from companion.engine.state import SetupError
from companion.engine.tokens import WILD_CODE
from companion.records.trekking import RecordError, replay_text
from companion.run.cli import main as cli_main
from tests.support.builders import board, card, edition, filler, first_card

ITINERARY = {"id": "A", "columns": {"person": [None, 2], "event": [1]}, "rows": [3]}


def inline(**changes: Any) -> dict[str, Any]:
    base = {
        "cards": [card(f"c{i}", 1000 + i, 2, (), 1 + i // 8) for i in range(24)],
        "ancestor": {"hours": 1, "gains": []},
        "slots": [[], [], [], [], [], []],
        "treks": [-1, 1, 3, 5, 8, 11, 15, 19, 24, 30],
        "trek_beyond": 3,
        "itineraries": [ITINERARY, {"id": "B", "columns": {"progress": [1]}, "rows": []}],
    }
    base.update(changes)
    return base


def record(*lines: Any, setup: dict[str, Any] | None = None) -> str:
    head = setup or {
        "type": "setup",
        "players": ["Ann", "Ben"],
        "watch_stack": ["Ann", "Ben"],
        "edition": inline(),
    }
    return "\n".join([json.dumps(head), *(x if isinstance(x, str) else json.dumps(x) for x in lines)]) + "\n"


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


# --- empty strings name nothing: not bad_event -------------------------------------------------


def test_an_empty_card_or_itinerary_is_well_typed_and_names_nothing() -> None:
    text = record(
        {"type": "itinerary", "player": "Ann", "itinerary": ""},
        {"type": "itinerary", "player": "Ann", "itinerary": "A"},
        {"type": "itinerary", "player": "Ben", "itinerary": "B"},
        {"type": "take", "card": ""},
    )
    rejected = replay_text(text).to_json()["rejected"]
    assert rejected == [{"line": 2, "code": r.ITINERARY_UNAVAILABLE}, {"line": 5, "code": r.UNKNOWN_CARD}]
    reveal_mode = record({"type": "reveal", "card": ""}, setup=None)
    assert replay_text(reveal_mode).to_json()["rejected"] == [{"line": 2, "code": r.UNKNOWN_CARD}]
    assert parse_event({"type": "take", "card": ""}) == Take("")
    assert parse_event({"type": "itinerary", "player": "Ann", "itinerary": ""}) == ChooseItinerary("Ann", "")
    assert parse_event({"type": "reveal", "card": ""}) == Reveal("")


# --- lines end at \n only ------------------------------------------------------------------------


def test_a_name_holding_u2028_and_kin_keeps_its_line_whole() -> None:
    names = ["Ann\u2028Lee", "Ben\u2029\u0085\rX"]
    setup = {"type": "setup", "players": names, "watch_stack": names, "edition": inline(itineraries=[])}
    head = json.dumps(setup, ensure_ascii=False)  # the separators raw, as a phone may send them
    assert "\u2028" in head and "\u0085" in head
    text = head + "\r\n" + '{"type": "take", "card": "nope"}\n# a comment\r\n{"type": "take", "card": "c0"}\n'
    out = replay_text(text).to_json()  # a \r before the \n is dropped
    assert [p["name"] for p in out["players"]] == names
    assert out["rejected"] == [{"line": 2, "code": r.UNKNOWN_CARD}, {"line": 4, "code": r.CARD_NOT_AVAILABLE}]


# --- ancestors default to the rulebook's counts ---------------------------------------------------


def test_an_edition_without_ancestors_uses_six_nine_twelve() -> None:
    ed = parse_edition(inline())  # no "ancestors" key
    assert [ed.ancestor_copies(n) for n in (1, 2, 3, 4)] == [6, 6, 9, 12]
    partial = parse_edition(inline(ancestors={"2": 1}))
    assert [partial.ancestor_copies(n) for n in (2, 3, 4)] == [1, 9, 12]
    assert parse_edition({k: v for k, v in inline().items() if k != "ancestor"}).ancestor_copies(3) == 0


# --- a Wild is never lost while a space is empty ------------------------------------------------------


def test_a_wild_goes_to_an_empty_space_even_when_every_choice_scores_below_zero() -> None:
    table = ItineraryTable.build([[-2], [-1], [], []], [])
    progress, points, _ = place_tokens(table, 0, (WILD_CODE,), ())
    assert progress != 0 and points == -1  # the least bad column, not returned to the supply
    progress, points, _ = place_tokens(table, progress, (WILD_CODE,), ())
    assert points == -2
    assert place_tokens(table, progress, (WILD_CODE,), ()) == (progress, 0, 0)  # now every column is full


SPACE = st.one_of(st.none(), st.integers(-5, 5), st.just("crystal"))


@settings(max_examples=300, deadline=None)
@given(
    columns=st.lists(st.lists(SPACE, max_size=4), min_size=4, max_size=4),
    rows=st.lists(SPACE, max_size=4),
    tokens=st.integers(1, 20),
)
def test_property_a_wild_is_lost_only_when_every_column_is_full(
    columns: list[list[Any]], rows: list[Any], tokens: int
) -> None:
    rows = rows[: max(len(c) for c in columns)]
    table = ItineraryTable.build(columns, rows)
    progress = 0
    for _ in range(tokens):
        room = any(f < n for f, n in zip(table.decode(progress), table.lengths, strict=True))
        after, _, _ = place_tokens(table, progress, (WILD_CODE,), ())
        assert (after != progress) == room
        progress = after


# --- hostile lines: deep nesting, huge integers ----------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "[" * 1000 + "]" * 1000,
        '{"type": "take", "card": "c0", "x": ' + "[" * 101 + "]" * 101 + "}",
        '{"type": "take", "card": "c0", "crystals": ' + "9" * 5000 + "}",
        "[" * 200_000,
        '{"type": "take", "card": "' + "x" * (1024 * 1024) + '"}',
        '{"type": "take", "card": "' + "é" * (512 * 1024) + '"}',  # 1 MB in bytes, half that in characters
    ],
)
def test_hostile_lines_are_bad_events_not_tracebacks(line: str) -> None:
    out = replay_text(record(line)).to_json()
    assert out["rejected"] == [{"line": 2, "code": r.BAD_EVENT}]


def test_nesting_up_to_one_hundred_is_still_json() -> None:
    line = '{"type": "take", "card": "c0", "x": ' + "[" * 99 + "]" * 99 + "}"
    assert replay_text(record(line)).to_json()["rejected"] == [{"line": 2, "code": r.ITINERARY_REQUIRED}]


def test_a_hostile_setup_line_exits_two_with_a_message(tmp_path: Path) -> None:
    for setup in ("[" * 5000, '{"type": "setup", "x": ' + "1" * 5000 + "}"):
        path = tmp_path / "r.jsonl"
        path.write_text(setup + "\n")
        code, _, err = run_cli("replay", str(path))
        assert code == 2 and "setup line" in err and "Traceback" not in err


def test_a_lone_surrogate_in_a_name_prints_escaped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"type": "setup", "players": ["Ann\\ud800", "Ben"], "watch_stack": ["Ann\\ud800", "Ben"], '
        f'"edition": {json.dumps(inline(itineraries=[]))}}}\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(path)],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"Ann\\ud800" in done.stdout and b"Traceback" not in done.stderr


def test_the_readable_output_escapes_control_characters_in_names_and_values(tmp_path: Path) -> None:
    """A record's names reach the terminal: an ANSI escape prints as text, it does not recolour it."""
    eve = "\x1b[31mEve\r"
    setup = {"type": "setup", "players": [eve, "Ben"], "watch_stack": [eve, "Ben"], "edition": inline()}
    path = tmp_path / "r.jsonl"
    path.write_text(record({"type": "itinerary", "player": eve, "itinerary": "\x1b[2J"}, setup=setup))
    code, out, err = run_cli("replay", str(path))
    assert code == 0, err
    assert "\x1b" not in out and "\r" not in out
    assert "\\x1b[31mEve\\r" in out and "\\x1b[2J" in out


def test_a_line_counts_its_bytes_not_its_characters() -> None:
    """1 MB is of the line as stored: a multi-byte name under it in characters is over it in bytes."""

    def setup(length: int) -> str:
        name = "é" * length  # two bytes each, and the name is twice in the line
        players = {"type": "setup", "players": [name], "watch_stack": [name], "edition": "reference"}
        return json.dumps(players, ensure_ascii=False)

    over, under = setup(1024 * 1024 // 4), setup(1024 * 1024 // 4 - 100)
    assert len(over) < 1024 * 1024 < len(over.encode()) and len(under.encode()) < 1024 * 1024
    with pytest.raises(RecordError, match="longer than 1 MB"):
        replay_text(over + "\n")
    assert replay_text(under + "\n").board.names == ("é" * (1024 * 1024 // 4 - 100),)  # within it


# --- named files: regular files only, 16 MB at most ----------------------------------------------------


@pytest.mark.parametrize("command", [["edition", "check"], ["replay"]])
def test_a_device_a_pipe_or_a_folder_is_refused_at_once(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in ("/dev/zero", str(fifo), str(tmp_path)):
        code, _, err = run_cli(*command, target)
        assert code == 2 and "not a regular file" in err, (target, err)


def test_an_edition_named_by_a_device_path_is_refused(tmp_path: Path) -> None:
    setup = {"type": "setup", "players": ["Ann"], "watch_stack": ["Ann"], "edition": "/dev/zero"}
    with pytest.raises(RecordError, match="not a regular file"):
        replay_text(record(setup=setup))


def test_an_oversized_edition_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as out:
        out.truncate(16 * 1024 * 1024 + 1)  # sparse: costs no disk
    code, _, err = run_cli("edition", "check", str(big))
    assert code == 2 and "larger than 16 MB" in err


# --- bounded edition sizes ------------------------------------------------------------------------------


def test_itinerary_columns_are_bounded_so_the_tables_stay_small() -> None:
    huge = {"id": "H", "columns": {k: [None] * 70 for k in ("person", "event", "innovation", "progress")}}
    with pytest.raises(EditionError, match=f"at most {MAX_COLUMN_SPACES}"):
        parse_edition(inline(itineraries=[huge]))
    widest = {
        "id": "W",
        "columns": {k: [None] * MAX_COLUMN_SPACES for k in ("person", "event", "innovation", "progress")},
    }
    ed = parse_edition(inline(itineraries=[widest]))
    table = ed.rules.itineraries[0]
    assert table.steps == []  # the memo is made when the itinerary is first played
    assert len(table.memo()) == (MAX_COLUMN_SPACES + 1) ** 4 * 5


def test_cards_and_itineraries_are_bounded_as_the_edition_docs_say() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "editions.md").read_text()
    bounds = [(MAX_CARDS, "cards"), (MAX_ITINERARIES, "Itineraries"), (MAX_COLUMN_SPACES, "spaces")]
    for number, what in bounds:
        assert f"**{number:,} {what}**" in docs, what
    cards = [card(f"c{i}", 1000 + i, 2, (), 1 + i % 3) for i in range(MAX_CARDS + 1)]
    with pytest.raises(EditionError, match=f"at most {MAX_CARDS}"):
        parse_edition(inline(cards=cards))
    parse_edition(inline(cards=cards[:MAX_CARDS]))
    plain = {"columns": {"progress": [1]}, "rows": []}
    itineraries = [{"id": f"T{i}", **plain} for i in range(MAX_ITINERARIES + 1)]
    with pytest.raises(EditionError, match=f"at most {MAX_ITINERARIES}"):
        parse_edition(inline(itineraries=itineraries))
    parse_edition(inline(itineraries=itineraries[:MAX_ITINERARIES]))


# --- one rule for another Day's card ------------------------------------------------------------------------


def test_a_deck_may_not_hold_another_days_card_as_reveals_may_not() -> None:
    ed = edition(filler("a", 8, day=1) + filler("b", 8, day=2) + filler("c", 8, day=3))
    decks = {"I": ["a0", "a1", "a2", "a3", "a4", "b0"], "II": [f"b{i}" for i in range(1, 8)], "III": []}
    with pytest.raises(SetupError, match=r"b0.*Day II deck"):
        make_setup(ed, ["Ann"], ["Ann"], decks)
    revealing = Board(make_setup(ed, ["Ann"], ["Ann"]))
    rejection = revealing.push(Reveal("b0"))
    assert rejection is not None and rejection.code == r.CARD_NOT_AVAILABLE


# --- an empty row with no Ancestor left ends the Day ------------------------------------------


def test_an_empty_row_with_no_ancestor_left_ends_the_day_instead_of_stalling() -> None:
    # Two 1-hour cards a Day, no Ancestor copies: after two takes the row is empty at hour 2.
    cards = [card(f"d{d}{i}", 1000 * d + i, 1, (), d) for d in (1, 2, 3) for i in range(2)]
    b = board(edition(cards, ancestors={"2": 0}), ["Ann", "Ben"])
    for _ in range(2):
        assert b.push(Take(next(b.edition.cards[c].id for c in b.row if c >= 0))) is None
    assert b.day == 2 and b.hour == [0, 0]  # Day II dealt: the game goes on
    before = b.snapshot()
    assert b.push(Take("d20")) is None and b.push(Take("d21")) is None and b.day == 3
    b.pop()
    b.pop()
    assert b.snapshot() == before
    b.pop()  # undo the take that ended Day I: its hours come back
    assert b.day == 1 and sorted(b.hour) == [0, 1]
    for _ in range(5):
        if b.finished:
            break
        assert b.push(Take(next(b.edition.cards[c].id for c in b.row if c >= 0))) is None
    assert b.finished


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 7), min_size=3, max_size=3),  # 0: a Day that starts with nothing
    hours=st.lists(st.integers(1, 4), min_size=21, max_size=21),
    copies=st.integers(0, 2),
    players=st.integers(1, 4),
    picks=st.lists(st.integers(0, 6), min_size=200, max_size=200),
)
def test_property_a_game_on_short_decks_never_stalls(
    sizes: list[int], hours: list[int], copies: int, players: int, picks: list[int]
) -> None:
    cards = [
        card(f"d{d}c{i}", 1000 * d + i, hours[7 * (d - 1) + i], (), d) for d in (1, 2, 3) for i in range(7)
    ]
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    days = ((1, "I"), (2, "II"), (3, "III"))
    decks = {name: [f"d{d}c{i}" for i in range(sizes[d - 1])] for d, name in days}
    b = board(edition(cards, ancestors={str(n): copies for n in (2, 3, 4)}), names, decks=decks)
    for pick in picks:
        if b.finished:
            break
        options = list(b.take_options())
        assert options, "the player to move has nothing to take: the game stalled"
        before = b.snapshot()
        take = Take(options[pick % len(options)].card)
        assert b.push(take) is None
        b.pop()  # undo brings back exactly the state before, across a Day ended early too
        assert b.snapshot() == before
        assert b.push(take) is None
    assert b.finished


def _empty_day_board(decks: dict[str, list[str]], copies: int = 0) -> Board:
    """Two players, 12-hour cards (one take each ends their Day), the given decks."""
    cards = [card(f"d{d}{i}", 1000 * d + i, 12, (), d) for d in (1, 2, 3) for i in range(3)]
    return board(edition(cards, ancestors={"2": copies}), ["Ann", "Ben"], decks=decks)


def test_a_day_that_starts_with_an_empty_deck_ends_at_once() -> None:
    """Rule 11 applies whenever a Day begins, not only after a take: an empty deck deals an
    empty row, and with no Ancestor to take the game would wait for a take forever."""
    b = _empty_day_board({"I": [], "II": ["d20", "d21"], "III": ["d30", "d31"]})
    assert (b.day, b.hour, b.finished) == (2, [0, 0], False)  # Day I had nothing: Day II is dealt
    assert b.moves == [] and b.push(parse_event({"type": "undo"})).code == r.NOTHING_TO_UNDO  # type: ignore[union-attr]
    nothing = _empty_day_board({})
    assert nothing.finished and nothing.day == 3 and nothing.winners() == ["Ann", "Ben"]
    assert nothing.push(Take("d10")).code == r.GAME_OVER  # type: ignore[union-attr]


def test_an_empty_day_between_two_days_is_skipped_and_undo_brings_the_first_back() -> None:
    b = _empty_day_board({"I": ["d10", "d11"], "II": [], "III": ["d30", "d31"]})
    assert b.push(Take("d11")) is None
    before = b.snapshot()
    assert b.push(Take("d10")) is None  # both watches at 12: Day II begins empty and ends too
    assert (b.day, b.hour, b.finished) == (3, [0, 0], False) and b.row[5] >= 0
    b.pop()
    assert b.snapshot() == before  # push and pop stay inverse across both Days
    assert b.push(Take("d10")) is None and b.push(Take("d31")) is None and b.push(Take("d30")) is None
    assert b.finished
    b.pop()
    assert not b.finished and b.day == 3


def test_an_empty_last_day_ends_the_game_when_the_one_before_ends() -> None:
    b = _empty_day_board({"I": ["d10", "d11"], "II": ["d20", "d21"], "III": []})
    for cid in ("d11", "d10", "d21"):
        assert b.push(Take(cid)) is None
    before = b.snapshot()
    assert b.push(Take("d20")) is None and b.finished and b.winners()
    b.pop()
    assert b.snapshot() == before and not b.finished


def test_an_empty_day_goes_on_while_the_player_to_move_can_take_an_ancestor() -> None:
    b = _empty_day_board({"I": ["d10", "d11"], "II": [], "III": ["d30"]}, copies=1)
    assert b.push(Take("d11")) is None and b.push(Take("d10")) is None
    assert b.day == 2 and [o.card for o in b.take_options()] == ["ancestor"]  # an Ancestor is left
    mover = b.turn
    assert b.push(Take("ancestor")) is None  # the last copy: the other player can take nothing
    assert b.day == 3 and b.turn != -1 and b.hour == [0, 0], "Day II ended with no copy left"
    assert b.trek_lengths(mover) == (2,)


def test_a_record_whose_middle_day_is_empty_finishes() -> None:
    ed = inline(itineraries=[])
    ed["cards"] = [card(f"c{d}{i}", 1000 * d + i, 12, (), d) for d in (1, 2, 3) for i in range(2)]
    ed["ancestors"] = {"2": 0}
    setup = {
        "type": "setup", "players": ["Ann", "Ben"], "watch_stack": ["Ann", "Ben"], "edition": ed,
        "decks": {"I": ["c10", "c11"], "II": [], "III": ["c30", "c31"]},
    }  # fmt: skip
    takes = [{"type": "take", "card": c} for c in ("c11", "c10", "c31", "c30")]
    out = replay_text(record(*takes, setup=setup)).to_json()
    assert out["rejected"] == [] and out["finished"] and out["day"] == 3


def test_apply_on_a_later_day_refills_from_that_days_deck() -> None:
    """`apply` (the pure form) rebuilds a board from a snapshot: on Day II it must draw from
    Day II's deck, as `Board.push` does."""
    cards = [card(f"d{d}{i}", 1000 * d + i, 12 if d == 1 else 1, (), d) for d in (1, 2, 3) for i in range(8)]
    b = board(edition(cards), ["Ann"])
    assert b.push(Take(first_card(b))) is None and b.day == 2
    state, take = b.snapshot(), Take(first_card(b))
    assert b.push(take) is None
    assert apply(b.setup, state, take) == b.snapshot()
