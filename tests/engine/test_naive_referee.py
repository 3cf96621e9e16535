"""The benchmark's naive referee gives the engine's output, so the speed ratio compares equals.

`tests.support.naive_referee` is the yardstick of `benchmarks.bench_referee` (issue 26): a
replay written from the contract the simple way. Whatever it is timed on, it must referee
as the engine does: the same standings, winners and rejections, on random editions and
random play with undos, corrections, reveals and refused events of every kind.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.coach.bots import BOTS
from companion.coach.simulate import play_game, random_setup
from companion.editions import load_edition
from companion.engine import Board, Event, make_setup, parse_edition, parse_event
from companion.engine.state import shuffled_setup
from companion.records.trekking import NotJson, decode_line, replay_text, write_record
from tests.support.naive_referee import replay as naive_replay
from tests.support.naive_referee import shipped_editions
from tests.support.strategies import editions

NAMES = ["Ann", "Ben", "Cy", "Dee"]
EXAMPLES = Path(__file__).resolve().parents[1] / "records"


def refused_lines(edition: dict[str, Any], names: list[str], rng: random.Random) -> list[str]:
    """Events the engine may refuse (some may be legal now: they are played all the same)."""
    card = rng.choice(edition["cards"])["id"]
    itinerary = rng.choice([*(it["id"] for it in edition["itineraries"]), "nope", ""])
    player = rng.choice([*names, "Zed"])
    return [
        json.dumps({"type": "take", "card": card}),
        json.dumps({"type": "take", "card": card, "player": player}),
        json.dumps({"type": "take", "card": card, "crystals": rng.choice([1, 1, 1, 2, 9, -1, True, 1.5])}),
        json.dumps({"type": "take", "card": card, "wild": rng.choice([["person", "event"], ["up"], "x"])}),
        json.dumps({"type": "take", "card": "ancestor", "crystals": rng.choice([0, 1])}),
        json.dumps({"type": "take", "card": "ancestor"}),
        json.dumps({"type": "undo"}),
        json.dumps({"type": "take", "card": rng.choice(["nope", ""])}),
        json.dumps({"type": "itinerary", "player": player, "itinerary": itinerary}),
        json.dumps({"type": "reveal", "card": card}),
        json.dumps({"type": rng.choice(["fly", 7, None])}),
        json.dumps([1, 2]),
        "not json",
        "[" * 101 + "]" * 101,
        "# a comment",
        "",
    ]


def generated_record(
    edition: dict[str, Any], players: int, reveals: bool, disturb: float, rng: random.Random
) -> str:
    """A record of random play on ``edition``: bot moves (or the table's reveals), undos and
    corrections now and then (play goes on differently after them), refused events, and
    events after the end."""
    names = NAMES[:players]
    ed = parse_edition(edition)
    stack = rng.sample(names, players)
    dealt = shuffled_setup(ed, names, stack, rng)
    setup = make_setup(ed, names, stack, None) if reveals else dealt
    head: dict[str, Any] = {"type": "setup", "record": "trekking/1", "players": names}
    head |= {"watch_stack": stack, "edition": edition}
    if not reveals:
        head["decks"] = {name: dealt.deck_ids(day) for day, name in ((1, "I"), (2, "II"), (3, "III"))}
    board = Board(setup)
    lines = [json.dumps(head)]
    after_end = rng.randint(0, 3)
    for _ in range(600):
        if board.finished:
            if after_end == 0:
                break
            after_end -= 1
        roll = rng.random()
        if roll < disturb and board.moves:
            correction = {"correction": True} if rng.random() < 0.3 else {}
            line = json.dumps({"type": "undo", **correction})
        elif roll < 2 * disturb or board.finished:
            line = rng.choice(refused_lines(edition, names, rng))
        elif reveals and board.waiting_position() >= 0:
            deck = dealt.decks[board.day - 1] if dealt.decks else ()
            card = next(i for i in deck if not board.revealed >> i & 1)
            line = json.dumps({"type": "reveal", "card": ed.cards[card].id})
        else:
            event: Event = BOTS[rng.choice(["random", "greedy"])](board, rng)
            line = json.dumps(_event_json(event, rng))
        lines.append(line)
        with contextlib.suppress(NotJson):  # a line that is not JSON changes nothing
            board.push(parse_event(decode_line(line.encode().strip())))
    return "\n".join(lines) + "\n"


def _event_json(event: Event, rng: random.Random) -> dict[str, Any]:
    from companion.engine import event_to_json

    out = event_to_json(event)
    if out["type"] == "take" and rng.random() < 0.3:
        out["wild"] = rng.sample(["person", "event", "innovation", "progress"], rng.randint(1, 3))
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edition=editions(),
    players=st.integers(1, 4),
    reveals=st.booleans(),
    disturb=st.sampled_from([0.0, 0.05, 0.15]),
    seed=st.integers(0, 2**32),
)
def test_the_naive_referee_gives_the_engines_output_on_random_play(
    edition: dict[str, Any], players: int, reveals: bool, disturb: float, seed: int
) -> None:
    text = generated_record(edition, players, reveals, disturb, random.Random(seed))
    assert naive_replay(text.encode(), {}) == replay_text(text).to_json()


def test_the_naive_referee_gives_the_engines_output_on_the_benchmarks_games() -> None:
    """The reference edition named and inline, every player count, both bots."""
    edition = load_edition("reference")
    editions_by_name = shipped_editions()
    rng = random.Random(26)
    for players in (1, 2, 3, 4):
        for bot in ("random", "greedy"):
            setup = random_setup(edition, NAMES[:players], rng)
            board, _, _ = play_game(setup, bot, rng)
            for inline in (False, True):
                text = write_record(setup, board.moves, inline_edition=inline)
                assert naive_replay(text.encode(), editions_by_name) == replay_text(text).to_json()


def test_the_naive_referee_gives_the_contracts_expected_outputs() -> None:
    examples = sorted(EXAMPLES.glob("*.jsonl"))
    assert examples
    for path in examples:
        expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
        assert naive_replay(path.read_bytes(), {}) == expected, path.name
