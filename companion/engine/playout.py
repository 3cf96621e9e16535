"""Playouts: a game played to its end by random legal moves, or mostly greedy ones, fast.

The coach plays thousands of throw-away games a second from a position. `play_out` is
``random_bot`` and `Board.push` in one loop: the same random numbers in the same order, the
move applied as `Board._take` does, without checks or undo records. A Hypothesis property
(`tests/coach/test_coach.py`) holds the two equal move by move; the rare paths call the
board's own code. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.engine.board import HOUR_WEIGHT, LAST_TURN_KEY, Board
from companion.engine.edition import Edition
from companion.engine.state import EMPTY, HIDDEN, RandomSource
from companion.engine.tokens import CRYSTAL_CODE, HOURS_PER_DAY, PUNCTUALITY_BONUS, ROW_SIZE

#: The random bot's stand-in for "the Ancestor card" among row positions.
ANCESTOR_PICK = -3
#: Token codes per itinerary progress number in an `ItineraryTable`'s memo.
_CODES = 5


class NoLegalMove(RuntimeError):
    """The player to move has no legal move (an edition with too few itineraries or cards)."""

    def __init__(self, board: Board) -> None:
        super().__init__(
            f"{board.player_to_move} has no legal move on Day {board.day}: the edition has too few "
            "itineraries or cards for this many players"
        )


def draw_pick(
    row: Sequence[int], k: int, ancestor_ok: bool, rand: Callable[[], float]
) -> tuple[int, int] | None:
    """The random bot's card, by rejection sampling over the six positions (and the Ancestor)
    from the position ``k`` drawn already, uniform over what is there; after 15 misses, a draw
    among what is there. (pick, its position: 6 for the Ancestor), or None: nothing to take."""
    span = 7 if ancestor_ok else 6
    pick = ANCESTOR_PICK if k == 6 else row[k]
    tries = 1
    while pick < 0 and pick != ANCESTOR_PICK:
        if tries == 16:
            cards = [c for c in row if c >= 0] + ([ANCESTOR_PICK] if ancestor_ok else [])
            if not cards:
                return None
            pick = cards[int(rand() * len(cards))]
            return pick, (row.index(pick) if pick >= 0 else 6)
        k = int(rand() * span)
        pick = ANCESTOR_PICK if k == 6 else row[k]
        tries += 1
    return pick, k


def play_out(board: Board, rng: RandomSource, limit: int, greedy: float = 0.0) -> int:
    """Play random legal moves on ``board`` until the game ends or ``limit`` moves are
    played (an Itinerary choice counts as one); returns how many were played. ``greedy``: the
    share of card choices made by `_greedy_pick` (at 0, exactly `random_bot`'s moves). Raises
    `NoLegalMove`, as the random bot does, with the moves before it applied."""
    played = 0
    while played < limit and not board.finished:
        played += _play_day(board, rng, limit - played, greedy)
    return played


def _play_day(board: Board, rng: RandomSource, limit: int, greedy: float = 0.0) -> int:  # noqa: C901
    # one loop on purpose: the coach's rollouts run it millions of times, and a call per step
    # would cost them (benchmarks/bench_coach.py); a Hypothesis property holds it to `push`
    """At most ``limit`` moves of the current Day: stops after the move that ends it
    (the board's lists are new then, so the caller starts again with fresh locals)."""
    tables = board.tables
    take = tables.take
    itineraries = tables.itineraries
    count = len(itineraries)
    has_itineraries = board.has_itineraries
    ancestor = board.edition.ancestor
    ancestor_hours, ancestor_gains = (ancestor.hours, ancestor.gain_codes) if ancestor else (0, ())
    rand = rng.random
    hour, seq, order, row = board.hour, board.seq, board.order, board.row
    track, crystals, chosen, used, fills = (
        board.track,
        board.crystals,
        board.itinerary,
        board.used,
        board.fills,
    )
    treks, trek_len, trek_year = board.treks, board.trek_len, board.trek_year
    deck, deck_size = board.deck, board.deck_size
    drawn, next_seq, ancestors_left, turn = board.drawn, board.next_seq, board.ancestors_left, board.turn
    played = 0
    ended = False  # the Day ended: the board has the figures and new lists already
    try:
        while played < limit:
            played += 1
            who = turn
            itinerary = chosen[who]
            if itinerary < 0 and has_itineraries:  # random_bot's _random_itinerary
                for _ in range(8):
                    i = int(rand() * count)
                    if not used[who] >> i & 1 and i not in chosen:
                        break
                else:
                    choices = board.itinerary_choices(board.names[who])
                    if not choices:
                        raise NoLegalMove(board)
                    i = board.edition.itinerary_index[choices[int(rand() * len(choices))]]
                chosen[who] = i
                used[who] |= 1 << i
                continue

            # The card: random_bot's rejection sampling over the positions and the Ancestor.
            ancestor_ok = ancestor is not None and ancestors_left > 0 and trek_len[who] > 0
            span = 7 if ancestor_ok else 6
            if greedy and rand() < greedy:
                k = _greedy_pick(board, who, itinerary, ancestor_ok, ancestor_hours, ancestor_gains)
            else:
                k = int(rand() * span)
            picked = draw_pick(row, k, ancestor_ok, rand)
            if picked is None:
                raise NoLegalMove(board)
            pick, k = picked
            if pick >= 0:
                hours, year, by_position = take[pick]
                gains = by_position[k]
            else:
                hours, year, gains = ancestor_hours, -1, ancestor_gains
            held = crystals[who]
            most = held if held < hours else hours - 1  # never below a 1-hour cost
            spent = int(rand() * (most + 1)) if most > 0 else 0

            # The take, as Board._take applies a legal one. 2. the watch
            points = track[who]
            arrival = hour[who] + hours - spent
            if arrival >= HOURS_PER_DAY:
                if arrival == HOURS_PER_DAY:
                    points += PUNCTUALITY_BONUS
                arrival = HOURS_PER_DAY
            hour[who] = arrival
            stamp = next_seq
            seq[who] = stamp
            next_seq = stamp + 1
            # 3. benefits on the itinerary (place_tokens with no Wild named, inline)
            held -= spent
            if itinerary >= 0:
                table = itineraries[itinerary]
                steps = table.steps or table.memo()
                progress = fills[who]
                for code in gains:
                    if code == CRYSTAL_CODE:
                        held += 1
                        continue
                    step = steps[progress * _CODES + code] or table.step(progress, code)
                    progress = step[0]
                    points += step[1]
                    held += step[2]
                fills[who] = progress
            elif gains:
                held += gains.count(CRYSTAL_CODE)
            track[who] = points
            crystals[who] = held
            # 4. the trek
            length = trek_len[who]
            if pick < 0:
                trek_len[who] = length + 1
            else:
                if length and year > trek_year[who]:
                    trek_len[who] = length + 1
                else:
                    if length:
                        treks[who].append(length)
                    trek_len[who] = 1
                trek_year[who] = year
            # 5. the row slides right and refills, or an Ancestor copy goes: the cards before
            #    position k move one place on, which is taking k out and adding a card at 0
            if pick >= 0:
                del row[k]
                if drawn < deck_size:
                    row.insert(0, HIDDEN if deck is None else deck[drawn])
                    drawn += 1
                else:
                    row.insert(0, EMPTY)
            else:
                ancestors_left -= 1
            # 6. the next player, or the Day's end
            order[who] = arrival * HOUR_WEIGHT - stamp
            first = min(order)
            if first > LAST_TURN_KEY:
                ended = True
                _end_day(board, drawn, next_seq, ancestors_left, turn)
                return played
            turn = order.index(first)
            if (
                drawn >= deck_size
                and row.count(EMPTY) == ROW_SIZE
                and (ancestors_left <= 0 or ancestor is None or not trek_len[turn])
            ):  # stalled (Board._stalled): the Day ends at once
                ended = True
                _end_day(board, drawn, next_seq, ancestors_left, turn)
                return played
    finally:
        if not ended:  # the loop's figures back to the board (a limit reached, no legal move)
            board.drawn, board.next_seq, board.ancestors_left, board.turn = (
                drawn,
                next_seq,
                ancestors_left,
                turn,
            )
    return played


#: What an hour on the Clock is worth to the greedy bot and `_greedy_pick`, in points (a turn
#: yields a few points for a few hours, so time is never free), and a growing trek, per card.
HOUR_VALUE = 1.2
TREK_GROWTH_VALUE = 0.6


def _greedy_pick(
    board: Board,
    who: int,
    itinerary: int,
    ancestor_ok: bool,
    ancestor_hours: int,
    ancestor_gains: tuple[int, ...],
) -> int:
    """The row position (6: the Ancestor) whose card gains most now, as the greedy bot
    weighs it but without pushing anything: itinerary points and crystals (each worth a
    point at the end), plus a bonus for a trek it extends, less its hours. No crystal is
    counted as spent. -1 when the row is empty (the random draw then decides)."""
    tables = board.tables
    take, row = tables.take, board.row
    length, last_year = board.trek_len[who], board.trek_year[who]
    steps: list[tuple[int, int, int] | None] | None = None
    table = None
    progress = 0
    if itinerary >= 0:
        table = tables.itineraries[itinerary]
        steps = table.steps or table.memo()
        progress = board.fills[who]
    best, best_k = -1e9, -1
    for k in range(ROW_SIZE + (1 if ancestor_ok else 0)):
        if k < ROW_SIZE:
            card = row[k]
            if card < 0:
                continue
            hours, year, by_position = take[card]
            gains = by_position[k]
            extends = length > 0 and year > last_year
        else:
            hours, gains, extends = ancestor_hours, ancestor_gains, True
        value = -HOUR_VALUE * hours + (TREK_GROWTH_VALUE * (length + 1) if extends else 0.0)
        at = progress
        for code in gains:
            if code == CRYSTAL_CODE:
                value += 1
            elif steps is not None and table is not None:
                step = steps[at * _CODES + code] or table.step(at, code)
                at = step[0]
                value += step[1] + step[2]
        if value > best:
            best, best_k = value, k
    return best_k


def _end_day(board: Board, drawn: int, next_seq: int, ancestors_left: int, turn: int) -> None:
    """Give the board the loop's figures, then end the Day as `Board._take` does."""
    board.drawn, board.next_seq, board.ancestors_left, board.turn = drawn, next_seq, ancestors_left, turn
    ended = board.settle_day()
    assert ended, "play_out's turn keys and the board disagree on the Day's end"


def trek_points_table(edition: Edition, players: int) -> tuple[int, ...]:
    """The points of a trek of every length a game can reach (0 to every card and Ancestor
    copy in one trek): `Edition.trek_points` looked up once per answer, not per trek."""
    longest = len(edition.cards) + edition.ancestor_copies(players)
    return tuple(edition.trek_points(length) for length in range(longest + 1))


def result(board: Board, trek_points: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Every player's final total and the winners (indices, setup order): what
    `Board.standings` and `companion.engine.scoring.winners` say, without building a
    `Standing` per player at the end of every rollout. The tie-break's sorted treks are
    built only when totals tie."""
    track, crystals, treks, trek_len = board.track, board.crystals, board.treks, board.trek_len
    points = trek_points.__getitem__
    totals = [
        track[i] + crystals[i] + points(trek_len[i]) + sum(map(points, treks[i])) for i in range(len(track))
    ]
    best = max(totals)
    leaders = [i for i, total in enumerate(totals) if total == best]
    if len(leaders) > 1:  # longest trek first, then the second longest... (scoring.tie_break_key)
        keys = {i: tuple(sorted(board.trek_lengths(i), reverse=True)) for i in leaders}
        top = max(keys.values())
        leaders = [i for i in leaders if keys[i] == top]
    return totals, leaders
