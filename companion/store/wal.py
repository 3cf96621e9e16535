"""Checking SQLite's write-ahead log before SQLite opens it.

When SQLite recovers a WAL file it keeps the frames up to the first one whose
checksum fails and silently drops every frame after it, committed or not. A
crash in the middle of a commit leaves such a tail legitimately (that event was
never acknowledged), but a damaged frame in the *middle* of the log drops
events that were acknowledged, and SQLite says nothing. This module reads the
log as SQLite will (the format is documented at https://sqlite.org/fileformat.html,
section "The WAL file format") and, when it would drop a transaction that was
completely written (see `lost_commits`), keeps a copy of the log and returns a
sentence for the owner. A damaged header is worse: SQLite then ignores the whole log.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from companion.engine.words import plural
from companion.util.files import read_text_file

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
        changes = plural(self.dropped, "saved change")
        where = "its header" if self.header else f"its first {self.good} pages"
        wal = self.kept.with_name(self.kept.name.split(".damaged-")[0])
        return (
            f"the game store's journal {wal} is damaged after {where}: {changes} after that cannot be "
            f"read, so the game resumes from an earlier point and the latest moves may be missing. A "
            f"copy of the damaged journal is kept at {self.kept}; keep it, it holds those moves."
        )


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


# --- whose log is it? ----------------------------------------------------------------------------
#
# SQLite applies any WAL file it finds beside a database whose frames carry the log's own salts
# and checksums: nothing in the log names the database it was written for (the file-format doc:
# the WAL header holds a magic, the page size, a checkpoint counter, two salts and a checksum of
# itself; the database header holds no trace of its log). So a `-wal` copied from another
# companion's store silently turned the store into the other one, and a restored backup with a
# crashed run's log beside it was silently rolled forward (issue 21). The companion therefore
# keeps the tie itself: a seal beside the database (`seal_path`) holding the salts of the log it
# is writing (they change only when SQLite starts the log afresh after a checkpoint, so the seal
# is rewritten rarely) and the database file as that log continues it (size and modification
# time, which only a checkpoint changes); "open" before its log has a header, None once it
# closed cleanly (SQLite then removes the log).

SEAL_LIMIT = 4096


def seal_path(database: Path) -> Path:
    """Where the seal of ``database``'s log is kept."""
    return database.with_name(database.name + "-seal")


def wal_salts(database: Path | str) -> tuple[int, int] | None:
    """The salts in the header of ``database``'s log, or None (no log, or no header yet).

    Read with the system's own calls, not a Python file object: the seal is checked after
    every commit, and opening a buffered file cost nine tenths of it (issue 26)."""
    try:
        fd = os.open(f"{os.fspath(database)}-wal", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        header = os.pread(fd, WAL_HEADER, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    return _salts_in(header)


def _salts_in(header: bytes) -> tuple[int, int] | None:
    """The salts of a log's first `WAL_HEADER` bytes, or None (no header yet, or not a log's)."""
    if len(header) < WAL_HEADER or int.from_bytes(header[:4], "big") not in (MAGIC_LE, MAGIC_BE):
        return None
    salt1, salt2 = struct.unpack(">2I", header[16:24])
    return salt1, salt2


class KeptLog:
    """`wal_salts` of one database, its log kept open from one commit to the next (issue 26).

    Opening and closing the log after every commit were two of the seal's three system calls.
    The descriptor is read again while the file it holds is still linked (``st_nlink``): a log
    SQLite deleted (its connection closed: `Store` reconnects after a write-back) or one moved
    over it is opened again by its name, as `wal_salts` would find it. SQLite takes no lock on
    the log itself (its locks are on the database and the ``-shm``), so this descriptor, like
    `wal_salts`'s, never drops one when it closes."""

    def __init__(self, database: Path | str) -> None:
        self.path = f"{os.fspath(database)}-wal"
        self.fd: int | None = None

    def salts(self) -> tuple[int, int] | None:
        """What `wal_salts` reads now."""
        fd = self.fd
        if fd is not None:
            try:
                if os.fstat(fd).st_nlink > 0:
                    return _salts_in(os.pread(fd, WAL_HEADER, 0))
            except OSError:
                pass
            self.close()
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        self.fd = fd
        try:
            return _salts_in(os.pread(fd, WAL_HEADER, 0))
        except OSError:
            self.close()
            return None

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def db_print(database: Path | str) -> list[int] | None:
    """The database file as a log continues it: its size and modification time (ns)."""
    try:
        info = os.stat(database)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


Seal = tuple[object, list[int] | None]


def seal_now(database: Path | str, closed: bool = False, log: KeptLog | None = None) -> Seal:
    """The seal for ``database`` as it is now (``closed``: its last connection has closed;
    ``log``: its log as a `KeptLog`, else opened here)."""
    salts = wal_salts(database) if log is None else log.salts()
    if closed and salts is None:
        return None, db_print(database)
    return (list(salts) if salts is not None else "open"), db_print(database)


def write_seal(database: Path, seal: Seal) -> bool:
    """Keep ``seal`` (a temporary file renamed over the old one). A disk that refuses (full)
    gets no seal at all rather than a stale one, which would make the store's own log look
    foreign at the next start: without a seal nothing is told, and SQLite applies the log as
    before. Removing a file needs no space. Returns whether the seal was kept."""
    path = seal_path(database)
    temp = path.with_name(path.name + ".new")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"wal": seal[0], "db": seal[1]}, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
        return True
    except OSError:
        for stale in (temp, path):
            with contextlib.suppress(OSError):
                stale.unlink(missing_ok=True)
        return False


def read_seal(database: Path) -> Seal | None:
    """The seal kept for ``database``, or None (none kept: an older companion, or damaged)."""
    try:
        text = read_text_file(seal_path(database), SEAL_LIMIT, follow_links=False)
        kept = json.loads(text)
        wal, db = kept["wal"], kept["db"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    if not (wal is None or wal == "open" or (isinstance(wal, list) and len(wal) == 2)):
        return None
    return wal, db if isinstance(db, list) else None


def stranger(database: Path) -> str | None:
    """Whether the log beside ``database`` is not the one the companion left for it: "foreign"
    (another store's log, or one that appeared beside a store closed cleanly), "restored" (this
    store's log, but the database was replaced since: a restored backup), or None (it belongs,
    there is none SQLite would apply, or no seal tells)."""
    wal = database.with_name(database.name + "-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if lost_commits(data).good == 0 or in_use(database):  # nothing to apply, or a live log
        return None
    seal = read_seal(database)
    if seal is None:
        return None
    sealed, db = seal
    salts = wal_salts(database)
    same_db = db == db_print(database)
    if sealed is None:  # closed cleanly: no log was left
        return "foreign" if same_db else None
    if sealed == "open":  # no header yet when last sealed: the log started on this very file
        return None if same_db else "restored"
    assert isinstance(sealed, list) and salts is not None
    if list(salts) == sealed:
        return None if same_db else "restored"
    if salts[0] == (int(sealed[0]) + 1) & MASK:  # started afresh after a checkpoint, not resealed yet
        return None
    return "foreign" if same_db else None  # both files replaced together: nothing to tell


def in_use(database: Path) -> bool:
    """Whether a connection (another program's) has ``database``'s log open now: every SQLite
    connection in WAL mode holds a lock on the ``-shm`` index, which ``/proc/locks`` lists by
    device and inode. Read, never locked here: a lock taken and dropped by this process would
    drop SQLite's own locks on that file too (POSIX locks are per process)."""
    try:
        info = database.with_name(database.name + "-shm").stat()
        locks = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    return any(device in line.split() for line in locks.splitlines())


class Stranger(NamedTuple):
    """A log that does not belong to its database, set aside before SQLite could apply it."""

    #: "foreign" or "restored" (see `stranger`).
    kind: str
    #: Where the log is now (moved aside, so SQLite never applies it).
    journal: Path
    #: A copy of the database as it was found beside it.
    copy: Path


def set_stranger_aside(database: Path) -> Stranger | None:
    """Before opening ``database``: a log that is not its own (`stranger`) is moved aside with
    its index, and the database copied beside it, so that neither is changed; else None."""
    kind = stranger(database)
    if kind is None:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    wal = database.with_name(database.name + "-wal")
    journal = wal.with_name(f"{wal.name}.{kind}-{stamp}")
    copy = database.with_name(f"{database.name}.before-{kind}-journal-{stamp}")
    shutil.copyfile(database, copy)
    copy.chmod(0o600)
    os.replace(wal, journal)
    database.with_name(database.name + "-shm").unlink(missing_ok=True)  # SQLite rebuilds it
    return Stranger(kind, journal, copy)
