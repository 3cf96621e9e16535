"""`Store.write_events` carries each game's chain head and finished flag from its last commit
instead of reading them first (issue 26): whatever else changed the game's row in between
(another connection, `Store.mark_finished`, damage set aside, a raw edit), the chain it
writes still checks and the flag is the one given, as when the row was read each time."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Reveal
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config


def a_game(folder: Path) -> int:
    store = Store(folder, TREKKING)
    try:
        new_game(store, ["Ann", "Ben"], Config(), seed=3, mock=True)
        game = store.current_game()
        assert game is not None
        return game
    finally:
        store.close()


def stored_row(folder: Path, game: int) -> tuple[str, int]:
    with sqlite3.connect(folder / "companion.sqlite3") as db:
        head, finished = db.execute("SELECT head, finished FROM games WHERE id = ?", (game,)).fetchone()
        return str(head), int(finished)


def test_a_write_after_another_connection_wrote_chains_from_its_rows(tmp_path: Path) -> None:
    game = a_game(tmp_path)
    ours, theirs = Store(tmp_path, TREKKING), Store(tmp_path, TREKKING)
    try:
        ours.write_events(game, 1, [Reveal("a")], False)
        theirs.write_events(game, 2, [Reveal("b")], True)  # our carried head is now behind
        ours.write_events(game, 3, [Reveal("c")], None)
        assert ours.chain_damage(game) is None
        rows = ours.load(game).rows
        assert [row.seq for row in rows] == [1, 2, 3]
        assert stored_row(tmp_path, game) == (rows[-1].sum, 1)  # their flag kept: none was given
    finally:
        ours.close()
        theirs.close()


# One step: (which store writes, how many events, the flag it gives), or ("mark", flag) through
# `mark_finished`, or ("raw", value) a flag written by another program.
steps = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(["ours", "theirs"]), st.integers(0, 3), st.sampled_from([None, True, False])
        ),
        st.tuples(st.just("mark"), st.booleans()),
        st.tuples(st.just("raw"), st.integers(0, 2)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_any_mix_of_writers_leaves_a_chain_that_checks_and_the_flag_given(
    tmp_path_factory: object, steps: list[tuple[object, ...]]
) -> None:
    folder = Path(getattr(tmp_path_factory, "mktemp")("carried"))  # noqa: B009
    game = a_game(folder)
    stores = {"ours": Store(folder, TREKKING), "theirs": Store(folder, TREKKING)}
    seq, flag = 0, 0
    try:
        for step in steps:
            if step[0] == "mark":
                stores["ours"].mark_finished(game, bool(step[1]))
                flag = int(bool(step[1]))
            elif step[0] == "raw":
                with sqlite3.connect(folder / "companion.sqlite3") as db:
                    db.execute("UPDATE games SET finished = ? WHERE id = ?", (step[1], game))
                flag = int(str(step[1]))
            else:
                writer, count, finished = step
                events = [Reveal(f"c{seq + n}") for n in range(int(str(count)))]
                stores[str(writer)].write_events(game, seq + 1, events, finished)  # type: ignore[arg-type]
                seq += len(events)
                flag = flag if finished is None else int(bool(finished))
            assert stores["ours"].chain_damage(game) is None
            assert stored_row(folder, game)[1] == flag
        assert [row.seq for row in stores["theirs"].load(game).rows] == list(range(1, seq + 1))
    finally:
        for store in stores.values():
            store.close()
