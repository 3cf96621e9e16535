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
- Undo (held) cancels a take being prepared, or takes back the last event.

Every accepted event is appended to the store *before* listeners (ring, page)
hear of it. The same `companion.engine.Board` referees; on start the game is
rebuilt by replaying its stored events. All entry points hold one lock, because
the reader loop, gpiozero's callbacks and the web server run on their own threads.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Board, ChooseItinerary, Event, Reveal, Take, Undo
from companion.engine.rejections import Rejection
from companion.engine.state import HIDDEN
from companion.engine.tokens import ANCESTOR, DAY_NAMES
from companion.store import Store, StoredGame

# Cues: what the ring and the page should make visible after an input.
CUE_REJECT = "reject"
CUE_BONUS = "bonus"
CUE_DAY_END = "day_end"
CUE_WINNER = "winner"
CUE_ACCEPT = "accept"
CUE_PREVIEW = "preview"

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


def _say(accepted: bool, message: str, cue: str, code: str, **params: Any) -> Outcome:
    """An outcome with its code and the facts of its sentence."""
    return Outcome(accepted, message, cue, code, params=params)


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
        self.meta = game.meta
        self.colours: list[str] = list(game.meta.get("colours", []))
        self.board = Board(game.setup)
        self.log = log
        for event in game.events:  # crash recovery: the same engine replays the log
            rejection = self.board.push(event)
            if rejection is not None:
                log(f"stored event {event_to_text(event)} no longer applies ({rejection.code}); skipped")
        self.seq = len(game.events)
        self.pending: Pending | None = None
        self.last: Outcome = _say(
            True,
            self._welcome(),
            CUE_ACCEPT,
            "welcome",
            game=self.game_id,
            players=", ".join(self.board.names),
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
            self._deal()

    def _welcome(self) -> str:
        return f"Game {self.game_id}: {', '.join(self.board.names)}."

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
                    f"There is no {button!r} button; use crystal, confirm or undo.",
                    CUE_REJECT,
                    "no_button",
                    button=button,
                )
            return self._emit(outcome)

    def _tap(self, ref: str) -> Outcome:
        board = self.board
        edition = board.edition
        if board.finished:
            return _say(
                False, "The game is over. Hold Undo to take the last card back.", CUE_REJECT, "game_over"
            )
        if self.pending is not None and ref == self.pending.card:
            p = self.pending
            if p.crystals < p.max_crystals:
                text = f"{p.player}: press Confirm, or Crystal to spend one."
            else:
                text = f"{p.player}: press Confirm (no more crystals can be spent on this card)."
            return _say(
                False, text, CUE_PREVIEW, "press_confirm", player=p.player, more=p.crystals < p.max_crystals
            )
        self.pending = None  # tapping another card changes one's mind
        if ref in edition.itinerary_index:
            waiting = self._itinerary_player()
            if waiting is None:
                day = DAY_NAMES[board.day - 1]
                return _say(
                    False,
                    f"Everyone already has an Itinerary for Day {day}.",
                    CUE_REJECT,
                    "itinerary_unavailable",
                    why="all_chosen",
                    day=day,
                )
            return self._commit(
                ChooseItinerary(waiting, ref),
                f"{waiting} follows Itinerary {ref} today.",
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
                f"{ref!r} is not a card of the {edition.name} edition. Enrol the tag on the page "
                "(Host, then Enrol a tag) and tap it again.",
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
                    f"{card.title} ({_year(card.year)}) is still in the Day {day} deck: it can be taken "
                    "once it is revealed on top of the deck. Take a card of the Departures Row.",
                    CUE_REJECT,
                    "card_not_available",
                    why="in_deck",
                    day=day,
                    **self._card_params(ref),
                )
            return self._commit(
                Reveal(ref),
                f"Revealed {card.title} ({_year(card.year)}).",
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
            self.pending = Pending(
                name, card, option.hours, option.max_crystals, option.max_crystals, board.hour[board.turn]
            )
            return _say(
                True,
                f"{name}: only {option.max_crystals} of the {armed} crystals can be spent on "
                f"{self._label(card)} ({option.hours} h), landing at {self.pending.landing}. "
                "Press Confirm, or Undo to cancel.",
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
        self.pending = Pending(name, card, option.hours, 0, option.max_crystals, board.hour[board.turn])
        return _say(
            True,
            f"{name}: {self._label(card)} costs {option.hours} h, landing at {self.pending.landing}. "
            f"Press Crystal to spend one (up to {option.max_crystals}), then Confirm.",
            CUE_PREVIEW,
            "preview",
            player=name,
            hours=option.hours,
            landing=self.pending.landing,
            max=option.max_crystals,
            **self._card_params(card),
        )

    def _arm(self) -> Outcome:
        """Quick turn: Crystal before the tap chooses one more crystal for the coming take."""
        board = self.board
        name = board.player_to_move
        if name is None:
            return _say(False, "The game is over.", CUE_REJECT, "game_over")
        if board.has_itineraries and board.itinerary[board.turn] < 0:
            return _say(
                False,
                f"{name} taps an Itinerary first; crystals are chosen just before taking a card.",
                CUE_REJECT,
                "itinerary_first",
                player=name,
            )
        held = board.crystals[board.turn]
        armed = self.armed[1] if self.armed is not None and self.armed[0] == name else 0
        if armed >= held:
            return _say(
                False,
                f"No more crystals: {name} holds {held}.",
                CUE_REJECT,
                "too_many_crystals",
                why="held",
                player=name,
                held=held,
            )
        self.armed = (name, armed + 1)
        return _say(
            True,
            f"{name} will spend {armed + 1} of {held} crystal{'s' if held != 1 else ''} on the card "
            "they tap next (Undo puts them back).",
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
            return _say(
                False, "Tap a card first; Crystal then cuts its hour cost.", CUE_REJECT, "crystal_first"
            )
        if p.crystals >= p.max_crystals:
            held = self.board.crystals[self.board.turn]
            why = (
                f"{p.player} holds {held} crystal{'s' if held != 1 else ''}"
                if held <= p.crystals
                else "a card always costs at least 1 hour"
            )
            return _say(
                False,
                f"No more crystals on this card: {why}.",
                CUE_REJECT,
                "too_many_crystals",
                why="held" if held <= p.crystals else "min_cost",
                player=p.player,
                held=held,
            )
        self.pending = Pending(p.player, p.card, p.hours, p.crystals + 1, p.max_crystals, p.from_hour)
        return _say(
            True,
            f"{p.player} spends {p.crystals + 1}: landing at {self.pending.landing}.",
            CUE_PREVIEW,
            "crystal_spent",
            player=p.player,
            n=p.crystals + 1,
            landing=self.pending.landing,
        )

    def _confirm(self) -> Outcome:
        p = self.pending
        if p is None:
            return _say(False, "Nothing to confirm: tap the card you take.", CUE_REJECT, "nothing_to_confirm")
        self.pending = None
        return self._commit_take(Take(p.card, p.player, p.crystals, ()))

    def _undo(self) -> Outcome:
        if self.pending is not None:
            self.pending = None
            return _say(True, "Take cancelled.", CUE_ACCEPT, "take_cancelled")
        if self.armed is not None:
            player, n = self.armed
            self.armed = None
            return _say(
                True,
                f"{player} keeps the {n} crystal(s) chosen.",
                CUE_ACCEPT,
                "armed_cleared",
                player=player,
                n=n,
            )
        last = self.board.moves[-1] if self.board.moves else None
        return self._commit(
            Undo(), f"Undone: {event_to_text(last)}." if last else "", "undone", **self._event_params(last)
        )

    # --- corrections from the host's page ----------------------------------------------------

    def undo(self) -> Outcome:
        """The page's Undo: the same as holding the Undo button."""
        with self.lock:
            return self._emit(self._undo())

    def correct_wild(self, wild: list[str]) -> Outcome:
        """Place the Wild tokens of the latest take in these columns instead."""
        with self.lock:
            moves = self.board.moves
            index = next((i for i in range(len(moves) - 1, -1, -1) if isinstance(moves[i], Take)), None)
            if index is None:
                return self._emit(_say(False, "No card has been taken yet.", CUE_REJECT, "no_take_yet"))
            take = moves[index]
            assert isinstance(take, Take)
            wilds = self._wilds_of(index)
            if wilds == 0:
                label = self._label(take.card)
                return self._emit(
                    _say(
                        False,
                        f"The latest take ({take.player or 'the player'}: {label}) placed no Wild token.",
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
                    "Wild tokens moved",
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
                who = player or "That player"
                return self._emit(
                    _say(
                        False,
                        f"{who} has not chosen an Itinerary today: tap one on the reader instead.",
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
                    f"{player} now follows Itinerary {itinerary}",
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

    def _rewrite(self, index: int, replacement: Event, done: str, code: str, **params: Any) -> Outcome:
        """Replace accepted event ``index`` and replay the ones after it.

        Everything goes through the log as it would at the table: undos back to
        the event, the replacement, then the later events again. If a later event
        no longer fits, all of it is undone again and the original events restored.
        """
        board = self.board
        original = board.moves[index:]
        self.pending = None
        dealer, self.dealer = self.dealer, None  # the log's own reveals are replayed as they were
        try:
            for _ in original:
                outcome = self._commit(Undo(), "")
                assert outcome.accepted
            replayed = [replacement, *original[1:]]
            for n, event in enumerate(replayed):
                outcome = self._commit(event, "")
                if not outcome.accepted:
                    for _ in range(n):
                        self._commit(Undo(), "")
                    for event_back in original:
                        self._commit(event_back, "")
                    why = f"That correction does not fit the game: {outcome.message}"
                    return Outcome(
                        False, why, CUE_REJECT, outcome.code, params={**outcome.params, "correction": True}
                    )
        finally:
            self.dealer = dealer
            self._deal()
        return _say(True, f"{done}.", CUE_ACCEPT, code, **params)

    # --- committing -------------------------------------------------------------------

    def _commit_take(self, take: Take) -> Outcome:
        board = self.board
        day = board.day
        hours = next((o.hours for o in board.take_options() if o.card == take.card), 0)
        punctual = board.hour[board.turn] + hours - take.crystals == 12
        label = self._label(take.card)
        outcome = self._commit(take, "")
        if not outcome.accepted:
            return outcome
        spent = f", {take.crystals} crystal{'s' if take.crystals != 1 else ''} spent" if take.crystals else ""
        message = f"{take.player} took {label}{spent}."
        params: dict[str, Any] = {
            "player": take.player,
            "crystals": take.crystals,
            **self._card_params(take.card),
        }
        cue = CUE_ACCEPT
        if punctual:
            cue = CUE_BONUS
            message += " Punctual: +3."
            params["punctual"] = True
        if board.finished:
            cue = CUE_WINNER
            won = board.winners()
            message += f" The game is over: {' and '.join(won)} win{'s' if len(won) == 1 else ''}!"
            params["winners"] = won
        elif board.day != day:
            cue = CUE_DAY_END
            message += f" Day {DAY_NAMES[day - 1]} is over; Day {DAY_NAMES[board.day - 1]} begins."
            params["day_over"] = DAY_NAMES[day - 1]
            params["day"] = DAY_NAMES[board.day - 1]
        if board.waiting_position() >= 0 and not board.finished:
            message += " Tap the new top card of the deck to reveal it."
            params["reveal"] = True
        return Outcome(True, message, cue, "took", params=params)

    def _commit(self, event: Event, message: str, code: str = "done", **params: Any) -> Outcome:
        board = self.board
        rejection = board.push(event)
        if rejection is not None:
            return self._reject(rejection)
        try:
            self.store.append(self.game_id, self.seq + 1, event)
        except Exception as exc:  # the disk said no: the event must not count
            board.pop()
            return _say(
                False,
                f"Could not save the game ({exc}); nothing changed.",
                CUE_REJECT,
                "store_error",
                error=str(exc),
            )
        self.seq += 1
        if isinstance(event, (Take, Undo)):
            # crystals chosen before a tap belong to that one take (another player's
            # Itinerary or a reveal in between leaves them chosen)
            self.armed = None
        self.store.mark_finished(self.game_id, board.finished)
        self._deal()
        return _say(True, message or "Done.", CUE_ACCEPT, code, **params)

    def _deal(self) -> None:
        """Mock mode: the simulated dealer reveals every card the row is waiting for."""
        if self.dealer is None:
            return
        while not self.board.finished and self.board.waiting_position() >= 0:
            card = self.dealer.next_card(self.board)
            if card is None:
                return
            event = Reveal(card)
            if self.board.push(event) is not None:
                return
            self.store.append(self.game_id, self.seq + 1, event)
            self.seq += 1
            info = self.board.edition.card(card)
            self.log(f"dealer reveals {card}: {info.title} ({_year(info.year)}), {info.hours} h")

    def _reject(self, rejection: Rejection | None) -> Outcome:
        assert rejection is not None
        return Outcome(False, rejection.message, CUE_REJECT, rejection.code, params=dict(rejection.params))

    def _emit(self, outcome: Outcome) -> Outcome:
        self.last = outcome
        self.version += 1
        self.log(("" if outcome.accepted else "Not accepted: ") + outcome.message)
        for listener in list(self.listeners):
            listener(self, outcome)
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

    def _label(self, card: str) -> str:
        if card == ANCESTOR:
            return "an Ancestor"
        info = self.board.edition.card(card)
        return f"{info.title} ({_year(info.year)})"

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
                "mock": bool(self.meta.get("mock")),
                "turn_style": self.turn_style,
                "armed": self.armed_crystals(),
            }

    def page_json(self) -> dict[str, Any]:
        """The state plus what the live page draws (treks' cards, the log, the score chart)."""
        from companion.view import page_state

        with self.lock:
            return {**self.state_json(), **page_state(self.board, self.colours)}

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
        return self.colours[seat] if seat < len(self.colours) else "#FFFFFF"


def _year(year: int) -> str:
    return f"{-year} BCE" if year < 0 else str(year)


def event_to_text(event: Event | None) -> str:
    if isinstance(event, Take):
        return f"{event.player or 'the player'} took {event.card}"
    if isinstance(event, ChooseItinerary):
        return f"{event.player} chose Itinerary {event.itinerary}"
    if isinstance(event, Reveal):
        return f"the reveal of {event.card}"
    return "nothing"
