"""The data directory and its files, readable by their owner only.

The database holds names and the hosts' sessions: the directory is 0700 and the files 0600,
a directory made by hand or by an older companion tightened to it (never a shared one).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def make_private(path: Path) -> None:
    """Make an existing file readable by its owner only (the database holds names and sessions)."""
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    except OSError:  # not ours, or gone: SQLite will say so if it matters
        pass


def make_private_dir(folder: Path) -> None:
    """Make an existing data directory ours only (0700), as a new one is made: one made
    by hand, or by an older companion, is often 0755. Only a directory we own, and never a
    shared one (a sticky bit, as /tmp has), the home directory or the root."""
    try:
        info = folder.stat()
        if (
            info.st_uid == os.geteuid()
            and info.st_mode & 0o077
            and not info.st_mode & stat.S_ISVTX
            and folder.resolve() not in (Path.home().resolve(), Path("/"))
        ):
            folder.chmod(0o700)
    except (OSError, RuntimeError):  # not ours, or gone, or no home: SQLite will say so if it matters
        pass


def write_private(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all, readable by the owner only (0600): a temporary file
    beside it, flushed to disk, then renamed over it. A crash leaves the old file or the new."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".new")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)
