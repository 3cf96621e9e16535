"""One projection per version (`companion.table.snapshot.Projection`): the state's and the
page's texts, the replay continued from change to change. At every version of random games at
the mocked table (takes, undos, corrections, crystals chosen, stray taps, extras added to the
state), each must be exactly the plain way's: a fresh replay of the stored log, a fresh
projection, ``json.dumps``."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import ChooseItinerary
from companion.engine.tokens import COLUMNS
from companion.run.runtime import Runtime
from companion.table.view import page_state
from tests.support.tables import make_runtime, play_turn


def plain_state(rt: Runtime) -> dict[str, Any]:
    """The state projected afresh: the board's own standings, no kept answer."""
    return rt.table.project_state()


def plain_page(rt: Runtime) -> dict[str, Any]:
    """`Snapshots.page_json` the plain way: the whole stored log replayed afresh."""
    table = rt.table
    seats = range(len(table.board.names))
    page = page_state(
        table.board, [table.colour(i) for i in seats], list(table.stored), table.dealer is not None
    )
    for seat, player in enumerate(page["players"]):
        player["marker"] = table.marker(seat)
    return {**plain_state(rt), **page}


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def check(rt: Runtime) -> None:
    """The projection's texts and `page_json` against the plain way's, now."""
    table = rt.table
    assert table.state_text() == compact(plain_state(rt))
    version, text = table.page_text()
    assert version == table.version
    assert text == compact(plain_page(rt))
    assert compact(table.page_json()) == text


def correct_something(rt: Runtime, rng: random.Random) -> None:
    table = rt.table
    if rng.random() < 0.5:
        table.correct_wild([rng.choice(COLUMNS)])
        return
    chosen = [e for e in table.board.moves if isinstance(e, ChooseItinerary)]
    if chosen:
        table.correct_itinerary(chosen[-1].player, rng.choice(list(table.board.edition.itinerary_index)))


def play(rt: Runtime, rng: random.Random) -> None:
    """`play_turn`; with crystals chosen already (a ``crystal`` step), a tap of a card the table
    expects (refused if they are too many for it: a change all the same)."""
    table = rt.table
    expect = table.expect()
    if table.armed is not None and expect is not None and expect["kind"] == "take":
        rt.tap(rng.choice(expect["choices"]))
        if table.pending is not None:
            rt.press("confirm")
        return
    play_turn(rt, rng)


#: Extras named as members of the page (its own, the players) or of the state (before and after
#: the players).
CLASHES = ("log", "players", "game", "turn", "armed")
STEPS = st.sampled_from(["play"] * 8 + ["undo", "correct", "crystal", "stray", "extra", "clash", "many"])


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    players=st.sampled_from(["Ann,Ben", "Ann,Ben,Cy", "Ann,Ben,Cy,Dee"]),
    turn=st.sampled_from(["quick", "confirm"]),
    steps=st.lists(STEPS, min_size=1, max_size=120),
)
def test_the_projections_are_the_plain_ones_at_every_version(
    seed: int, players: str, turn: str, steps: list[str]
) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        rt = make_runtime(Path(tmp), players=players, seed=seed % 50, turn=turn)
        table = rt.table
        check(rt)
        for step in steps:
            if table.board.finished:
                table.undo()  # back into the game: the end's tie-break, then play on
            elif step == "play":
                play(rt, rng)
            elif step == "many":  # several changes before a page asks
                for _ in range(rng.randint(2, 5)):
                    if not table.board.finished:
                        play(rt, rng)
            elif step == "undo":
                table.undo()
            elif step == "correct":
                correct_something(rt, rng)
            elif step == "crystal":
                rt.press("crystal")
            elif step == "stray":
                rt.tap("no-such-card")
            elif step == "extra":  # an extra of the state that changes with the game
                table.annotations["note"] = lambda t: {"seq": t.seq, "finished": t.board.finished}
                table.emit(table.last)  # the projection is made per version: added at a change
            elif step == "clash":  # an extra named as one of the page's or the state's members
                table.annotations[rng.choice(CLASHES)] = lambda t: t.version
                table.emit(table.last)
            check(rt)
            if step == "clash":
                for name in CLASHES:
                    table.annotations.pop(name, None)
                table.emit(table.last)
                check(rt)
        rt.stop()


def test_a_reader_is_never_held_by_an_input_that_holds_the_lock(tmp_path: Path) -> None:
    """An input holds the table's lock through its store write (SQLite's busy timeout, a slow
    SD card): a reader of the state takes the latest projection instead of waiting, and the
    next one after the input gets the new version's."""
    import threading

    rt = make_runtime(tmp_path)
    table = rt.table
    before = table.state_text()
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with table.lock:
            taken.set()
            release.wait(10)
            table.emit(table.last)

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(10)
    try:
        assert table.state_text() is before
    finally:
        release.set()
        holder.join(10)
    assert json.loads(table.state_text())["version"] == table.version
    rt.stop()


def test_pages_watching_get_the_next_snapshot_made_by_the_change(tmp_path: Path) -> None:
    """Once a page read a version's snapshot, the next change makes its own before the pages
    are woken (by the thread that made it); with no page reading, a change makes none."""
    rt = make_runtime(tmp_path)
    table = rt.table
    rng = random.Random(4)
    play_turn(rt, rng)
    found = table.latest
    assert found is None or found.version != table.version or found.page_text is None  # no page
    table.page_text()  # a page reads this version
    play_turn(rt, rng)
    found = table.latest
    assert found is not None and found.version == table.version and found.page_text is not None
    assert found.page_text == compact(plain_page(rt))
    play_turn(rt, rng)  # no page read the last one: they are gone
    found = table.latest
    assert found is None or found.version != table.version or found.page_text is None
    rt.stop()


def test_a_snapshot_failing_at_the_change_loses_nothing(tmp_path: Path) -> None:
    """The page's snapshot failing when a change makes it (a bug): the input is stored and
    answered, the pages are still woken, and the next page to ask gets it."""
    rt = make_runtime(tmp_path)
    table = rt.table
    table.page_text()
    real, notify = table.page_of, table.changed.notify_all
    woken: list[int] = []

    def broken(found: Any) -> dict[str, Any]:
        raise RuntimeError("a bug in the page's snapshot")

    def told() -> None:
        woken.append(table.version)
        notify()

    table.page_of, table.changed.notify_all = broken, told  # type: ignore[method-assign]
    expect, stored = table.expect(), len(table.stored)
    assert expect is not None
    assert rt.tap(expect["choices"][0]).accepted
    assert woken == [table.version] and len(table.stored) > stored
    table.page_of = real  # type: ignore[method-assign]
    assert table.page_text() == (table.version, compact(plain_page(rt)))
    rt.stop()
