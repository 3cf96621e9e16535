"""Helpers shared by the table and web tests."""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.records.trekking import TREKKING
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import ButtonSettings, Config, RingSettings, TableSettings

FAST_BUTTONS = ButtonSettings(bounce=0.0, undo_hold=0.15)


def random_games(test: Callable[..., None]) -> Callable[..., None]:
    """A test over random games at a mock table: Hypothesis draws the seed, 2 to 4 players and
    the turn style, ten examples (`random_runtime` sets the game up)."""
    draws = given(
        seed=st.integers(0, 10_000), players=st.integers(2, 4), turn=st.sampled_from(["quick", "confirm"])
    )
    return settings(
        max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )(draws(test))


def random_runtime(
    factory: pytest.TempPathFactory, name: str, seed: int, players: int, turn: str
) -> tuple[Runtime, random.Random]:
    """The mock table of one of `random_games` (in a new folder ``name``) and a generator seeded alike."""
    rt = make_runtime(factory.mktemp(name), ",".join("ABCD"[:players]), seed=seed, turn=turn)
    return rt, random.Random(seed)


def make_runtime(
    tmp_path: Path,
    players: str = "Ann,Ben",
    seed: int = 3,
    config: Config | None = None,
    turn: str = "quick",
    **ring: Any,
) -> Runtime:
    """A mock table on a new game in ``tmp_path`` (table PIN 2468); ``turn`` is the turn style."""
    if config is None:
        config = Config(table=TableSettings(turn=turn), buttons=FAST_BUTTONS, ring=RingSettings(**ring))
    store = Store(tmp_path, TREKKING)
    new_game(store, players.split(","), config, seed=seed, mock=True)
    store.close()
    return build_runtime(config, tmp_path, mock=True, pin="2468", say=lambda _: None)


@contextmanager
def api_app(tmp_path: Path, **app_options: Any) -> Iterator[tuple[Any, Runtime]]:
    """The Flask app on `make_runtime`'s table, and the runtime (``app_options``: ``create_app``'s)."""
    from companion.web.app import create_app

    rt = make_runtime(tmp_path)
    app = create_app(rt, **app_options)
    app.testing = True
    yield app, rt
    rt.stop()


@contextmanager
def api_client(tmp_path: Path, **app_options: Any) -> Iterator[tuple[Any, Runtime]]:
    """Flask's test client on `make_runtime`'s table, and the runtime."""
    with api_app(tmp_path, **app_options) as (app, rt):
        yield app.test_client(), rt


def client_from(app: Any, address: str = "127.0.0.1") -> Any:
    """A test client whose requests come from ``address`` (limits are per address)."""
    http = app.test_client()
    http.environ_base["REMOTE_ADDR"] = address
    return http


def play_turn(rt: Runtime, rng: random.Random) -> None:
    """One step as players at the table would do it, through taps and gpiozero presses."""
    expect = rt.table.expect()
    assert expect is not None
    if expect["kind"] == "itinerary":
        assert rt.tap(rng.choice(expect["choices"])).accepted
        return
    assert expect["kind"] == "take", expect
    card = rng.choice(expect["choices"])
    if rt.table.turn_style == "quick":  # crystals are chosen before the tap, which commits
        option = next(o for o in rt.table.board.take_options() if o.card == card)
        for _ in range(rng.randint(0, option.max_crystals)):
            assert rt.press("crystal").accepted
    outcome = rt.tap(card)
    assert outcome.accepted, outcome
    if rt.table.pending is not None:
        for _ in range(rng.randint(0, rt.table.pending.max_crystals)):
            assert rt.press("crystal").accepted
        assert rt.press("confirm").accepted


def played_for(path: Path, turns: int, seed: int) -> tuple[Runtime, random.Random]:
    """A mock table of Ann and Ben at ``path`` after ``turns`` seeded steps, and the steps' stream."""
    rt = make_runtime(path, "Ann,Ben")
    rng = random.Random(seed)
    for _ in range(turns):
        play_turn(rt, rng)
    return rt, rng


def to_a_take(rt: Runtime, rng: random.Random) -> None:
    """Play on until the table waits for a take (the coach's advice is about takes)."""
    while rt.table.expect()["kind"] != "take":
        play_turn(rt, rng)


def quick_coach(rt: Runtime, per_candidate: int) -> None:
    """The coach in the test's own process, untimed, ``per_candidate`` playouts a card: quick
    and the same every run."""
    rt.coach.workers, rt.coach.seconds, rt.coach.per_candidate = 0, None, per_candidate


def coach_at_a_take(rt: Runtime, per_candidate: int) -> str:
    """`quick_coach`, the game played (seeded) to a take: the player to move."""
    quick_coach(rt, per_candidate)
    to_a_take(rt, random.Random(4))
    return rt.table.board.player_to_move


def play_turns(rt: Runtime, turns: int, seed: int) -> None:
    """``turns`` steps of `play_turn`, drawn from a generator seeded with ``seed``."""
    rng = random.Random(seed)
    for _ in range(turns):
        play_turn(rt, rng)


def require_tool(present: bool, missing: str, install: str) -> None:
    """A test module's outside tool: CI (``CI`` set) must have it; elsewhere its
    absence skips the module loudly instead of failing a developer's run."""
    if present:
        return
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must run these tests, but {missing} ({install})")
    pytest.skip(f"SKIPPED: {missing} ({install})", allow_module_level=True)


def free_itinerary(rt: Runtime, player: str) -> str:
    """An Itinerary ``player`` could switch to today (no one uses it, they never did)."""
    board = rt.table.board
    who = board.names.index(player)
    taken = set(board.itinerary) | {i for i in range(64) if board.used[who] >> i & 1}
    return next(it.id for i, it in enumerate(board.edition.itineraries) if i not in taken)


# --- a full disk, with a fault-injecting connection (runs everywhere) ------------------------------


class FullAfter:
    """The store's SQLite connection, refusing with SQLITE_FULL once ``budget`` INSERTs were
    written: a disk filling up in the middle of a transaction."""

    def __init__(self, db: sqlite3.Connection, budget: int) -> None:
        self.db = db
        self.budget = budget

    def execute(self, sql: str, args: Any = ()) -> Any:
        if sql.startswith("INSERT"):
            self._spend()
        return self.db.execute(sql, args)

    def executemany(self, sql: str, rows: Any) -> Any:
        """Each row counts as one INSERT: the disk fills at the row the budget ends on."""
        rows = list(rows)
        if sql.startswith("INSERT"):
            for _ in rows:
                self._spend()
        return self.db.executemany(sql, rows)

    def _spend(self) -> None:
        if self.budget <= 0:
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = 13
            raise error
        self.budget -= 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


@contextlib.contextmanager
def disk_fills_after(rt: Runtime, budget: int) -> Iterator[None]:
    real = rt.store._db
    rt.store._db = FullAfter(real, budget)  # type: ignore[assignment]
    try:
        yield
    finally:
        rt.store._db = real


#: A seat's looks on the page (the table's settings, not the record's): left out when the page's
#: players are compared with a replay's.
SEAT_LOOKS = ("colour", "marker")


def without_looks(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's players as a replay of the record gives them: without `SEAT_LOOKS`."""
    return [{k: v for k, v in p.items() if k not in SEAT_LOOKS} for p in players]
