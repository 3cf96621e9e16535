"""Lookup tables compiled once per edition for the engine's hot path.

The simulator referees thousands of games a second, so a take must not format
strings, build dictionaries or walk an itinerary's layout. Everything a take
reads about cards and itineraries is flattened here into tuples indexed by small
integers when the edition is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.engine.itinerary import ItineraryTable
from companion.engine.tokens import BENEFIT_CODE, DAYS, ROW_SIZE


@dataclass(frozen=True, slots=True)
class RuleTables:
    """Per-card values by card index, and benefits by (card, row position)."""

    hours: tuple[int, ...]
    #: day_cards[d - 1]: the indices of the Day d deck's cards, in edition order.
    day_cards: tuple[tuple[int, ...], ...]
    #: take[card]: (hours, year, gains by position), everything a take reads, in one lookup;
    #: the gains at a position are the card's benefits followed by the playmat's.
    take: tuple[tuple[int, int, tuple[tuple[int, ...], ...]], ...]
    ids: tuple[str, ...]
    itineraries: tuple[ItineraryTable, ...]
    #: [True] once `complete` has run (a box: the tables themselves are frozen).
    completed: list[bool] = field(default_factory=lambda: [False], compare=False, repr=False)

    def complete(self) -> None:
        """Build every itinerary's whole transition memo, once per edition
        (`ItineraryTable.complete`); later calls cost nothing."""
        if not self.completed[0]:
            for table in self.itineraries:
                table.complete()
            self.completed[0] = True


def build_tables(
    ids: Sequence[str],
    cards: Sequence[tuple[int, int, int, Sequence[str]]],
    slots: Sequence[Sequence[str]],
    itineraries: Sequence[tuple[Sequence[Sequence[object]], Sequence[object]]],
) -> RuleTables:
    """``cards`` are (hours, year, day, gains) in edition order."""
    slot_codes = [tuple(BENEFIT_CODE[b] for b in s) for s in slots]
    assert len(slot_codes) == ROW_SIZE
    # each card's own codes once, then joined to each position's (not recoded six times)
    own = [tuple(map(BENEFIT_CODE.__getitem__, card_gains)) for _, _, _, card_gains in cards]
    gains = tuple(tuple(codes + slot for slot in slot_codes) for codes in own)
    return RuleTables(
        hours=tuple(c[0] for c in cards),
        day_cards=tuple(tuple(i for i, c in enumerate(cards) if c[2] == d) for d in range(1, DAYS + 1)),
        take=tuple((c[0], c[1], g) for c, g in zip(cards, gains, strict=True)),
        ids=tuple(ids),
        itineraries=tuple(ItineraryTable.build(cols, rows) for cols, rows in itineraries),
    )
