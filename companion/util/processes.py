"""What Linux's /proc says about the machine's memory: the coach sizes its pool by the memory a
machine has free. None where /proc is not there.
"""

from __future__ import annotations


def mem_available() -> int | None:
    """The kernel's estimate of memory available for new work (MemAvailable, bytes), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
