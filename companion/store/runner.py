"""The one companion running on a store: a lock file the running companion holds.

`companion run` holds an exclusive ``flock`` on ``companion.lock`` in the data directory, its
process id written in it; commands that would change the game on the table (`companion new`)
find the lock held and refuse, naming that process. The lock goes with the process, however
it ends: a SIGKILLed companion leaves no stale lock. Only the standard library.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from companion.store.errors import StoreError


class RunnerLock:
    """The lock file of one data directory."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "companion.lock"
        #: The descriptor holding the lock, while this process holds it.
        self.fd: int | None = None

    def claim(self) -> None:
        """Hold the lock (this process is the companion running on the store), or raise the
        `StoreError` that names the one holding it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise self.refusal(self.holder() or 0) from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        except OSError:  # a full disk: the lock goes with the descriptor, or the retry finds it held
            os.close(fd)
            raise
        self.fd = fd

    def holder(self) -> int | None:
        """The process id of a companion holding the lock (0 when its file has none), or None."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                text = os.read(fd, 32).decode(errors="replace").strip()
                return int(text) if text.isascii() and text.isdigit() else 0
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def refusal(self, pid: int) -> StoreError:
        """The refusal when a companion runs on this store: its process id when the lock file has it."""
        if pid:
            return StoreError("store_running_pid", folder=str(self.folder), pid=pid)
        return StoreError("store_running", folder=str(self.folder))

    def refuse_if_held(self) -> None:
        """Raise `refusal` when a companion holds the lock."""
        pid = self.holder()
        if pid is not None:
            raise self.refusal(pid)

    def release(self) -> None:
        """Let the lock go (the companion stops)."""
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)
