"""Built-in players for simulations: a random bot and a greedy bot.

Bots only choose; the board referees their moves like anyone else's, so a bot
can never make the engine do something a player could not. A bot is a function
``(board, rng) -> event`` for the player to move. A player who has not chosen
this Day's Itinerary chooses it when their turn comes.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from companion.engine import Board, ChooseItinerary, Event, Take
from companion.engine.playout import HOUR_VALUE, TREK_GROWTH_VALUE, NoLegalMove, draw_pick
from companion.engine.tokens import ANCESTOR

Bot = Callable[[Board, random.Random], Event]
#: Builds a Take without the NamedTuple's Python-level __new__ (the benchmark's hot path).
_new_take = tuple.__new__


def random_bot(board: Board, rng: random.Random) -> Event:
    """A uniformly random legal card, then a uniformly random legal crystal spend (Wilds left
    to the engine). Reads the board directly for speed; `Board.take_options` offers the same."""
    who = board.turn
    if board.itinerary[who] < 0 and board.has_itineraries:
        return _random_itinerary(board, who, rng)
    row = board.row
    ancestor = board.edition.ancestor
    ancestor_ok = ancestor is not None and board.ancestors_left > 0 and board.trek_len[who] > 0
    drawn = draw_pick(row, int(rng.random() * (7 if ancestor_ok else 6)), ancestor_ok, rng.random)
    if drawn is None:
        raise NoLegalMove(board)
    pick = drawn[0]
    if pick >= 0:
        tables = board.tables
        card, hours = tables.ids[pick], tables.hours[pick]
    else:
        card, hours = ANCESTOR, ancestor.hours  # type: ignore[union-attr]
    held = board.crystals[who]
    most = held if held < hours else hours - 1  # never below a 1-hour cost
    spend = int(rng.random() * (most + 1)) if most > 0 else 0
    return _new_take(Take, (card, None, spend, ()))


def _random_itinerary(board: Board, who: int, rng: random.Random) -> ChooseItinerary:
    """A uniformly random available itinerary (by rejection sampling: most are free)."""
    itineraries = board.edition.itineraries
    used, taken = board.used[who], board.itinerary
    for _ in range(8):
        i = int(rng.random() * len(itineraries))
        if not used >> i & 1 and i not in taken:
            return ChooseItinerary(board.names[who], itineraries[i].id)
    choices = board.itinerary_choices(board.names[who])
    if not choices:
        raise NoLegalMove(board)
    return ChooseItinerary(board.names[who], choices[int(rng.random() * len(choices))])


def _running_total(board: Board, who: int) -> int:
    edition = board.edition
    trek_points = sum(edition.trek_points(n) for n in board.trek_lengths(who))
    return board.track[who] + board.crystals[who] + trek_points


def greedy_bot(board: Board, rng: random.Random) -> Event:
    """The take that gains most now: itinerary points, crystals and trek value, less time.

    Each candidate (card x crystals spent) is pushed on the board, scored by the
    change in the player's running total less the hours it costs, plus a bonus
    for a trek that keeps growing, and popped again. Ties are broken at random.
    Itineraries are chosen for their printed points.
    """
    who = board.turn
    if board.itinerary[who] < 0 and board.has_itineraries:
        return _greedy_itinerary(board)
    before = _running_total(board, who)
    hour, trek = board.hour[who], board.trek_len[who]
    day = board.day
    best: tuple[float, float] | None = None
    best_event: Take | None = None
    for option in list(board.take_options()):
        for spend in range(option.max_crystals + 1):
            event = Take(option.card, None, spend, ())
            if board.push(event) is not None:
                continue
            hours = (board.hour[who] - hour) if board.day == day else 12 - hour
            gain = _running_total(board, who) - before - HOUR_VALUE * hours
            if board.trek_len[who] > trek:
                gain += TREK_GROWTH_VALUE * board.trek_len[who]
            board.pop()
            key = (gain, rng.random())
            if best is None or key > best:
                best, best_event = key, event
    if best_event is None:
        raise NoLegalMove(board)
    return best_event


def _greedy_itinerary(board: Board) -> ChooseItinerary:
    edition = board.edition
    name = board.names[board.turn]
    choices = board.itinerary_choices(name)
    if not choices:
        raise NoLegalMove(board)

    def worth(iid: str) -> int:
        it = edition.itineraries[edition.itinerary_index[iid]]
        spaces = [s for col in it.columns for s in col] + list(it.rows)
        return sum(s if isinstance(s, int) else 1 for s in spaces if s is not None)

    return ChooseItinerary(name, max(choices, key=worth))


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
