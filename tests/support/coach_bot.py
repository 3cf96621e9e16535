"""The coach as a player, for simulated games against the other bots
(``benchmarks/bench_coach_quality.py``): a harness, not something the table offers."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from companion.coach.bots import greedy_bot
from companion.coach.chances import PLAYOUT_GREEDY, evaluate
from companion.engine import Board, Event, Take


def coach_bot(
    per_candidate: int = 30, seconds: float | None = None, greedy: float = PLAYOUT_GREEDY
) -> Callable[[Board, random.Random], Event]:
    """A bot that takes the coach's best card (with its crystal spend): for simulated games
    against the other bots (``benchmarks/bench_coach_quality.py``). Itineraries are chosen
    as the greedy bot chooses them, so only the card choice is the coach's. ``seconds``: a
    budget of this process's CPU time per choice (so that two playouts compare at equal
    cost on a shared machine), on top of ``per_candidate``."""

    def bot(board: Board, rng: random.Random) -> Event:
        if board.itinerary[board.turn] < 0 and board.has_itineraries:
            return greedy_bot(board, rng)
        seed = rng.randrange(1 << 30)
        best = evaluate(board, per_candidate, seconds, seed, time.process_time, greedy).best
        if best is None:
            return greedy_bot(board, rng)
        return Take(best.card, None, best.spend, ())

    return bot
