"""The table's shared core: every input ends here, stored in one transaction before any
listener hears of it; if the disk refuses, the board is rebuilt from the stored log, so what
the table shows is exactly what a restart resumes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from companion.engine import Board, Event, Reveal, Take, Undo
from companion.engine.tokens import DAY_NAMES
from companion.records.trekking import game_result as game_result  # venue.hall takes it from here
from companion.store.log import DiskFull, Store, StoredGame, StoreError
from companion.table.dealer import Dealer
from companion.table.outcomes import (
    CUE_ACCEPT,
    CUE_BONUS,
    CUE_DAY_END,
    CUE_WINNER,
    Outcome,
    card_params,
    event_to_text,
    outcome,
    rejected,
)
from companion.table.stream import GameFinished, Stream, committed
from companion.table.turn import Armed, Pending, TurnState
from companion.util.wording import say as words
from companion.util.wording import took_text

Listener = Callable[[Any, Outcome], None]


def stored_result(game: StoredGame) -> dict[str, Any] | None:
    """`game_result` of a stored game replayed (the stream's catch-up); None if unfinished."""
    board = Board(game.setup)
    for event in game.events:
        board.push(event)
    return game_result(board) if board.finished else None


class CommittingTable:
    """The state of one game at the table and the one way it changes: stored, then shown."""

    store: Store
    game_id: int
    setup: Any
    meta: dict[str, Any]
    colours: list[str]
    log: Callable[[str], None]
    #: Every event stored for this game, in order: the board is this log replayed.
    stored: list[Event]
    board: Board
    seq: int
    pending: Pending | None
    #: Quick turn: (player, crystals) chosen with Crystal before tapping a card.
    armed: tuple[str, int] | None
    last: Outcome
    listeners: list[Listener]
    lock: threading.RLock
    #: Bumped on every input; live pages wait on `changed` and resend when it moves.
    version: int
    changed: threading.Condition
    dealer: Dealer | None
    #: The committed stream this table stages its stored events on (None: nobody follows).
    stream: Stream | None

    @contextmanager
    def committing(self) -> Iterator[None]:
        """Hold the table's lock for one input; once it is released, hand what it committed
        to the stream's hooks (never under the lock: a slow hook must not hold up a tap)."""
        try:
            with self.lock:
                yield
        finally:
            if self.stream is not None:
                self.stream.flush()

    def replay(self, warn: bool = False) -> Board:
        """A board with every stored event pushed: what a restart would show."""
        board = Board(self.setup)
        for event in self.stored:  # crash recovery: the same engine replays the log
            rejection = board.push(event)
            if rejection is not None and warn:
                self.log(words("journal_skipped", event=event_to_text(event), rejection=rejection.code))
        return board

    # --- committing -------------------------------------------------------------------

    def commit_take(self, take: Take, hours: int) -> Outcome:
        """Commit a take and say what it did (punctual, a Day's end, the winners). ``hours``:
        its cost, as the tap that chose it found it."""
        board = self.board
        day = board.day
        punctual = board.hour[board.turn] + hours - take.crystals == 12
        failed = self.push_and_store(take)
        if failed is not None:
            return failed
        board = self.board
        params: dict[str, Any] = {
            "player": take.player,
            "crystals": take.crystals,
            **self.card_params(take.card),
        }
        cue = CUE_ACCEPT
        if punctual:
            cue = CUE_BONUS
            params["punctual"] = True
        if board.finished:
            cue = CUE_WINNER
            params["winners"] = board.winners()
        elif board.day != day:
            cue = CUE_DAY_END
            params["day_over"] = DAY_NAMES[day - 1]
            params["day"] = DAY_NAMES[board.day - 1]
        if board.waiting_position() >= 0 and not board.finished:
            params["reveal"] = True
        return Outcome(True, took_text(params), cue, "took", params=params)

    def commit(self, event: Event, code: str = "done", **params: Any) -> Outcome:
        """Push ``event``, let the mock dealer reveal what it asks for, store it all at once.

        A committed event ends any take being prepared (the take itself, or a choice
        made instead of it)."""
        failed = self.push_and_store(event)
        return failed if failed is not None else outcome(code, **params)

    def push_and_store(self, event: Event) -> Outcome | None:
        """`commit` but its outcome: None once stored, else the refusal (a rejection, a store
        that failed). A take says more than "done" (`commit_take`): its words are its own."""
        rejection = self.board.push(event)
        if rejection is not None:
            return rejected(rejection)
        armed = self.armed
        if isinstance(event, (Take, Undo)):
            # crystals chosen before a tap belong to that one take (another player's
            # Itinerary or a reveal in between leaves them chosen)
            self.armed = None
        failed = self.store_events([event, *self.deal()], pending_after=None)
        if failed is not None:
            self.armed = armed
        return failed

    def store_events(
        self, events: list[Event], pending_after: Pending | bool | None = False
    ) -> Outcome | None:
        """Store ``events`` (already pushed on the board) in one transaction, with the
        finished flag and, unless ``pending_after`` is False, the pending take after them.

        On failure nothing was stored: the board is rebuilt from the stored log (what
        a restart would show) and the outcome says what went wrong and what to do."""
        pending = self.pending if pending_after is False else pending_after
        assert pending is None or isinstance(pending, Pending)
        try:
            rows = self.store.write_events(
                self.game_id,
                self.seq + 1,
                events,
                self.board.finished,
                self.kept(pending),
            )
        except StoreError as exc:
            self.board = self.replay()
            return self.store_failed(exc)
        self.stored += events
        self.seq += len(events)
        self.pending = pending
        stream = self.stream
        # told once the lock is released (`committing`); to nobody when nobody follows (no venue):
        # one who joins later reads what was committed before from the store (`Stream.subscribe`)
        if stream is not None and stream.subscriptions:
            for row in rows:
                stream.stage(committed(stream.table, row))
            if self.board.finished:
                stream.stage(GameFinished(stream.table, self.game_id, self.seq, game_result(self.board)))
        while self.store.notices:
            self.log(self.store.notices.pop(0))
        if self.dealer is not None:
            for event in events:
                if isinstance(event, Reveal):
                    c = self.board.edition.card(event.card)
                    self.log(words("journal_reveal", card=c.id, title=c.title, year=c.year, hours=c.hours))
        return None

    def kept(self, pending: Pending | None) -> dict[str, Any] | None:
        """What the store keeps beside the events: the take being prepared, or (quick turn)
        the crystals chosen before the tap; a restart resumes either."""
        if pending is not None:
            return pending.to_json()
        if self.armed is not None:
            return {"armed": [self.armed[0], self.armed[1]]}
        return None

    @property
    def turn_state(self) -> TurnState:
        """The turn's state: a take being prepared, crystals chosen before the tap, or neither."""
        if self.pending is not None:
            return self.pending
        return Armed(*self.armed) if self.armed is not None else None

    def hold(self, state: TurnState) -> None:
        """Keep the turn's ``state`` in memory (`set_turn` stores it first)."""
        self.pending = state if isinstance(state, Pending) else None
        self.armed = (state.player, state.crystals) if isinstance(state, Armed) else None

    def set_turn(self, state: TurnState) -> Outcome | None:
        """Change the turn's state (a take being prepared, crystals chosen before the tap, or
        neither), on disk first: a restart resumes it. Not fsynced: the next event's commit
        flushes it. On failure nothing changes and the outcome says why."""
        before = self.pending, self.armed
        self.hold(state)
        try:
            self.store.save_pending(self.game_id, self.kept(self.pending))
        except StoreError as exc:
            self.pending, self.armed = before
            return self.store_failed(exc)
        return None

    def store_failed(self, exc: StoreError) -> Outcome:
        text = str(exc)
        if isinstance(exc, DiskFull):
            return outcome("disk_full", error=text)
        # the store's own code and facts beside its English: a page words the cause in its language
        return outcome("store_error", error=text, store=exc.code, facts=dict(exc.params))

    def deal(self) -> list[Event]:
        """Mock mode: the simulated dealer reveals every card the row is waiting for
        (pushed on the board; the caller stores them with the event that asked)."""
        return [] if self.dealer is None else self.dealer.deal(self.board)

    # --- telling -----------------------------------------------------------------------

    def emit(self, outcome: Outcome) -> Outcome:
        """Make ``outcome`` the table's latest and show it to listeners (ring, console,
        pages): after every input, and for the runtime's refusal of a tag no card
        answers to. The caller holds `lock`."""
        self.last = outcome
        self.version += 1
        self.log(outcome.message if outcome.accepted else words("journal_refused", message=outcome.message))
        for listener in list(self.listeners):
            try:
                listener(self, outcome)
            except Exception as exc:  # the event is stored: a ring or console failure must not undo that
                self.log(words("journal_unshown", error=f"{type(exc).__name__}: {exc}"))
        self.wake()
        return outcome

    def wake(self) -> None:
        """Tell every live page waiting in `wait_for_change` to look at the version again."""
        with self.changed:
            self.changed.notify_all()

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until the table's version differs from ``version`` (or the timeout); return it."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != version, timeout)
            return self.version

    # --- words about cards ---------------------------------------------------------------

    def card_params(self, card: str) -> dict[str, Any]:
        return card_params(self.board.edition, card)
