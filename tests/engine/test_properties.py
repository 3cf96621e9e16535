"""Hypothesis: engine invariants over random editions, random play and random garbage.

The state machine plays random games (legal and illegal events, undos) on random
small editions and checks after every step that:

- every card of the current Day deck is in exactly one place (deck, row, taken);
- every accepted take added exactly one card to exactly one trek;
- watches stay in 0..12 and crystals never go negative;
- a rejected event changes nothing, and undo restores the exact previous state;
- replaying the accepted events on a fresh board gives the same state;
- total = track + crystals + trek points, and the player to move is furthest behind.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from companion.engine import (
    Board,
    ChooseItinerary,
    GameState,
    Take,
    Undo,
    make_setup,
    parse_edition,
    parse_event,
)
from companion.engine.state import EMPTY
from companion.engine.tokens import COLUMNS
from companion.records.trekking import RecordError, replay_text
from companion.util.wording import LANGUAGES, say
from tests.support.strategies import editions

FIELDS = st.sampled_from(["type", "card", "player", "crystals", "wild", "itinerary"])
VALUES = st.one_of(
    st.none(),
    st.integers(-2, 3),
    st.text(max_size=4),
    st.sampled_from(["take", "undo", "reveal", "itinerary", "I01"]),
)
GARBAGE = st.one_of(st.dictionaries(FIELDS, VALUES), st.integers(), st.text(max_size=5))
LINES = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.builds(json.dumps, st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=6))),
    ),
    max_size=12,
)


class GameMachine(RuleBasedStateMachine):
    board: Board
    history: list[GameState]

    @initialize(data=st.data(), edition=editions(), players=st.integers(1, 4))
    def setup(self, data: st.DataObject, edition: dict[str, Any], players: int) -> None:
        ed = parse_edition(edition)
        names = ["Ann", "Ben", "Cy", "Dee"][:players]
        stack = data.draw(st.permutations(names))
        decks = {}
        for day, name in ((1, "I"), (2, "II"), (3, "III")):
            deck = data.draw(st.permutations([c.id for c in ed.day_cards(day)]))
            # Mostly whole decks; sometimes a short or an empty one (a Day with nothing to take).
            keep = data.draw(st.sampled_from([len(deck)] * 4 + [0, 1, 2]))
            decks[name] = deck[:keep]
        self.board = Board(make_setup(ed, names, stack, decks))
        self.copies = ed.ancestor_copies(players)
        self.history = []

    def _push(self, event: Any) -> bool:
        before = self.board.snapshot()
        rejection = self.board.push(event)
        if rejection is None:
            self.history.append(before)
            return True
        for lang in LANGUAGES:  # every rejection explains itself, each fact its sentence names given
            said = say(rejection.code, lang, **rejection.params)
            assert said and "{" not in said, (rejection, lang, said)
        assert self.board.snapshot() == before, f"{rejection.code} changed the state"
        return False

    @precondition(lambda self: not self.board.finished and bool(self.board.needs_itinerary()))
    @rule(data=st.data())
    def choose_itinerary(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(self.board.needs_itinerary()))
        choices = self.board.itinerary_choices(name)
        if choices:
            assert self._push(ChooseItinerary(name, data.draw(st.sampled_from(choices))))

    @precondition(lambda self: any(True for _ in self.board.take_options()))
    @rule(data=st.data())
    def take_a_legal_card(self, data: st.DataObject) -> None:
        option = data.draw(st.sampled_from(list(self.board.take_options())))
        spend = data.draw(st.integers(0, option.max_crystals))
        wild = tuple(data.draw(st.lists(st.sampled_from(COLUMNS), max_size=3)))
        assert self._push(Take(option.card, None, spend, wild)), option

    @rule(
        card=st.one_of(
            st.sampled_from(["ancestor", "zzz"]), st.from_regex(r"d[123]-[0-9]{1,2}", fullmatch=True)
        ),
        player=st.sampled_from([None, "Ann", "Ben", "Cy", "Dee", "Zed"]),
        crystals=st.integers(0, 8),
    )
    def try_any_take(self, card: str, player: str | None, crystals: int) -> None:
        self._push(Take(card, player, crystals, ()))

    @rule(raw=GARBAGE)
    def push_garbage(self, raw: Any) -> None:
        event = parse_event(raw)
        if isinstance(event, Undo):
            self.undo()
        else:
            self._push(event)

    @rule(data=st.data(), turns=st.integers(1, 12))
    def play_turns(self, data: st.DataObject, turns: int) -> None:
        """Several legal steps in a row, so games reach later Days and their end."""
        for _ in range(turns):
            b = self.board
            if b.finished:
                return
            mover = b.names[b.turn]
            if mover in b.needs_itinerary():
                choices = b.itinerary_choices(mover)
                if not choices:
                    return  # a random edition may run out of itineraries: the game is stuck
                assert self._push(ChooseItinerary(mover, data.draw(st.sampled_from(choices))))
                continue
            options = list(b.take_options())
            if not options:
                return  # a tiny random deck can run dry before every watch reaches 12
            option = data.draw(st.sampled_from(options))
            spend = data.draw(st.integers(0, option.max_crystals))
            assert self._push(Take(option.card, None, spend, ())), option

    @rule()
    def undo(self) -> None:
        rejection = self.board.push(Undo())
        if self.history:
            assert rejection is None
            assert self.board.snapshot() == self.history.pop(), "undo restores the exact previous state"
        else:
            assert rejection is not None and rejection.code == "nothing_to_undo"

    @invariant()
    def cards_are_each_in_one_place(self) -> None:
        b = self.board
        if b.finished:
            return
        deck = list(b.setup.decks[b.day - 1]) if b.setup.decks else []
        in_row = [c for c in b.row if c >= 0]
        remaining = deck[b.drawn :]
        index = b.edition.card_index
        taken_today = []
        day = 1
        for event, before in zip(b.moves, self.history, strict=True):
            day = before.day
            if isinstance(event, Take) and event.card != "ancestor" and day == b.day:
                taken_today.append(index[event.card])
        everything = in_row + remaining + taken_today
        assert sorted(everything) == sorted(deck), "a card is missing or in two places"

    @invariant()
    def takes_fill_treks(self) -> None:
        b = self.board
        takes = [e for e in b.moves if isinstance(e, Take)]
        assert sum(sum(b.trek_lengths(i)) for i in range(len(b.names))) == len(takes)
        ancestors = sum(1 for e in takes if e.card == "ancestor")
        assert b.ancestors_left + ancestors == self.copies

    @invariant()
    def counters_stay_in_range(self) -> None:
        b = self.board
        assert all(0 <= h <= 12 for h in b.hour)
        assert all(c >= 0 for c in b.crystals)
        for s in b.standings():
            assert s.total == s.track + s.crystals + s.trek_points
            assert s.trek_points == sum(b.edition.trek_points(n) for n in s.treks)
        if not b.finished:
            mover = b.turn
            assert b.hour[mover] == min(b.hour) < 12
            tied = [i for i, h in enumerate(b.hour) if h == b.hour[mover]]
            assert max(tied, key=lambda i: b.seq[i]) == mover, "the top watch of the stack moves"

    @invariant()
    def the_game_never_waits_for_a_take_nobody_can_make(self) -> None:
        """Rule 11 whenever a Day begins, after a take and after an undo: unless the game is
        over, the row holds a card (or one still to be revealed) or the player to move can
        take an Ancestor."""
        b = self.board
        if b.finished:
            return
        ancestor = b.edition.ancestor is not None and b.ancestors_left > 0 and b.trek_len[b.turn] > 0
        assert ancestor or any(c != EMPTY for c in b.row), "nothing to take: the game stalled"

    @invariant()
    def the_read_only_helpers_agree_with_the_plain_questions(self) -> None:
        """`take_cards`, `moves_from` and `standings` continued from the last call's (players
        who did not move keep their `Standing`) answer what the plain questions answer."""
        b = self.board
        assert b.take_cards() == [o.card for o in b.take_options()]
        moves = b.moves
        assert all(b.moves_from(k) == moves[k:] for k in range(len(moves) + 1))
        plain = b.standings()
        kept = b.standings(getattr(self, "kept_standings", ()))
        assert kept == plain
        self.kept_standings = kept

    @invariant()
    def replay_gives_the_same_state(self) -> None:
        fresh = Board(self.board.setup)
        for event in self.board.moves:
            assert fresh.push(event) is None
        assert fresh.snapshot() == self.board.snapshot()


GameMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestGame = GameMachine.TestCase


@settings(max_examples=200, deadline=None)
@given(LINES)
def test_arbitrary_event_lines_never_crash_a_replay(lines: list[str]) -> None:
    head = json.dumps({"type": "setup", "players": ["Ann", "Ben"], "edition": "reference"})
    text = "\n".join([head, *lines])
    try:
        out = replay_text(text).to_json()
    except RecordError:  # pragma: no cover - the setup line is fixed and valid
        raise
    assert out["day"] == 1


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_is_read_or_refused_with_a_record_error(text: str) -> None:
    try:
        replay_text(text)
    except RecordError as exc:
        assert str(exc)
