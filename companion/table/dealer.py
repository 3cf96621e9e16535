"""The simulated dealer of mock mode: no one deals real cards, so a seeded shuffle does.

Its reveals are not anyone's doing: the table stores them with the event that asked
for them, and an Undo takes them back with it.
"""

from __future__ import annotations

import random

from companion.engine import Board, Event, Reveal


class Dealer:
    """Shuffles each Day deck with a seed and reveals in order."""

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

    def deal(self, board: Board) -> list[Event]:
        """Every card the row is waiting for, revealed (pushed on ``board``; the caller
        stores them with the event that asked)."""
        reveals: list[Event] = []
        while not board.finished and board.waiting_position() >= 0:
            card = self.next_card(board)
            if card is None:
                break
            event = Reveal(card)
            if board.push(event) is not None:
                break
            reveals.append(event)
        return reveals
