"""The live table: taps and button presses in, accepted events and cues out.

`Table` turns what happens at a physical table into engine events:

- a tap of a card in the Departures Row (or of an Ancestor) is a take by the
  player to move. Two ways to spend crystals (`TURN_STYLES`):
  "quick" (the companion's default): Crystal is pressed *before* the tap, once per
  crystal to spend (the ring shows them; Undo puts them back), and the tap commits
  the take at once with them, so a take that spends nothing is one tap; only if
  more were chosen than the card allows does the tap wait for Confirm.
  "confirm" (the first design): a player holding crystals sees the landing preview
  after the tap, presses Crystal to pull it back one hour per press, then Confirm;
- a tap of a card the table has not seen yet fills the Departures Row position
  waiting for it (a reveal: the dealt row, then each new deck top);
- a tap of an Itinerary card gives it to the next player, in stack order, who has
  none this Day;
- Undo (held) cancels a take being prepared, or takes back the last thing a person
  did (in mock mode a take goes back with the dealer's reveals it caused).

Every accepted event is appended to the store *before* listeners (ring, page)
hear of it, together with whatever follows from it (the mock dealer's reveals, all
the undos and replays of a correction) in one transaction: if the disk refuses,
the board is rebuilt from the stored log, so what the table shows is exactly what
a restart resumes. A take being prepared is stored too, and resumed at a restart.
The same `companion.engine.Board` referees; on start the game is rebuilt by
replaying its stored events. All entry points hold one lock, because the reader
loop, gpiozero's callbacks and the web server run on their own threads.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.config import DEFAULT_PALETTE, colour_problem
from companion.engine import Board, ChooseItinerary, Event, Reveal, Take, Undo
from companion.engine.rejections import Rejection
from companion.engine.state import HIDDEN
from companion.engine.tokens import ANCESTOR, DAY_NAMES
from companion.engine.words import year_text
from companion.store import DiskFull, Store, StoredGame, StoreError
from companion.wording import say, took_text

#: This process, named in every snapshot. Versions count up only within one process (a
#: new game continues its predecessor's count), so a page compares the versions of two
#: snapshots of the same process and takes any snapshot of a new one (after a restart).
PROCESS = secrets.token_hex(4)

# Cues: what the ring and the page should make visible after an input.
CUE_REJECT = "reject"
CUE_BONUS = "bonus"
CUE_DAY_END = "day_end"
CUE_WINNER = "winner"
CUE_ACCEPT = "accept"
CUE_PREVIEW = "preview"

#: Rejection codes of the table itself (the engine's are in companion.engine.rejections).
STORE_ERROR = "store_error"
DISK_FULL = "disk_full"
#: How crystals are spent: chosen before the tap ("quick") or after it, then Confirm ("confirm").
TURN_STYLES = ("quick", "confirm")


@dataclass(frozen=True)
class Pending:
    """A take being prepared: the card is chosen, crystals are being counted."""

    player: str
    card: str
    hours: int
    crystals: int
    max_crystals: int
    from_hour: int

    @property
    def landing(self) -> int:
        return min(12, self.from_hour + self.hours - self.crystals)

    @classmethod
    def from_json(cls, data: dict[str, Any], board: Board) -> Pending | None:
        """A stored pending take, if it still fits the board (else None)."""
        try:
            player, card, crystals = str(data["player"]), str(data["card"]), int(data["crystals"])
        except (KeyError, TypeError, ValueError):
            return None
        if player != board.player_to_move or board.check(Take(card, player, crystals)) is not None:
            return None
        option = next((o for o in board.take_options() if o.card == card), None)
        if option is None or crystals > option.max_crystals:
            return None
        return cls(player, card, option.hours, crystals, option.max_crystals, board.hour[board.turn])

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "card": self.card,
            "hours": self.hours,
            "crystals": self.crystals,
            "max_crystals": self.max_crystals,
            "landing": self.landing,
        }


@dataclass(frozen=True)
class Outcome:
    """What one input did: accepted or not, a sentence for people, a cue for the ring.

    ``message`` is English (the console, scripts); ``code`` and ``params`` say the
    same for the page, which writes the sentence in its reader's language.
    """

    accepted: bool
    message: str
    cue: str
    code: str | None = None
    at: float = field(default_factory=time.monotonic)
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "message": self.message,
            "cue": self.cue,
            "code": self.code,
            "params": self.params,
        }


def _say(accepted: bool, cue: str, code: str, **params: Any) -> Outcome:
    """An outcome with its code and the facts of its sentence; the English sentence
    comes from the catalogue the page reads too (`companion.wording`)."""
    return Outcome(accepted, say(code, **params), cue, code, params=params)


class Dealer:
    """The simulated dealer of mock mode: shuffles each Day deck with a seed and reveals in order."""

    def __init__(self, board: Board, seed: int) -> None:
        rng = random.Random(seed)
        self.order: list[list[int]] = []
        for cards in board.tables.day_cards:
            deck = list(cards)
            rng.shuffle(deck)
            self.order.append(deck)

    def next_card(self, board: Board) -> str | None:
        """The next card of the current Day deck that the table has not seen yet."""
        for index in self.order[board.day - 1]:
            if not board.revealed >> index & 1:
                return board.edition.cards[index].id
        return None


Listener = Callable[["Table", Outcome], None]


class Table:
    """One game at the table, with its store, its pending take and its listeners."""

    def __init__(
        self, store: Store, game: StoredGame, log: Callable[[str], None] = print, turn: str = "confirm"
    ) -> None:
        if turn not in TURN_STYLES:
            raise ValueError(f"turn style {turn!r}: use one of {', '.join(TURN_STYLES)}")
        #: "quick": crystals are chosen before the tap; "confirm": after it, then Confirm.
        self.turn_style = turn
        #: Quick turn: (player, crystals) chosen with Crystal before tapping a card.
        self.armed: tuple[str, int] | None = None
        self.store = store
        self.game_id = game.id
        self.setup = game.setup
        self.meta = game.meta
        self.colours: list[str] = list(game.meta.get("colours", []))
        self.log = log
        #: Every event stored for this game, in order: the board is this log replayed.
        self.stored: list[Event] = list(game.events)
        self.board = self._replay(warn=True)
        self.seq = len(game.events)
        self.pending: Pending | None = None
        welcome = {"game": self.game_id, "players": ", ".join(self.board.names)}
        self.last: Outcome = _say(True, CUE_ACCEPT, "welcome", **welcome)
        if game.pending is not None and "armed" in game.pending:  # crystals chosen before a tap
            self._resume_armed(game.pending["armed"], welcome)
        elif game.pending is not None:  # a take was being prepared when the companion stopped
            self.pending = Pending.from_json(game.pending, self.board)
            if self.pending is not None:
                p = self.pending
                self.last = _say(
                    True,
                    CUE_PREVIEW,
                    "pending_resumed",
                    **welcome,
                    player=p.player,
                    n=p.crystals,
                    landing=p.landing,
                    **self._card_params(p.card),
                )
            else:
                self.last = _say(
                    True,
                    CUE_ACCEPT,
                    "pending_dropped",
                    **welcome,
                )
        self.listeners: list[Listener] = []
        self.lock = threading.RLock()
        #: Bumped on every input; live pages wait on `changed` and resend when it moves.
        #: `changed` has its own lock, so that pages waking up after a change never
        #: queue for the table's lock while the input that changed it is still answered.
        self.version = 0
        self.changed = threading.Condition()
        self._page_cache: tuple[int, str] | None = None
        seed = game.meta.get("dealer_seed")
        self.dealer = Dealer(self.board, int(seed)) if seed is not None else None
        with self.lock:
            reveals = self._deal()
            if reveals:
                failed = self._store(reveals)
                if failed is not None:
                    self.last = failed

    def _replay(self, warn: bool = False) -> Board:
        """A board with every stored event pushed: what a restart would show."""
        board = Board(self.setup)
        for event in self.stored:  # crash recovery: the same engine replays the log
            rejection = board.push(event)
            if rejection is not None and warn:
                self.log(f"stored event {event_to_text(event)} no longer applies ({rejection.code}); skipped")
        return board

    # --- inputs ----------------------------------------------------------------------

    def tap(self, ref: str) -> Outcome:
        """A card was tapped on the reader (``ref`` is a card id, an itinerary id or "ancestor")."""
        with self.lock:
            return self._emit(self._tap(ref.strip()))

    def press(self, button: str) -> Outcome:
        """A button was pressed: "crystal", "confirm" or "undo" (undo is the held press)."""
        with self.lock:
            if button == "crystal":
                outcome = self._crystal()
            elif button == "confirm":
                outcome = self._confirm()
            elif button == "undo":
                outcome = self._undo()
            else:
                outcome = _say(
                    False,
                    CUE_REJECT,
                    "no_button",
                    button=button,
                )
            return self._emit(outcome)

    def _tap(self, ref: str) -> Outcome:
        board = self.board
        edition = board.edition
        if board.finished:
            return _say(False, CUE_REJECT, "game_over")
        if self.pending is not None and ref == self.pending.card:
            p = self.pending
            return _say(
                False, CUE_PREVIEW, "press_confirm", player=p.player, more=p.crystals < p.max_crystals
            )
        if self.pending is not None:  # tapping another card changes one's mind
            failed = self._set_pending(None)
            if failed is not None:
                return failed
        if ref in edition.itinerary_index:
            waiting = self._itinerary_player()
            if waiting is None:
                day = DAY_NAMES[board.day - 1]
                return _say(
                    False,
                    CUE_REJECT,
                    "itinerary_unavailable",
                    why="all_chosen",
                    day=day,
                )
            return self._commit(
                ChooseItinerary(waiting, ref),
                "itinerary_chosen",
                player=waiting,
                itinerary=ref,
            )
        if ref == ANCESTOR:
            return self._start_take(ANCESTOR)
        index = edition.card_index.get(ref)
        if index is None:
            return _say(
                False,
                CUE_REJECT,
                "unknown_card",
                why="tag",
                card=ref,
                edition=edition.name,
            )
        if index in board.row:
            return self._start_take(ref)
        if board.setup.reveals and not board.revealed >> index & 1:
            card = edition.cards[index]
            if card.day == board.day and board.waiting_position() < 0:
                # a record's reveal with no gap in the row is an error of the record; at the
                # table it is a player reaching for a card still in the deck
                day = DAY_NAMES[board.day - 1]
                return _say(
                    False,
                    CUE_REJECT,
                    "card_not_available",
                    why="in_deck",
                    day=day,
                    **self._card_params(ref),
                )
            return self._commit(
                Reveal(ref),
                "revealed",
                **self._card_params(ref),
            )
        return self._reject(board.push(Take(ref)))

    def _start_take(self, card: str) -> Outcome:
        board = self.board
        name = board.names[board.turn]
        rejection = board.check(Take(card))
        if rejection is not None:
            return self._reject(rejection)
        option = next(o for o in board.take_options() if o.card == card)
        if self.turn_style == "quick":
            armed = self.armed[1] if self.armed is not None and self.armed[0] == name else 0
            self.armed = None
            if armed <= option.max_crystals:
                return self._commit_take(Take(card, name, armed, ()))
            # more crystals chosen than this card allows: the most it allows, and the player decides
            failed = self._set_pending(
                Pending(
                    name, card, option.hours, option.max_crystals, option.max_crystals, board.hour[board.turn]
                )
            )
            if failed is not None:
                return failed
            assert self.pending is not None
            return _say(
                True,
                CUE_PREVIEW,
                "preview_capped",
                player=name,
                armed=armed,
                max=option.max_crystals,
                hours=option.hours,
                landing=self.pending.landing,
                **self._card_params(card),
            )
        if option.max_crystals == 0:
            return self._commit_take(Take(card, name, 0, ()))
        failed = self._set_pending(
            Pending(name, card, option.hours, 0, option.max_crystals, board.hour[board.turn])
        )
        if failed is not None:
            return failed
        assert self.pending is not None
        return _say(
            True,
            CUE_PREVIEW,
            "preview",
            player=name,
            hours=option.hours,
            landing=self.pending.landing,
            max=option.max_crystals,
            **self._card_params(card),
        )

    def _resume_armed(self, stored: Any, welcome: dict[str, Any]) -> None:
        """Quick turn: the crystals chosen before the restart stay chosen if the game still
        allows them (the same player to move, with an Itinerary and that many crystals)."""
        board = self.board
        try:
            player, n = str(stored[0]), int(stored[1])
        except (TypeError, ValueError, IndexError, KeyError):
            player, n = "", 0
        name = board.player_to_move
        fits = (
            name is not None
            and player == name
            and 0 < n <= board.crystals[board.turn]
            and not (board.has_itineraries and board.itinerary[board.turn] < 0)
        )
        if fits:
            self.armed = (player, n)
            self.last = _say(
                True,
                CUE_PREVIEW,
                "armed_resumed",
                **welcome,
                player=player,
                n=n,
            )
        elif n > 0:
            self.last = _say(
                True,
                CUE_ACCEPT,
                "armed_dropped",
                **welcome,
                player=player,
                n=n,
            )

    def _kept(self, pending: Pending | None) -> dict[str, Any] | None:
        """What the store keeps beside the events: the take being prepared, or (quick turn)
        the crystals chosen before the tap; a restart resumes either."""
        if pending is not None:
            return pending.to_json()
        if self.armed is not None:
            return {"armed": [self.armed[0], self.armed[1]]}
        return None

    def _set_armed(self, armed: tuple[str, int] | None) -> Outcome | None:
        """Change the crystals chosen before the tap, on disk first (not fsynced, like a
        take being prepared: the next event's commit flushes it)."""
        before, self.armed = self.armed, armed
        try:
            self.store.save_pending(self.game_id, self._kept(self.pending))
        except StoreError as exc:
            self.armed = before
            return self._store_failed(exc)
        return None

    def _arm(self) -> Outcome:
        """Quick turn: Crystal before the tap chooses one more crystal for the coming take."""
        board = self.board
        name = board.player_to_move
        if name is None:
            return _say(False, CUE_REJECT, "game_over")
        if board.has_itineraries and board.itinerary[board.turn] < 0:
            return _say(
                False,
                CUE_REJECT,
                "itinerary_first",
                player=name,
            )
        held = board.crystals[board.turn]
        armed = self.armed[1] if self.armed is not None and self.armed[0] == name else 0
        if armed >= held:
            return _say(
                False,
                CUE_REJECT,
                "too_many_crystals",
                why="held",
                player=name,
                held=held,
            )
        failed = self._set_armed((name, armed + 1))
        if failed is not None:
            return failed
        return _say(
            True,
            CUE_PREVIEW,
            "armed",
            player=name,
            n=armed + 1,
            held=held,
        )

    def _crystal(self) -> Outcome:
        p = self.pending
        if p is None:
            if self.turn_style == "quick":
                return self._arm()
            return _say(False, CUE_REJECT, "crystal_first")
        if p.crystals >= p.max_crystals:
            held = self.board.crystals[self.board.turn]
            return _say(
                False,
                CUE_REJECT,
                "too_many_crystals",
                why="held" if held <= p.crystals else "min_cost",
                player=p.player,
                held=held,
            )
        failed = self._set_pending(
            Pending(p.player, p.card, p.hours, p.crystals + 1, p.max_crystals, p.from_hour)
        )
        if failed is not None:
            return failed
        assert self.pending is not None
        return _say(
            True,
            CUE_PREVIEW,
            "crystal_spent",
            player=p.player,
            n=p.crystals + 1,
            landing=self.pending.landing,
        )

    def _confirm(self) -> Outcome:
        p = self.pending
        if p is None:
            return _say(False, CUE_REJECT, "nothing_to_confirm")
        return self._commit_take(Take(p.card, p.player, p.crystals, ()))

    def _undo(self) -> Outcome:
        if self.pending is not None:
            failed = self._set_pending(None)
            return failed or _say(True, CUE_ACCEPT, "take_cancelled")
        if self.armed is not None:
            player, n = self.armed
            failed = self._set_armed(None)
            if failed is not None:
                return failed
            return _say(
                True,
                CUE_ACCEPT,
                "armed_cleared",
                player=player,
                n=n,
            )
        moves = self.board.moves
        if not moves:
            return self._commit(Undo())  # the engine's own "nothing to undo"
        # Undo takes back what a person did. In mock mode the dealer's reveals are not
        # anyone's doing: they go with the take (or Day's end) that asked for them.
        count = 1
        if self.dealer is not None:
            while count <= len(moves) and isinstance(moves[-count], Reveal):
                count += 1
            if count > len(moves):
                return _say(False, CUE_REJECT, "nothing_to_undo")
        undone = moves[-count]
        params = self._event_params(undone)  # before the undo: the card's facts are still on the board
        undos: list[Event] = []
        for _ in range(count):
            self.board.push(Undo())
            undos.append(Undo())
        failed = self._store(undos, pending_after=None)
        return failed or _say(True, CUE_ACCEPT, "undone", **params)

    # --- corrections from the host's page ----------------------------------------------------

    def undo(self, seen: tuple[str, int] | None = None) -> Outcome:
        """The page's Undo: the same as holding the Undo button.

        ``seen``: the (process, version) of the table the page showed when Undo was
        tapped. If the table changed since (another undo, a take, a restart), the undo
        is refused and nothing changes: a repeated tap, from this phone or another, must
        not take back a second take that its person never saw. The refusal is the
        page's alone (the table's version and last message stay as they are)."""
        with self.lock:
            if seen is not None and seen != (PROCESS, self.version):
                return _say(
                    False,
                    CUE_REJECT,
                    "undo_stale",
                )
            return self._emit(self._undo())

    def correct_wild(self, wild: list[str]) -> Outcome:
        """Place the Wild tokens of the latest take in these columns instead."""
        with self.lock:
            moves = self.board.moves
            index = next((i for i in range(len(moves) - 1, -1, -1) if isinstance(moves[i], Take)), None)
            if index is None:
                return self._emit(_say(False, CUE_REJECT, "no_take_yet"))
            take = moves[index]
            assert isinstance(take, Take)
            wilds = self._wilds_of(index)
            if wilds == 0:
                return self._emit(
                    _say(
                        False,
                        CUE_REJECT,
                        "no_wild",
                        player=take.player,
                        **self._card_params(take.card),
                    )
                )
            return self._emit(
                self._rewrite(
                    index,
                    take._replace(wild=tuple(wild)),
                    "wild_moved",
                    player=take.player,
                    **self._card_params(take.card),
                )
            )

    def _wilds_of(self, index: int) -> int:
        """How many Wild tokens accepted take ``index`` placed (its card's and its position's)."""
        from companion.engine.tokens import WILD_CODE

        board = self.board
        take = board.moves[index]
        assert isinstance(take, Take)
        before = Board(board.setup)
        for event in board.moves[:index]:
            before.push(event)
        if take.card == ANCESTOR:
            ancestor = board.edition.ancestor
            return 0 if ancestor is None else ancestor.gain_codes.count(WILD_CODE)
        card = board.edition.card_index[take.card]
        position = before.row.index(card)
        return board.tables.take[card][2][position].count(WILD_CODE)

    def correct_itinerary(self, player: str, itinerary: str) -> Outcome:
        """Give ``player`` another Itinerary for the current Day (their choice is replaced)."""
        with self.lock:
            board = self.board
            moves = board.moves
            day_start = self._day_start()
            index = next(
                (i for i in range(len(moves) - 1, day_start - 1, -1)
                 if isinstance(moves[i], ChooseItinerary) and moves[i].player == player),  # type: ignore[union-attr]
                None,
            )  # fmt: skip
            if index is None:
                return self._emit(
                    _say(
                        False,
                        CUE_REJECT,
                        "no_itinerary_today",
                        player=player,
                    )
                )
            replacement = ChooseItinerary(player, itinerary)
            return self._emit(
                self._rewrite(
                    index,
                    replacement,
                    "itinerary_corrected",
                    player=player,
                    itinerary=itinerary,
                )
            )

    def _day_start(self) -> int:
        """Index in the moves of the first event of the current Day."""
        fresh = Board(self.board.setup)
        start = 0
        for i, event in enumerate(self.board.moves):
            day = fresh.day
            fresh.push(event)
            if fresh.day != day:
                start = i + 1
        return start

    def _rewrite(self, index: int, replacement: Event, code: str, **params: Any) -> Outcome:
        """Replace accepted event ``index`` and replay the ones after it.

        Everything goes through the log as it would at the table: undos back to
        the event, the replacement, then the later events again, stored as one
        transaction. If a later event no longer fits, or the disk refuses, nothing
        is stored and the board is rebuilt from the log as it was.
        """
        board = self.board
        original = board.moves[index:]
        written: list[Event] = []
        for _ in original:
            board.push(Undo())
            written.append(Undo(correction=True))  # steps of the correction, not a person's undo
        for event in [replacement, *original[1:]]:  # the log's own reveals are replayed as they were
            rejection = board.push(event)
            if rejection is not None:
                self.board = self._replay()
                why = f"{say('correction_failed')} {say(rejection.code, **rejection.params)}"
                return Outcome(
                    False, why, CUE_REJECT, rejection.code, params={**rejection.params, "correction": True}
                )
            written.append(event)
        written += self._deal()
        return self._store(written, pending_after=None) or _say(True, CUE_ACCEPT, code, **params)

    # --- committing -------------------------------------------------------------------

    def _commit_take(self, take: Take) -> Outcome:
        board = self.board
        day = board.day
        hours = next((o.hours for o in board.take_options() if o.card == take.card), 0)
        punctual = board.hour[board.turn] + hours - take.crystals == 12
        outcome = self._commit(take)
        if not outcome.accepted:
            return outcome
        board = self.board
        params: dict[str, Any] = {
            "player": take.player,
            "crystals": take.crystals,
            **self._card_params(take.card),
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

    def _commit(self, event: Event, code: str = "done", **params: Any) -> Outcome:
        """Push ``event``, let the mock dealer reveal what it asks for, store it all at once.

        A committed event ends any take being prepared (the take itself, or a choice
        made instead of it)."""
        rejection = self.board.push(event)
        if rejection is not None:
            return self._reject(rejection)
        armed = self.armed
        if isinstance(event, (Take, Undo)):
            # crystals chosen before a tap belong to that one take (another player's
            # Itinerary or a reveal in between leaves them chosen)
            self.armed = None
        failed = self._store([event, *self._deal()], pending_after=None)
        if failed is not None:
            self.armed = armed
            return failed
        return _say(True, CUE_ACCEPT, code, **params)

    def _store(self, events: list[Event], pending_after: Pending | bool | None = False) -> Outcome | None:
        """Store ``events`` (already pushed on the board) in one transaction, with the
        finished flag and, unless ``pending_after`` is False, the pending take after them.

        On failure nothing was stored: the board is rebuilt from the stored log (what
        a restart would show) and the outcome says what went wrong and what to do."""
        pending = self.pending if pending_after is False else pending_after
        assert pending is None or isinstance(pending, Pending)
        try:
            self.store.write_events(
                self.game_id,
                self.seq + 1,
                events,
                self.board.finished,
                self._kept(pending),
            )
        except StoreError as exc:
            self.board = self._replay()
            return self._store_failed(exc)
        self.stored += events
        self.seq += len(events)
        self.pending = pending
        while self.store.notices:
            self.log(self.store.notices.pop(0))
        for event in events:
            if isinstance(event, Reveal) and self.dealer is not None:
                info = self.board.edition.card(event.card)
                year = year_text(info.year)
                self.log(f"dealer reveals {event.card}: {info.title} ({year}), {info.hours} h")
        return None

    def _set_pending(self, pending: Pending | None) -> Outcome | None:
        """Change the take being prepared, on disk first (a restart resumes it)."""
        try:
            self.store.save_pending(self.game_id, self._kept(pending))
        except StoreError as exc:
            return self._store_failed(exc)
        self.pending = pending
        return None

    def _store_failed(self, exc: StoreError) -> Outcome:
        text = str(exc)
        if isinstance(exc, DiskFull):
            return _say(False, CUE_REJECT, "disk_full", error=text)
        return _say(False, CUE_REJECT, "store_error", error=text)

    def _deal(self) -> list[Event]:
        """Mock mode: the simulated dealer reveals every card the row is waiting for
        (pushed on the board; the caller stores them with the event that asked)."""
        if self.dealer is None:
            return []
        reveals: list[Event] = []
        while not self.board.finished and self.board.waiting_position() >= 0:
            card = self.dealer.next_card(self.board)
            if card is None:
                break
            event = Reveal(card)
            if self.board.push(event) is not None:
                break
            reveals.append(event)
        return reveals

    def _reject(self, rejection: Rejection | None) -> Outcome:
        assert rejection is not None
        params = dict(rejection.params)
        return Outcome(False, say(rejection.code, **params), CUE_REJECT, rejection.code, params=params)

    def emit(self, outcome: Outcome) -> Outcome:
        """Show listeners (ring, console, pages) an outcome the table's own inputs did not make:
        the runtime's refusal of a tag no card answers to. The caller holds `lock`."""
        return self._emit(outcome)

    def _emit(self, outcome: Outcome) -> Outcome:
        self.last = outcome
        self.version += 1
        self.log(("" if outcome.accepted else "Not accepted: ") + outcome.message)
        for listener in list(self.listeners):
            try:
                listener(self, outcome)
            except Exception as exc:  # the event is stored: a ring or console failure must not undo that
                self.log(f"could not show the change ({type(exc).__name__}: {exc}); the game is saved")
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

    # --- questions --------------------------------------------------------------------

    def _card_params(self, card: str) -> dict[str, Any]:
        """A card for an outcome's params: id, title, year (the Ancestor has neither)."""
        if card == ANCESTOR:
            return {"card": ANCESTOR}
        info = self.board.edition.card(card)
        return {"card": info.id, "title": info.title, "year": info.year}

    def _event_params(self, event: Event | None) -> dict[str, Any]:
        """An event for an outcome's params (what Undo took back)."""
        if isinstance(event, Take):
            return {"kind": "take", "player": event.player, **self._card_params(event.card)}
        if isinstance(event, ChooseItinerary):
            return {"kind": "itinerary", "player": event.player, "itinerary": event.itinerary}
        if isinstance(event, Reveal):
            return {"kind": "reveal", **self._card_params(event.card)}
        return {"kind": "nothing"}

    def _itinerary_player(self) -> str | None:
        """The next player, in stack order (top first), still without an Itinerary today."""
        board = self.board
        waiting = [i for i in range(len(board.names)) if board.itinerary[i] < 0]
        if not waiting or not board.has_itineraries:
            return None
        return board.names[max(waiting, key=lambda i: (-board.hour[i], board.seq[i]))]

    def expect(self) -> dict[str, Any] | None:
        """What the table waits for next, for the ring, the page and scripts."""
        board = self.board
        if board.finished:
            return None
        if self.pending is not None:
            return {"kind": "confirm", "player": self.pending.player, "choices": [self.pending.card]}
        if board.waiting_position() >= 0:
            choices = [
                c.id
                for i, c in enumerate(board.edition.cards)
                if c.day == board.day and not board.revealed >> i & 1
            ]
            return {"kind": "reveal", "player": None, "choices": choices}
        waiting = self._itinerary_player()
        if waiting is not None:
            return {"kind": "itinerary", "player": waiting, "choices": board.itinerary_choices(waiting)}
        return {
            "kind": "take",
            "player": board.player_to_move,
            "choices": [o.card for o in board.take_options()],
            "crystals": self.armed_crystals(),
        }

    def armed_crystals(self) -> int:
        """Quick turn: crystals the player to move has chosen for the card they tap next."""
        armed = self.armed
        return armed[1] if armed is not None and armed[0] == self.board.player_to_move else 0

    def state_json(self) -> dict[str, Any]:
        """``GET /api/state``: the contract's standings plus what the table needs."""
        with self.lock:
            board = self.board
            cards = board.edition.cards
            return {
                "game": self.game_id,
                "finished": board.finished,
                "day": board.day,
                "players": [
                    {**s.to_json(), "colour": self.colour(i)} for i, s in enumerate(board.standings())
                ],
                "winners": board.winners(),
                "turn": board.player_to_move,
                "row": [cards[c].id if c >= 0 else None for c in board.row],
                "hidden": [c == HIDDEN for c in board.row],
                "ancestors_left": board.ancestors_left,
                "pending": None if self.pending is None else self.pending.to_json(),
                "expect": self.expect(),
                "last": self.last.to_json(),
                "events": self.seq,
                "version": self.version,
                "process": PROCESS,
                "mock": bool(self.meta.get("mock")),
                "turn_style": self.turn_style,
                "armed": self.armed_crystals(),
            }

    def page_json(self) -> dict[str, Any]:
        """The state plus what the live page draws (treks' cards, the log, the score chart)."""
        from companion.view import page_state

        with self.lock:
            colours = [self.colour(seat) for seat in range(len(self.board.names))]
            page = page_state(self.board, colours, self.stored, dealt=self.dealer is not None)
            return {**self.state_json(), **page}

    def page_text(self) -> tuple[int, str]:
        """`page_json` as compact JSON with its version, computed once per version
        however many pages are watching (they all ask right after each change)."""
        cached = self._page_cache
        if cached is not None and cached[0] == self.version:
            return cached  # no lock: the tuple is replaced whole, never changed in place
        with self.lock:
            cached = self._page_cache
            if cached is None or cached[0] != self.version:
                snapshot = self.page_json()
                cached = (snapshot["version"], json.dumps(snapshot, separators=(",", ":")))
                self._page_cache = cached
            return cached

    def colour(self, seat: int) -> str:
        """A player's colour; a stored one that is not "#rrggbb" (older games) falls back to the palette."""
        colour = self.colours[seat] if seat < len(self.colours) else ""
        return colour if colour_problem(colour) is None else DEFAULT_PALETTE[seat % len(DEFAULT_PALETTE)]


def event_to_text(event: Event | None) -> str:
    if isinstance(event, Take):
        return f"{event.player or 'the player'} took {event.card}"
    if isinstance(event, ChooseItinerary):
        return f"{event.player} chose Itinerary {event.itinerary}"
    if isinstance(event, Reveal):
        return f"the reveal of {event.card}"
    return "nothing"
