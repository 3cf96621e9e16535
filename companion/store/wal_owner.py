"""Whose log is it? Tying a WAL to its database by content, before SQLite applies it.

SQLite applies any `-wal` beside a database whose frames are self-consistent: nothing in the
log names the database it was written for (https://sqlite.org/fileformat.html, "The WAL file
format"), so another store's log, or a crashed run's log beside a restored backup, would be
applied silently. File sizes and times cannot tie them (`cp -r` and `touch` change those), so
the tie is kept in the contents: the database's ``identity`` row holds a store id and a *base*
drawn at each opening and written straight into the database file; every log carries that row,
and the seal beside the database (`seal_path`) ties a log whose first commit was cut before it.

Before opening, a log SQLite would apply is probed on private copies (`probe`): one that names
another store or does not fit is "foreign", one written on another base is "restored"; either
is moved aside with a copy of the database and the owner told. Only the standard library.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import sqlite3
import struct
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from companion.store.private_files import write_private
from companion.store.wal import MAGIC_BE, MAGIC_LE, MASK, WAL_HEADER, lost_commits
from companion.util.files import read_text_file

SEAL_LIMIT = 4096

#: The identity row's table (in `companion.store.log.SCHEMA` too).
IDENTITY_TABLE = """
CREATE TABLE IF NOT EXISTS identity (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    store   TEXT NOT NULL,           -- this store's id, drawn once
    base    TEXT NOT NULL,           -- drawn at each opening and in each backup, in the file itself
    log     TEXT NOT NULL DEFAULT '' -- the salts of the log this row was last written in
);
"""


class Identity(NamedTuple):
    """A database's identity row as a file holds it."""

    store: str
    base: str
    #: The salts of the log the row was last written in (`salts_text`), or "".
    log: str


def new_token() -> str:
    """A store id or a base: 128 random bits in hex."""
    return secrets.token_hex(16)


def salts_text(salts: tuple[int, int] | list[int] | None) -> str:
    """A log's salts as the identity row and the seal keep them."""
    return "" if salts is None else f"{salts[0]:08x}{salts[1]:08x}"


def read_identity(db: sqlite3.Connection) -> Identity | None:
    """``db``'s identity row, or None (a store from before identities, or unreadable)."""
    try:
        row = db.execute("SELECT store, base, log FROM identity WHERE one = 1").fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else Identity(str(row[0]), str(row[1]), str(row[2] or ""))


def rebase(db: sqlite3.Connection) -> Identity | None:
    """Draw a new base for the database of ``db`` (its store id drawn too if it has none),
    written straight into the database file: the log is checkpointed and the file taken out
    of WAL mode for that one write (a rollback journal keeps it whole), then put back. So a
    log started after it, and only such a log, is written on top of this base. Needs the
    database to itself: when another connection has it open (another command reading), the
    base is left as it is (None) and the seal still ties this run's log."""
    try:
        if str(db.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower() != "delete":
            return None
        try:
            known = read_identity(db)
            now = Identity(known.store if known else new_token(), new_token(), "")
            db.execute("INSERT OR REPLACE INTO identity (one, store, base, log) VALUES (1, ?, ?, '')",
                       (now.store, now.base))  # fmt: skip
            return now
        finally:
            db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError:  # locked by another connection: nothing was changed
        return None


# --- the seal ----------------------------------------------------------------------------


def seal_path(database: Path) -> Path:
    """Where the seal of ``database``'s log is kept."""
    return database.with_name(database.name + "-seal")


def wal_salts(database: Path | str) -> tuple[int, int] | None:
    """The salts in the header of ``database``'s log, or None (no log, or no header yet), read
    with the system's own calls: a buffered file object would cost most of the seal's check."""
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
    return salts_in(header)


def salts_in(header: bytes) -> tuple[int, int] | None:
    """The salts of a log's first `WAL_HEADER` bytes, or None (no header yet, or not a log's)."""
    if len(header) < WAL_HEADER or int.from_bytes(header[:4], "big") not in (MAGIC_LE, MAGIC_BE):
        return None
    salt1, salt2 = struct.unpack(">2I", header[16:24])
    return salt1, salt2


class Seal(NamedTuple):
    """The tie kept beside a database: its store id and base, and its log's salts ("open":
    the log has no header yet; None: the store closed cleanly, SQLite removed its log)."""

    store: str
    base: str
    wal: tuple[int, int] | str | None


def seal_now(database: Path | str, identity: Identity, closed: bool = False) -> Seal:
    """The seal for ``database`` (whose identity row is ``identity``) as it is now (``closed``:
    its last connection has closed)."""
    salts = wal_salts(database)
    wal: tuple[int, int] | str | None = salts if salts is not None else (None if closed else "open")
    return Seal(identity.store, identity.base, wal)


def write_seal(database: Path, seal: Seal) -> bool:
    """Keep ``seal`` (a temporary file renamed over the old one). A disk that refuses (full)
    gets no seal at all rather than a stale one: without a seal, the log's own identity row
    and the database are compared alone. Removing a file needs no space. Returns whether the
    seal was kept."""
    path = seal_path(database)
    wal = list(seal.wal) if isinstance(seal.wal, tuple) else seal.wal
    try:
        write_private(path, json.dumps({"store": seal.store, "base": seal.base, "wal": wal}).encode())
        return True
    except OSError:
        for stale in (path.with_name(path.name + ".new"), path):
            with contextlib.suppress(OSError):
                stale.unlink(missing_ok=True)
        return False


def read_seal(database: Path) -> Seal | None:
    """The seal kept for ``database``, or None (none kept, an older companion's, or damaged)."""
    try:
        text = read_text_file(seal_path(database), SEAL_LIMIT, follow_links=False)
        kept = json.loads(text)
        store, base, wal = kept["store"], kept["base"], kept["wal"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    if not (isinstance(store, str) and isinstance(base, str)):
        return None
    if isinstance(wal, list) and len(wal) == 2 and all(isinstance(s, int) for s in wal):
        return Seal(store, base, (wal[0] & MASK, wal[1] & MASK))
    return Seal(store, base, wal) if wal is None or wal == "open" else None


# --- comparing a log with its database ------------------------------------------------------


class Probe(NamedTuple):
    """The database and its log as private copies show them, SQLite's own reading of both."""

    #: The database file alone: its identity row (None: it has none).
    alone: Identity | None
    #: The database with the log applied: its identity row.
    applied: Identity | None
    #: Whether the database with the log applied passes SQLite's quick check.
    fits: bool


def _look(copy: Path, check: bool) -> tuple[Identity | None, bool]:
    with contextlib.closing(sqlite3.connect(copy, isolation_level=None)) as db:
        identity = read_identity(db)
        fits = not check or [r[0] for r in db.execute("PRAGMA quick_check(1)")] == ["ok"]
        return identity, fits


def probe(database: Path) -> Probe | None:
    """Copy ``database`` into a private folder and read it alone, then with its log beside it
    (SQLite applies the log to the copy only). None when no copy could be made (a full disk):
    then only the seal decides."""
    wal = database.with_name(database.name + "-wal")
    try:
        with tempfile.TemporaryDirectory(prefix="companion-probe-") as folder:
            copy = Path(folder) / "probe.sqlite3"
            shutil.copyfile(database, copy)
            alone, _ = _look(copy, check=False)
            for suffix in ("-wal", "-shm"):  # the copy's own, left by its connection
                copy.with_name(copy.name + suffix).unlink(missing_ok=True)
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
            applied, fits = _look(copy, check=True)
            return Probe(alone, applied, fits)
    except (OSError, sqlite3.Error):
        return None


def stranger(database: Path) -> str | None:
    """Whether the log beside ``database`` is not the one written on top of it: "foreign"
    (another store's log, or one that does not fit this database), "restored" (this store's
    log, written on top of another copy of it: the database was put back from a backup), or
    None (it belongs, there is none SQLite would apply, or nothing tells)."""
    wal = database.with_name(database.name + "-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if lost_commits(data).good == 0 or in_use(database):  # nothing to apply, or a live log
        return None
    salts = salts_in(data[:WAL_HEADER])
    found = probe(database)
    alone = found.alone if found else None
    if found is not None and alone is not None and found.applied is not None:
        if found.applied.store != alone.store:  # the log carries another store's row
            return "foreign"
        if found.applied.log == salts_text(salts) and salts is not None:  # it carries its own
            return None if found.applied.base == alone.base else "restored"
    if found is not None and not found.fits:  # its pages break the database: not written on it
        return "foreign"
    return _by_seal(database, salts, alone)


def _by_seal(database: Path, salts: tuple[int, int] | None, alone: Identity | None) -> str | None:
    """`stranger` for a log that does not carry its identity row (its first commit was cut
    before the row was written, or an older companion wrote it): the seal tells."""
    seal = read_seal(database)
    if seal is None or alone is None or salts is None:
        return None
    same_db = (seal.store, seal.base) == (alone.store, alone.base)
    if seal.wal is None:  # closed cleanly: no log was left
        return "foreign" if same_db else None
    if seal.wal == "open":  # no header yet when last sealed: the log started on this very base
        return None if same_db else "restored"
    assert isinstance(seal.wal, tuple)
    if salts == seal.wal or salts[0] == (seal.wal[0] + 1) & MASK:  # or started afresh, not resealed yet
        return None if same_db else "restored"
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
