"""`companion run`'s console writes each input's lines at once (`ConsoleLines`): the same
text as a `print` per line, in the same order, in one write; another thread's lines are not
held back by an input in progress."""

from __future__ import annotations

import io
import random
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from companion.records.trekking import TREKKING
from companion.run.console import print_ring
from companion.run.console_lines import ConsoleLines
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config, TableSettings


class Writes(io.StringIO):
    """A stdout that counts its writes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def mocked(tmp_path: Path, say: Any) -> Any:
    """A mock table of 3 players, its console as `companion run --mock` draws it to a pipe."""
    config = Config(table=TableSettings(turn="confirm"))
    store = Store(tmp_path, TREKKING)
    new_game(store, ["Ann", "Ben", "Cy"], config, seed=5, mock=True)
    store.close()
    rt = build_runtime(config, tmp_path, mock=True, pin="2468", say=say)
    rt.session.listen(print_ring(rt, colour=False))
    return rt


def test_a_games_console_is_the_prints_text_in_one_write_per_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same game through `print` and through `ConsoleLines`: the same bytes; one write for
    each tap and press that said something (a take, its reveal, what comes next)."""
    outs: list[Writes] = []
    for side, say in (("print", print), ("lines", ConsoleLines())):
        out = Writes()
        monkeypatch.setattr(sys, "stdout", out)
        rt = mocked(tmp_path / side, say)
        rng = random.Random(11)
        inputs, at_start = 0, len(out.writes)  # the dealer's first reveals: no input's
        try:
            for _ in range(60):
                expect = rt.table.expect()
                if expect is None:
                    break
                rt.tap(rng.choice([*expect["choices"], "nonsense"]))
                inputs += 1
                if rt.table.pending is not None:
                    rt.press("confirm")
                    inputs += 1
        finally:
            rt.stop()
            monkeypatch.undo()
        outs.append(out)
        if side == "lines":
            assert len(out.writes) - at_start == inputs, "one write per input"
    printed, written = outs
    assert written.getvalue() == printed.getvalue()
    assert len(printed.writes) > 2 * len(written.writes), "print wrote each line and its newline"


def test_lines_are_held_per_thread_and_written_when_the_input_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    out = Writes()
    monkeypatch.setattr(sys, "stdout", out)
    lines = ConsoleLines()
    lines("before")
    with lines.held():
        lines("one")
        with lines.held():  # nested: the outer input writes
            lines("two")
        assert out.writes == ["before\n"]
        other = threading.Thread(target=lines, args=("the ring's thread",))
        other.start()
        other.join()
        assert out.writes == ["before\n", "the ring's thread\n"], "another thread is not held"
    assert out.writes[-1] == "one\ntwo\n"
    with pytest.raises(RuntimeError), lines.held():
        lines("said before a bug")
        raise RuntimeError("a bug")
    assert out.writes[-1] == "said before a bug\n", "what was said is written, even on a bug"
    with lines.held():
        pass
    assert len(out.writes) == 4, "nothing said: nothing written"
    lines("after")
    assert out.getvalue() == "before\nthe ring's thread\none\ntwo\nsaid before a bug\nafter\n"


def test_no_stdout_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """As `print` does without a stdout (a service started with none)."""
    monkeypatch.setattr(sys, "stdout", None)
    lines = ConsoleLines()
    lines("nowhere")
    with lines.held():
        lines("nowhere either")


def test_each_reveal_is_said_as_the_catalogue_words_that_card(tmp_path: Path) -> None:
    """The dealer's reveal lines (`reveal_line`, worded once per card) over two games in one
    process, the second revealing cards the first did: each is the catalogue's for its card."""
    from companion.engine import Reveal
    from companion.util.wording import say

    for game in range(2):
        logged: list[str] = []
        rt = mocked(tmp_path / str(game), logged.append)
        rng = random.Random(game)
        try:
            for _ in range(40):
                expect = rt.table.expect()
                if expect is None:
                    break
                rt.tap(rng.choice(expect["choices"]))
                if rt.table.pending is not None:
                    rt.press("confirm")
            edition = rt.table.board.edition
            cards = [edition.card(e.card) for e in rt.table.stored if isinstance(e, Reveal)]
        finally:
            rt.stop()
        said = [line for line in logged if line.startswith("dealer reveals")]
        expected = [
            say("journal_reveal", card=c.id, title=c.title, year=c.year, hours=c.hours) for c in cards
        ]
        assert said == expected and len(said) > 10


def test_an_input_s_lines_follow_those_another_input_said_before_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 37: Crystal pressed on the page is held through its debounce window; a tap handled
    meanwhile wrote "Ben took …, 1 crystal spent" before "Ben will spend 1 crystal". The lines
    come out in the order they were said, each input's still in one write where it can be."""
    out = Writes()
    monkeypatch.setattr(sys, "stdout", out)
    lines = ConsoleLines()
    said, done = threading.Event(), threading.Event()

    def press() -> None:
        with lines.held():
            lines("Ben will spend 1 crystal")
            said.set()
            done.wait(DEADLINE)  # the button's debounce window: the tap comes meanwhile

    presser = threading.Thread(target=press)
    presser.start()
    assert said.wait(DEADLINE)
    with lines.held():
        lines("Ben took Marathon (490 BCE). 1 crystal spent.")
    done.set()
    presser.join()
    assert out.getvalue() == "Ben will spend 1 crystal\nBen took Marathon (490 BCE). 1 crystal spent.\n"
    assert out.writes == ["Ben will spend 1 crystal\nBen took Marathon (490 BCE). 1 crystal spent.\n"]


#: How long a wait may last before the test fails (a wait for an event, never a fixed pause).
DEADLINE = 60.0
