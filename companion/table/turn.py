"""The take being prepared and how crystals are spent (the quick or the confirm turn)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.engine import Board, Take

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
