"""The history page's cost: every finished game is replayed from its events on each request.

Run: ``.venv/bin/python -m benchmarks.bench_history [--games 100 500] [--repeat 5] [--json]``

A store is filled with whole games played by the greedy bot (2 to 4 players drawn from
six names, as a family's table would see), then ``GET /api/history``'s work is timed:
reading every finished game, replaying it through the engine, the per-player figures,
the openskill ratings and each game's BG Stats link (`companion.web.history.history_json`).
It is timed twice: the first request after a start replays every game, the next ones
only games whose log changed (`companion.history.past.Replays`); medians of ``--repeat`` runs.
It also prints how long the BG Stats link is for 1 to 4 players, and the QR code version
that link would need (why the end screen's code leads to the history page instead,
`companion.web.qr`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import segno

from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.history.bgstats import play, play_url
from companion.history.past import Replays, load_history
from companion.records.trekking import TREKKING, write_record
from companion.store.log import Store
from companion.web.history import history_json

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eli", "Flo"]


def fill(store: Store, games: int, seed: int) -> None:
    """``games`` finished games, stored as the table stores them (setup line, then events)."""
    rng = random.Random(seed)
    edition = load_edition("reference")
    for _ in range(games):
        names = rng.sample(NAMES, rng.randint(2, 4))
        setup = random_setup(edition, names, rng)
        board, _, _ = play_game(setup, "greedy", rng)
        head = json.loads(write_record(setup, []).splitlines()[0])
        game = store.new_game(head, {"colours": ["#0072B2", "#E69F00", "#009E73", "#CC79A7"][: len(names)]})
        store.write_events(game, 1, list(board.moves), finished=True)


def measure(games: int, repeat: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp), TREKKING)
        fill(store, games, seed)
        cold, warm = [], []
        for _ in range(repeat):
            replays = Replays()  # a companion just started: every game replayed
            start = time.perf_counter()
            history_json(load_history(store, replays))
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()  # the next request: games already replayed
            answer = history_json(load_history(store, replays))
            warm.append(time.perf_counter() - start)
        size = len(json.dumps(answer))
        store.close()
    return {
        "games": games,
        "first_request_seconds": round(statistics.median(cold), 3),
        "next_requests_seconds": round(statistics.median(warm), 3),
        "answer_bytes": size,
    }


def link_sizes(seed: int) -> list[dict[str, Any]]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp), TREKKING)
        for players in range(1, 5):
            rng = random.Random(seed + players)
            setup = random_setup(load_edition("reference"), NAMES[:players], rng)
            board, _, _ = play_game(setup, "greedy", rng)
            head = json.loads(write_record(setup, []).splitlines()[0])
            game = store.new_game(head, {})
            store.write_events(game, 1, list(board.moves), finished=True)
        for game in load_history(store).games:
            url = play_url(play(game))
            out.append(
                {
                    "players": len(game.players),
                    "link_chars": len(url),
                    "qr_version": segno.make(url, error="l").version,
                }
            )
        store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {
        "history": [measure(n, args.repeat, args.seed) for n in args.games],
        "bgstats_links": link_sizes(args.seed),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for row in result["history"]:
        print(f"{row['games']:>5} finished games: /api/history's work {row['first_request_seconds']:.3f} s "
              f"after a start, {row['next_requests_seconds']:.3f} s after that (medians of {args.repeat}); "
              f"answer {row['answer_bytes'] / 1024:.0f} KiB")  # fmt: skip
    for row in result["bgstats_links"]:
        print(f"BG Stats link, {row['players']} player(s): {row['link_chars']} characters, "
              f"QR version {row['qr_version']} (error correction L)")  # fmt: skip


if __name__ == "__main__":
    main()
