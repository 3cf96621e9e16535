"""A new game, checked before it is stored: the one way every entry point starts a game.

The page, the API, `companion new` and a fresh companion's first game all come through
`new_game`, so a name, a colour or a player count is refused the same way everywhere
(`GameSetupError`: a code and its parameters, written by `companion.util.wording`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.editions import BOX_CARDS_PER_DAY, EditionLibrary, edition_setup_value
from companion.engine import Edition
from companion.engine.tokens import DAYS
from companion.records.trekking import RECORD_FORMAT
from companion.store.log import Store
from companion.table.marks import seat_marks
from companion.util.config import Config, colour_problem
from companion.util.text import name_key, player_name, visible
from companion.util.wording import CodedError


class GameSetupError(CodedError, ValueError):
    """A new game was asked for something impossible (`new_game`)."""


#: Longest player name: it must fit the page's tables and the console's lines.
NAME_LENGTH = 24
#: The players of the game a fresh companion starts by itself: names read alike in English and French.
FIRST_PLAYERS = ("Alex", "Sam")
#: Names listed in the refusal of too many players (a script may send hundreds).
SHOWN_NAMES = 8


def start_for_table(
    store: Store,
    config: Config,
    mock: bool,
    players: list[str],
    colours: list[str] | None,
    edition: str,
    seed: int | None,
) -> int:
    """`new_game` as the session's starter (bound with ``functools.partial`` by `companion.run.startup`):
    the table's settings bound, the page's choices free."""
    return new_game(store, players, config, colours, edition, seed, mock)


def new_game(
    store: Store,
    players: list[str],
    config: Config,
    colours: list[str] | None = None,
    edition: str | None = None,
    seed: int | None = None,
    mock: bool = True,
) -> int:
    """Start a new game in the store: random watch stack; in mock mode, a seeded dealer.

    ``edition`` is a name from the data directory's library (the table's default
    when None). An owner's edition is copied into the game's setup line, so the
    game resumes and exports exactly even if the owner later edits or deletes it.
    """
    # every entry point (the page, the API, `companion new`, the first game) comes here
    names, _palette, _edition, kept = checked_setup(store.path.parent, players, config, colours, edition)
    seat_colours, markers, keep = seats_of(store, names, config, colours)
    rng = random.Random(seed)
    stack = rng.sample(names, len(names))
    setup = {
        "type": "setup",
        "record": RECORD_FORMAT,
        "players": names,
        "watch_stack": stack,
        "edition": kept,
    }
    meta: dict[str, Any] = {"colours": seat_colours, "markers": markers, "mock": mock}
    if mock:
        meta["dealer_seed"] = seed if seed is not None else rng.randrange(1 << 30)
    return store.new_game(setup, meta, keep)


def seats_of(
    store: Store, names: list[str], config: Config, colours: Sequence[str | None] | None
) -> tuple[list[str], list[int], dict[str, tuple[str, int]]]:
    """The seats' colours and markers a game of ``names`` gets (and the pairs it keeps): each
    player's own pair, kept with the players after the host's merges (`seat_marks`). The
    new-game form shows them before Start, from this same function."""
    aliases = store.aliases()
    keys = [aliases[k][0] if k in aliases else k for k in map(name_key, names)]
    return seat_marks(keys, list(colours or []), list(config.palette), store.player_marks())


def checked_setup(
    data_dir: Path,
    players: list[str],
    config: Config,
    colours: list[str] | None = None,
    edition: str | None = None,
) -> tuple[list[str], list[str], Edition, str | dict[str, Any]]:
    """A new game's players, colours and edition as `new_game` would start it, or the
    `GameSetupError` it would refuse it with: the page asks this before "replace the game in
    progress?", so that a refusal never comes after the family said yes."""
    names = [name for name in map(player_name, players) if name]
    blank = [name for name in names if not visible(name)]
    if blank:
        # which characters, by code point: they show nothing, so only their numbers can name them
        raise GameSetupError("name_invisible", chars=" ".join(f"U+{ord(char):04X}" for char in blank[0][:8]))
    long = [n for n in names if len(n) > NAME_LENGTH]
    if long:
        raise GameSetupError("name_too_long", max=NAME_LENGTH, name=long[0][:NAME_LENGTH])
    if not names:  # its own sentence: "not 0 ()" would say nothing, and French has no plural for 0
        raise GameSetupError("no_players")
    if len(names) > 4:
        shown = ", ".join(names[:SHOWN_NAMES]) + (", …" if len(names) > SHOWN_NAMES else "")
        raise GameSetupError("player_count", n=len(names), names=shown)
    keys = [name_key(name) for name in names]
    if len(set(keys)) != len(keys):  # "Zoé" twice, "ann" and "Ann": the page would show one name twice
        raise GameSetupError("duplicate_names")
    # a seat's colour: the one picked for it (None: the player's own, or the palette's)
    palette = list(colours or config.palette)
    for colour in palette[: len(names)]:
        if colour is not None and colour_problem(colour):
            raise GameSetupError("bad_colour", colour=repr(colour)[:40])
    if len(palette) < len(names):
        raise GameSetupError("too_few_colours", n=len(names), got=len(palette))
    library = EditionLibrary(data_dir)
    ed, kept = edition_setup_value(library, edition if edition is not None else library.default())
    if ed.itineraries and len(ed.itineraries) < 3 * len(names):
        # how many it has and needs, and the cards it lacks: an edition still being transcribed
        facts: dict[str, Any] = {
            "edition": ed.name,
            "n": len(names),
            "have": len(ed.itineraries),
            "need": 3 * len(names),
        }
        days = {f"day{d}": len(ed.day_cards(d)) for d in range(1, DAYS + 1)}
        if any(count < BOX_CARDS_PER_DAY for count in days.values()):
            raise GameSetupError(
                "too_few_itineraries", why="cards", per_day=BOX_CARDS_PER_DAY, **days, **facts
            )
        raise GameSetupError("too_few_itineraries", **facts)
    return names, palette, ed, kept
