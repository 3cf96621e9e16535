"""What goes wrong with a data directory, and how a full disk is told from damage.

A `StoreError` carries a code and its params (`companion.util.wording`): the console prints the
English catalogue's sentence, the page words the same code in its language. A full disk is a
fault that passes once space is freed (`DiskFull`), never damage: `disk_full` tells it from
SQLite's and the system's errors, on ext4 as the service's ordinary user too.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from companion.util.wording import CodedError


class StoreError(CodedError, RuntimeError):
    """The data directory or its database cannot be used (``params``: the paths, ids and the
    system's own error text as ``cause``); its sentence says what to do."""


class DiskFull(StoreError):
    """The disk of the data directory is full: nothing was written. Its code says what could
    not be done (``store_full_open``, ``_write``, ``_copy``, ``_start``); ``folder`` is where."""


SQLITE_FULL = 13

#: SQLite's I/O error family (extended codes keep it in their low byte): SQLITE_IOERR_SHMSIZE
#: and the like are how a full disk shows when the shared-memory index or a page cannot grow.
SQLITE_IOERR = 10
#: Less room than this, for the companion's user, is a full disk: SQLite needs a 32 KiB index
#: and a few pages to open a store.
ROOM_NEEDED = 256 * 1024


def no_room(folder: Path) -> bool:
    """Whether the disk holding ``folder`` has (nearly) no space left for this user: what an
    ordinary user sees, not root's (ext4 keeps 5 % for root, which is why root never sees it)."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < ROOM_NEEDED


def disk_full(exc: BaseException, folder: Path | None = None) -> bool:
    """Whether ``exc`` says the disk is full (SQLite's SQLITE_FULL, or ENOSPC from the system):
    a fault that passes once space is freed, not damage.

    With ``folder``, an I/O error while that folder's disk has no room is a full disk too: on
    ext4, as an ordinary user, SQLite says only "disk I/O error"."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        return exc.errno == errno.EIO and folder is not None and no_room(folder)
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code == SQLITE_FULL or "disk is full" in str(exc):
            return True
        io_error = (code is not None and code & 0xFF == SQLITE_IOERR) or "disk I/O error" in str(exc)
        return io_error and folder is not None and no_room(folder)
    return False
