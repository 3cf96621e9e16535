"""Placing Experience tokens on an Itinerary card.

Each token covers the uppermost empty space of its column (a full column returns it); a
covered icon pays at once, and so does a row reward the token completes. A Wild token with no
column named goes to the column that scores most now (a crystal counts as 1 point), ties in
the order person, event, innovation, progress. Covering is top-down, so progress is each
column's depth, packed into one integer; each (progress, token) step is memoized, and a memo
computed beforehand (`companion.editions.memos`) can be offered, checked on a sample first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

from companion.engine.tokens import COLUMN_INDEX, CRYSTAL, CRYSTAL_CODE, WILD_CODE

#: (points, crystals) of covering a space or completing a row.
Reward = tuple[int, int]
#: (progress after the token, points gained, crystals gained).
Step = tuple[int, int, int]
#: Token codes a transition is memoized for: the four columns, then "Wild, engine's choice".
_CODES = 5
#: The version of `ItineraryTable.compute`'s rules: a memo computed beforehand records it and
#: is taken only under the same one. Change it with any change to how a step is computed
#: (``tests/editions/test_memos.py`` fails on a shipped memo that no longer matches).
MEMO_VERSION = 1
#: The key of an itinerary's memo: its flattened card, (lengths, spaces, rows).
MemoKey = tuple[
    tuple[int, int, int, int],
    tuple[tuple[Reward, ...], ...],
    tuple[tuple[int, int, tuple[int, ...]] | None, ...],
]


def reward(space: object) -> Reward:
    """Translate a printed space or row reward into (points, crystals)."""
    if space is None:
        return (0, 0)
    if space == CRYSTAL:
        return (0, 1)
    assert isinstance(space, int)
    return (space, 0)


@dataclass(frozen=True, slots=True)
class ItineraryTable:
    """One Itinerary, flattened for the engine.

    ``spaces[c][i]`` is the reward of the i-th space (top first) of column c;
    ``rows[i]`` is ``(points, crystals, columns)`` for row i, where ``columns``
    lists the columns deep enough to have a space in that row, or ``None`` when
    the row has no reward. ``radix[c]`` is column c's weight in a progress number.
    """

    lengths: tuple[int, int, int, int]
    spaces: tuple[tuple[Reward, ...], ...]
    rows: tuple[tuple[int, int, tuple[int, ...]] | None, ...]
    radix: tuple[int, int, int, int]
    steps: list[Step | None] = field(compare=False, repr=False)
    #: What reads a memo computed beforehand for this card (at most one, see `offer`), called
    #: when the memo is first needed.
    offered: list[Callable[[], Sequence[object] | None]] = field(
        default_factory=list, compare=False, repr=False
    )

    @classmethod
    def build(cls, columns: Sequence[Sequence[object]], rows: Sequence[object]) -> ItineraryTable:
        lengths = (len(columns[0]), len(columns[1]), len(columns[2]), len(columns[3]))
        spaces = tuple(tuple(reward(s) for s in col) for col in columns)
        row_table: list[tuple[int, int, tuple[int, ...]] | None] = []
        for i, r in enumerate(rows):
            points, crystals = reward(r)
            members = tuple(c for c in range(4) if lengths[c] > i)
            row_table.append((points, crystals, members) if (points or crystals) and members else None)
        radix = [1, 1, 1, 1]
        for c in range(1, 4):
            radix[c] = radix[c - 1] * (lengths[c - 1] + 1)
        return cls(lengths, spaces, tuple(row_table), (radix[0], radix[1], radix[2], radix[3]), [])

    @property
    def key(self) -> MemoKey:
        """What the memo depends on: two tables with the same key have the same memo."""
        return (self.lengths, self.spaces, self.rows)

    @property
    def states(self) -> int:
        """How many progress numbers this card has (every mixed-radix number is one)."""
        return self.radix[3] * (self.lengths[3] + 1)

    def offer(self, read: Callable[[], Sequence[object] | None]) -> None:
        """Offer a memo computed beforehand for this card (`key`): ``read`` gives it (or None)
        when the itinerary is first played, and `memo` takes it only if it `matches`."""
        if not self.steps:
            self.offered[:] = [read]

    def memo(self) -> list[Step | None]:
        """The transition memo, allocated when this itinerary is first played (the others cost
        no memory): the offered one if it `matches`, else empty, filled step by step."""
        if not self.steps:
            offered = self.offered
            steps = offered[0]() if offered else None
            if steps is not None and self.matches(steps):
                self.steps.extend(cast("Sequence[Step | None]", steps))
            else:
                self.steps.extend([None] * (self.states * _CODES))
            offered.clear()
        return self.steps

    def matches(self, steps: Sequence[object]) -> bool:
        """Whether ``steps`` can be this card's whole memo: one step per (progress, token), and
        a sample of them equal to what `compute` gives; it catches a wrong card or a stale
        file (the tests check the shipped memos whole)."""
        states = self.states
        if len(steps) != states * _CODES:
            return False
        for code in range(_CODES):
            spread = (states - 1) * code // (_CODES - 1)
            for progress in (spread, states - 1 - spread):
                if steps[progress * _CODES + code] != self.compute(progress, code):
                    return False
        return True

    def complete(self) -> None:
        """Fill the whole transition memo now, so that no step is computed in the middle of a
        rollout (the coach's rollouts visit most states; the table keeps the lazy memo)."""
        steps = self.memo()
        for progress in range(len(steps) // _CODES):
            for code in range(_CODES):  # every progress number is a state (mixed radix)
                if steps[progress * _CODES + code] is None:
                    self.step(progress, code)

    def encode(self, fills: Sequence[int]) -> int:
        """The progress number of columns covered ``fills`` deep."""
        return sum(f * r for f, r in zip(fills, self.radix, strict=True))

    def decode(self, progress: int) -> tuple[int, int, int, int]:
        """How deep each column is covered."""
        f = [0, 0, 0, 0]
        for c in range(3, -1, -1):
            f[c], progress = divmod(progress, self.radix[c])
        return (f[0], f[1], f[2], f[3])

    def step(self, progress: int, code: int) -> Step:
        """Place one token (a column index, or `WILD_CODE` for the engine's choice), and
        memoize the step."""
        result = self.compute(progress, code)
        self.memo()[progress * _CODES + code] = result
        return result

    def compute(self, progress: int, code: int) -> Step:
        """The step of placing one token at ``progress``, computed from the card."""
        fills = list(self.decode(progress))
        column = best_wild_column(self, fills) if code == WILD_CODE else code
        if column < 0 or fills[column] >= self.lengths[column]:
            result = (progress, 0, 0)  # no empty space: the token is returned to the supply
        else:
            i = fills[column]
            fills[column] = i + 1
            points, crystals = self.spaces[column][i]
            row = self.rows[i] if i < len(self.rows) else None
            if row is not None and all(fills[m] > i for m in row[2]):
                points += row[0]
                crystals += row[1]
            result = (progress + self.radix[column], points, crystals)
        return result


def place_tokens(table: ItineraryTable, progress: int, gains: tuple[int, ...], wild: tuple[str, ...]) -> Step:
    """Place ``gains`` (benefit codes) at ``progress``: the new progress, the points and the
    crystals gained (those among ``gains`` too). ``wild`` names the column of each Wild, in
    order; Wilds beyond it go where the engine chooses."""
    steps = table.steps or table.memo()
    points = crystals = 0
    wilds = 0
    for code in gains:
        if code >= WILD_CODE:
            if code == CRYSTAL_CODE:
                crystals += 1
                continue
            if wilds < len(wild):
                code = COLUMN_INDEX[wild[wilds]]
                wilds += 1
        step = steps[progress * _CODES + code] or table.step(progress, code)
        progress = step[0]
        points += step[1]
        crystals += step[2]
    return progress, points, crystals


def best_wild_column(table: ItineraryTable, fills: list[int]) -> int:
    """The engine's choice for an unnamed Wild: the column scoring most now (-1: none)."""
    best, best_value = -1, 0
    for c in range(4):
        i = fills[c]
        if i >= table.lengths[c]:
            continue
        value = sum(table.spaces[c][i])
        row = table.rows[i] if i < len(table.rows) else None
        if row is not None and all(fills[m] > i or m == c for m in row[2]):
            value += row[0] + row[1]
        if best < 0 or value > best_value:  # a Wild is never lost while a space is empty,
            best, best_value = c, value  # even when every space scores below zero
    return best
