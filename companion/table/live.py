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

import threading
from collections.abc import Callable
from typing import Any

from companion.engine import ChooseItinerary, Event, Reveal, Take, Undo
from companion.engine.tokens import ANCESTOR, DAY_NAMES
from companion.engine.words import plural, year_text
from companion.store import Store, StoredGame
from companion.table.dealer import Dealer
from companion.table.history import Corrections
from companion.table.outcomes import (
    CUE_ACCEPT,
    CUE_PREVIEW,
    CUE_REJECT,
    Outcome,
    event_params,
    event_to_text,
    rejected,
    say,
)
from companion.table.snapshot import PROCESS, Snapshots, itinerary_player
from companion.table.turn import TURN_STYLES, Pending


class Table(Corrections, Snapshots):
    """One game at the table, with its store, its pending take and its listeners."""

    def __init__(
        self, store: Store, game: StoredGame, log: Callable[[str], None] = print, turn: str = "confirm"
    ) -> None:
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
        self.last = say(True, self.welcome(), CUE_ACCEPT, "welcome", **welcome)
        if game.pending is not None and "armed" in game.pending:  # crystals chosen before a tap
            self._resume_armed(game.pending["armed"], welcome)
        elif game.pending is not None:  # a take was being prepared when the companion stopped
            self.pending = Pending.from_json(game.pending, self.board)
            if self.pending is not None:
                p = self.pending
                self.last = say(
                    True,
                    f"{self.welcome()} {p.player} was taking {self.label(p.card)} "
                    f"({plural(p.crystals, 'crystal')} spent, landing at {p.landing}): "
                    "press Confirm, Crystal, or hold Undo to cancel.",
                    CUE_PREVIEW,
                    "pending_resumed",
                    **welcome,
                    player=p.player,
                    n=p.crystals,
                    landing=p.landing,
                    **self.card_params(p.card),
                )
            else:
                self.last = say(
                    True,
                    f"{self.welcome()} The take being prepared before the restart no longer fits the "
                    "game and was dropped; tap the card again.",
                    CUE_ACCEPT,
                    "pending_dropped",
                    **welcome,
                )
        self.listeners = []
        self.lock = threading.RLock()
        #: Bumped on every input; live pages wait on `changed` and resend when it moves.
        #: `changed` has its own lock, so that pages waking up after a change never
        #: queue for the table's lock while the input that changed it is still answered.
        self.version = 0
        self.changed = threading.Condition()
        self.page_cache = None
        seed = game.meta.get("dealer_seed")
        self.dealer = Dealer(self.board, int(seed)) if seed is not None else None
        with self.lock:
            reveals = self.deal()
            if reveals:
                failed = self.store_events(reveals)
                if failed is not None:
                    self.last = failed

    # --- inputs ----------------------------------------------------------------------

    def tap(self, ref: str) -> Outcome:
        """A card was tapped on the reader (``ref`` is a card id, an itinerary id or "ancestor")."""
        with self.lock:
            return self.emit(self._tap(ref.strip()))

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
                outcome = say(
                    False,
                    f"There is no {button!r} button; use crystal, confirm or undo.",
                    CUE_REJECT,
                    "no_button",
                    button=button,
                )
            return self.emit(outcome)

    def _tap(self, ref: str) -> Outcome:
        board = self.board
        edition = board.edition
        if board.finished:
            return say(
                False, "The game is over. Hold Undo to take the last card back.", CUE_REJECT, "game_over"
            )
        if self.pending is not None and ref == self.pending.card:
            p = self.pending
            if p.crystals < p.max_crystals:
                text = f"{p.player}: press Confirm, or Crystal to spend one."
            else:
                text = f"{p.player}: press Confirm (no more crystals can be spent on this card)."
            return say(
                False, text, CUE_PREVIEW, "press_confirm", player=p.player, more=p.crystals < p.max_crystals
            )
        if self.pending is not None:  # tapping another card changes one's mind
            failed = self.set_pending(None)
            if failed is not None:
                return failed
        if ref in edition.itinerary_index:
            waiting = itinerary_player(self.board)
            if waiting is None:
                day = DAY_NAMES[board.day - 1]
                return say(
                    False,
                    f"Everyone already has an Itinerary for Day {day}.",
                    CUE_REJECT,
                    "itinerary_unavailable",
                    why="all_chosen",
                    day=day,
                )
            return self.commit(
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
            return say(
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
                return say(
                    False,
                    f"{card.title} ({year_text(card.year)}) is still in the Day {day} deck: it can be taken "
                    "once it is revealed on top of the deck. Take a card of the Departures Row.",
                    CUE_REJECT,
                    "card_not_available",
                    why="in_deck",
                    day=day,
                    **self.card_params(ref),
                )
            return self.commit(
                Reveal(ref),
                f"Revealed {card.title} ({year_text(card.year)}).",
                "revealed",
                **self.card_params(ref),
            )
        rejection = board.push(Take(ref))
        assert rejection is not None, "a card neither in the row nor to reveal cannot be taken"
        return rejected(rejection)

    def _start_take(self, card: str) -> Outcome:
        board = self.board
        name = board.names[board.turn]
        rejection = board.check(Take(card))
        if rejection is not None:
            return rejected(rejection)
        option = next(o for o in board.take_options() if o.card == card)
        if self.turn_style == "quick":
            armed = self.armed[1] if self.armed is not None and self.armed[0] == name else 0
            self.armed = None
            if armed <= option.max_crystals:
                return self.commit_take(Take(card, name, armed, ()))
            # more crystals chosen than this card allows: the most it allows, and the player decides
            failed = self.set_pending(
                Pending(
                    name, card, option.hours, option.max_crystals, option.max_crystals, board.hour[board.turn]
                )
            )
            if failed is not None:
                return failed
            assert self.pending is not None
            return say(
                True,
                f"{name}: only {option.max_crystals} of the {armed} crystals can be spent on "
                f"{self.label(card)} ({option.hours} h), landing at {self.pending.landing}. "
                "Press Confirm, or Undo to cancel.",
                CUE_PREVIEW,
                "preview_capped",
                player=name,
                armed=armed,
                max=option.max_crystals,
                hours=option.hours,
                landing=self.pending.landing,
                **self.card_params(card),
            )
        if option.max_crystals == 0:
            return self.commit_take(Take(card, name, 0, ()))
        failed = self.set_pending(
            Pending(name, card, option.hours, 0, option.max_crystals, board.hour[board.turn])
        )
        if failed is not None:
            return failed
        assert self.pending is not None
        return say(
            True,
            f"{name}: {self.label(card)} costs {option.hours} h, landing at {self.pending.landing}. "
            f"Press Crystal to spend one (up to {option.max_crystals}), then Confirm.",
            CUE_PREVIEW,
            "preview",
            player=name,
            hours=option.hours,
            landing=self.pending.landing,
            max=option.max_crystals,
            **self.card_params(card),
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
            self.last = say(
                True,
                f"{self.welcome()} {player} still spends {plural(n, 'crystal')} on the card "
                "they tap next (chosen before the restart; hold Undo to put them back).",
                CUE_PREVIEW,
                "armed_resumed",
                **welcome,
                player=player,
                n=n,
            )
        elif n > 0:
            self.last = say(
                True,
                f"{self.welcome()} The {plural(n, 'crystal')} chosen before the restart no "
                "longer fit the game and were put back; press Crystal again to spend some.",
                CUE_ACCEPT,
                "armed_dropped",
                **welcome,
                player=player,
                n=n,
            )

    def _arm(self) -> Outcome:
        """Quick turn: Crystal before the tap chooses one more crystal for the coming take."""
        board = self.board
        name = board.player_to_move
        if name is None:
            return say(False, "The game is over.", CUE_REJECT, "game_over")
        if board.has_itineraries and board.itinerary[board.turn] < 0:
            return say(
                False,
                f"{name} taps an Itinerary first; crystals are chosen just before taking a card.",
                CUE_REJECT,
                "itinerary_first",
                player=name,
            )
        held = board.crystals[board.turn]
        armed = self.armed[1] if self.armed is not None and self.armed[0] == name else 0
        if armed >= held:
            return say(
                False,
                f"No more crystals: {name} holds {held}.",
                CUE_REJECT,
                "too_many_crystals",
                why="held",
                player=name,
                held=held,
            )
        failed = self.set_armed((name, armed + 1))
        if failed is not None:
            return failed
        return say(
            True,
            f"{name} will spend {armed + 1} of {plural(held, 'crystal')} on the card "
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
            return say(
                False, "Tap a card first; Crystal then cuts its hour cost.", CUE_REJECT, "crystal_first"
            )
        if p.crystals >= p.max_crystals:
            held = self.board.crystals[self.board.turn]
            why = (
                f"{p.player} holds {plural(held, 'crystal')}"
                if held <= p.crystals
                else "a card always costs at least 1 hour"
            )
            return say(
                False,
                f"No more crystals on this card: {why}.",
                CUE_REJECT,
                "too_many_crystals",
                why="held" if held <= p.crystals else "min_cost",
                player=p.player,
                held=held,
            )
        failed = self.set_pending(
            Pending(p.player, p.card, p.hours, p.crystals + 1, p.max_crystals, p.from_hour)
        )
        if failed is not None:
            return failed
        assert self.pending is not None
        return say(
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
            return say(False, "Nothing to confirm: tap the card you take.", CUE_REJECT, "nothing_to_confirm")
        return self.commit_take(Take(p.card, p.player, p.crystals, ()))

    def _undo(self) -> Outcome:
        if self.pending is not None:
            failed = self.set_pending(None)
            return failed or say(True, "Take cancelled.", CUE_ACCEPT, "take_cancelled")
        if self.armed is not None:
            player, n = self.armed
            failed = self.set_armed(None)
            if failed is not None:
                return failed
            return say(
                True,
                f"{player} keeps the {plural(n, 'crystal')} chosen.",
                CUE_ACCEPT,
                "armed_cleared",
                player=player,
                n=n,
            )
        moves = self.board.moves
        if not moves:
            return self.commit(Undo(), "")  # the engine's own "nothing to undo"
        # Undo takes back what a person did. In mock mode the dealer's reveals are not
        # anyone's doing: they go with the take (or Day's end) that asked for them.
        count = 1
        if self.dealer is not None:
            while count <= len(moves) and isinstance(moves[-count], Reveal):
                count += 1
            if count > len(moves):
                return say(False, "Nothing to undo yet: no one has played.", CUE_REJECT, "nothing_to_undo")
        undone = moves[-count]
        params = event_params(
            self.board.edition, undone
        )  # before the undo: the card's facts are still on the board
        undos: list[Event] = []
        for _ in range(count):
            self.board.push(Undo())
            undos.append(Undo())
        failed = self.store_events(undos, pending_after=None)
        return failed or say(True, f"Undone: {event_to_text(undone)}.", CUE_ACCEPT, "undone", **params)

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
                return say(
                    False,
                    "Not undone: the table changed since your page showed it. "
                    "Look at it again, and tap Undo if you still mean it.",
                    CUE_REJECT,
                    "undo_stale",
                )
            return self.emit(self._undo())
