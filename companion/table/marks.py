"""A player's colour and marker: one pair per player, the same on the table page, the ring
and the history, game after game.

A pair is given at a player's first game and kept by player key. Two players who share a
colour at one table cannot both have it (the ring tells watches apart by colour only), so the
later seat takes the first colour free; a new player takes the least used marker and colour,
so players shown together are told apart without colour.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from companion.util.config import MARKERS

__all__ = ["MARKERS"]

Mark = tuple[str, int]


def seat_marks(
    keys: Sequence[str],
    chosen: Sequence[str | None],
    palette: Sequence[str],
    known: dict[str, Mark],
) -> tuple[list[str], list[int], dict[str, Mark]]:
    """The seats' colours and markers for a game of the players ``keys`` (in seat order),
    and the pairs to keep: new players' and those whose colour the family chose.

    ``chosen``: a colour picked on the form for the seat, or None; ``palette``: the table's
    colours, in the order new players take them; ``known``: the kept pairs by key."""
    used_pairs = {(colour.upper(), marker) for colour, marker in known.values()}
    keep: dict[str, Mark] = {}
    own: list[Mark | None] = []
    for seat, key in enumerate(keys):
        pick = chosen[seat] if seat < len(chosen) else None
        mine = known.get(key)
        if mine is not None and (pick is None or pick.upper() == mine[0].upper()):
            own.append(mine)
        elif pick is not None:  # a colour picked now: theirs from now on, with a marker free with it
            own.append(_kept(key, pick, mine[1] if mine else None, used_pairs, keep))
        else:
            own.append(None)  # a new player: after the others have their colours
    seated = {mark[0].upper() for mark in own if mark is not None}
    for seat, key in enumerate(keys):
        if own[seat] is None:
            # a pair no one has; the marker fewest players have (up to 8 players, each has their
            # own: told apart without colour), then a colour free at this table, the least worn
            rank = _new_pair_rank(palette, used_pairs, seated)
            colour, marker = min(((c.upper(), m) for c in palette for m in range(MARKERS)), key=rank)
            own[seat] = _kept(key, next(c for c in palette if c.upper() == colour), marker, used_pairs, keep)
            seated.add(colour)
    # each seat its player's colour, unless an earlier seat has it: then, for this game only,
    # the first palette colour free at the table (the ring tells watches apart by colour)
    colours: list[str] = []
    for mark in own:
        assert mark is not None
        colour = mark[0]
        if colour.upper() in (c.upper() for c in colours):
            taken = {c.upper() for c in colours} | {m[0].upper() for m in own if m is not None}
            free = [c for c in palette if c.upper() not in taken]
            free = free or [c for c in palette if c.upper() not in {x.upper() for x in colours}]
            colour = (free or list(palette))[0]
        colours.append(colour)
    return colours, [mark[1] for mark in own if mark is not None], keep


def _new_pair_rank(
    palette: Sequence[str], used_pairs: set[Mark], seated: set[str]
) -> Callable[[Mark], tuple[bool, int, bool, int, int, int]]:
    """How good a pair is for a new player (smaller is better)."""
    worn = Counter(colour for colour, _ in used_pairs)
    shapes = Counter(marker for _, marker in used_pairs)
    order = {c.upper(): i for i, c in reversed(list(enumerate(palette)))}

    def rank(pair: Mark) -> tuple[bool, int, bool, int, int, int]:
        colour, marker = pair
        return (pair in used_pairs, shapes[marker], colour in seated, worn[colour], order[colour], marker)

    return rank


def _kept(key: str, colour: str, wanted: int | None, used_pairs: set[Mark], keep: dict[str, Mark]) -> Mark:
    """A player's new pair: ``colour`` and a marker no one has with it, kept."""
    mark = (colour, _free_marker(colour, used_pairs, wanted))
    used_pairs.add((colour.upper(), mark[1]))
    keep[key] = mark
    return mark


def _free_marker(colour: str, used_pairs: set[Mark], wanted: int | None) -> int:
    """``wanted`` if no other player has it with ``colour``, else the first marker free with it
    (the first one once all are: more players than pairs is a family of 33)."""
    order = ([wanted] if wanted is not None else []) + list(range(MARKERS))
    for marker in order:
        if (colour.upper(), marker) not in used_pairs:
            return marker
    return order[0]
