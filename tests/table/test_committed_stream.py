"""Issue 22 item 3: the stream of what the table committed.

A recording hook, subscribed on the session, must see exactly the stored log (seq, time,
the event's JSON, its checksum) through takes, undos, the dealer's reveals, a correction,
a refused write on a full disk, a new game and a restart; the record it rebuilds replays
(``companion replay``'s code) to the page's standings. A hook that raises or hangs never
breaks or holds up a take, and hooks never run under the table's lock.
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.records.trekking import TREKKING, replay_text
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store, event_sum
from companion.table import DISK_FULL, Table
from companion.table.game_setup import new_game
from companion.table.session import Session
from companion.table.stream import Committed, GameFinished, GameStarted, StreamItem, Subscription
from companion.util.config import Config
from tests.support.tables import FAST_BUTTONS, disk_fills_after, make_runtime, play_turn, without_looks

WAIT = 30.0  # seconds a hook may take to catch up on a loaded machine (a bound, not a pause)


class Recorder:
    """A hook that keeps every item it is told (and, given a table, whether its lock was free)."""

    def __init__(self, table: Table | None = None) -> None:
        self.items: list[StreamItem] = []
        self.table = table
        self.lock_was_free: list[bool] = []

    def __call__(self, item: StreamItem) -> None:
        if self.table is not None:
            lock = self.table.lock
            free = lock.acquire(blocking=False)
            self.lock_was_free.append(free)
            if free:
                lock.release()
        self.items.append(item)

    def rows(self, game: int) -> list[tuple[int, str, str, str]]:
        """(seq, JSON text, time, checksum) of each event told for ``game``, as the store has them."""
        return [
            (i.seq, json.dumps(i.event), i.at, i.sum)
            for i in self.items
            if isinstance(i, Committed) and i.game == game
        ]

    def chain_holds(self, game: int) -> bool:
        """Whether the events told for ``game`` check against the checksum chain from its start,
        as a venue's hall checks them (the start's ``sum``, then each event's)."""
        start = next(i for i in self.items if isinstance(i, GameStarted) and i.game == game)
        previous = start.sum
        for seq, text, at, checksum in self.rows(game):
            if event_sum(previous, game, seq, text, at) != checksum:
                return False
            previous = checksum
        return bool(self.rows(game))

    def record(self, game: int) -> str:
        """The game's record rebuilt from what was told (what a venue's subscriber writes)."""
        start = next(i for i in self.items if isinstance(i, GameStarted) and i.game == game)
        head = {**start.setup, "record": start.format}
        lines = [json.dumps(head)] + [
            json.dumps(i.event) for i in self.items if isinstance(i, Committed) and i.game == game
        ]
        return "\n".join(lines) + "\n"


def stored_rows(data: Path, game: int) -> list[tuple[int, str, str, str]]:
    with sqlite3.connect(data / "companion.sqlite3") as db:
        found = db.execute("SELECT seq, event, at, sum FROM events WHERE game_id = ? ORDER BY seq", (game,))
        return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in found]


def restart(rt: Runtime, data: Path, said: list[str] | None = None) -> Runtime:
    rt.stop()
    out = said if said is not None else []
    return build_runtime(Config(buttons=FAST_BUTTONS), data, mock=True, pin="2468", say=out.append)


def a_correction(rt: Runtime) -> bool:
    """Correct some player's Itinerary of today to one that fits the game (a correction that
    no longer fits is refused, and stores and tells nothing)."""
    board = rt.table.board
    for player in board.names:
        who = board.names.index(player)
        taken = set(board.itinerary) | {i for i in range(64) if board.used[who] >> i & 1}
        for index, itinerary in enumerate(board.edition.itineraries):
            if index not in taken and rt.table.correct_itinerary(player, itinerary.id).accepted:
                return True
    return False


def idle(rt: Runtime) -> None:
    for subscription in rt.session.stream.subscriptions:
        assert subscription.wait_idle(WAIT), "a hook caught up"


def test_a_hook_sees_exactly_the_stored_log_through_a_whole_evening(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    first = rt.table.game_id
    heard = Recorder()
    rt.session.subscribe(heard, after=(0, 0), name="recorder")  # the whole history, then live
    rng = random.Random(8)
    for _ in range(12):
        play_turn(rt, rng)
        idle(rt)
    assert rt.table.undo().accepted  # an undo is an event like any other (the dealer's reveals go with it)
    idle(rt)
    told = len(heard.items)
    with disk_fills_after(rt, 0):  # a refused write tells nothing
        refused = rt.table.tap(rt.table.expect()["choices"][0])  # type: ignore[index]
    assert not refused.accepted and refused.code == DISK_FULL
    idle(rt)
    assert len(heard.items) == told
    play_turn(rt, rng)
    before = stored_rows(tmp_path, first)
    assert a_correction(rt), "some player's Itinerary can be corrected"
    idle(rt)
    rewritten = stored_rows(tmp_path, first)[len(before) :]
    assert len(rewritten) > 2, "a correction stores its undos, the replacement and the replay"
    assert heard.rows(first)[-len(rewritten) :] == rewritten, "each of the correction's events is told"
    assert heard.rows(first) == stored_rows(tmp_path, first)
    kinds = {json.loads(text)["type"] for _, text, _, _ in heard.rows(first)}
    assert {"take", "reveal", "undo"} <= kinds, "the dealer's reveals and the undos are told too"
    assert heard.chain_holds(first), "told from the store's history: its start and every event check"

    # a restart: a new hook catches up from where the first one stopped, then follows live
    last = heard.rows(first)[-1][0]
    said: list[str] = []
    rt = restart(rt, tmp_path, said)
    again = Recorder()
    rt.session.subscribe(again, after=(first, last))
    for _ in range(4):
        play_turn(rt, rng)
    idle(rt)
    assert heard.rows(first) + again.rows(first) == stored_rows(tmp_path, first)

    # the session carries the hooks to the next game, which is played to its end
    second = rt.start_game(["Cy", "Dee"], None, "reference", 4)
    while rt.table.expect() is not None:
        play_turn(rt, rng)
    idle(rt)
    assert [i.game for i in again.items if isinstance(i, GameStarted)] == [second]
    assert again.rows(second) == stored_rows(tmp_path, second)
    assert again.chain_holds(second), "told live: its start and every event check"
    finished = [i for i in again.items if isinstance(i, GameFinished)]
    assert [(i.game, i.seq) for i in finished] == [(second, again.rows(second)[-1][0])]
    replayed = replay_text(again.record(second)).to_json()
    assert replayed["rejected"] == []
    page = rt.state()
    assert replayed["players"] == without_looks(page["players"])
    assert replayed["winners"] == page["winners"] == finished[0].result["winners"]
    assert finished[0].result["players"] == replayed["players"]
    assert rt.store.export(second) == again.record(second), "the rebuilt record is `companion export`'s"
    rt.stop()


def test_hooks_are_told_once_the_input_has_released_the_tables_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare table (no ring, no coach reading it): nobody else takes its lock. Each time the
    stream hands items on, another thread can take the lock at once (the input released
    it), and so can every hook."""
    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config(), seed=2, mock=True)
    table = Table(store, store.load(game), log=lambda _: None, turn="quick")
    session = Session(store, table, lambda *_: 0, turn="quick", table_id="t1")
    stream = session.stream
    flushed: list[bool] = []
    hand_on = stream.flush

    def probed_flush() -> None:
        flushed.append(free_elsewhere(table.lock))
        hand_on()

    monkeypatch.setattr(stream, "flush", probed_flush)
    heard = Recorder(table)
    subscription = session.subscribe(heard)
    while (expect := table.expect()) is not None and len(heard.items) < 30:
        table.tap(expect["choices"][0])
        assert subscription.wait_idle(WAIT)
    assert len(flushed) >= 10 and all(flushed), "the stream is handed items outside the lock"
    assert len(heard.lock_was_free) >= 30 and all(heard.lock_was_free)
    assert {item.table for item in heard.items} == {"t1"}
    stream.close()
    store.close()


def test_a_hook_that_joins_while_events_are_committed_but_not_yet_handed_on_hears_each_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up reads the store, which already has the events an input has not yet
    handed on: when they arrive live they are not told twice, and nothing is skipped."""
    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config(), seed=7, mock=True)
    table = Table(store, store.load(game), log=lambda _: None, turn="quick")
    session = Session(store, table, lambda *_: 0, turn="quick")
    stream = session.stream
    hand_on = stream.flush
    monkeypatch.setattr(stream, "flush", lambda: None)  # committed and staged, not handed on yet
    for _ in range(3):
        table.tap(table.expect()["choices"][0])  # type: ignore[index]
    heard = Recorder()
    subscription = session.subscribe(heard, after=(game, 0))
    monkeypatch.setattr(stream, "flush", hand_on)
    stream.flush()  # the inputs' items arrive after the catch-up told them
    table.tap(table.expect()["choices"][0])  # type: ignore[index]
    assert subscription.wait_idle(WAIT)
    assert heard.rows(game) == stored_rows(tmp_path, game)
    stream.close()
    store.close()


def test_taps_go_on_while_a_hook_catches_up_and_what_they_commit_follows_the_catch_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path, TREKKING)
    game = new_game(store, ["Ann", "Ben"], Config(), seed=9, mock=True)
    table = Table(store, store.load(game), log=lambda _: None, turn="quick")
    session = Session(store, table, lambda *_: 0, turn="quick")
    stream = session.stream
    for _ in range(3):
        table.tap(table.expect()["choices"][0])  # type: ignore[index]
    reading, go = threading.Event(), threading.Event()
    released: list[bool] = []
    read = stream.stored_after

    def slow_read(game: int, seq: int) -> list[StreamItem]:
        stored = read(game, seq)
        reading.set()
        released.append(go.wait(WAIT))  # a long history being read
        return stored

    monkeypatch.setattr(stream, "stored_after", slow_read)
    heard = Recorder()
    joined: list[Subscription] = []
    joining = threading.Thread(target=lambda: joined.append(session.subscribe(heard, after=(0, 0))))
    joining.start()
    assert reading.wait(WAIT)
    for _ in range(3):  # while the store is read: taps are not held up
        table.tap(table.expect()["choices"][0])  # type: ignore[index]
    go.set()
    joining.join()
    assert released == [True], "the taps went through while the catch-up was being read"
    assert joined[0].wait_idle(WAIT)
    assert heard.rows(game) == stored_rows(tmp_path, game)
    stream.close()
    store.close()


def free_elsewhere(lock: Any) -> bool:
    """Whether another thread can take ``lock`` now (an RLock is free to its own holder)."""
    found: list[bool] = []

    def probe() -> None:
        taken = lock.acquire(blocking=False)
        if taken:
            lock.release()
        found.append(taken)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return found[0]


def test_a_hook_that_raises_is_logged_and_the_others_and_the_table_go_on(tmp_path: Path) -> None:
    said: list[str] = []
    rt = make_runtime(tmp_path, "Ann,Ben")
    rt = restart(rt, tmp_path, said)

    def broken(item: StreamItem) -> None:
        raise RuntimeError("the venue is down")

    rt.session.subscribe(broken, name="venue")
    heard = Recorder()
    rt.session.subscribe(heard)
    rng = random.Random(2)
    for _ in range(3):
        play_turn(rt, rng)
    idle(rt)
    game = rt.table.game_id
    assert heard.rows(game) == stored_rows(tmp_path, game)[-len(heard.rows(game)) :] and heard.items
    failures = [line for line in said if "stream hook venue failed (RuntimeError: the venue is down)" in line]
    assert len(failures) == len(heard.items), "each failure is said, in the catalogue's words"
    rt.stop()


def test_a_hung_hook_holds_up_no_take_and_is_told_everything_once_it_wakes(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    wake = threading.Event()
    slow = Recorder()

    def hung(item: StreamItem) -> None:
        wake.wait(WAIT)
        slow(item)

    subscription = rt.session.subscribe(hung)
    rng = random.Random(4)
    for _ in range(6):  # every take goes through while the hook is stuck on the first item
        play_turn(rt, rng)
    assert not subscription.wait_idle(0), "the hook is still stuck"
    wake.set()
    idle(rt)
    game = rt.table.game_id
    stored = stored_rows(tmp_path, game)
    assert slow.rows(game) == stored[len(stored) - len(slow.rows(game)) :] and len(slow.rows(game)) >= 6
    rt.stop()


class Outbox:
    """A venue's outbox as issue 23 plans it: what the broker acknowledged moves the place
    kept in the store; while the broker is down, nothing is acknowledged."""

    def __init__(self, rt: Runtime) -> None:
        self.store = rt.store
        self.broker_up = True
        self.delivered: list[tuple[int, int, str]] = []

    def __call__(self, item: StreamItem) -> None:
        if isinstance(item, Committed) and self.broker_up:
            self.delivered.append((item.game, item.seq, item.sum))
            self.store.save_cursor("venue", item.game, item.seq)


def test_an_outbox_that_keeps_its_place_in_the_store_delivers_every_event_after_a_restart(
    tmp_path: Path,
) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    assert rt.store.cursor("venue") is None
    outbox = Outbox(rt)
    rt.session.subscribe(outbox, after=(0, 0))
    rng = random.Random(11)
    for _ in range(5):
        play_turn(rt, rng)
    idle(rt)
    outbox.broker_up = False  # the broker goes away: events are committed, none acknowledged
    for _ in range(5):
        play_turn(rt, rng)
    idle(rt)
    rt = restart(rt, tmp_path)  # the table restarts; the broker is back
    delivered = outbox.delivered
    outbox = Outbox(rt)
    rt.session.subscribe(outbox, after=rt.store.cursor("venue"))
    for _ in range(3):
        play_turn(rt, rng)
    idle(rt)
    game = rt.table.game_id
    told = delivered + outbox.delivered
    assert [(g, seq) for g, seq, _ in told] == [(game, row[0]) for row in stored_rows(tmp_path, game)]
    assert [checksum for *_, checksum in told] == [row[3] for row in stored_rows(tmp_path, game)]
    assert rt.store.cursor("venue") == (game, len(told))
    rt.stop()


#: Inputs at the table: a tap of what the table expects, of a card it does not, and presses.
INPUTS = st.lists(
    st.sampled_from(
        ["expected", "expected", "expected", "stray", "crystal", "confirm", "undo", "page_undo", "fix"]
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs=INPUTS, seed=st.integers(0, 1000), turn=st.sampled_from(["quick", "confirm"]))
def test_whatever_the_table_is_given_the_hook_hears_exactly_the_stored_log(
    inputs: list[str], seed: int, turn: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        rt = make_runtime(data, "Ann,Ben,Cy", seed=seed, turn=turn)
        heard = Recorder()
        rt.session.subscribe(heard, after=(rt.table.game_id, 0))
        rng = random.Random(seed)
        for step in inputs:
            table = rt.table
            expect = table.expect()
            if step == "expected" and expect is not None:
                rt.tap(rng.choice(expect["choices"]))
            elif step == "stray":
                rt.tap(rng.choice(table.board.edition.cards).id)
            elif step == "page_undo":
                table.undo()
            elif step == "fix":
                a_correction(rt)
            elif step in ("crystal", "confirm", "undo"):
                rt.press(step)
        idle(rt)
        game = rt.table.game_id
        assert heard.rows(game) == stored_rows(data, game)
        rt.stop()


def test_items_say_what_the_venue_publishes() -> None:
    item = Committed("hall-3", 7, 12, "2026-11-26T04:00:00.000+00:00", {"type": "undo"}, "ab" * 16)
    assert item.to_json() == {
        "table": "hall-3",
        "game": 7,
        "seq": 12,
        "at": "2026-11-26T04:00:00.000+00:00",
        "event": {"type": "undo"},
        "sum": "ab" * 16,
    }
