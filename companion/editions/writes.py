"""How the library writes: atomically, one writer at a time, and what a killed write left.

An edition file or the default's file holds the old content or the new, never half
(`atomic_write`: a temporary file of its own, fsync, ``os.replace``, the folder fsynced).
Reading, changing and writing back an edition holds the folder's lock (`folder_lock`), so
two changes at once both stay. A save killed between its temporary file and the rename
leaves that file behind for good; `remove_orphans` removes only those, and only when old.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

#: The temporary file `atomic_write` makes beside an edition or the default's file in the
#: library: ``.<file name>.<mkstemp's random part>.tmp``. Nothing else in the folder is removed.
_TEMPORARY = re.compile(r"\.(?:[a-z0-9-]{1,40}\.json|default-edition)\.[A-Za-z0-9_]{1,16}\.tmp")
#: A temporary file this old (seconds) is no live write's: a save takes milliseconds.
ORPHAN_AGE = 60.0


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` so that ``path`` holds the old content or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # a name of its own for each writer: two writers never share (or rename) one temporary file
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with open(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a full disk: the old file stays as it was
        raise
    try:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError:  # pragma: no cover - a filesystem without directory fsync
        pass


class _FolderLock:
    """One writer at a time in a library folder: a re-entrant lock for the threads of this
    process (the page's requests), and ``flock`` on the folder for other processes (the CLI
    while the table runs), taken by the outermost holder only."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.depth = 0
        self.fd: int | None = None

    @contextlib.contextmanager
    def held(self, folder: Path) -> Iterator[None]:
        with self.lock:
            if self.depth == 0:
                folder.mkdir(parents=True, exist_ok=True)
                fd = os.open(folder, os.O_RDONLY)
                with contextlib.suppress(OSError):  # a filesystem without flock: threads still wait
                    fcntl.flock(fd, fcntl.LOCK_EX)
                self.fd = fd
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
                if self.depth == 0 and self.fd is not None:
                    os.close(self.fd)  # closing releases the flock
                    self.fd = None


_FOLDER_LOCKS: dict[str, _FolderLock] = {}
_FOLDER_LOCKS_GUARD = threading.Lock()


def folder_lock(folder: Path) -> contextlib.AbstractContextManager[None]:
    """The one lock of a library folder (every request and command builds its own
    `EditionLibrary`, so the lock is kept per folder, by its absolute path)."""
    key = os.path.abspath(folder)
    with _FOLDER_LOCKS_GUARD:
        lock = _FOLDER_LOCKS.setdefault(key, _FolderLock())
    return lock.held(folder)


def remove_orphans(folder: Path, now: float) -> list[str]:
    """Remove ``folder``'s temporary files of saves that never finished (their name says
    so, and they are older than `ORPHAN_AGE` at ``now``); return their names. The caller
    holds the folder's lock."""
    removed: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if _TEMPORARY.fullmatch(entry.name) is None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < ORPHAN_AGE:
                    continue
                os.unlink(entry.path)
            except OSError:  # gone meanwhile, or a read-only disk: nothing to do about it
                continue
            removed.append(entry.name)
    return sorted(removed)
