"""Rewriting history: the host's corrections of a take's Wild tokens or a day's Itinerary.

A correction goes through the log as it would at the table: undos back to the event,
the replacement, then the later events again, stored as one transaction. The undos are
marked as a correction's steps (`Undo(correction=True)`), so the event log does not
list them as a person's undo.
"""

from __future__ import annotations

from typing import Any

from companion.engine import Board, ChooseItinerary, Event, Take, Undo
from companion.engine.tokens import ANCESTOR, WILD_CODE
from companion.table.commit import CommittingTable
from companion.table.outcomes import CUE_REJECT, Outcome, outcome
from companion.util.wording import say as sentence


class Corrections(CommittingTable):
    """The host's corrections, on top of the committing core."""

    def correct_wild(self, wild: list[str]) -> Outcome:
        """Place the Wild tokens of the latest take in these columns instead."""
        with self.committing():
            moves = self.board.moves
            index = next((i for i in range(len(moves) - 1, -1, -1) if isinstance(moves[i], Take)), None)
            if index is None:
                return self.emit(outcome("no_take_yet"))
            take = moves[index]
            assert isinstance(take, Take)
            wilds = self._wilds_of(index)
            if wilds == 0:
                return self.emit(outcome("no_wild", player=take.player, **self.card_params(take.card)))
            return self.emit(
                self._rewrite(
                    index,
                    take._replace(wild=tuple(wild)),
                    "wild_moved",
                    player=take.player,
                    columns=list(wild),  # where they went: the sentence names the columns
                    **self.card_params(take.card),
                )
            )

    def _wilds_of(self, index: int) -> int:
        """How many Wild tokens accepted take ``index`` placed (its card's and its position's)."""
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
        with self.committing():
            board = self.board
            moves = board.moves
            day_start = self._day_start()
            index = next(
                (i for i in range(len(moves) - 1, day_start - 1, -1)
                 if isinstance(moves[i], ChooseItinerary) and moves[i].player == player),  # type: ignore[union-attr]
                None,
            )  # fmt: skip
            if index is None:
                return self.emit(outcome("no_itinerary_today", player=player))
            replacement = ChooseItinerary(player, itinerary)
            return self.emit(
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
        """Replace accepted event ``index`` and replay the ones after it, through the log as
        the module says; if a later event no longer fits, or the disk refuses, nothing is
        stored and the board is rebuilt from the log as it was."""
        board = self.board
        original = board.moves[index:]
        written: list[Event] = []
        for _ in original:
            board.push(Undo())
            written.append(Undo(correction=True))  # steps of the correction, not a person's undo
        for event in [replacement, *original[1:]]:  # the log's own reveals are replayed as they were
            rejection = board.push(event)
            if rejection is not None:
                self.board = self.replay()
                why = f"{sentence('correction_failed')} {sentence(rejection.code, **rejection.params)}"
                return Outcome(
                    False, why, CUE_REJECT, rejection.code, params={**rejection.params, "correction": True}
                )
            written.append(event)
        written += self.deal()
        return self.store_events(written, pending_after=None) or outcome(code, **params)
