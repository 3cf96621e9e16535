"""Records read as bytes, line by line (issue 16, item 11 b and c).

One rule for a file and for standard input: a line that is not UTF-8 is not JSON, so it
is one ``bad_event`` and the replay goes on. A record is replayed as it is read, keeping
no line once played, and its rejections compactly, every one of them still in the output.
Memory and time are measured by ``benchmarks/bench_hostile_inputs.py``, not here.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.engine import rejections as r
from companion.records.trekking import (
    MAX_LINE,
    MESSAGES_KEPT,
    format_standings,
    record_lines,
    replay_stream,
    replay_text,
)
from companion.util.files import FileRefused
from tests.support.builders import card

SETUP = {
    "type": "setup",
    "players": ["Ann", "Ben"],
    "watch_stack": ["Ann", "Ben"],
    "edition": {
        "cards": [card(f"c{i}", 1000 + i, 2, (), 1 + i // 8) for i in range(24)],
        "ancestor": {"hours": 1, "gains": []},
        "slots": [[], [], [], [], [], []],
        "treks": [-1, 1, 3, 5, 8, 11, 15, 19, 24, 30],
        "trek_beyond": 3,
        "itineraries": [],
    },
    "decks": {"I": [f"c{i}" for i in range(8)], "II": [], "III": []},
}
HEAD = json.dumps(SETUP).encode()


def record(*lines: bytes) -> bytes:
    return b"\n".join([HEAD, *lines]) + b"\n"


def replay_cli(data: bytes, tmp_path: Path, *args: str) -> dict[str, Any]:
    """``companion replay`` in a real process, from a file and from stdin: one answer for both."""
    path = tmp_path / "record.jsonl"
    path.write_bytes(data)
    command = [sys.executable, "-m", "companion", "replay"]
    from_file = subprocess.run([*command, str(path), *args], capture_output=True, check=False)
    from_stdin = subprocess.run([*command, "-", *args], input=data, capture_output=True, check=False)
    assert (from_file.returncode, from_file.stdout) == (from_stdin.returncode, from_stdin.stdout)
    assert b"Traceback" not in from_file.stderr + from_stdin.stderr
    return {"code": from_file.returncode, "out": from_file.stdout, "err": from_file.stderr}


# --- b. invalid UTF-8: one rule for a file and for stdin ------------------------------------------


def test_a_byte_that_is_not_utf8_in_an_event_line_is_a_bad_event_from_a_file_and_from_stdin(
    tmp_path: Path,
) -> None:
    data = record(
        b'{"type": "take", "card": "c\xff"}',  # line 2: not UTF-8, so not JSON
        b"# a comment may hold any byte: \xff\xfe",
        b'{"type": "take", "card": "c0"}',  # line 4: still played
    )
    done = replay_cli(data, tmp_path, "--json")
    assert done["code"] == 0, done["err"]
    out = json.loads(done["out"])
    assert out["rejected"] == [{"line": 2, "code": r.BAD_EVENT}]
    assert out["players"][0]["treks"] == [1]  # Ann took c0 after the bad line
    readable = replay_cli(data, tmp_path)
    assert (
        readable["code"] == 0
        and b"line 2: bad_event: The line is not UTF-8 text (byte 0xff)." in readable["out"]
    )


def test_a_setup_line_that_is_not_utf8_cannot_be_read_from_either(tmp_path: Path) -> None:
    done = replay_cli(HEAD.replace(b'"Ann"', b'"Ann\xff"') + b"\n", tmp_path, "--json")
    assert done["code"] == 2 and done["out"] == b""
    assert b"line 1: the setup line: the line is not UTF-8 text (byte 0xff)" in done["err"]
    assert done["err"].count(b"\n") == 1


# --- c. read as it is played, every rejection kept, compactly -------------------------------------


class Endless(io.RawIOBase):
    """``head``, then undo lines without end, counting the bytes read."""

    def __init__(self, head: bytes = b"") -> None:
        self.read_bytes = 0
        self.head = head

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        line, self.head = self.head + b'{"type":"undo"}\n' * 4096, b""
        size = min(len(buffer), len(line))
        buffer[:size] = line[:size]
        self.read_bytes += size
        return size


def test_a_record_is_read_line_by_line_as_it_is_played() -> None:
    source = Endless()
    lines = record_lines(io.BufferedReader(source))
    assert [next(lines) for _ in range(3)] == [(n, b'{"type":"undo"}') for n in (1, 2, 3)]
    assert source.read_bytes < 100_000  # an endless stream: read a buffer's worth, not all of it


def test_a_stream_longer_than_the_limit_is_refused() -> None:
    source = Endless(HEAD + b"\n")
    with pytest.raises(FileRefused, match="larger than 1 MB"):
        replay_stream(io.BufferedReader(source), 1024 * 1024)
    assert source.read_bytes < 2 * 1024 * 1024  # refused as it passed the limit, not at the end


def test_every_rejection_is_in_the_output_though_only_the_first_keep_their_sentence() -> None:
    count = MESSAGES_KEPT + 2500
    lines = [b'{"type": "undo"}'] * count + [b'{"type": "take", "card": "zzz"}']
    result = replay_stream(io.BytesIO(record(*lines)))
    out = result.to_json()["rejected"]
    assert out[:count] == [{"line": n, "code": r.NOTHING_TO_UNDO} for n in range(2, count + 2)]
    assert out[count:] == [{"line": count + 2, "code": r.UNKNOWN_CARD}]
    assert len(result.rejected.messages) == MESSAGES_KEPT
    assert result.rejected.counts() == {r.NOTHING_TO_UNDO: count, r.UNKNOWN_CARD: 1}
    text = format_standings(result)
    assert f"Rejected events ({count + 1}):" in text
    assert f"line {MESSAGES_KEPT + 1}: nothing_to_undo: There is nothing to undo." in text
    assert f"line {MESSAGES_KEPT + 2}:" not in text
    assert f"... {count + 1 - MESSAGES_KEPT} more; all {count + 1} by code: nothing_to_undo {count}, " in text


@pytest.mark.parametrize("rejections", [0, 1, 3, 25_001])
def test_the_json_output_written_in_slices_is_json_dumps_byte_for_byte(rejections: int) -> None:
    result = replay_stream(io.BytesIO(record(*[b'{"type": "undo"}'] * rejections)))
    out = io.StringIO()
    result.write_json(out)
    assert out.getvalue() == json.dumps(result.to_json())


# --- the 1 MB bound on a line read in pieces ---------------------------------------------------------


def rejected(*lines: bytes) -> list[tuple[int, str]]:
    return [(x["line"], x["code"]) for x in replay_text(record(*lines).decode("utf-8")).to_json()["rejected"]]


def test_a_long_line_is_one_bad_event_and_the_lines_after_it_keep_their_numbers() -> None:
    long = b'{"type": "take", "card": "' + b"x" * (3 * MAX_LINE) + b'"}'
    assert rejected(long, b'{"type": "take", "card": "nope"}') == [(2, r.BAD_EVENT), (3, r.UNKNOWN_CARD)]


def test_long_blank_and_comment_lines_are_skipped() -> None:
    assert rejected(b" " * (3 * MAX_LINE), b"  # " + b"x" * (3 * MAX_LINE), b'{"type": "undo"}') == [
        (4, r.NOTHING_TO_UNDO)
    ]


def test_blanks_around_an_object_do_not_count_towards_its_megabyte() -> None:
    padded = b" " * (2 * MAX_LINE) + b'{"type": "undo"}' + b"\t" * (2 * MAX_LINE) + b"\r"
    split = b'{"type": "take", ' + b" " * (2 * MAX_LINE) + b'"card": "c7"}'  # blanks inside count
    exact = b'{"type": "take", "card": "' + b"y" * (MAX_LINE - 28) + b'"}'  # 1 MB exactly, then \r\n
    assert len(exact) == MAX_LINE
    assert rejected(padded, split, exact + b"\r") == [
        (2, r.NOTHING_TO_UNDO),
        (3, r.BAD_EVENT),
        (4, r.UNKNOWN_CARD),
    ]


def test_the_megabyte_bound_is_exact_when_the_line_is_read_in_pieces() -> None:
    """Blanks in front push the line past the first read: its content is measured all the same."""
    exact = b'{"type": "take", "card": "' + b"y" * (MAX_LINE - 28) + b'"}'
    over = exact[:-2] + b'y"}'
    assert (len(exact), len(over)) == (MAX_LINE, MAX_LINE + 1)
    pad = b" \t" * 40
    assert rejected(pad + exact + pad, pad + over, pad + b"#" + over) == [
        (2, r.UNKNOWN_CARD),
        (3, r.BAD_EVENT),
    ]
