"""The page's and the state's texts are made without building the snapshot (`PageText.page`,
`PageText.state`): the replay continued, the standings shared with the state, each player's,
row position's and log entry's text kept while what it was made of is the same, `expect` worked
out once per change. At every version of random games at the mocked table (takes, undos,
corrections, crystals chosen, stray taps, extras added to the state), each must be exactly the
plain way's: a fresh replay of the stored log, a fresh projection, ``json.dumps``. The plain
way is written out here as the oracle (`Snapshots.page_json` as it was before the texts were
made apart)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import ChooseItinerary
from companion.engine.edition import Edition
from companion.engine.tokens import COLUMNS
from companion.run.runtime import Runtime
from companion.table.page_text import EDITION_TEXTS, dumps, edition_texts
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
    """The fast texts, `expect` and `page_json` against the plain way's, now."""
    table = rt.table
    assert table.expect() == table.work_out_expect()
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
CLASHES = ("chart", "players", "game", "turn", "armed")
STEPS = st.sampled_from(["play"] * 8 + ["undo", "correct", "crystal", "stray", "extra", "clash", "many"])


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    players=st.sampled_from(["Ann,Ben", "Ann,Ben,Cy", "Ann,Ben,Cy,Dee"]),
    turn=st.sampled_from(["quick", "confirm"]),
    steps=st.lists(STEPS, min_size=1, max_size=120),
)
def test_the_fast_texts_are_the_plain_ones_at_every_version(
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
                table.emit(table.last)  # the page's text is kept per version: added at a change
            elif step == "clash":  # an extra named as one of the page's or the state's members: the plain way
                table.annotations[rng.choice(CLASHES)] = lambda t: t.version
                table.emit(table.last)
            check(rt)
            if step == "clash":
                for name in CLASHES:
                    table.annotations.pop(name, None)
                table.emit(table.last)
                check(rt)
        rt.stop()


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
        max_leaves=20,
    )
)
def test_dumps_is_json_dumps_compact(value: Any) -> None:
    assert dumps(value) == compact(value)


def test_the_texts_of_an_edition_are_shared_by_its_games_and_kept_apart_from_another(tmp_path: Path) -> None:
    """A game's page starts with the texts an earlier game of its edition made (row cards,
    Itineraries); another edition's are its own, and the kept texts stay bounded."""
    first = make_runtime(tmp_path / "1")
    first.table.page_text()
    edition = first.table.board.edition
    made = edition_texts(edition)
    assert first.table.encoder().per_edition is made and made
    second = make_runtime(tmp_path / "2", seed=9)
    second.table.page_text()
    assert second.table.encoder().per_edition is made
    other = cast(Edition, object())
    assert edition_texts(other) is not made and not edition_texts(other)
    made.update({n: "" for n in range(EDITION_TEXTS + 1)})  # too many: the next game starts afresh
    assert edition_texts(edition) is not made
    first.stop()
    second.stop()


def test_one_page_text_for_two_tables_gives_each_its_own_text(tmp_path: Path) -> None:
    """Each text `PageText` keeps is used again only while it is of what it was made of: the
    players' names (``order``, ``stack``), the state's members before the players, and each
    player's state text, which the page's player is made of. One `PageText` shared by two
    tables of other players, whose state and page texts are asked out of step (the first's
    page after the second's state, the first's state text kept by its table), must still give
    each table the plain text."""
    first = make_runtime(tmp_path / "1", players="Ann,Ben,Cy", seed=4)
    second = make_runtime(tmp_path / "2", players="Dee,Eve", seed=11)
    second.table.page_encoder = first.table.encoder()
    rng = random.Random(4)
    for _ in range(40):
        for rt in (first, second):
            if not rt.table.board.finished:
                play(rt, rng)
        first.table.state_text()
        second.table.state_text()
        for rt in (first, second):
            assert rt.table.page_text()[1] == compact(plain_page(rt))
            check(rt)
    first.stop()
    second.stop()
