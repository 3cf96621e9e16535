"""Checking SQLite's write-ahead log before SQLite opens it.

When SQLite recovers a WAL file it keeps the frames up to the first one whose
checksum fails and silently drops every frame after it, committed or not. A
crash in the middle of a commit leaves such a tail legitimately (that event was
never acknowledged), but a damaged frame in the *middle* of the log drops
events that were acknowledged, and SQLite says nothing. This module reads the
log as SQLite will (the format is documented at https://sqlite.org/fileformat.html,
section "The WAL file format") and, when a committed transaction lies after the
first bad frame (and so was acknowledged: see `check_wal`), keeps a copy of the log
and returns a sentence for the owner.
"""

from __future__ import annotations

import shutil
import struct
from datetime import UTC, datetime
from pathlib import Path

WAL_HEADER = 32
FRAME_HEADER = 24
MAGIC_LE, MAGIC_BE = 0x377F0682, 0x377F0683
MASK = 0xFFFFFFFF


def _checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    """SQLite's WAL checksum over ``data`` (a multiple of 8 bytes), continuing from (s0, s1)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & MASK
        s1 = (s1 + words[i + 1] + s0) & MASK
    return s0, s1


def lost_commits(wal: bytes) -> tuple[int, int]:
    """(frames SQLite will keep, committed transactions it will drop) for a WAL file's bytes."""
    if len(wal) < WAL_HEADER:
        return 0, 0
    magic, _, page_size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", wal[:WAL_HEADER])
    if magic not in (MAGIC_LE, MAGIC_BE) or page_size < 512 or page_size & (page_size - 1):
        return 0, 1 if len(wal) > WAL_HEADER else 0
    big = magic == MAGIC_BE
    s0, s1 = _checksum(wal[:24], big, 0, 0)
    frame_size = FRAME_HEADER + page_size
    frames = (len(wal) - WAL_HEADER) // frame_size
    if (s0, s1) != (c1, c2):
        return 0, 1 if frames else 0
    good = 0
    for n in range(frames):
        at = WAL_HEADER + n * frame_size
        _, _, f1, f2, k1, k2 = struct.unpack(">6I", wal[at : at + FRAME_HEADER])
        if (f1, f2) != (salt1, salt2):
            break
        s0, s1 = _checksum(wal[at : at + 8], big, s0, s1)
        s0, s1 = _checksum(wal[at + FRAME_HEADER : at + frame_size], big, s0, s1)
        if (s0, s1) != (k1, k2):
            break
        good = n + 1
    dropped = 0
    for n in range(good + 1, frames):  # frames of this log generation past the first bad one
        at = WAL_HEADER + n * frame_size
        _, commit, f1, f2 = struct.unpack(">4I", wal[at : at + 16])
        if (f1, f2) == (salt1, salt2) and commit:
            dropped += 1
    return good, dropped


def check_wal(database: Path) -> str | None:
    """Before opening ``database``: if its WAL has committed transactions SQLite would drop,
    copy the WAL aside and return what to tell the owner; else None."""
    wal = database.with_name(database.name + "-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    good, dropped = lost_commits(data)
    if dropped < 2:
        # One commit past the bad frame is a crash in the middle of the last commit: with
        # synchronous=FULL the next transaction starts only after the previous one reached
        # the disk, so a torn last transaction was never acknowledged. Two or more were.
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    kept = wal.with_name(f"{wal.name}.damaged-{stamp}")
    shutil.copyfile(wal, kept)
    kept.chmod(0o600)
    return (
        f"the game store's journal {wal} is damaged after its first {good} pages: "
        f"{dropped} saved change{'s' if dropped != 1 else ''} after that cannot be read, so the game "
        f"resumes from an earlier point and the latest moves may be missing. A copy of the damaged "
        f"journal is kept at {kept}; keep it, it holds those moves."
    )
