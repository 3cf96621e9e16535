"""The coach: each available card's chances, by Monte Carlo rollouts from the position.

Every card the player to move may take now (with no crystal spent, and with the most the card
allows) is played on a copy of the board, then the game is played out many times, mostly by
the greedy heuristic (docs/coach.md); a card's win probability is the share of its rollouts
the player won. Only what the table knows is used: unseen cards are dealt again at random for
each round. `CoachPool` spreads the rollouts over worker processes; `evaluate` is the same
work in this process.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine import Board, Edition, GameState, Setup, Take
from companion.engine.playout import play_out, result, trek_points_table
from companion.engine.state import HIDDEN
from companion.engine.tokens import DAYS

#: A candidate move: (card id, crystals spent).
Candidate = tuple[str, int]
#: A game that has not ended after this many moves in a rollout is a bug, not a long game.
MAX_ROLLOUT_MOVES = 2000
#: The share of a rollout's card choices made by the cheap greedy heuristic
#: (`companion.engine.playout._greedy_pick`) instead of at random. 0: random playouts.
#: Chosen by benchmarks/bench_coach_quality.py at an equal CPU-time budget (docs/coach.md).
PLAYOUT_GREEDY = 0.9


@dataclass
class Tally:
    """Rollout results, summed: per candidate, the mover's wins, score total and rollouts,
    and every player's wins (``player_wins[candidate][player]``; one row when there is no
    candidate). Tallies from several processes add up."""

    candidates: list[Candidate]
    players: int
    wins: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    player_wins: list[list[float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.candidates)
        self.wins = self.wins or [0.0] * n
        self.scores = self.scores or [0.0] * n
        self.counts = self.counts or [0] * n
        self.player_wins = self.player_wins or [[0.0] * self.players for _ in range(max(1, n))]

    @property
    def rollouts(self) -> int:
        return sum(self.counts)

    def add(self, other: Tally) -> None:
        for i in range(len(self.candidates)):
            self.wins[i] += other.wins[i]
            self.scores[i] += other.scores[i]
            self.counts[i] += other.counts[i]
        for mine, theirs in zip(self.player_wins, other.player_wins, strict=True):
            for p in range(self.players):
                mine[p] += theirs[p]


@dataclass(frozen=True)
class CardAdvice:
    """One card's estimate: win probability (0-1), mean final score, how many rollouts."""

    card: str
    spend: int
    win: float
    score: float
    rollouts: int


@dataclass(frozen=True)
class Advice:
    """The coach's answer for one position: cards best first, every player's chances."""

    player: str | None
    cards: tuple[CardAdvice, ...]
    players: tuple[tuple[str, float], ...]
    rollouts: int

    @property
    def best(self) -> CardAdvice | None:
        return self.cards[0] if self.cards else None

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "cards": [
                {
                    "card": c.card,
                    "spend": c.spend,
                    "win": round(100 * c.win, 1),
                    "score": round(c.score, 1),
                    "rollouts": c.rollouts,
                }
                for c in self.cards
            ],
            "players": [{"name": n, "win": round(100 * w, 1)} for n, w in self.players],
            "rollouts": self.rollouts,
        }


def candidates(board: Board) -> list[Candidate]:
    """The moves the coach compares: each takeable card with no crystal spent and, when
    the player may spend some on it, with the most the card allows."""
    found: list[Candidate] = []
    for option in board.take_options():
        found.append((option.card, 0))
        if option.max_crystals > 0:
            found.append((option.card, option.max_crystals))
    return found


def redeal(board: Board, rng: random.Random) -> tuple[Setup, list[int]]:
    """A `Setup` for one rollout: what the table has seen kept, every unseen card dealt
    again at random (the rest of today's deck, later Days); and the cards that go to row
    positions still waiting for their reveal, oldest position first."""
    setup = board.setup
    tables = board.tables
    day = board.day
    rand = rng.random
    if setup.decks is None:
        revealed = board.revealed
        unseen = [i for i in tables.day_cards[day - 1] if not revealed >> i & 1]
    else:
        dealt = set(setup.decks[day - 1][: board.drawn])
        unseen = [i for i in tables.day_cards[day - 1] if i not in dealt]
    unseen.sort(key=lambda _: rand())
    hidden = sum(1 for c in board.row if c == HIDDEN)
    rest = unseen[hidden : hidden + max(0, setup.day_sizes[day - 1] - board.drawn)]
    today = (0,) * board.drawn + tuple(rest)  # the drawn part is never read again
    decks: list[tuple[int, ...]] = []
    for d in range(1, DAYS + 1):
        if d < day:
            decks.append(())
        elif d == day:
            decks.append(today)
        else:
            decks.append(
                tuple(sorted(tables.day_cards[d - 1], key=lambda _: rand())[: setup.day_sizes[d - 1]])
            )
    redealt = Setup(
        edition=setup.edition,
        players=setup.players,
        watch_stack=setup.watch_stack,
        decks=tuple(decks),
        player_index=setup.player_index,
        day_sizes=tuple(len(deck) for deck in decks),
    )
    return redealt, unseen[:hidden]


def _fill_hidden(board: Board, cards: Sequence[int]) -> None:
    """Put the redealt cards into the row positions still waiting for a reveal, oldest first
    (the order reveals fill them, `Board.waiting_position`)."""
    k = 0
    row = board.row
    for position in range(len(row) - 1, -1, -1):
        if row[position] == HIDDEN:
            row[position] = cards[k]
            k += 1


def rollouts(
    board: Board,
    moves: list[Candidate],
    count: int,
    seed: int | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    greedy: float = PLAYOUT_GREEDY,
) -> Tally:
    """Up to ``count`` rollouts per candidate, round-robin, stopping early at ``deadline``
    (a ``clock`` time). With no candidate (no card can be taken now: an Itinerary to
    choose first), the rollouts start from the position as it is."""
    rng = random.Random(seed)
    edition = board.edition
    edition.rules.complete()
    n = len(board.names)
    tally = Tally(list(moves), n)
    trek_points = trek_points_table(edition, n)
    me = board.turn
    starts: list[Candidate | None] = list(moves) or [None]
    for _ in range(count):
        # one deal of the unseen cards per round, played from every candidate: the
        # candidates are compared on the same deals (common random numbers), which makes
        # their differences less noisy, and a redeal is a sixth of a rollout's time
        setup, hidden = redeal(board, rng)
        for i, move in enumerate(starts):
            game = board.fork(setup)
            if hidden:
                _fill_hidden(game, hidden)
            if move is not None:
                game.push_unrecorded(Take(move[0], None, move[1], ()))
            play_out(game, rng, MAX_ROLLOUT_MOVES, greedy)
            totals, won = result(game, trek_points)
            share = 1.0 / len(won)
            everyone = tally.player_wins[i]
            for p in won:
                everyone[p] += share
            if move is not None:
                tally.counts[i] += 1
                tally.scores[i] += totals[me]
                if me in won:
                    tally.wins[i] += share
        if deadline is not None and clock() >= deadline:
            break
    return tally


def advice(board: Board, tally: Tally) -> Advice:
    """Tallies as an answer: each card's best spend, best card first."""
    best: dict[str, CardAdvice] = {}
    for (card, spend), wins, score, count in zip(
        tally.candidates, tally.wins, tally.scores, tally.counts, strict=True
    ):
        if not count:
            continue
        estimate = CardAdvice(card, spend, wins / count, score / count, count)
        known = best.get(card)
        if known is None or (estimate.win, estimate.score) > (known.win, known.score):
            best[card] = estimate
    cards = sorted(best.values(), key=lambda c: (c.win, c.score), reverse=True)
    # everyone's chances if the player to move takes the best card (as it is shown first);
    # with no card to take yet, from the position as it is
    row = tally.player_wins[tally.candidates.index((cards[0].card, cards[0].spend)) if cards else 0]
    total = sum(row) or 1.0
    players = tuple((name, w / total) for name, w in zip(board.names, row, strict=True))
    return Advice(board.player_to_move, tuple(cards), players, tally.rollouts or round(total))


def evaluate(
    board: Board,
    per_candidate: int = 100,
    seconds: float | None = None,
    seed: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
    greedy: float = PLAYOUT_GREEDY,
) -> Advice:
    """The coach's answer in this process: ``per_candidate`` rollouts for each candidate,
    or fewer if ``seconds`` (of ``clock``) run out first. Deterministic for a seed and no
    time limit."""
    deadline = None if seconds is None else clock() + seconds
    moves = candidates(board)
    return advice(board, rollouts(board, moves, per_candidate, seed, deadline, clock, greedy))


# --- worker processes ------------------------------------------------------------------------

#: The memory one worker may take (measured: 12 MB PSS, 18 MB RSS, docs/coach.md; with room
#: for a large edition and the interpreter's own growth): the pool is sized by it.
WORKER_BYTES = 32 * 2**20


def pool_size(cores: int | None, available: int | None) -> int:
    """How many worker processes this machine can give the coach: a core left for the
    table, and at most half the memory available (MemAvailable) to workers, so that a
    Pi Zero 2 W (about 200 MB free) still has room for the table and the system. 0 means
    none fit: the coach then works in the table's process (a `CoachPool` of no worker)."""
    by_cores = max(1, (cores or 2) - 1)
    if available is None:
        return by_cores
    return max(0, min(by_cores, available // 2 // WORKER_BYTES))


def work(
    edition: Edition,
    players: tuple[str, ...],
    stack: tuple[str, ...],
    decks: tuple[tuple[int, ...], ...] | None,
    state: GameState,
    moves: list[Candidate],
    count: int,
    seed: int,
    seconds: float | None,
) -> Tally:
    """One worker's share of an answer: the position rebuilt on its edition, its rollouts."""
    setup = Setup(
        edition=edition,
        players=players,
        watch_stack=stack,
        decks=decks,
        player_index={n: i for i, n in enumerate(players)},
        day_sizes=tuple(map(len, decks if decks is not None else edition.rules.day_cards)),
    )
    board = Board.from_snapshot(setup, state)
    deadline = None if seconds is None else time.perf_counter() + seconds
    return rollouts(board, moves, count, seed, deadline)


class CoachStopped(Exception):
    """The pool was closed (the coach switched off) while an answer was being worked out."""


class CoachPool:
    """The coach's worker processes for one edition (`companion.coach.worker`), started with
    `subprocess` and spoken to over their pipes: multiprocessing's forkserver and resource
    tracker outlive its pool, and its workers a SIGKILLed daemon. Each worker dies with the
    *thread* that started it (Linux's parent-death signal), so a pool lives on the coach's
    thread; `close` kills and reaps the workers before it returns. With no worker (``workers=0``:
    tests, or a machine with too little memory for one) it works in the coach's own thread."""

    def __init__(self, edition: Edition, workers: int | None = None) -> None:
        import pickle
        import subprocess
        import sys

        self.edition = edition
        self.workers = workers if workers is not None else pool_size(os.cpu_count(), None)
        self.closed = threading.Event()
        # the package's own directory first: a daemon started from a checkout finds its workers
        home = str(Path(__file__).resolve().parent.parent)
        path = os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH", "")) if p)
        command = [sys.executable, "-m", "companion.coach.worker", str(os.getpid())]
        self.procs: list[subprocess.Popen[bytes]] = []
        message = pickle.dumps(("edition", edition))
        try:
            for _ in range(self.workers):
                proc = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env={**os.environ, "PYTHONPATH": path},
                )
                self.procs.append(proc)
                assert proc.stdin is not None
                proc.stdin.write(message)
                proc.stdin.flush()
        except BaseException:
            self.close()
            raise

    def evaluate(
        self, board: Board, per_candidate: int, seconds: float | None, seed: int | None = None
    ) -> Advice:
        """Split the rollouts over the workers (each its own seed) and add their tallies.
        Raises `CoachStopped` if the pool is closed meanwhile."""
        import pickle

        if not self.procs:
            return evaluate(board, per_candidate, seconds, seed)
        moves = candidates(board)
        base = seed if seed is not None else random.randrange(1 << 30)
        share = -(-per_candidate // self.workers)
        setup = board.setup
        position = (setup.players, setup.watch_stack, setup.decks, board.snapshot(), moves)
        total = Tally(list(moves), len(board.names))
        try:
            for k, proc in enumerate(self.procs):
                assert proc.stdin is not None
                proc.stdin.write(pickle.dumps(("work", (*position, share, base + k, seconds))))
                proc.stdin.flush()
            for proc in self.procs:
                assert proc.stdout is not None
                kind, answer = pickle.load(proc.stdout)
                if kind != "tally":
                    raise RuntimeError(answer)
                total.add(answer)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            if self.closed.is_set():
                raise CoachStopped from None
            raise
        return advice(board, total)

    def close(self) -> None:
        """Kill and reap every worker (they hold nothing worth keeping); safe to call twice,
        and from another thread while `evaluate` waits (it then raises `CoachStopped`)."""
        self.closed.set()
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        for proc in self.procs:
            proc.wait()

    def release(self) -> None:
        """`close`, then the pipes too (by the thread that used them, once done with them)."""
        self.close()
        for proc in self.procs:
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
