"""The console of `companion run`: the ring drawn after each input, what the table waits
for in words, and (mock mode) the keyboard as the virtual reader and buttons."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from companion.hardware.ring import ansi, render, view_of
from companion.run.runtime import Runtime
from companion.table import Outcome, Table
from companion.util.wording import say


def print_ring(runtime: Runtime, colour: bool = True) -> Callable[[Table, Outcome], None]:
    """The ring on the console after each input: in colour on a terminal; where the output
    goes to a pipe or a log (no terminal to draw colours), what the table waits for instead."""

    def show(table: Table, outcome: Outcome) -> None:
        if colour:
            view = view_of(table, time.monotonic())
            runtime.say("ring " + ansi(render(view, runtime.layout, 0.0)))
        else:
            runtime.say(describe_expect(table))

    return show


def describe_expect(table: Table) -> str:
    """What the table waits for, as a sentence for the console (not the raw dictionary): its
    `Table.awaited` kind and player, said after every input (the choices are not listed)."""
    awaited = table.awaited()
    if awaited is None:
        won = table.board.winners()
        return say("expect_over", winners=f" {say('and')} ".join(won), n=len(won))
    kind, player = awaited
    if kind == "reveal":
        return say("expect_reveal")
    if kind == "itinerary":
        return say("expect_itinerary", player=player)
    if kind == "confirm":
        return say("expect_confirm", player=player)
    armed = table.armed_crystals()  # the crystals chosen before the tap
    return say("expect_take", player=player, n=armed, kind="armed" if armed else "")


#: The mock keyboard's keys, printed once at start.
KEYS_HELP = say("keys_help")


def keyboard(runtime: Runtime, lines: Any = None) -> None:
    """The virtual reader and buttons on the console (mock mode)."""
    source = lines if lines is not None else sys.stdin
    for line in source:
        text = line.strip()
        if not text:
            continue
        if text in ("c", "crystal"):
            runtime.press("crystal")
        elif text in ("y", "confirm", "ok"):
            runtime.press("confirm")
        elif text in ("u", "undo"):
            runtime.press("undo")
        elif text == "pin":
            runtime.confirm_held()
        elif text in ("?", "state"):
            runtime.say(describe_expect(runtime.table))
        else:
            runtime.tap(text)
