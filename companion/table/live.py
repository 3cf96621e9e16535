"""The live table: taps and button presses in, accepted events and cues out.

`Table` turns a tap of a Departures Row card or an Ancestor into a take, a tap of an unseen
card into a reveal and a tap of an Itinerary into a choice; how crystals are spent is the
turn's state machine's (`companion.table.turn`). Everything accepted is stored before anyone
hears of it (`companion.table.commit`). All entry points hold one lock, because the reader
loop, gpiozero's callbacks and the web server run on their own threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from companion.engine import ChooseItinerary, Event, Reveal, Take, Undo
from companion.engine.tokens import ANCESTOR, DAY_NAMES
from companion.store.log import Store, StoredGame
from companion.table.dealer import Dealer
from companion.table.history import Corrections
from companion.table.outcomes import Outcome, event_params, outcome, rejected
from companion.table.snapshot import PROCESS, Snapshots, itinerary_player
from companion.table.stream import GameStarted, Stream
from companion.table.turn import (
    COMMIT,
    PASS,
    REJECT,
    TURN_STYLES,
    Confirm,
    Crystal,
    OtherTap,
    TakeTap,
    TurnInput,
    UndoPress,
    step,
)
from companion.table.turn_words import resume_turn, turn_outcome


class Table(Corrections, Snapshots):
    """One game at the table, with its store, its pending take and its listeners."""

    def __init__(
        self,
        store: Store,
        game: StoredGame,
        log: Callable[[str], None] = print,
        turn: str = "confirm",
        stream: Stream | None = None,
        started: bool = False,
    ) -> None:
        """``stream``: where its stored events are told (`companion.table.session.Session` passes its
        own); ``started``: the game was just stored, so the stream tells its start first."""
        if turn not in TURN_STYLES:
            raise ValueError(f"turn style {turn!r}: use one of {', '.join(TURN_STYLES)}")
        #: "quick": crystals are chosen before the tap; "confirm": after it, then Confirm.
        self.turn_style = turn
        self.armed = None
        self.store = store
        self.game_id = game.id
        self.setup = game.setup
        self.meta = game.meta
        self.colours = list(game.meta.get("colours", []))
        self.log = log
        self.stored = list(game.events)
        self.board = self.replay(warn=True)
        self.seq = len(game.events)
        self.pending = None
        welcome = {"game": self.game_id, "players": ", ".join(self.board.names)}
        self.last = outcome("welcome", **welcome)
        if game.pending is not None:  # a take being prepared, or crystals chosen, at the stop
            state, said = resume_turn(game.pending, self.board, welcome)
            self.hold(state)
            self.last = said or self.last
        self.listeners = []
        self.annotations = {}
        self.lock = threading.RLock()
        #: Bumped on every input; live pages wait on `changed` and resend when it moves.
        #: `changed` has its own lock, so that pages waking up after a change never
        #: queue for the table's lock while the input that changed it is still answered.
        self.version = 0
        self.changed = threading.Condition()
        seed = game.meta.get("dealer_seed")
        self.dealer = Dealer(self.board, int(seed)) if seed is not None else None
        self.stream = stream
        with self.committing():
            if started and stream is not None:
                format, setup = store.codec.format, game.setup_json
                stream.stage(GameStarted(stream.table, game.id, game.created, format, setup, game.sum))
            reveals = self.deal()
            if reveals:
                failed = self.store_events(reveals)
                if failed is not None:
                    self.last = failed

    # --- inputs ----------------------------------------------------------------------

    def tap(self, ref: str) -> Outcome:
        """A card was tapped on the reader (``ref`` is a card id, an itinerary id or "ancestor")."""
        with self.committing():
            return self.emit(self._tap(ref.strip()))

    def press(self, button: str) -> Outcome:
        """A button was pressed: "crystal", "confirm" or "undo" (undo is the held press)."""
        with self.committing():
            pressed = {"crystal": self._crystal, "confirm": self._confirm, "undo": self._undo}.get(button)
            return self.emit(outcome("no_button", button=button) if pressed is None else pressed())

    def _tap(self, ref: str) -> Outcome:
        board = self.board
        edition = board.edition
        if board.finished:
            return outcome("game_over")
        if self.pending is not None:  # the card being prepared again, or a change of mind
            answer = self._drive(OtherTap(ref))
            if answer is not None:
                return answer
        if ref in edition.itinerary_index:
            waiting = itinerary_player(self.board)
            if waiting is None:
                return outcome("itinerary_unavailable", why="all_chosen", day=DAY_NAMES[board.day - 1])
            return self.commit(
                ChooseItinerary(waiting, ref),
                "itinerary_chosen",
                player=waiting,
                itinerary=ref,
            )
        if ref == ANCESTOR:
            return self._start_take(ANCESTOR)
        index = edition.card_index.get(ref)
        if index is None:
            return outcome("unknown_card", why="tag", card=ref, edition=edition.name)
        if index in board.row:
            return self._start_take(ref)
        if board.setup.reveals and not board.revealed >> index & 1:
            card = edition.cards[index]
            if card.day == board.day and board.waiting_position() < 0:
                # a record's reveal with no gap in the row is an error of the record; at the
                # table it is a player reaching for a card still in the deck
                day = DAY_NAMES[board.day - 1]
                return outcome("card_not_available", why="in_deck", day=day, **self.card_params(ref))
            return self.commit(Reveal(ref), "revealed", **self.card_params(ref))
        rejection = board.push(Take(ref))
        assert rejection is not None, "a card neither in the row nor to reveal cannot be taken"
        return rejected(rejection)

    def _start_take(self, card: str) -> Outcome:
        board = self.board
        name = board.names[board.turn]
        # a card the player to move may take now (with no crystals) is one of its options, and
        # the only ones: the board's own check (a take applied and taken back) says why not
        option = next((o for o in board.take_options() if o.card == card), None)
        if option is None:
            rejection = board.check(Take(card))
            assert rejection is not None, "a take the board accepts is among its options"
            return rejected(rejection)
        tap = TakeTap(name, card, option.hours, option.max_crystals, board.hour[board.turn])
        answer = self._drive(tap)
        assert answer is not None, "a take is always the turn's to answer"
        return answer

    def awaited(self) -> tuple[str, str | None] | None:
        """What the table waits for next, as `expect` says it (its kind and player: None when
        the game is over) without the choices it lists, the take's options among them: the
        ring and the console read it after every input."""
        board = self.board
        if board.finished:
            return None
        if self.pending is not None:
            return "confirm", self.pending.player
        if board.waiting_position() >= 0:
            return "reveal", None
        waiting = itinerary_player(board)
        if waiting is not None:
            return "itinerary", waiting
        return "take", board.player_to_move

    # --- the turn's state machine (companion.table.turn), driven ---------------------------

    def _drive(self, event: TurnInput) -> Outcome | None:
        """Feed ``event`` to the turn's machine and do what its step says; None when the
        step passes the input on (nothing to answer yet)."""
        before = self.turn_state
        done = step(self.turn_style, before, event)
        if done.action == REJECT:
            return turn_outcome(done, self.board.edition)
        if done.action == COMMIT:
            assert done.take is not None and done.hours is not None
            return self.commit_take(done.take, done.hours)
        if done.state != before:
            failed = self.set_turn(done.state)
            if failed is not None:
                return failed
        return None if done.action == PASS else turn_outcome(done, self.board.edition)

    def _crystal(self) -> Outcome:
        board = self.board
        name = board.player_to_move
        needs_itinerary = name is not None and board.has_itineraries and board.itinerary[board.turn] < 0
        held = board.crystals[board.turn] if name is not None else 0
        answer = self._drive(Crystal(name, held, needs_itinerary))
        assert answer is not None, "Crystal is always the turn's to answer"
        return answer

    def _confirm(self) -> Outcome:
        answer = self._drive(Confirm())
        assert answer is not None, "Confirm is always the turn's to answer"
        return answer

    def _undo(self) -> Outcome:
        answer = self._drive(UndoPress())
        if answer is not None:  # a take being prepared cancelled, or crystals put back
            return answer
        moves = self.board.moves
        if not moves:
            return self.commit(Undo())  # the engine's own "nothing to undo"
        # Undo takes back what a person did. In mock mode the dealer's reveals are not
        # anyone's doing: they go with the take (or Day's end) that asked for them.
        count = 1
        if self.dealer is not None:
            while count <= len(moves) and isinstance(moves[-count], Reveal):
                count += 1
            if count > len(moves):
                return outcome("nothing_to_undo")
        undone = moves[-count]
        params = event_params(
            self.board.edition, undone
        )  # before the undo: the card's facts are still on the board
        undos: list[Event] = []
        for _ in range(count):
            self.board.push(Undo())
            undos.append(Undo())
        failed = self.store_events(undos, pending_after=None)
        return failed or outcome("undone", **params)

    # --- corrections from the host's page ----------------------------------------------------

    def undo(self, seen: tuple[str, int] | None = None) -> Outcome:
        """The page's Undo: the same as holding the Undo button.

        ``seen``: the (process, version) of the table the page showed when Undo was tapped;
        if the table changed since, the undo is refused (the page's alone): a repeated tap
        must not take back a second take that its person never saw."""
        with self.committing():
            if seen is not None and seen != (PROCESS, self.version):
                return outcome("undo_stale")
            return self.emit(self._undo())
