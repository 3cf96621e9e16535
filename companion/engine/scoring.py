"""Scores and winners: what the table would see if the game ended now.

Final score = track (itinerary icons, rows, Punctuality Bonuses, counted during
play) + 1 per unspent crystal + the trek table applied to every trek, the
current one included. Ties go to the longest trek, then the second longest and
so on (a missing trek counts as 0); players still tied share the victory.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.engine.events import fields_json


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's score, in the contract's output terms."""

    name: str
    track: int
    crystals: int
    trek_points: int
    total: int
    treks: tuple[int, ...]
    hour: int

    def to_json(self) -> dict[str, object]:
        out = fields_json(self, "name", "track", "crystals", "trek_points", "total", "treks", "hour")
        out["treks"] = list(self.treks)
        return out


def tie_break_key(standing: Standing) -> tuple[int, ...]:
    """Treks longest first: comparing these tuples is the rulebook's tie-break.

    Tuples of different lengths compare as if the shorter were padded with zeros,
    because every real trek has at least one card.
    """
    return tuple(sorted(standing.treks, reverse=True))


def winners(rows: list[Standing]) -> list[str]:
    """The winners, in setup order: highest total, then the tie-break."""
    if not rows:
        return []
    best_total = max(r.total for r in rows)
    leaders = [r for r in rows if r.total == best_total]
    best_key = max(tie_break_key(r) for r in leaders)
    return [r.name for r in leaders if tie_break_key(r) == best_key]


def explain_tie_break(rows: list[Standing]) -> str:
    """A sentence saying how the winner was decided, for the end screen and replay."""
    if not rows:
        return ""
    best_total = max(r.total for r in rows)
    leaders = [r for r in rows if r.total == best_total]
    won = winners(rows)
    if len(leaders) == 1:
        return f"{won[0]} wins with {best_total} points."
    names = ", ".join(r.name for r in leaders)
    if len(won) > 1:
        return (
            f"{names} tie on {best_total} points and on every trek length; "
            f"{' and '.join(won)} share the victory."
        )
    winner_key = tie_break_key(next(r for r in leaders if r.name == won[0]))
    # The decisive trek is the deepest one needed to pass the last rival.
    depth = max(_first_difference(winner_key, tie_break_key(r)) for r in leaders if r.name != won[0])
    ordinal = ["longest", "second longest", "third longest"]
    which = ordinal[depth] if depth < len(ordinal) else f"{depth + 1}th longest"
    return (
        f"{names} tie on {best_total} points; {won[0]} wins on the {which} trek "
        f"({_plural_cards(winner_key, depth)})."
    )


def _first_difference(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    for i in range(max(len(a), len(b))):
        if (a[i] if i < len(a) else 0) != (b[i] if i < len(b) else 0):
            return i
    return 0


def _plural_cards(key: tuple[int, ...], depth: int) -> str:
    n = key[depth] if depth < len(key) else 0
    return "1 card" if n == 1 else f"{n} cards"
