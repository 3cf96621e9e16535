"""The hall's league: every finished game of every table, rated as a table's history rates it
(`companion.records.league`), over the games the hall replayed itself, never what a table claims.

The host adds what the games cannot say, kept in the hall's store under ``<data>/league/``: that
two spellings are one player (``Store.merge_player``, undoable) and the seasons, named ranges of
UTC dates (both ends included) that choose the games a league counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from companion.records.league import (
    PastGame,
    PlayerStats,
    display_names,
    family_rating,
    holding_merges,
    player_key,
    player_stats,
    replayed_game,
    resolve,
    with_aliases,
)
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.util.wording import CodedError

#: Seasons kept at most, and the longest name (a select on a phone).
MAX_SEASONS = 100
MAX_SEASON_NAME = 40
_DAY = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")


class LeagueRefused(CodedError):
    """A host's change to the league that cannot be made as asked (a code and its params)."""


@dataclass(frozen=True)
class Season:
    """A named date range: the games set up from ``start`` to ``end`` (UTC dates, both included)."""

    name: str
    start: date
    end: date

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "from": self.start.isoformat(), "to": self.end.isoformat()}


@dataclass(frozen=True)
class FinishedGame:
    """One finished game of the hall: which table, its game number, and its replay."""

    table: str
    game: int
    at: str
    past: PastGame
    #: The coach gave advice in it: counted in the figures, not in the ratings (as a table's history).
    assisted: bool = False


def season_from(name: str, start: str, end: str) -> Season:
    """A season from the host's form; `LeagueRefused` says what is wrong with it."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_SEASON_NAME:
        raise LeagueRefused("league_season_name", limit=MAX_SEASON_NAME)
    days = []
    for text in (start.strip(), end.strip()):
        try:
            if not _DAY.match(text):
                raise ValueError(text)
            days.append(date.fromisoformat(text))
        except ValueError:
            raise LeagueRefused("league_season_date", given=text[:20]) from None
    if days[1] < days[0]:
        raise LeagueRefused("league_season_order", start=days[0].isoformat(), end=days[1].isoformat())
    return Season(name, days[0], days[1])


class LeagueBook:
    """What the hall's host decided (merges and seasons), kept in the hall's own store."""

    def __init__(self, folder: Path) -> None:
        self.store = Store(folder, TREKKING)

    def seasons(self) -> list[Season]:
        """Every season, earliest first."""
        kept = self.store.option("league_seasons")
        found = [
            Season(entry["name"], date.fromisoformat(entry["from"]), date.fromisoformat(entry["to"]))
            for entry in (json.loads(kept) if kept else [])
        ]
        return sorted(found, key=lambda s: (s.start, s.end, s.name))

    def season(self, name: str | None) -> Season | None:
        """The season called ``name`` (None: all time); an unknown name is refused."""
        if not name:
            return None
        if (season := next((s for s in self.seasons() if s.name == name), None)) is not None:
            return season
        raise LeagueRefused("league_season_unknown", season=name[:MAX_SEASON_NAME])

    def keep_season(self, season: Season) -> None:
        """Add ``season``, or change the one of the same name."""
        others = [s for s in self.seasons() if s.name != season.name]
        if len(others) >= MAX_SEASONS:
            raise LeagueRefused("league_season_many", limit=MAX_SEASONS)
        self._save([*others, season])

    def drop_season(self, name: str) -> None:
        seasons = self.seasons()
        if name not in {s.name for s in seasons}:
            raise LeagueRefused("league_season_unknown", season=name[:MAX_SEASON_NAME])
        self._save([s for s in seasons if s.name != name])

    def _save(self, seasons: list[Season]) -> None:
        self.store.set_option("league_seasons", json.dumps([s.to_json() for s in seasons]))

    def merge(self, alias: str, into: str, known: dict[str, str], games: Sequence[FinishedGame] = ()) -> None:
        """The player ``alias`` (a key) is ``into`` (a key) from now on; ``known`` maps the
        league's player keys to their names (a key not in it is refused). Two players who sat
        at one table of ``games`` are two people: refused, saying where (as a table's history)."""
        if alias not in known or into not in known:
            raise LeagueRefused("league_merge_unknown")
        if alias == into:
            raise LeagueRefused("league_merge_same", name=known[alias])
        holding, _ = holding_merges([g.past for g in games], self.aliases())
        for game in games:
            seated = {resolve(p.name, holding) for p in game.past.players}
            if alias in seated and into in seated:
                raise LeagueRefused("league_merge_together", name=known[alias], into=known[into],
                                    table=game.table, game=game.game)  # fmt: skip
        self.store.merge_player(alias, into, known[into])

    def unmerge(self, alias: str) -> None:
        if not self.store.unmerge_player(alias):
            raise LeagueRefused("league_unmerge_unknown")

    def aliases(self) -> dict[str, tuple[str, str]]:
        return {player_key(a): (player_key(p), n) for a, (p, n) in self.store.aliases().items()}

    def close(self) -> None:
        self.store.close()


def past_of(board: Any, at: str) -> PastGame | None:
    """A finished game's replay as a table's history replays its own (numbered by
    `ordered_games`), or None: not finished, or no setup time to place it in a season."""
    try:
        started = datetime.fromisoformat(at)
    except ValueError:
        return None
    return replayed_game(0, board, started, None)


def ordered_games(pasts: list[tuple[str, int, str, PastGame | None, bool]]) -> list[FinishedGame]:
    """The hall's finished games (table, game, setup time, replay, assisted), oldest first,
    numbered 1, 2, ... in that order (a replay of None is left out)."""
    games: list[FinishedGame] = []
    for table, game, at, past, assisted in sorted(pasts, key=lambda p: (p[2], p[0], p[1])):
        if past is not None:
            games.append(FinishedGame(table, game, at, replace(past, id=len(games) + 1), assisted))
    return games


def league_view(games: list[FinishedGame], book: LeagueBook, season: Season | None) -> dict[str, Any]:
    """The league of ``season`` (None: all time): each player's figures and rating, best
    first, as the history page shows them; the seasons and the host's merges beside it."""
    aliases, undone = holding_merges([g.past for g in games], book.aliases())
    keyed = [with_aliases(g.past, aliases) for g in games]
    chosen = [g for g in keyed if season is None or season.start <= g.started.date() <= season.end]
    # as a table's history: a game the coach advised in counts in the figures, not the ratings
    unrated = {g.past.id for g in games if g.assisted}
    players = [player_row(s) for s in player_stats(chosen, aliases, unrated)]
    everyone = sorted(display_names(keyed, aliases).items(), key=lambda kv: kv[1].casefold())
    return {
        "season": None if season is None else season.to_json(),
        "seasons": [s.to_json() for s in book.seasons()],
        "games": len(chosen),
        "assisted": len(unrated & {g.id for g in chosen}),
        "players": players,
        "everyone": [{"key": key, "name": name} for key, name in everyone],
        # a merge two seats of one game contradict is kept (the host may undo it) but not applied
        "merges": [
            {"alias": a, "into": p, "name": n, "applied": a not in undone}
            for a, (p, n) in sorted(book.aliases().items())
        ],
        "undone": undone,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def player_row(stats: PlayerStats) -> dict[str, Any]:
    """One player's line: the history page's figures and its ``rating`` beside openskill's."""
    return {
        "key": stats.key,
        "name": stats.name,
        "spellings": stats.spellings,
        "games": stats.games,
        "wins": stats.wins,
        "points": stats.total_score,
        "best": stats.best,
        "average": round(stats.average, 1),
        "rating": family_rating(stats.rating),
        "ordinal": _round(stats.rating),
        "mu": _round(stats.mu),
        "sigma": _round(stats.sigma),
        "rated_games": stats.rated_games,
    }
