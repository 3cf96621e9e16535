"""The table a game is set up on, and the game's state as immutable values.

`Setup` is fixed for a whole game (edition, players, watch stack, decks).
`GameState` is a snapshot of a `companion.engine.board.Board`: a value that can
be compared with ``==`` (undo must restore it exactly), stored, or shown.

Cards, itineraries and columns are referred to by their index in the edition,
not by name, because the engine's hot path is dominated by these lookups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, cast

from companion.engine.edition import Edition
from companion.engine.tokens import DAY_NAMES, DAYS, MAX_PLAYERS, ROW_SIZE

#: A Departures Row position with no card (the deck ran out).
EMPTY = -1
#: A position holding a card the table has not revealed yet (records without decks).
HIDDEN = -2


class PlayerState(NamedTuple):
    """One player's part of the state.

    ``seq`` orders watches that share an hour: the higher, the nearer the top of
    the stack. ``itinerary`` is the index of this Day's Itinerary (-1: none yet);
    ``used`` is a bit set of the itineraries used on any Day. ``fills`` counts the
    covered spaces of each column (covering is always top-down, so a count says it
    all). ``treks`` are the completed treks' lengths; the current trek has
    ``trek_len`` cards (0: no trek yet) and its last year is ``trek_year``.
    """

    hour: int
    seq: int
    track: int
    crystals: int
    itinerary: int
    used: int
    fills: tuple[int, int, int, int]
    treks: tuple[int, ...]
    trek_len: int
    trek_year: int

    def trek_lengths(self) -> tuple[int, ...]:
        """Every trek's length: completed in order, the current one last."""
        return (*self.treks, self.trek_len) if self.trek_len else self.treks


class GameState(NamedTuple):
    """The whole table between two events.

    ``row`` holds card indices by Departures Row position (0 is the deck's face-up
    top card), or `EMPTY` / `HIDDEN`. ``drawn`` counts the cards that have left the
    current Day deck; ``revealed`` is a bit set of cards revealed so far (records
    without decks). ``turn`` is the index of the player to move, -1 once finished.
    """

    day: int
    finished: bool
    players: tuple[PlayerState, ...]
    row: tuple[int, ...]
    drawn: int
    revealed: int
    ancestors_left: int
    next_seq: int
    turn: int


class RandomSource(Protocol):
    """What shuffles and playouts draw from: ``random.Random`` or anything with its ``random``."""

    def random(self) -> float: ...


class SetupError(ValueError):
    """The players, watch stack or decks of a new game do not fit together."""


@dataclass(frozen=True)
class Setup:
    """Everything fixed for a whole game: edition, players, watch stack, decks.

    ``decks`` holds, for each Day, card indices top of the deck first; ``None``
    means the table reveals cards one by one (`companion.engine.events.Reveal`).
    """

    edition: Edition
    players: tuple[str, ...]
    watch_stack: tuple[str, ...]
    decks: tuple[tuple[int, ...], ...] | None = None
    player_index: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    day_sizes: tuple[int, ...] = field(default=(), compare=False, repr=False)

    @property
    def reveals(self) -> bool:
        """True when the table reveals cards instead of the engine dealing them."""
        return self.decks is None

    def deck_ids(self, day: int) -> list[str]:
        """The card ids of a Day deck, top first (decks mode only)."""
        if self.decks is None:
            return []
        return [self.edition.cards[i].id for i in self.decks[day - 1]]


def make_setup(
    edition: Edition,
    players: Sequence[str],
    watch_stack: Sequence[str] | None = None,
    decks: Mapping[str, Sequence[str]] | None = None,
) -> Setup:
    """Check and build a `Setup`. ``decks`` maps "I", "II", "III" to card ids, top first."""
    names = tuple(players)
    if not 1 <= len(names) <= MAX_PLAYERS:
        raise SetupError(f"a game has 1 to {MAX_PLAYERS} players, not {len(names)}")
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise SetupError("every player needs a non-empty name")
    if len(set(names)) != len(names):
        raise SetupError("two players share a name; names must differ")
    stack = tuple(watch_stack) if watch_stack is not None else names
    if sorted(stack) != sorted(names):
        raise SetupError("the watch stack must list every player exactly once")
    deck_indices: tuple[tuple[int, ...], ...] | None = None
    if decks is not None:
        unknown_days = set(decks) - set(DAY_NAMES)
        if unknown_days:
            raise SetupError(f"decks are named I, II and III, not {', '.join(sorted(unknown_days))}")
        deck_indices = _deck_indices(edition, decks)
        if deck_indices is None:  # some card is wrong: find the first, in the order of the decks
            deck_indices = _checked_decks(edition, decks)
        sizes = tuple(len(d) for d in deck_indices)
    else:
        sizes = tuple(sum(1 for c in edition.cards if c.day == d) for d in range(1, DAYS + 1))
    return Setup(
        edition=edition,
        players=names,
        watch_stack=stack,
        decks=deck_indices,
        player_index={n: i for i, n in enumerate(names)},
        day_sizes=sizes,
    )


def _deck_indices(edition: Edition, decks: Mapping[str, Sequence[str]]) -> tuple[tuple[int, ...], ...] | None:
    """The decks' card indices when every card is the edition's, of its deck's Day and named
    once, else ``None``: set operations over each deck, not a loop card by card, because every
    replay checks its decks."""
    if edition.tables is None:
        return None
    built: list[tuple[int, ...]] = []
    for number, day_name in enumerate(DAY_NAMES):
        indices = tuple(map(edition.card_index.get, decks.get(day_name, [])))
        unique = set(indices)
        if len(unique) != len(indices) or not unique <= set(edition.tables.day_cards[number]):
            return None  # an unknown card (None), one named twice, or another Day's
        built.append(cast(tuple[int, ...], indices))  # no None: every index is of the Day's cards
    return tuple(built)  # Days' cards are apart, so no card is in two decks


def _checked_decks(edition: Edition, decks: Mapping[str, Sequence[str]]) -> tuple[tuple[int, ...], ...]:
    """The decks' card indices, checked card by card: `SetupError` for the first card, deck by
    deck, that is unknown, named twice or of another Day."""
    seen: set[str] = set()
    built: list[tuple[int, ...]] = []
    for day_name in DAY_NAMES:
        ids = decks.get(day_name, [])
        for cid in ids:
            if cid not in edition.card_index:
                raise SetupError(f"deck {day_name} names card {cid!r}, which is not in the edition")
            if cid in seen:
                raise SetupError(f"card {cid!r} appears twice in the decks")
            day = edition.cards[edition.card_index[cid]].day
            if day != DAY_NAMES.index(day_name) + 1:  # one rule with reveals, which refuse it too
                raise SetupError(
                    f"deck {day_name} names card {cid!r} of the Day {DAY_NAMES[day - 1]} deck; "
                    "each Day deck holds only its own Day's cards"
                )
            seen.add(cid)
        built.append(tuple(edition.card_index[cid] for cid in ids))
    return tuple(built)


def shuffled_setup(
    edition: Edition, players: Sequence[str], watch_stack: Sequence[str], rng: RandomSource
) -> Setup:
    """A game with freshly shuffled Day decks, as at a real table (for simulations).

    Each deck is ordered by independent uniform random keys, which is a uniform
    shuffle and several times faster than ``random.shuffle`` for the simulator.
    """
    names = tuple(players)
    if sorted(watch_stack) != sorted(names) or len(set(names)) != len(names):
        raise SetupError("the watch stack must list every player exactly once")
    rand = rng.random
    decks = tuple(tuple(sorted(cards, key=lambda _: rand())) for cards in edition.rules.day_cards)
    return Setup(
        edition=edition,
        players=names,
        watch_stack=tuple(watch_stack),
        decks=decks,
        player_index={n: i for i, n in enumerate(names)},
        day_sizes=tuple(len(d) for d in decks),
    )


def deal(setup: Setup, day: int) -> tuple[tuple[int, ...], int]:
    """The Departures Row at the start of ``day`` and how many cards left the deck.

    With the deck ``[d1, d2, ...]`` position 5 gets d1, 4 gets d2 ... 1 gets d5 and
    the deck's top (position 0) is d6. Without decks the positions wait, `HIDDEN`,
    for the table's reveals in that same order.
    """
    size = setup.day_sizes[day - 1]
    count = min(ROW_SIZE, size)
    row = [EMPTY] * ROW_SIZE
    for n in range(count):
        row[ROW_SIZE - 1 - n] = HIDDEN if setup.decks is None else setup.decks[day - 1][n]
    return tuple(row), count
