"""What Linux's /proc says about a process tree: the tests and benchmarks count a daemon's
descendants, their memory and CPU time from the kernel's own figures rather than from what
the code believes it started. Each answers "nothing known" (None, zero, empty) for a process
that has gone.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


def parent_of(pid: int) -> int | None:
    """The parent's pid as the kernel has it (after the command name, which may hold spaces)."""
    try:
        stat = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 2 or fields[0] == b"Z":  # a zombie holds no memory and is about to go
        return None
    return int(fields[1])


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (0 if it has gone)."""
    try:
        stat = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return 0.0
    fields = stat[stat.rfind(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (children, their children...), from /proc."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(PROC):
            if entry.name.isdigit():
                parent = parent_of(int(entry.name))
                if parent is not None:
                    children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@dataclass(frozen=True)
class Memory:
    """Resident (RSS) and proportional (PSS: shared pages divided among their users) memory, in kB."""

    rss: int = 0
    pss: int = 0

    def __add__(self, other: Memory) -> Memory:
        return Memory(self.rss + other.rss, self.pss + other.pss)


def memory(pid: int) -> Memory:
    """A process's RSS and PSS from /proc/PID/smaps_rollup (zero if it has gone)."""
    rss = pss = 0
    try:
        with open(PROC / str(pid) / "smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return Memory(rss, pss)


def tree_memory(pid: int) -> tuple[Memory, int]:
    """The memory of ``pid`` and all its descendants together, and how many descendants."""
    below = descendants(pid)
    total = memory(pid)
    for child in below:
        total = total + memory(child)
    return total, len(below)
