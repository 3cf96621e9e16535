"""The hall's league: what ``GET /api/league`` computes for a venue with many finished games.

Run: ``.venv/bin/python -m benchmarks.bench_league [--games 200 1000] [--repeat 5] [--json]``

Whole games played by the greedy bot (2 to 4 players drawn from twelve names, over tables
t1..t8 and 60 nights) are replayed onto boards in memory, as the hall holds them once it
has stored them; then each request's work is timed: every finished game's standings
(`companion.venue.league.past_of` and `ordered_games`, which the hall keeps until it stores another
event: "first") and the league's figures and openskill ratings, all time and for one
season (`companion.venue.league.league_view`: every request). Medians of ``--repeat``.
Not timed: the hall reading each game's store once after a restart, and the disk.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.engine import Board
from companion.venue.league import LeagueBook, Season, league_view, ordered_games, past_of

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eli", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou"]


def boards(games: int, seed: int) -> list[tuple[str, int, str, Board]]:
    """(table, game, setup time, finished board) of ``games`` bot games across a venue."""
    rng = random.Random(seed)
    edition = load_edition("reference")
    first = datetime(2026, 9, 1, 19, tzinfo=UTC)
    out = []
    for number in range(1, games + 1):
        names = rng.sample(NAMES, rng.randint(2, 4))
        board, _, _ = play_game(random_setup(edition, names, rng), "greedy", rng)
        at = first + timedelta(days=rng.randrange(60), minutes=rng.randrange(240))
        out.append((f"t{number % 8 + 1}", number, at.isoformat(), board))
    return out


def measure(games: int, repeat: int, seed: int) -> dict[str, Any]:
    held = boards(games, seed)
    autumn = Season("October", date(2026, 10, 1), date(2026, 10, 31))
    with tempfile.TemporaryDirectory() as tmp:
        book = LeagueBook(Path(tmp) / "league")
        book.merge("ann", "ben", {"ann": "Ann", "ben": "Ben"})  # one merge, as a host would make
        first, whole, season = [], [], []
        for _ in range(repeat):
            start = time.perf_counter()
            replayed = ordered_games([(t, g, at, past_of(b, at), False) for t, g, at, b in held])
            first.append(time.perf_counter() - start)
            start = time.perf_counter()
            league_view(replayed, book, None)
            whole.append(time.perf_counter() - start)
            start = time.perf_counter()
            view = league_view(replayed, book, autumn)
            season.append(time.perf_counter() - start)
        book.close()
    return {
        "games": games,
        "season_games": view["games"],
        "players": len(view["players"]),
        "first_ms": round(statistics.median(first) * 1000, 1),
        "all_time_ms": round(statistics.median(whole) * 1000, 1),
        "season_ms": round(statistics.median(season) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(n, args.repeat, args.seed) for n in args.games]
    if args.json:
        print(json.dumps(rows))
        return
    print("games  in October  players  replays, first (ms)  all time (ms)  one season (ms)")
    for r in rows:
        figures = (
            r["games"],
            r["season_games"],
            r["players"],
            r["first_ms"],
            r["all_time_ms"],
            r["season_ms"],
        )
        print("{:>5}  {:>10}  {:>7}  {:>19}  {:>13}  {:>15}".format(*figures))


if __name__ == "__main__":
    main()
