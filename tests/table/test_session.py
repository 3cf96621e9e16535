"""The session owns the current game; the ring is told of changes; a tap is resolved once.

Issue 17, items 1 and 2: a new game keeps what was registered on the session (listeners,
snapshot extras) with no patching of a running table; the ring reads each change once
instead of taking the table's lock at every frame; a tag from the reader is resolved once
and the take's options are scanned once.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from companion.engine import Board
from companion.hardware.ring import render, view_of
from companion.run.startup import attach_reader
from companion.table import Outcome, Table
from tests.support.tables import make_runtime


def test_listeners_and_snapshot_extras_outlive_a_new_game(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    heard: list[tuple[int, str | None]] = []
    rt.session.listen(lambda table, outcome: heard.append((table.game_id, outcome.code)))
    rt.session.annotate("coach", lambda table: {"game": table.game_id})
    old = rt.table
    assert rt.state()["coach"] == {"game": old.game_id}
    version = rt.version()
    game = rt.start_game(["Zoe", "Yan"], None, "reference", seed=5)
    assert rt.table is not old and rt.table.game_id == game
    assert rt.version() > version and old.version > version, "pages on either table see a change"
    assert rt.state()["coach"] == {"game": game}, "the extra is in the new game's snapshot"
    assert rt.tap(rt.table.expect()["choices"][0]).accepted
    assert heard[-1][0] == game, "the listener hears the new game"
    assert rt.driver.table is rt.table, "the ring was told of the new game"
    rt.stop()


def test_a_wait_on_the_old_game_ends_when_a_new_game_starts(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    version = rt.version()
    seen: list[int] = []
    waiter = threading.Thread(target=lambda: seen.append(rt.wait_for_change(version, 30.0)))
    waiter.start()
    rt.start_game(["Zoe", "Yan"], None, "reference", seed=5)
    waiter.join()
    assert seen and seen[0] != version
    rt.stop()


class CountingLock:
    """A lock that counts who takes it (the ring must not, between changes)."""

    def __init__(self) -> None:
        self.inner = threading.RLock()
        self.taken = 0

    def __enter__(self) -> CountingLock:
        self.inner.acquire()
        self.taken += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        self.inner.release()


def test_the_ring_is_told_of_a_change_and_draws_without_the_tables_lock(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    now = [100.0]
    rt.driver.clock = lambda: now[0]
    lock = CountingLock()
    rt.table.lock = lock  # type: ignore[assignment]
    assert rt.tap(rt.table.expect()["choices"][0]).accepted  # an Itinerary: the ring is notified
    after_tap = lock.taken
    for step in range(5):  # frames between changes: the cue's animation goes on
        now[0] += 0.1 * step
        with lock.inner:  # what the frame shows is what the table shows
            expected = render(view_of(rt.table, now[0]), rt.layout, now[0])
        lock.taken = after_tap
        assert rt.driver.draw() == expected
        assert lock.taken == after_tap, "a frame does not take the table's lock"
    rt.stop()


def test_a_reader_tap_is_resolved_once_and_its_options_scanned_once(tmp_path: Path, monkeypatch: Any) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    while table.expect()["kind"] == "itinerary":
        assert rt.tap(table.expect()["choices"][0]).accepted
    card = table.expect()["choices"][0]
    resolved: list[str] = []
    resolve = rt.resolver.resolve
    monkeypatch.setattr(rt.resolver, "resolve", lambda seen: resolved.append(seen) or resolve(seen))
    # the ring's projection lists the next turn's options (its comet, its colours): that is
    # the snapshot after the change, not the tap's own work, so only the tap is counted here
    rt.session.listeners.remove(rt.driver.notify)
    scans: list[int] = []
    options = Board.take_options
    monkeypatch.setattr(Board, "take_options", lambda board: scans.append(1) or options(board))
    taps: list[str | None] = [card]
    loop = attach_reader(rt, lambda: taps.pop() if taps else None, lambda: None)
    heard: list[Outcome] = []
    rt.session.listen(lambda t, outcome: heard.append(outcome))
    assert loop.poll()[0] == card
    assert heard and heard[-1].code == "took", heard
    assert resolved == [card], "resolved once"
    assert len(scans) == 1, "the take's options scanned once"
    rt.stop()


def test_a_tag_carrying_its_card_in_its_text_is_resolved_from_the_text(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    itinerary = rt.table.expect()["choices"][0]
    taps: list[str | None] = ["04A1B2C3"]
    loop = attach_reader(rt, lambda: taps.pop() if taps else None, lambda: f"trek:{itinerary}")
    heard: list[Outcome] = []
    rt.session.listen(lambda t, outcome: heard.append(outcome))
    loop.poll()
    assert heard[-1].code == "itinerary_chosen" and heard[-1].params["itinerary"] == itinerary
    rt.stop()


def test_the_state_is_projected_once_per_change(tmp_path: Path, monkeypatch: Any) -> None:
    rt = make_runtime(tmp_path)
    projected: list[int] = []
    standings = Board.standings
    monkeypatch.setattr(
        Board, "standings", lambda board, *kept: projected.append(1) or standings(board, *kept)
    )
    first = rt.state()
    assert rt.state() == first and rt.state() == first
    assert len(projected) == 1, "asked three times, projected once"
    rt.state()["turn"] = "nobody"  # a caller's change stays its own
    assert rt.state() == first
    assert rt.tap(rt.table.expect()["choices"][0]).accepted
    assert rt.state()["version"] == first["version"] + 1 and len(projected) == 2, "a change: once more"
    rt.stop()


def test_a_table_alone_needs_no_session(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = Table(rt.store, rt.store.load(rt.table.game_id))
    assert table.state_json()["game"] == rt.table.game_id and table.annotations == {}
    rt.stop()
