"""A start-up step tried again while a fault that may pass lasts: a full disk, a port in use.

At boot the owner may be freeing space, or the program that held the port may be leaving:
`companion run` says once what it waits for and what to do, tries again every few seconds,
says when it works, and gives up after a while with an exit status systemd restarts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def retried(
    attempt: Callable[[], T],
    passing: Callable[[Exception], bool],
    retry_for: float,
    every: float,
    first: Callable[[Exception], None],
    back: Callable[[], None],
    wait: Callable[[float], bool],
    expired: Callable[[Exception], Exception] | None = None,
) -> T | None:
    """``attempt()``, tried again every ``every`` seconds while it raises a fault that may pass.

    A fault ``passing`` says may not pass is raised at once. ``first`` says the first fault
    (once, unless there is no time to try again), ``back`` that it worked after waiting.
    ``wait(every)`` waits, True when the caller stops waiting (then None). After ``retry_for``
    seconds the last fault is raised, or ``expired(fault)`` in its place."""
    deadline = time.monotonic() + retry_for
    waited = False
    while True:
        try:
            result = attempt()
        except Exception as exc:
            if not passing(exc):
                raise
            if not waited and retry_for > 0:
                first(exc)
            waited = True
            if time.monotonic() >= deadline:
                if expired is None:
                    raise
                raise expired(exc) from None
            if wait(every):
                return None
            continue
        if waited:
            back()
        return result


def sleep(seconds: float) -> bool:
    """`retried`'s ``wait`` when nothing stops the wait early."""
    time.sleep(seconds)
    return False
