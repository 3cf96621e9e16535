"""The `trekking/1` record contract: the shared examples, reveal mode, and the CLI's promises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.records.trekking import RecordError, replay_text, write_record
from companion.run.cli import main

#: Our own copies of the contract's examples: the suite needs nothing beside the repository.
KEPT = Path(__file__).resolve().parents[1] / "records"
#: The shared contract's examples, an extra check when a checkout has them beside it.
SHARED = Path(__file__).resolve().parents[3] / "shared" / "contract" / "examples"
RECORDS = sorted(KEPT.glob("*.jsonl"))
SHARED_RECORDS = sorted(SHARED.glob("*.jsonl"))


def test_the_kept_examples_are_present() -> None:
    assert len(RECORDS) >= 6, f"expected the contract examples in {KEPT}"


@pytest.mark.parametrize("record", RECORDS + SHARED_RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_replays_to_the_expected_standings(record: Path) -> None:
    expected = json.loads(record.with_suffix("").with_suffix(".expected.json").read_text())
    assert replay_text(record.read_text()).to_json() == expected


@pytest.mark.skipif(not SHARED_RECORDS, reason="../shared is not beside this checkout")
def test_the_kept_examples_are_the_shared_ones() -> None:
    """When the contract's examples change, the copies here must follow."""
    for shared in SHARED.iterdir():
        kept = KEPT / shared.name
        assert kept.is_file() and kept.read_bytes() == shared.read_bytes(), f"copy {shared} to {KEPT}"


@pytest.mark.parametrize("record", RECORDS[:1], ids=lambda p: p.stem)
def test_cli_replay_json_through_a_real_process(record: Path) -> None:
    expected = json.loads(record.with_suffix("").with_suffix(".expected.json").read_text())
    out = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(record), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(out.stdout) == expected


def test_replaying_twice_gives_the_same_standings_and_export_round_trips() -> None:
    for record in RECORDS:
        first = replay_text(record.read_text())
        again = replay_text(record.read_text())
        assert first.to_json() == again.to_json()
        exported = write_record(first.board.setup, first.board.moves, inline_edition=True)
        replayed = replay_text(exported).to_json()
        assert replayed["players"] == first.to_json()["players"]
        assert replayed["rejected"] == []


# --- records built here -------------------------------------------------------------------------


def _edition(cards_per_day: int = 8, hours: int = 3) -> dict[str, Any]:
    cards = [
        {"id": f"d{d}c{i}", "title": f"Day {d} card {i}", "year": 1000 * d + i, "day": d, "hours": hours,
         "gains": ["crystal"] if i % 4 == 0 else []}
        for d in (1, 2, 3) for i in range(cards_per_day)
    ]  # fmt: skip
    return {
        "cards": cards,
        "ancestor": {"hours": 1, "gains": []},
        "ancestors": {"2": 6, "3": 9, "4": 12},
        "slots": [[], [], [], ["crystal"], [], []],
        "treks": [-1, 1, 3, 5, 8, 11, 15, 19, 24, 30],
        "trek_beyond": 3,
        "itineraries": [],
    }


def _record(*events: dict[str, Any], decks: bool = False, **setup: Any) -> str:
    head = {"type": "setup", "record": "trekking/1", "players": ["Ann"], "watch_stack": ["Ann"],
            "edition": _edition()}  # fmt: skip
    if decks:
        head["decks"] = {"I": [f"d1c{i}" for i in range(8)], "II": [f"d2c{i}" for i in range(8)],
                         "III": [f"d3c{i}" for i in range(8)]}  # fmt: skip
    head.update(setup)
    return "\n".join(json.dumps(x) for x in (head, *events)) + "\n"


def _codes(text: str) -> list[tuple[int, str]]:
    return [(r["line"], r["code"]) for r in replay_text(text).to_json()["rejected"]]


def test_reveal_mode_deals_from_reveals_in_dealing_order() -> None:
    reveals = [{"type": "reveal", "card": f"d1c{i}"} for i in range(6)]
    result = replay_text(_record(*reveals))
    board = result.board
    ids = [board.edition.cards[c].id for c in board.row]
    assert ids == ["d1c5", "d1c4", "d1c3", "d1c2", "d1c1", "d1c0"]
    assert len(result.rejected) == 0


def test_reveal_mode_a_take_leaves_the_deck_top_waiting_for_a_reveal() -> None:
    reveals = [{"type": "reveal", "card": f"d1c{i}"} for i in range(6)]
    text = _record(*reveals, {"type": "take", "card": "d1c1"}, {"type": "take", "card": "d1c4"},
                   {"type": "reveal", "card": "d1c6"}, {"type": "reveal", "card": "d1c7"})  # fmt: skip
    result = replay_text(text)
    assert len(result.rejected) == 0
    board = result.board
    # After two takes the two newest positions waited; reveals fill the older (higher) one first.
    ids = [board.edition.cards[c].id if c >= 0 else None for c in board.row]
    assert ids == ["d1c7", "d1c6", "d1c5", "d1c3", "d1c2", "d1c0"]


def test_reveal_mode_rejections() -> None:
    six = [{"type": "reveal", "card": f"d1c{i}"} for i in range(6)]
    text = _record(
        {"type": "reveal", "card": "nope"},  # line 2: unknown
        {"type": "reveal", "card": "d2c0"},  # line 3: a Day II card on Day I
        *six,  # lines 4-9
        {"type": "reveal", "card": "d1c6"},  # line 10: no position waits
        {"type": "take", "card": "d1c0"},  # line 11
        {"type": "reveal", "card": "d1c0"},  # line 12: already revealed
        {"type": "take", "card": "d1c6"},  # line 13: not revealed yet, so not in the row
    )
    assert _codes(text) == [
        (2, "unknown_card"), (3, "card_not_available"), (10, "card_not_available"),
        (12, "card_not_available"), (13, "card_not_available"),
    ]  # fmt: skip


def test_reveal_is_a_bad_event_when_decks_are_known() -> None:
    assert _codes(_record({"type": "reveal", "card": "d1c0"}, decks=True)) == [(2, "bad_event")]


def test_comments_blank_lines_and_line_numbers() -> None:
    text = _record(decks=True) + '\n# a comment\n   \nnot json\n{"type": "take", "card": "zzz"}\n'
    assert _codes(text) == [(5, "bad_event"), (6, "unknown_card")]


def test_undo_in_a_record_takes_back_the_last_accepted_event() -> None:
    text = _record({"type": "take", "card": "d1c0"}, {"type": "take", "card": "d1c1", "crystals": 9},
                   {"type": "undo"}, {"type": "undo"}, decks=True)  # fmt: skip
    out = replay_text(text).to_json()
    assert out["rejected"] == [
        {"line": 3, "code": "too_many_crystals"},
        {"line": 5, "code": "nothing_to_undo"},
    ]
    assert out["players"][0]["hour"] == 0


def test_unfinished_game_output_shape() -> None:
    out = replay_text(_record(decks=True)).to_json()
    assert out == {
        "finished": False, "day": 1,
        "players": [{"name": "Ann", "track": 0, "crystals": 1, "trek_points": 0, "total": 1, "treks": [],
                     "hour": 0}],
        "winners": [], "rejected": [],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("# only a comment\n", "empty"),
        ('{"type": "take", "card": "x"}\n', "setup"),
        ("{not json\n", "not valid JSON"),
        ('{"type": "setup", "players": ["Ann"], "edition": "no-such-edition"}\n', "unknown edition"),
        ('{"type": "setup", "players": ["Ann"], "edition": {"cards": []}}\n', "edition is not valid"),
        ('{"type": "setup", "players": [], "edition": "reference"}\n', "1 to 4 players"),
        (
            '{"type": "setup", "players": ["A"], "watch_stack": ["B"], "edition": "reference"}\n',
            "watch stack",
        ),
        (
            '{"type": "setup", "record": "trekking/9", "players": ["A"], "edition": "reference"}\n',
            "trekking/9",
        ),
    ],
)
def test_unreadable_records_raise_one_line_errors(text: str, fragment: str) -> None:
    with pytest.raises(RecordError, match=fragment) as info:
        replay_text(text)
    assert "\n" not in str(info.value)


def test_cli_exit_status_2_with_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "setup", "players": ["Ann"], "edition": "nope"}\n')
    assert main(["replay", str(bad), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_reads_stdin_and_prints_a_readable_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    record = _record({"type": "take", "card": "zzz"}, decks=True)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(record.encode())))
    assert main(["replay", "-"]) == 0
    out = capsys.readouterr().out
    assert "Ann" in out and "line 2: unknown_card" in out and "zzz" in out


def test_a_named_shipped_edition_works_in_a_record() -> None:
    text = json.dumps({"type": "setup", "record": "trekking/1", "players": ["Ann", "Ben"],
                       "watch_stack": ["Ben", "Ann"], "edition": "reference"})  # fmt: skip
    text += "\n" + json.dumps({"type": "reveal", "card": "I01"}) + "\n"
    out = replay_text(text).to_json()
    assert out["rejected"] == [] and out["day"] == 1
