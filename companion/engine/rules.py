"""The rules: one event applied to one state gives a new state or a rejection.

This module is pure (no I/O, no clock, no randomness): `apply` is a function of
the setup, the state and the event. Undo needs the history, so it lives one level
up, in `companion.engine.game.Game`'s move stack.

A take runs the rulebook's turn steps in order:

1. check it (the contract's rejection codes, first applicable wins);
2. move the watch: hours less crystals, never below 1; stop at 12, with the
   Punctuality Bonus only for landing exactly on 12; stack on top of that hour;
3. collect benefits: the card's, then the playmat position's; tokens go on the
   uppermost empty space of their column, icons and completed rows pay at once;
4. file the card into the trek (later year joins; same or earlier starts anew;
   an Ancestor joins and keeps the trek's last year);
5. slide and refill the Departures Row;
6. pass the turn, or end the Day (all watches at 12) or the game (after Day III).

**Wild tokens without a column named in the event** go to the column that scores
most *now*: the points printed on the space it would cover plus a row reward it
would complete, a crystal counting as 1 point. Ties go to the first column in the
order person, event, innovation, progress; with every column full it is lost.
"""

from __future__ import annotations

from companion.engine.edition import Edition, Itinerary
from companion.engine.events import ChooseItinerary, Event, Malformed, Reveal, Take, Undo
from companion.engine.rejections import (
    ANCESTOR_CANNOT_START_TREK,
    BAD_EVENT,
    CARD_NOT_AVAILABLE,
    COST_BELOW_ONE,
    GAME_OVER,
    ITINERARY_REQUIRED,
    ITINERARY_UNAVAILABLE,
    NO_ANCESTOR_LEFT,
    NOT_YOUR_TURN,
    TOO_MANY_CRYSTALS,
    UNKNOWN_CARD,
    Rejection,
)
from companion.engine.state import (
    EMPTY,
    HIDDEN,
    GameState,
    PlayerState,
    Setup,
    deal,
    next_turn,
)
from companion.engine.tokens import (
    ANCESTOR,
    COLUMN_INDEX,
    COLUMNS,
    CRYSTAL,
    CRYSTAL_CODE,
    DAY_NAMES,
    DAYS,
    HOURS_PER_DAY,
    PUNCTUALITY_BONUS,
    WILD_CODE,
)


def apply(setup: Setup, state: GameState, event: Event) -> GameState | Rejection:
    """Apply one event. Returns the next state, or why the event is refused."""
    if isinstance(event, Take):
        return take(setup, state, event)
    if isinstance(event, ChooseItinerary):
        return choose_itinerary(setup, state, event)
    if isinstance(event, Reveal):
        return reveal(setup, state, event)
    if isinstance(event, Malformed):
        if state.finished and event.kind in ("take", "itinerary", "reveal"):
            return _game_over()
        return Rejection(BAD_EVENT, event.reason)
    if isinstance(event, Undo):
        raise TypeError("undo needs the move stack: use Game.push")
    raise TypeError(f"not an event: {event!r}")


def _game_over() -> Rejection:
    return Rejection(GAME_OVER, "The game is over: Day III has ended. Only undo is still possible.")


def _card_name(edition: Edition, index: int) -> str:
    card = edition.cards[index]
    return f"{card.title} ({card.id}, {_year(card.year)})"


def _year(year: int) -> str:
    return f"{-year} BCE" if year < 0 else str(year)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --- choosing an Itinerary -------------------------------------------------------


def choose_itinerary(setup: Setup, state: GameState, event: ChooseItinerary) -> GameState | Rejection:
    """A player picks this Day's Itinerary: any one not yet used by them or taken today."""
    if state.finished:
        return _game_over()
    who = setup.player_index.get(event.player)
    if who is None:
        return Rejection(BAD_EVENT, f"{event.player!r} is not playing; the players are {_names(setup)}.")
    edition = setup.edition
    player = state.players[who]
    day = DAY_NAMES[state.day - 1]
    index = edition.itinerary_index.get(event.itinerary)
    if index is None:
        known = ", ".join(edition.itinerary_index) or "none"
        return Rejection(
            ITINERARY_UNAVAILABLE,
            f"There is no Itinerary {event.itinerary!r} in this edition (it has: {known}).",
        )
    if player.itinerary >= 0:
        current = edition.itineraries[player.itinerary].id
        return Rejection(
            ITINERARY_UNAVAILABLE,
            f"{event.player} already uses Itinerary {current} on Day {day}; undo that choice to change it.",
        )
    if player.used >> index & 1:
        return Rejection(
            ITINERARY_UNAVAILABLE,
            f"{event.player} used Itinerary {event.itinerary} on an earlier Day; each is used once.",
        )
    for other, p in enumerate(state.players):
        if p.itinerary == index:
            return Rejection(
                ITINERARY_UNAVAILABLE,
                f"{setup.players[other]} already uses Itinerary {event.itinerary} on Day {day}.",
            )
    players = list(state.players)
    players[who] = player._replace(itinerary=index, used=player.used | 1 << index)
    return state._replace(players=tuple(players))


def _names(setup: Setup) -> str:
    return ", ".join(setup.players)


# --- revealing a card ----------------------------------------------------------------


def reveal(setup: Setup, state: GameState, event: Reveal) -> GameState | Rejection:
    """The table shows a card: it fills the oldest position still waiting for one."""
    if state.finished:
        return _game_over()
    if not setup.reveals:
        return Rejection(BAD_EVENT, "This game's decks are known, so the engine deals; reveal is not used.")
    edition = setup.edition
    index = edition.card_index.get(event.card)
    if index is None:
        return Rejection(UNKNOWN_CARD, f"There is no card {event.card!r} in the {edition.name} edition.")
    row = state.row
    waiting = [pos for pos in range(len(row) - 1, -1, -1) if row[pos] == HIDDEN]
    day = DAY_NAMES[state.day - 1]
    if state.revealed >> index & 1:
        return Rejection(CARD_NOT_AVAILABLE, f"{_card_name(edition, index)} has already been revealed.")
    if edition.cards[index].day != state.day:
        card_day = DAY_NAMES[edition.cards[index].day - 1]
        return Rejection(
            CARD_NOT_AVAILABLE,
            f"{_card_name(edition, index)} belongs to the Day {card_day} deck; Day {day} is in play.",
        )
    if not waiting:
        return Rejection(
            CARD_NOT_AVAILABLE,
            "No position of the Departures Row is waiting for a card; take a card first.",
        )
    new_row = list(row)
    new_row[waiting[0]] = index
    return state._replace(row=tuple(new_row), revealed=state.revealed | 1 << index)


# --- taking a card -----------------------------------------------------------------


def take(setup: Setup, state: GameState, event: Take) -> GameState | Rejection:
    """Referee one take (see the module docstring for the steps)."""
    if state.finished:
        return _game_over()
    edition = setup.edition
    who = state.turn
    player = state.players[who]
    if event.player is not None:
        named = setup.player_index.get(event.player)
        if named is None:
            return Rejection(BAD_EVENT, f"{event.player!r} is not playing; the players are {_names(setup)}.")
        if named != who:
            return Rejection(
                NOT_YOUR_TURN,
                f"It is {setup.players[who]}'s turn (hour {player.hour}), not {event.player}'s "
                f"(hour {state.players[named].hour}): the watch furthest behind moves first.",
            )
    name = setup.players[who]
    if player.itinerary < 0 and edition.itineraries:
        return Rejection(
            ITINERARY_REQUIRED,
            f"{name} has not chosen an Itinerary for Day {DAY_NAMES[state.day - 1]}; "
            "choose one before taking a card.",
        )
    card_id = event.card
    if card_id == ANCESTOR:
        ancestor = edition.ancestor
        if state.ancestors_left <= 0 or ancestor is None:
            copies = edition.ancestor_copies(len(setup.players))
            return Rejection(
                NO_ANCESTOR_LEFT, f"All {_plural(copies, 'Ancestor card')} of this game are taken."
            )
        if player.trek_len == 0:
            return Rejection(
                ANCESTOR_CANNOT_START_TREK,
                f"{name} has no Trek yet and an Ancestor cannot start one; take a History card first.",
            )
        index, position = -1, -1
        hours, gains, label = ancestor.hours, ancestor.gain_codes, "the Ancestor card"
    else:
        found = edition.card_index.get(card_id)
        if found is None:
            return Rejection(UNKNOWN_CARD, f"There is no card {card_id!r} in the {edition.name} edition.")
        index = found
        row = state.row
        if index not in row:
            return Rejection(CARD_NOT_AVAILABLE, _not_in_row(edition, index, row))
        position = row.index(index)
        card = edition.cards[index]
        hours, gains, label = card.hours, card.gain_codes, _card_name(edition, index)
    spent = event.crystals
    if spent > player.crystals:
        return Rejection(
            TOO_MANY_CRYSTALS,
            f"{name} holds {_plural(player.crystals, 'crystal')} and cannot spend {spent}.",
        )
    cost = hours - spent
    if spent and cost < 1:
        return Rejection(
            COST_BELOW_ONE,
            f"{label} costs {_plural(hours, 'hour')}: {name} can spend at most "
            f"{_plural(hours - 1, 'crystal')} on it (a card always costs at least 1 hour).",
        )

    # 2. the watch
    arrival = player.hour + cost
    track = player.track
    if arrival >= HOURS_PER_DAY:
        if arrival == HOURS_PER_DAY:
            track += PUNCTUALITY_BONUS
        arrival = HOURS_PER_DAY
    crystals = player.crystals - spent

    # 3. benefits: the card's, then the playmat position's
    if position >= 0:
        gains = gains + edition.slot_codes[position]
    fills = player.fills
    if player.itinerary >= 0:
        itinerary = edition.itineraries[player.itinerary]
        points, gained, fills = place_tokens(itinerary, fills, gains, event.wild)
        track += points
        crystals += gained
    else:
        crystals += gains.count(CRYSTAL_CODE)

    # 4. the trek
    treks, trek_len, trek_year = player.treks, player.trek_len, player.trek_year
    if index < 0:
        trek_len += 1
    else:
        year = edition.cards[index].year
        if trek_len and year > trek_year:
            trek_len += 1
        else:
            if trek_len:
                treks = (*treks, trek_len)
            trek_len = 1
        trek_year = year

    moved = PlayerState(
        arrival, state.next_seq, track, crystals, player.itinerary, player.used, fills,
        treks, trek_len, trek_year,
    )  # fmt: skip
    players = list(state.players)
    players[who] = moved

    # 5. slide and refill
    row_t, drawn, ancestors_left = state.row, state.drawn, state.ancestors_left
    if position >= 0:
        row_t, drawn = refill(setup, state.day, row_t, drawn, position)
    else:
        ancestors_left -= 1

    # 6. next turn, end of Day, end of game
    for p in players:
        if p.hour < HOURS_PER_DAY:
            players_t = tuple(players)
            return GameState(
                state.day, False, players_t, row_t, drawn, state.revealed, ancestors_left,
                state.next_seq + 1, next_turn(players_t),
            )  # fmt: skip
    return end_of_day(setup, state, tuple(players), ancestors_left, state.next_seq + 1, row_t, drawn)


def _not_in_row(edition: Edition, index: int, row: tuple[int, ...]) -> str:
    shown = [edition.cards[c].id for c in row if c >= 0]
    holds = ", ".join(shown) if shown else "no cards"
    return (
        f"{_card_name(edition, index)} is not in the Departures Row now (it holds {holds}). "
        "Take one of those or an Ancestor."
    )


def refill(
    setup: Setup, day: int, row: tuple[int, ...], drawn: int, position: int
) -> tuple[tuple[int, ...], int]:
    """Remove the card at ``position``, slide the row right and refill position 0."""
    new = list(row)
    if position:
        new[2 : position + 1] = row[1:position]
        new[1] = row[0]
    if drawn < setup.day_sizes[day - 1]:
        decks = setup.decks
        new[0] = HIDDEN if decks is None else decks[day - 1][drawn]
        drawn += 1
    else:
        new[0] = EMPTY
    return tuple(new), drawn


def end_of_day(
    setup: Setup,
    state: GameState,
    players: tuple[PlayerState, ...],
    ancestors_left: int,
    next_seq: int,
    row: tuple[int, ...],
    drawn: int,
) -> GameState:
    """Every watch is at 12: end the game after Day III, else deal the next Day.

    Row and deck are discarded and the next deck dealt; itineraries and their
    tokens go; watches restart at hour 0 in the stack order they ended in; treks
    and crystals are kept.
    """
    if state.day >= DAYS:
        return GameState(
            state.day, True, players, row, drawn, state.revealed, ancestors_left, next_seq, -1
        )
    day = state.day + 1
    fresh = tuple(p._replace(hour=0, itinerary=-1, fills=(0, 0, 0, 0)) for p in players)
    new_row, new_drawn = deal(setup, day)
    return GameState(
        day, False, fresh, new_row, new_drawn, state.revealed, ancestors_left, next_seq,
        next_turn(fresh),
    )  # fmt: skip


def place_tokens(
    itinerary: Itinerary,
    fills: tuple[int, int, int, int],
    gains: tuple[int, ...],
    wild: tuple[str, ...],
) -> tuple[int, int, tuple[int, int, int, int]]:
    """Place gained tokens on an Itinerary; returns (points, crystals, new fills).

    Crystals among ``gains`` are counted too, so the caller adds one total.
    """
    columns, rows = itinerary.columns, itinerary.rows
    f = list(fills)
    points = crystals = 0
    wild_used = 0
    for code in gains:
        if code == CRYSTAL_CODE:
            crystals += 1
            continue
        if code == WILD_CODE:
            if wild_used < len(wild):
                code = COLUMN_INDEX[wild[wild_used]]
                wild_used += 1
            else:
                wild_used += 1
                code = best_wild_column(itinerary, f)
                if code < 0:
                    continue
        column = columns[code]
        i = f[code]
        if i >= len(column):
            continue  # no empty space: the token is returned to the supply
        f[code] = i + 1
        space = column[i]
        if space is not None:
            if space == CRYSTAL:
                crystals += 1
            else:
                points += space  # type: ignore[operator]
        if i < len(rows):
            reward = rows[i]
            if reward is not None and _row_complete(columns, f, i):
                if reward == CRYSTAL:
                    crystals += 1
                else:
                    points += reward  # type: ignore[operator]
    return points, crystals, (f[0], f[1], f[2], f[3])


def _row_complete(columns: tuple[tuple[object, ...], ...], fills: list[int], i: int) -> bool:
    """Row ``i`` is complete when every column reaching that deep is covered there."""
    for c in range(4):
        if fills[c] <= i and len(columns[c]) > i:
            return False
    return True


def _value(space: object) -> int:
    if space is None:
        return 0
    if space == CRYSTAL:
        return 1
    return space  # type: ignore[return-value]


def best_wild_column(itinerary: Itinerary, fills: list[int]) -> int:
    """The engine's choice for an unnamed Wild: the column scoring most now (-1: none)."""
    columns, rows = itinerary.columns, itinerary.rows
    best, best_value = -1, -1
    for c in range(4):
        i = fills[c]
        column = columns[c]
        if i >= len(column):
            continue
        value = _value(column[i])
        if i < len(rows) and rows[i] is not None:
            fills[c] += 1
            if _row_complete(columns, fills, i):
                value += _value(rows[i])
            fills[c] -= 1
        if value > best_value:
            best, best_value = c, value
    return best


def column_name(code: int) -> str:
    return COLUMNS[code]
