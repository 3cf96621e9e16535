"""Reading a file someone named: only a regular file, and only up to a size, so ``/dev/zero``,
a pipe or a directory named on the command line is refused rather than read forever.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

#: An edition file (the contract's limit): the reference edition is about 60 KB.
EDITION_LIMIT = 16 * 1024 * 1024
#: A game record: a whole game is some 30 KB; fuzzed records with inline editions stay far below.
RECORD_LIMIT = 64 * 1024 * 1024


class FileRefused(OSError):
    """The file cannot be read as text; ``strerror`` says why in words for people."""


class NotUtf8(FileRefused):
    """The file is not UTF-8 text; ``line`` is where the first bad byte stands."""

    def __init__(self, line: int) -> None:
        super().__init__(0, "not a UTF-8 text file")
        self.line = line


def too_large(limit: int) -> FileRefused:
    """The refusal of a file or stream over ``limit`` bytes."""
    return FileRefused(0, f"larger than {limit // (1024 * 1024)} MB")


def open_regular(path: str | Path, limit: int, follow_links: bool = True) -> BinaryIO:
    """The regular file ``path`` opened for reading in binary, if it is at most ``limit`` bytes now.

    For a reader that streams it (a record is replayed line by line, in bounded memory):
    such a reader must still count what it reads, as the file may grow meanwhile.
    ``follow_links=False`` refuses a symbolic link too (files the companion itself
    names, where a link can only be someone's trick)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise FileRefused(exc.errno, "a link, not a regular file") from None
        raise FileRefused(exc.errno, exc.strerror or "cannot open it") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(0, "not a regular file (a device, a pipe or a folder cannot be read)")
        if info.st_size > limit:
            raise too_large(limit)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_text_file(path: str | Path, limit: int, follow_links: bool = True) -> str:
    """The UTF-8 text of the regular file ``path`` of at most ``limit`` bytes (see `open_regular`)."""
    chunks: list[bytes] = []
    size = 0
    with open_regular(path, limit, follow_links) as file:
        while chunk := file.read(1 << 20):  # a file growing while read is still cut off
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            chunks.append(chunk)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8(data[: exc.start].count(b"\n") + 1) from None
