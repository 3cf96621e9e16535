"""Whole games played by bots: results and engine throughput.

Used by ``companion simulate`` and the benchmark. Each game shuffles the Day decks
and the watch stack from one seeded generator, so a (seed, games, players, bot)
tuple always produces the same games.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from companion.coach.bots import BOTS
from companion.editions import load_edition
from companion.engine import Board, Edition, Setup, winners
from companion.engine.events import fields_json
from companion.engine.playout import NoLegalMove
from companion.engine.state import shuffled_setup
from companion.engine.tokens import MAX_PLAYERS

#: A game that has not ended after this many events is a bug, not a long game.
MAX_EVENTS_PER_GAME = 2000


class SimulationError(RuntimeError):
    """The simulation could not run (bad arguments, a stuck game)."""


@dataclass
class Summary:
    games: int
    players: int
    bot: str
    seed: int
    edition: str
    seconds: float
    takes: int
    events: int
    totals: list[int] = field(default_factory=list)
    winning_totals: list[int] = field(default_factory=list)
    shared_victories: int = 0
    wins_by_seat: list[float] = field(default_factory=list)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            **fields_json(self, "games", "players", "bot", "seed", "edition"),
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games_per_second, 1),
            "takes_per_game": round(self.takes / self.games, 2) if self.games else 0,
            "events_per_second": round(self.events / self.seconds, 1) if self.seconds > 0 else None,
            "mean_total": round(statistics.fmean(self.totals), 2) if self.totals else None,
            "mean_winning_total": round(statistics.fmean(self.winning_totals), 2)
            if self.winning_totals
            else None,
            "max_total": max(self.totals, default=None),
            "min_total": min(self.totals, default=None),
            "shared_victories": self.shared_victories,
            "wins_by_seat": [round(w, 2) for w in self.wins_by_seat],
        }


def random_setup(edition: Edition, names: list[str], rng: random.Random) -> Setup:
    """Shuffled Day decks and a random watch stack, as at a real table."""
    return shuffled_setup(edition, names, rng.sample(names, len(names)), rng)


def play_game(setup: Setup, bot_name: str, rng: random.Random) -> tuple[Board, int, int]:
    """Play one game to the end; returns the board, its takes and its events."""
    bot = BOTS[bot_name]
    board = Board(setup)
    push = board.push
    for _ in range(MAX_EVENTS_PER_GAME):
        if board.finished:
            break
        event = bot(board, rng)
        rejection = push(event)
        if rejection is not None:
            raise SimulationError(f"the {bot_name} bot made an illegal move: {rejection}")
    else:
        raise SimulationError("a game did not end: the engine is looping")
    # Every take stacks a watch once, so the stacking counter counts the takes.
    takes = board.next_seq - len(setup.players)
    return board, takes, len(board.moves)


def simulate(
    games: int, players: int, seed: int, bot: str = "random", edition: str | Edition = "reference"
) -> Summary:
    """Play ``games`` games of ``players`` bots and time them on one core (``edition``: a
    shipped name, an edition file, or an edition already loaded, such as an owner's)."""
    if not 1 <= players <= MAX_PLAYERS:
        raise SimulationError(f"--players must be 1 to {MAX_PLAYERS}, not {players}")
    if games < 1:
        raise SimulationError(f"--games must be at least 1, not {games}")
    if bot not in BOTS:
        raise SimulationError(f"unknown bot {bot!r}; choose {', '.join(BOTS)}")
    ed = edition if isinstance(edition, Edition) else load_edition(edition)
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    rng = random.Random(seed)
    summary = Summary(games, players, bot, seed, ed.name, 0.0, 0, 0)
    wins = [0.0] * players
    # every itinerary's transition memo built before the clock (once per edition), so the
    # rate is the referee's, not the first games' memo building
    ed.rules.complete()
    start = time.perf_counter()
    for _ in range(games):
        setup = random_setup(ed, names, rng)
        try:
            board, takes, events = play_game(setup, bot, rng)
        except NoLegalMove as exc:
            raise SimulationError(str(exc)) from None
        summary.takes += takes
        summary.events += events
        rows = board.standings()
        won = winners(rows)
        summary.totals.extend(r.total for r in rows)
        summary.winning_totals.append(max(r.total for r in rows))
        if len(won) > 1:
            summary.shared_victories += 1
        for name in won:
            wins[setup.watch_stack.index(name)] += 1 / len(won)
    summary.seconds = time.perf_counter() - start
    summary.wins_by_seat = [w / games for w in wins]
    return summary


def format_summary(s: Summary) -> str:
    data = s.to_json()
    return "\n".join(
        [
            f"{s.games} games, {s.players} players, {s.bot} bot, seed {s.seed}, edition {s.edition}",
            f"  {data['games_per_second']} games/s ({s.seconds:.2f} s on one core), "
            f"{data['takes_per_game']} takes a game",
            f"  mean total {data['mean_total']}, mean winning total {data['mean_winning_total']}, "
            f"range {data['min_total']}..{data['max_total']}",
            f"  shared victories: {s.shared_victories}; win share by starting stack position "
            f"(top first): {', '.join(f'{w:.2f}' for w in s.wins_by_seat)}",
        ]
    )
