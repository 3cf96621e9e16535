"""A player's figures and ratings over finished games: the history page's and the hall's league.

Pure and below the store, so a table's history (`companion.history.past`) and the venue's hall
(`companion.venue.league`) rate the same games alike. Ratings use openskill's Plackett-Luce
model, a maintained library built for multiplayer rankings.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from companion.engine import Board, Setup
from companion.engine.events import Event
from companion.engine.scoring import Standing, explain_tie_break, tie_break_key, winners
from companion.util.config import MARKERS
from companion.util.text import name_key

#: What `Store.aliases` returns: a spelling's key -> (the player's key, the player's name).
Aliases = Mapping[str, tuple[str, str]]


def player_key(name: str) -> str:
    """The same player whatever the case, spacing or width: the table's own rule
    (`companion.util.text.name_key`), so two names the table takes for one are one player here."""
    return name_key(name)


def resolve(name: str, aliases: Aliases) -> str:
    """The key of the player who wrote ``name``, after the host's merges."""
    key = player_key(name)
    return aliases[key][0] if key in aliases else key


def ranks(standings: Sequence[Standing]) -> list[int]:
    """Each player's place (1 = won), in setup order: total first, then the rulebook's
    tie-break (the longest treks); players still level share a place ("1, 1, 3")."""
    keys = [(s.total, tie_break_key(s)) for s in standings]
    return [1 + sum(other > mine for other in keys) for mine in keys]


@dataclass(frozen=True)
class PastPlayer:
    """One seat of a finished game, as its final state left it."""

    name: str  # as written for this game
    key: str  # the player across games (`resolve`)
    score: int
    track: int
    crystals: int  # left unspent at the end (each scored 1 point)
    trek_points: int
    treks: tuple[int, ...]  # every trek's length, in the order they were made
    rank: int
    winner: bool
    colour: str  # the colour and marker the table showed for this seat
    marker: int = 0

    @property
    def longest_trek(self) -> int:
        return max(self.treks, default=0)


@dataclass(frozen=True)
class PastGame:
    """A finished game: when, on which edition, and how each player ended."""

    id: int
    started: datetime  # when the game was set up (UTC)
    ended: datetime | None  # its last event (UTC)
    edition: str
    players: tuple[PastPlayer, ...]
    start_player: str  # the top watch of the stack: the first to take a card
    tie_break: str  # the engine's English sentence on how the winner was decided

    @property
    def solo(self) -> bool:
        return len(self.players) == 1

    @property
    def minutes(self) -> int | None:
        """Set-up to last event, in whole minutes (at least 1)."""
        if self.ended is None:
            return None
        return max(1, round((self.ended - self.started).total_seconds() / 60))


def replayed_game(
    game_id: int,
    board: Board,
    started: datetime,
    ended: datetime | None,
    colours: Sequence[Any] = (),
    markers: Sequence[Any] | None = None,
) -> PastGame | None:
    """The finished game ``board`` holds (every event pushed), or None if it is not finished.
    Players are keyed by their spelling (`player_key`); `with_aliases` applies merges."""
    if not board.finished:
        return None
    standings = board.standings()
    won = set(winners(standings))
    places = ranks(standings)
    if markers is None:  # older games: by seat
        markers = list(range(len(standings)))
    players = tuple(
        PastPlayer(
            name=s.name,
            key=player_key(s.name),
            score=s.total,
            track=s.track,
            crystals=s.crystals,
            trek_points=s.trek_points,
            treks=s.treks,
            rank=place,
            winner=s.name in won,
            colour=str(colours[seat]) if seat < len(colours) else "#888888",
            marker=int(markers[seat]) % MARKERS if seat < len(markers) else seat % MARKERS,
        )
        for seat, (s, place) in enumerate(zip(standings, places, strict=True))
    )
    return PastGame(
        id=game_id,
        started=started,
        ended=ended,
        edition=board.edition.name,
        players=players,
        start_player=board.setup.watch_stack[0],
        tie_break=explain_tie_break(standings),
    )


def replay(setup: Setup, events: Iterable[Event]) -> Board:
    """A board with ``events`` pushed (stored events were all accepted once; a refusal changes nothing)."""
    board = Board(setup)
    for event in events:
        board.push(event)
    return board


def holding_merges(
    games: Sequence[PastGame], aliases: Aliases
) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The host's merges that no table contradicts, and the spellings whose merge one does.

    Two people who sat at one table are two, so a merged spelling seated beside another
    spelling of the same player counts as its own player again (the stored merge stays, for
    the host to undo). ``games`` are keyed by spelling."""
    holding = dict(aliases)
    undone: list[str] = []
    changed = True
    while changed:  # undoing one merge can bring two seats of another game together
        changed = False
        for game in games:
            seats: dict[str, list[str]] = {}
            for p in game.players:
                seats.setdefault(resolve(p.name, holding), []).append(player_key(p.name))
            for target, own in seats.items():
                for key in own if len(own) > 1 else ():
                    if key != target and key in holding:
                        del holding[key]
                        undone.append(key)
                        changed = True
    return holding, undone


def with_aliases(game: PastGame, aliases: Aliases) -> PastGame:
    """The game with each seat keyed by the player it counts for, after the host's merges."""
    keys: list[str] = []
    for p in game.players:  # "Ann" and "ann" at one table are two people, whatever their key says
        key = resolve(p.name, aliases)
        keys.append(key if key not in keys else f"{key} #{len(keys) + 1}")
    players = tuple(replace(p, key=k) for p, k in zip(game.players, keys, strict=True))
    return replace(game, players=players)


# --- per player ---------------------------------------------------------------------------------


@dataclass
class PlayerStats:
    """One player's figures over every finished game they played (under any spelling)."""

    key: str
    name: str
    spellings: list[str]
    games: int = 0
    wins: int = 0
    best: int = 0
    longest_trek: int = 0
    total_score: int = 0
    total_trek_points: int = 0
    total_crystals: int = 0
    #: openskill's estimate: mean skill and its uncertainty; ``rating`` = mu - 3 sigma.
    mu: float | None = None
    sigma: float | None = None
    rating: float | None = None
    rated_games: int = 0

    @property
    def average(self) -> float:
        return self.total_score / self.games if self.games else 0.0

    @property
    def average_trek_points(self) -> float:
        return self.total_trek_points / self.games if self.games else 0.0

    @property
    def average_crystals(self) -> float:
        return self.total_crystals / self.games if self.games else 0.0


def display_names(games: Iterable[PastGame], aliases: Aliases) -> dict[str, str]:
    """Each player's name to show: the spelling of their own key in their latest game,
    else the name the host merged others into, else their latest spelling."""
    own: dict[str, str] = {}
    latest: dict[str, str] = {}
    for game in games:  # oldest first: later games overwrite
        for p in game.players:
            latest[p.key] = p.name
            if player_key(p.name) == p.key:
                own[p.key] = p.name
    merged = {player: name for player, name in aliases.values()}
    return {key: own.get(key) or merged.get(key) or name for key, name in latest.items()}


def player_stats(
    games: Sequence[PastGame], aliases: Aliases, unrated: Collection[int] = ()
) -> list[PlayerStats]:
    """Every player's figures and rating, best rating first (unrated players last); the games
    numbered in ``unrated`` (assisted ones, unless the host includes them) count in the figures
    but not in the ratings."""
    names = display_names(games, aliases)
    found: dict[str, PlayerStats] = {}
    for game in games:
        for p in game.players:
            stats = found.get(p.key)
            if stats is None:
                stats = found[p.key] = PlayerStats(p.key, names[p.key], [])
            if p.name not in stats.spellings:
                stats.spellings.append(p.name)
            stats.games += 1
            stats.wins += p.winner
            stats.best = max(stats.best, p.score) if stats.games > 1 else p.score
            stats.longest_trek = max(stats.longest_trek, p.longest_trek)
            stats.total_score += p.score
            stats.total_trek_points += p.trek_points
            stats.total_crystals += p.crystals
    for key, (mu, sigma, count) in rate([g for g in games if g.id not in unrated]).items():
        stats = found[key]
        stats.mu, stats.sigma, stats.rated_games = mu, sigma, count
        stats.rating = mu - 3 * sigma
    return sorted(found.values(), key=lambda s: (s.rating is None, -(s.rating or 0.0), s.name.casefold()))


#: The family's rating is openskill's ordinal (mu - 3 sigma, 0 for a new player) times this,
#: whole and never below 0: a number that starts at 0 and grows as a player wins.
FAMILY_SCALE = 40


def family_rating(ordinal: float | None) -> int | None:
    """The rating the history page shows a family: 0 for a new player, higher with wins and
    good places, never negative ("-0", "-3" read as a penalty); None when not rated."""
    return None if ordinal is None else max(0, math.floor(ordinal * FAMILY_SCALE))


def rate(games: Sequence[PastGame]) -> dict[str, tuple[float, float, int]]:
    """openskill Plackett-Luce ratings: player key -> (mu, sigma, games rated), games in date
    order, each player a team of one; a solo game has no one to rank against and is skipped."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, object] = {}
    counts: dict[str, int] = {}
    for game in sorted(games, key=lambda g: (g.started, g.id)):
        if game.solo:
            continue
        keys = [p.key for p in game.players]
        teams = [[current.get(k) or model.rating(name=k)] for k in keys]
        rated = model.rate(teams, ranks=[float(p.rank) for p in game.players])  # type: ignore[arg-type]
        for k, team in zip(keys, rated, strict=True):
            current[k] = team[0]
            counts[k] = counts.get(k, 0) + 1
    return {
        k: (float(r.mu), float(r.sigma), counts[k])  # type: ignore[attr-defined]
        for k, r in current.items()
    }
