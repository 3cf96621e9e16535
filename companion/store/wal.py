"""Checking SQLite's write-ahead log before SQLite opens it.

SQLite's recovery silently drops every frame after the first bad checksum: after a crash that
is the unacknowledged last commit, but damage in the middle drops acknowledged events. The log
is read as SQLite will read it (https://sqlite.org/fileformat.html, "The WAL file format") and
a log that would lose a complete transaction (`lost_commits`) is copied aside and said.
"""

from __future__ import annotations

import shutil
import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from companion.util.wording import say

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


class WalReading(NamedTuple):
    """What SQLite will make of a WAL file when it recovers it."""

    #: Frames it reads, in order, before the first damaged one (all of them if none is).
    good: int
    #: Committed transactions at or after the damage, which it drops.
    dropped: int
    #: Whether one of those was completely written (so acknowledged), rather than only a
    #: torn last commit, and the owner must be told.
    written: bool
    #: Whether the damage is in the log's header (SQLite then ignores the whole log).
    header: bool


def _valid_size(size: int) -> bool:
    return 512 <= size <= 65536 and not size & (size - 1)


def lost_commits(wal: bytes, page_size: int = 0) -> WalReading:
    """How SQLite will recover a WAL file's bytes; ``page_size`` is the database's own page
    size (the log's copy of it is in its header, which may be the damaged part).

    The rule: with synchronous=FULL a transaction's frames are written and synced before
    the next one starts, and the header is synced before the first frame. So a crash
    leaves at most the *last* transaction torn, never acknowledged: a normal crash. Damage
    is anything else SQLite drops: a commit past the first bad frame that later frames of
    the log follow (that transaction was finished before the next one began), or a
    damaged header followed by real frames."""
    if len(wal) < WAL_HEADER:
        return WalReading(0, 0, False, False)
    magic, _, size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", wal[:WAL_HEADER])
    known = magic in (MAGIC_LE, MAGIC_BE)
    header_ok = known and _valid_size(size) and _checksum(wal[:24], magic == MAGIC_BE, 0, 0) == (c1, c2)
    if header_ok or not _valid_size(page_size):
        page_size = size
    if not _valid_size(page_size):  # a damaged header, and no database to tell the frame size
        return WalReading(0, 0, False, True)
    frame_size = FRAME_HEADER + page_size
    frames = (len(wal) - WAL_HEADER) // frame_size
    heads = [struct.unpack_from(">6I", wal, WAL_HEADER + n * frame_size) for n in range(frames)]
    endians = [magic == MAGIC_BE] if known else [False, True]

    def checks(n: int, start: tuple[int, int], big: bool) -> bool:
        """Does frame ``n``'s checksum, continued from ``start``, match the one it stores?"""
        at = WAL_HEADER + n * frame_size
        s0, s1 = _checksum(wal[at : at + 8], big, *start)
        return _checksum(wal[at + FRAME_HEADER : at + frame_size], big, s0, s1) == heads[n][4:6]

    good = 0
    if header_ok:
        s0, s1 = c1, c2
        for n, (page, _, f1, f2, k1, k2) in enumerate(heads):
            if (f1, f2) != (salt1, salt2) or page == 0 or not checks(n, (s0, s1), endians[0]):
                break
            s0, s1, good = k1, k2, n + 1
        salt = (salt1, salt2)
    elif any(head[2:4] == (salt1, salt2) for head in heads) or not heads:
        salt = (salt1, salt2)
    else:  # the header's salt is the damaged part: the frames tell this log's
        salt = heads[0][2:4]
    tail = [n for n in range(good, frames) if heads[n][2:4] == salt]  # this log's frames SQLite drops
    commits = [n for n in tail if heads[n][1]]
    written = any(n < tail[-1] for n in commits)
    if not header_ok and not written:  # one transaction only: is its commit frame intact?
        written = any(
            checks(n, (c1, c2) if n == 0 else heads[n - 1][4:6], big) for n in commits for big in endians
        )
    return WalReading(good, len(commits), written, not header_ok and frames > 0)


class WalDamage(NamedTuple):
    """A damaged WAL found before opening: what SQLite drops, and where the copy is."""

    #: Committed transactions SQLite drops (saved changes the owner may miss).
    dropped: int
    #: Frames read before the damage (0 with a damaged header).
    good: int
    #: Whether the damage is in the log's header (SQLite then ignores the whole log).
    header: bool
    #: The copy of the damaged log, kept beside it.
    kept: Path

    def __str__(self) -> str:
        """The owner's sentence, the catalogue's (``store_wal_damaged``, its ``header`` form
        when the damage is in the log's header)."""
        wal = self.kept.with_name(self.kept.name.split(".damaged-")[0])
        kind = "header" if self.header else ""
        return say("store_wal_damaged", kind=kind, wal=str(wal), dropped=self.dropped, good=self.good,
                   kept=str(self.kept))  # fmt: skip


def check_wal(database: Path) -> WalDamage | None:
    """Before opening ``database``: if its WAL holds completely written transactions SQLite
    would drop, copy the WAL aside and return what was found (its ``str`` is the sentence
    for the owner); else None (a torn last commit is a normal crash: never acknowledged)."""
    wal = database.with_name(database.name + "-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    try:
        with database.open("rb") as db:
            size = int.from_bytes(db.read(100)[16:18], "big")
    except OSError:
        size = 0
    reading = lost_commits(data, 65536 if size == 1 else size)
    if not reading.written:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    kept = wal.with_name(f"{wal.name}.damaged-{stamp}")
    shutil.copyfile(wal, kept)
    kept.chmod(0o600)
    return WalDamage(reading.dropped, reading.good, reading.header, kept)
