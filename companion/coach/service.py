"""The coach beside a running table: asked for, shown to the asking player's phone only.

The player to move asks from their phone, whose first ask claims that player's seat
(`companion.table.seats`); the answer goes to that phone alone, never into ``/api/state``.
"Coach for everyone" (a teaching game) answers every position for anyone. Advice never touches
the table's version (an Undo is never refused as stale because the coach spoke). A thread of
its own copies the position under the table's lock and plays the rollouts with no lock held;
an answer carries its position, so a past one is never shown. One pool at a time.
"""

from __future__ import annotations

import logging
import os
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.engine import Board
from companion.table import Outcome, Table
from companion.table.seats import Seats
from companion.util.processes import mem_available
from companion.util.text import name_key
from companion.util.wording import CodedError
from companion.util.wording import say as words

if TYPE_CHECKING:  # the rollouts and their pool load when the coach first works, not at start
    from companion.coach.chances import CoachPool


def raised_at(exc: BaseException) -> str:
    """`` at file.py:line`` where ``exc`` was raised (its last frame), or "" when unknown."""
    frames = traceback.extract_tb(exc.__traceback__)
    return f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""


class CoachRefused(CodedError, ValueError):
    """An ask the coach cannot answer (`companion.coach.service.CoachService.ask`): it is
    off, it is another player's turn, there is no card to choose now, or the seat is
    another phone's (or this phone holds another seat)."""


log = logging.getLogger("companion.coach.chances")

#: The answer's time budget: within 1 s on a Pi Zero 2 W with the pool's start and the
#: position's copy on top (see benchmarks/bench_coach.py).
SECONDS = 0.8
#: Rollouts per candidate at most: a fast machine stops here, well before the budget.
PER_CANDIDATE = 300
#: How long an ask waits for its answer before saying "still thinking" (the page asks again).
ASK_WAIT = 15.0
#: Asks waiting at once at most (each holds a server thread): more are told "thinking" at once.
ASK_WAITERS = 4


class CoachService:
    """The host's coach switch, the asks, and the thread that answers them."""

    def __init__(
        self,
        current: Callable[[], Table],
        seconds: float | None = SECONDS,
        per_candidate: int = PER_CANDIDATE,
        workers: int | None = None,
        say: Callable[[str], None] = print,
        assisted: Callable[[int], None] = lambda game: None,
        seats: Seats | None = None,
    ) -> None:
        self.current = current
        self.seconds, self.per_candidate, self.workers = seconds, per_candidate, workers
        self.say = say
        #: Marks a game assisted in the store (the runtime's `Store.mark_assisted`).
        self.assisted = assisted
        self.on = False
        #: A teaching game: every position answered unasked, shown to everyone.
        self.everyone = False
        self.lock = threading.Lock()
        #: Notified (under `lock`) whenever an answer is published or the coach stops.
        self.published = threading.Condition(self.lock)
        self.changed = threading.Event()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        #: The pool of the running thread (closed by the switch: one pool at a time).
        self.pool: CoachPool | None = None
        #: The latest answer: (table, stored events, advice as JSON).
        self.answer: tuple[Table, int, dict[str, Any]] | None = None
        #: The position someone asked about, still to answer: (table, stored events).
        self.wanted: tuple[Table, int] | None = None
        self.waiters = 0
        self.failed: str | None = None
        #: Games already marked assisted by this process.
        self.marked: set[int] = set()
        #: Which phone holds which player's seat (kept in the data directory by the runtime).
        self.seats = seats if seats is not None else Seats()

    def pool_workers(self) -> int:
        """The pool's size: as configured, or by the machine's cores and free memory."""
        if self.workers is not None:
            return self.workers
        from companion.coach.chances import pool_size

        return pool_size(os.cpu_count(), mem_available())

    # --- the switch -------------------------------------------------------------------

    def switch(self, on: bool, everyone: bool | None = None) -> None:
        """Turn the coach on (start its thread; the workers start there) or off (the workers
        are killed and reaped before this returns); ``everyone``: the teaching setting."""
        with self.lock:
            if on == self.on and everyone in (None, self.everyone):
                return
            if everyone is not None:
                self.everyone = everyone
            if on != self.on:
                self.on = on
                self.answer, self.failed, self.wanted = None, None, None
                if on:
                    self._start()
                else:
                    self._stop()
            self.changed.set()
            self.published.notify_all()
        self._redraw(self.current())

    def _start(self) -> None:
        """A new thread that first waits for the previous one (and its pool) to be gone."""
        self.stopping = threading.Event()
        self.thread = threading.Thread(
            target=self._run, args=(self.stopping, self.thread), name="coach", daemon=True
        )
        self.thread.start()

    def _stop(self) -> None:
        self.stopping.set()
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()  # its thread, waiting on it, sees CoachStopped and ends

    def stop(self) -> None:
        self.switch(False)
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)

    # --- what the table and the pages see ------------------------------------------------------

    def notify(self, table: Table, outcome: Outcome) -> None:
        """The table's listener: only a flag, so the input that changed it is no slower."""
        if self.on and self.everyone:
            self.changed.set()

    def view(self, table: Table) -> dict[str, Any]:
        """``coach`` in the table's snapshot (seen by everyone): the settings only, never advice."""
        return {"on": self.on, "everyone": self.on and self.everyone}

    def advice(self, phone: str | None, table: Table | None = None) -> dict[str, Any]:
        """The answer for the position on the table now, or what the coach is doing, as
        ``phone`` may see it (``GET /api/coach``): the advice, and whether the coach is
        thinking, only for the phone holding the seat of the player to move (for everyone's
        in a teaching game); any other phone, the host's too, is told ``private``."""
        table = table or self.current()
        with table.lock:  # the position and its mover together: a take meanwhile changes both
            seq, mover = table.seq, table.board.player_to_move
        with self.lock:
            status = self._status(table, seq)
            everyone = self.everyone
        if everyone or status.get("status") not in ("ready", "thinking"):
            return status
        if not self._holds(table, phone, status.get("player", mover)):  # an answer says whose it is
            return {"on": True, "status": "private"}
        return status

    def _holds(self, table: Table, phone: str | None, player: str | None) -> bool:
        """Whether ``phone`` holds ``player``'s seat in the game on ``table``."""
        seat = self.seats.seat_of(table.game_id, not table.board.finished, phone)
        return seat is not None and player is not None and name_key(seat) == name_key(player)

    def seat(self, phone: str | None) -> dict[str, Any]:
        """The seat ``phone`` holds (or None) and every seat a phone holds (names only)."""
        table = self.current()
        game, playing = table.game_id, not table.board.finished
        return {"seat": self.seats.seat_of(game, playing, phone), "seats": self.seats.held(game, playing)}

    def take_seat(self, player: str, phone: str) -> dict[str, Any]:
        """``phone`` takes ``player``'s seat before asking (at the table, when the phone joins):
        refused (`CoachRefused`) for someone who does not play the game on the table, a seat
        another phone holds, or a phone that holds another seat. The phone's seat and the seats."""
        table = self.current()
        with table.lock:
            names, finished, game = list(table.board.names), table.board.finished, table.game_id
        name = next((n for n in names if name_key(n) == name_key(player)), None)
        if name is None or finished:
            raise CoachRefused("coach_no_seat", player=player[:40])
        self._claim(game, name, phone)
        return self.seat(phone)

    def _claim(self, game: int, name: str, phone: str) -> None:
        """``phone`` holds ``name``'s seat afterwards, or `CoachRefused` says whose it is."""
        seat = self.seats.claim(game, True, name, phone)
        if seat is None:
            raise CoachRefused("coach_seat_taken", player=name)
        if name_key(seat) != name_key(name):
            raise CoachRefused("coach_other_seat", player=name, seat=seat)

    def release(self, player: str) -> bool:
        """The host frees ``player``'s seat (a lost phone): another phone may claim it by
        asking. Whether a phone held it."""
        table = self.current()
        return self.seats.release(table.game_id, not table.board.finished, player)

    def _status(self, table: Table, seq: int) -> dict[str, Any]:
        if not self.on:
            return {"on": False}
        if self.failed is not None:
            return {"on": True, "status": "failed", "detail": self.failed}
        if table.board.finished:
            return {"on": True, "status": "over"}
        answer = self.answer
        if answer is not None and answer[0] is table and answer[1] == seq:
            return {"on": True, "status": "ready", "game": table.game_id, "events": seq, **answer[2]}
        if self.everyone or self.wanted == (table, seq):
            return {"on": True, "status": "thinking"}
        return {"on": True, "status": "none"}

    def ask(self, player: str, phone: str, wait: float = ASK_WAIT) -> dict[str, Any]:
        """Advice for ``player``, who must be the one to move, asked from ``phone``: the
        phone claims the player's seat if it is free and the phone holds none; waits (at most
        ``wait`` s) for the answer for the position on the table now. Raises `CoachRefused`."""
        table = self.current()
        with table.lock:
            expect, seq = table.expect(), table.seq
        with self.lock:
            if not self.on:
                raise CoachRefused("coach_off")
            if expect is None or expect["kind"] != "take":
                raise CoachRefused("coach_nothing_to_choose")
            turn = expect["player"]
            if name_key(turn) != name_key(player):
                raise CoachRefused("coach_not_to_move", player=player[:40], turn=turn)
            if not self.everyone:
                self._claim(table.game_id, turn, phone)
            status = self._status(table, seq)
            if status.get("status") != "ready" and status.get("status") != "failed":
                self.wanted = (table, seq)
                self.changed.set()
                if self.waiters < ASK_WAITERS:
                    self.waiters += 1
                    try:
                        self.published.wait_for(
                            lambda: (
                                self._status(table, seq).get("status") != "thinking"
                                or table.seq != seq
                                or self.current() is not table
                            ),
                            wait,
                        )
                    finally:
                        self.waiters -= 1
                status = self._status(table, seq)
            if table.seq != seq or self.current() is not table:
                return {"on": self.on, "status": "moved"}
            return status

    # --- the thread -----------------------------------------------------------------------------

    def _target(self) -> Table | None:
        """The table whose position is to answer now, or None: every one in a teaching
        game, else only one somebody asked about."""
        table = self.current()
        with self.lock:
            if self.everyone or self.wanted == (table, table.seq):
                return table
        return None

    def _run(self, stopping: threading.Event, previous: threading.Thread | None) -> None:
        if previous is not None:
            previous.join()  # one pool at a time: the previous thread has closed its own
        from companion.coach.chances import CoachPool, CoachStopped

        pool: CoachPool | None = None
        edition = None
        done: tuple[Table, int] | None = None  # the position answered last
        try:
            while not stopping.is_set():
                # woken by an ask or (teaching) the table's listener; and once a second, for
                # a table that changed without an input (a new game, a restart's resume)
                self.changed.wait(1.0)
                self.changed.clear()
                if stopping.is_set():
                    break
                table = self._target()
                if table is None or (done is not None and done[0] is table and done[1] == table.seq):
                    continue
                with table.lock:  # a copy of the position: a few tuples, the lock held briefly
                    seq, board = table.seq, table.board
                    setup, state, finished = board.setup, board.snapshot(), board.finished
                done = (table, seq)
                if finished:
                    continue
                if pool is None or edition is not setup.edition:
                    if pool is not None:
                        pool.release()
                    edition = setup.edition
                    workers = self.pool_workers()
                    pool = CoachPool(edition, workers)
                    with self.lock:
                        if stopping.is_set():
                            break
                        self.pool = pool
                position = Board.from_snapshot(setup, state)
                advice = pool.evaluate(position, self.per_candidate, self.seconds)
                with self.lock:
                    if stopping.is_set():
                        break
                    self.answer = (table, seq, advice.to_json())
                    if self.wanted == (table, seq):
                        self.wanted = None
                    self.published.notify_all()
                self._mark(table)
        except CoachStopped:
            pass
        except Exception as exc:  # the coach is advice: its failure must never touch the game
            with self.lock:
                self.failed = f"{type(exc).__name__}: {exc}"
                self.published.notify_all()
            # one line on the console, the error and where, as every failure is said
            self.say(words("coach_stopped", error=f"{self.failed}{raised_at(exc)}"))
        finally:
            if pool is not None:
                pool.release()
            with self.lock:
                if self.pool is pool:
                    self.pool = None

    def _mark(self, table: Table) -> None:
        """The game is assisted from its first answer on (told to the store once)."""
        game = table.game_id
        if game in self.marked:
            return
        try:
            self.assisted(game)
            self.marked.add(game)
        except Exception as exc:  # a full disk: the mark is tried again with the next answer
            log.warning("could not mark game %s assisted: %s", game, exc)

    def _redraw(self, table: Table) -> None:
        """A new snapshot for live pages: the switch's settings changed (never for an answer)."""
        with table.lock:
            table.version += 1
        table.wake()
