"""Rate limits on the monotonic clock: at most N hits per key in any window of S seconds.

The `limits` library's in-memory storage times its windows by the wall clock only, so a clock
stepped back (NTP at boot, a Pi without a real-time clock) kept a lockout an hour longer.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

#: Keys (addresses) remembered at most: a flood from many addresses must not grow memory.
MAX_KEYS = 10_000


class SlidingWindow:
    """At most ``count`` hits per key in any ``seconds``; thread-safe."""

    def __init__(
        self,
        count: int,
        seconds: float,
        clock: Callable[[], float] | None = None,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.count, self.seconds, self.max_keys = count, seconds, max_keys
        self.clock = clock or time.monotonic
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        hits = self._hits.get(key)
        if hits is None:
            return deque()
        while hits and hits[0] <= now - self.seconds:
            hits.popleft()
        if not hits:
            del self._hits[key]
        return hits

    def test(self, key: str) -> bool:
        """Would one more hit for ``key`` be allowed now?"""
        with self._lock:
            return len(self._recent(key, self.clock())) < self.count

    def hit(self, key: str) -> bool:
        """Count one hit for ``key`` if it is allowed; False (nothing counted) if not."""
        with self._lock:
            now = self.clock()
            hits = self._recent(key, now)
            if len(hits) >= self.count:
                return False
            if key not in self._hits:
                if len(self._hits) >= self.max_keys:
                    self._forget_oldest(now)
                self._hits[key] = hits
            hits.append(now)
            return True

    def _forget_oldest(self, now: float) -> None:
        for key in list(self._hits):  # expired keys first, then the longest-known one
            self._recent(key, now)
        while len(self._hits) >= self.max_keys:
            del self._hits[next(iter(self._hits))]

    def reset(self) -> None:
        """Forget every hit."""
        with self._lock:
            self._hits.clear()
