"""The coach beside a running table: off until the host turns it on, never in a take's way.

When on, a thread of its own waits for the table to change. The table's listener only
sets a flag (a take is no slower with the coach on); the thread then copies the
position under the table's lock (a few small tuples), lets `companion.coach.CoachPool`'s
worker processes play the rollouts with no lock held, and publishes the answer with
the position it was computed for: the table's game and its count of stored events. The
page's snapshot (``coach`` in ``/api/state`` and the live stream) shows an answer only
while that is still the table's position, so an answer for a past position is never
shown; publishing bumps the table's version, so live pages redraw.

The switch is remembered for the running table (a new game from the page keeps it)
and is off again at every start.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from companion.coach import Advice, CoachPool, evaluate
from companion.engine import Board
from companion.table import Outcome, Table
from companion.wording import say as words

log = logging.getLogger("companion.coach")

#: The answer's time budget: within 1 s on a Pi Zero 2 W with the pool's start and the
#: position's copy on top (see benchmarks/bench_coach.py).
SECONDS = 0.8
#: Rollouts per candidate at most: a fast machine stops here, well before the budget.
PER_CANDIDATE = 300


class Pool(Protocol):
    def evaluate(self, board: Board, per_candidate: int, seconds: float | None) -> Advice: ...

    def close(self) -> None: ...


class InThread:
    """The coach's work in its own thread instead of processes (``workers=0``: tests, or a
    machine with one core)."""

    def evaluate(self, board: Board, per_candidate: int, seconds: float | None) -> Advice:
        return evaluate(board, per_candidate, seconds)

    def close(self) -> None:
        pass


class CoachService:
    """The host's coach switch and the thread that answers after each change."""

    def __init__(
        self,
        current: Callable[[], Table],
        seconds: float | None = SECONDS,
        per_candidate: int = PER_CANDIDATE,
        workers: int | None = None,
        say: Callable[[str], None] = print,
    ) -> None:
        self.current = current
        self.seconds, self.per_candidate, self.workers = seconds, per_candidate, workers
        self.say = say
        self.on = False
        self.lock = threading.Lock()
        self.changed = threading.Event()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        #: The latest answer: (table, stored events, advice as JSON).
        self.answer: tuple[Table, int, dict[str, Any]] | None = None
        self.failed: str | None = None

    # --- the switch -------------------------------------------------------------------

    def switch(self, on: bool) -> None:
        """Turn the coach on (start its thread; the worker processes start there) or off."""
        with self.lock:
            if on == self.on:
                return
            self.on = on
            self.answer, self.failed = None, None
            if on:
                self.stopping = threading.Event()
                self.thread = threading.Thread(
                    target=self._run, args=(self.stopping,), name="coach", daemon=True
                )
                self.thread.start()
                self.changed.set()
            else:
                self.stopping.set()
                self.changed.set()
        self._redraw(self.current())

    def stop(self) -> None:
        self.switch(False)

    # --- what the table and the page see ------------------------------------------------------

    def notify(self, table: Table, outcome: Outcome) -> None:
        """The table's listener: only a flag, so the input that changed it is no slower."""
        if self.on:
            self.changed.set()

    def view(self, table: Table) -> dict[str, Any]:
        """``coach`` in the table's snapshot (called under the table's lock): the answer for
        this very position, or what the coach is doing."""
        if not self.on:
            return {"on": False}
        answer = self.answer
        if self.failed is not None:
            return {"on": True, "status": "failed", "detail": self.failed}
        if table.board.finished:
            return {"on": True, "status": "over"}
        if answer is None or answer[0] is not table or answer[1] != table.seq:
            return {"on": True, "status": "thinking"}
        return {"on": True, "status": "ready", "events": answer[1], **answer[2]}

    # --- the thread -----------------------------------------------------------------------------

    def _run(self, stopping: threading.Event) -> None:
        pool: Pool | None = None
        edition = None
        done: tuple[Table, int] | None = None  # the position answered last
        try:
            while not stopping.is_set():
                # woken by the table's listener; and once a second, for a table that changed
                # without an input (a new game started from the page, a restart's resume)
                self.changed.wait(1.0)
                self.changed.clear()
                if stopping.is_set():
                    break
                table = self.current()
                if done is not None and done[0] is table and done[1] == table.seq:
                    continue
                with table.lock:  # a copy of the position: a few tuples, the lock held briefly
                    seq, board = table.seq, table.board
                    setup, state, finished = board.setup, board.snapshot(), board.finished
                done = (table, seq)
                if finished:
                    self._redraw(table)
                    continue
                if pool is None or edition is not setup.edition:
                    if pool is not None:
                        pool.close()
                    edition = setup.edition
                    pool = InThread() if self.workers == 0 else CoachPool(edition, self.workers)
                position = Board.from_snapshot(setup, state)
                advice = pool.evaluate(position, self.per_candidate, self.seconds)
                if stopping.is_set():
                    break
                self.answer = (table, seq, advice.to_json())
                self._redraw(table)
        except Exception as exc:  # the coach is advice: its failure must never touch the game
            log.exception("coach failed")
            self.failed = f"{type(exc).__name__}: {exc}"
            self.say(words("coach_stopped", error=self.failed))
            self._redraw(self.current())
        finally:
            if pool is not None:
                pool.close()

    def _redraw(self, table: Table) -> None:
        """A new snapshot for live pages (the answer is only shown if still current)."""
        with table.lock:
            table.version += 1
        table.wake()
