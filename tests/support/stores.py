"""A stored game and the damage a failing SD card does to it: what the store's checksum tests
and the page's store-damage test both start from."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.engine import ChooseItinerary, Take
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.util.config import Config
from tests.support.tables import FAST_BUTTONS, make_runtime, play_turn


def start(path: Path, said: list[str] | None = None) -> Runtime:
    out = said if said is not None else []
    return build_runtime(Config(buttons=FAST_BUTTONS), path, mock=True, pin="2468", say=out.append)


def played(path: Path, turns: int = 40, seed: int = 21) -> list[tuple[int, str]]:
    """A game of ``turns`` inputs stored in ``path`` (closed: the log is in the database file);
    its stored (seq, event) rows."""
    rt = make_runtime(path, "Ann,Ben")
    rng = random.Random(seed)
    for _ in range(turns):
        if rt.table.expect() is None:  # the game is over
            break
        play_turn(rt, rng)
    rt.stop()
    return rows(path / "companion.sqlite3")


def rows(path: Path, table: str = "events", game: int = 1) -> list[tuple[int, str]]:
    """Game ``game``'s (seq, event) rows in ``table``."""
    with sqlite3.connect(path) as db:
        found = db.execute(f"SELECT seq, event FROM {table} WHERE game_id = ? ORDER BY seq", (game,))
        return [(int(r[0]), str(r[1])) for r in found]


def change_one_byte(path: Path, seq: int, old: str, new: str) -> str:
    """Change one byte of event ``seq`` in the database file itself (``old`` -> ``new``, one
    character each, inside the event's JSON), as a failing SD card would; return its new text."""
    assert len(old) == len(new) == 1
    before = dict(rows(path))[seq]
    data = bytearray(path.read_bytes())
    at = -1
    while True:  # the live copy of the row (a freed page may hold an older one)
        at = data.find(before.encode(), at + 1)
        assert at >= 0, "the row's text is in the file"
        spot = at + before.index(old)
        data[spot] = ord(new)
        path.write_bytes(bytes(data))
        if dict(rows(path))[seq] != before:
            return dict(rows(path))[seq]
        data[spot] = ord(old)


def take_seq(stored: list[tuple[int, str]], kind: type, after: int) -> int:
    """The first stored event of ``kind`` after ``after`` events."""
    name = {Take: "take", ChooseItinerary: "itinerary"}[kind]
    return next(seq for seq, text in stored if seq > after and json.loads(text)["type"] == name)


@contextmanager
def mounted(source: list[str], where: Path, what: str) -> Iterator[Path]:
    """``mount SOURCE WHERE`` for a test's span (unmounted lazily after): a disk of its own to
    fill; skipped, saying ``what`` could not be mounted and why, where this machine cannot."""
    done = subprocess.run(["mount", *source, str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"SKIPPED: cannot mount {what} here ({done.stderr.strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
