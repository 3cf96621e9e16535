"""The live table in mock mode: taps, gpiozero button presses, the store, the ring, the API."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.engine import Take
from companion.hardware.buttons import MockButtons
from companion.hardware.reader import ReaderLoop, TagDebouncer
from companion.hardware.ring import RingLayout, render, view_of
from companion.records.trekking import TREKKING, replay_text
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table import CUE_REJECT, Table
from companion.util.config import Config
from tests.support.tables import FAST_BUTTONS, api_client, make_runtime, play_turn, play_turns, without_looks


def test_a_whole_game_through_the_virtual_reader_and_gpiozero_buttons(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy")
    rng = random.Random(1)
    steps = 0
    while not rt.table.board.finished:
        play_turn(rt, rng)
        steps += 1
        assert steps < 400
    state = rt.table.state_json()
    assert state["finished"] and state["expect"] is None
    # The event log is the truth: the exported record replays to the same standings.
    record = rt.store.export(rt.table.game_id)
    replayed = replay_text(record).to_json()
    assert replayed["players"] == without_looks(state["players"])
    assert replayed["winners"] == state["winners"] and replayed["rejected"] == []
    # The ring celebrates the winners in their colours.
    frame = render(view_of(rt.table, 0.0), rt.layout, 0.0)
    winner_colours = {rt.table.colour(rt.table.board.names.index(w)) for w in state["winners"]}
    assert {f"#{r:02X}{g:02X}{b:02X}" for r, g, b in frame} == winner_colours
    rt.stop()


def test_crystal_presses_pull_the_landing_back_and_never_below_one_hour(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, turn="confirm")
    table = rt.table
    rng = random.Random(2)
    # Choose itineraries, then find a take where the player can spend a crystal.
    while True:
        expect = table.expect()
        assert expect is not None
        if expect["kind"] == "itinerary":
            rt.tap(expect["choices"][0])
            continue
        options = [o for o in table.board.take_options() if o.max_crystals > 0]
        if options:
            break
        play_turn(rt, rng)
    option = options[0]
    assert rt.tap(option.card).accepted
    pending = table.pending
    assert pending is not None and pending.crystals == 0
    landing = pending.landing
    assert rt.press("crystal").accepted
    assert table.pending is not None and table.pending.landing == landing - 1
    for _ in range(option.max_crystals - 1):
        assert rt.press("crystal").accepted
    refused = rt.press("crystal")
    assert not refused.accepted and "No more crystals" in refused.message
    assert table.state_json()["expect"]["kind"] == "confirm"
    assert rt.press("confirm").accepted
    take = [e for e in table.board.moves if isinstance(e, Take)][-1]
    assert (take.card, take.crystals) == (option.card, option.max_crystals)
    rt.stop()


def test_mock_button_presses_leave_no_history_behind(tmp_path: Path) -> None:
    """gpiozero's mock pins record every change; a mock table running for days must not."""
    rt = make_runtime(tmp_path)
    assert isinstance(rt.buttons, MockButtons)
    rng = random.Random(5)
    for _ in range(15):
        play_turn(rt, rng)
    for _ in range(50):
        rt.press("crystal")  # refused or not, the pins move
        rt.press("confirm")
    for name in ("crystal", "confirm"):
        pin = rt.buttons.factory.pin(getattr(FAST_BUTTONS, name))
        assert len(pin.states) <= 1, f"{name}: {len(pin.states)} pin states kept"
    rt.stop()


def test_undo_cancels_a_pending_take_then_takes_back_events(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    table = rt.table
    first = table.expect()
    assert first is not None and first["kind"] == "itinerary"
    assert rt.tap(first["choices"][0]).accepted
    events = table.seq
    assert rt.press("undo").accepted  # a hold on the mock pin
    assert table.board.itinerary == [-1, -1]
    assert table.seq == events + 1, "the undo itself is logged"
    record = replay_text(rt.store.export(table.game_id)).to_json()
    assert record["rejected"] == []
    rt.stop()


def test_bad_taps_are_refused_with_a_message_and_change_nothing(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, turn="confirm")
    table = rt.table
    before = table.board.snapshot()
    unknown = rt.tap("04A2B3C4")
    assert not unknown.accepted and unknown.cue == CUE_REJECT and "Enrol a tag" in unknown.message
    not_in_row = rt.tap(next(c.id for c in table.board.edition.cards if c.day == 3))
    assert not not_in_row.accepted
    assert rt.tap(table.expect()["choices"][0]).accepted  # itinerary for the first player
    mover_needs = rt.tap(table.state_json()["row"][3])
    assert not mover_needs.accepted or table.pending is not None
    confirm = rt.press("confirm")
    assert confirm.accepted or "Nothing to confirm" in confirm.message
    assert table.board.snapshot() != before  # only the accepted itinerary changed it
    rt.stop()


def test_restart_resumes_the_game_exactly(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben,Cy,Dee")
    play_turns(rt, 40, seed=4)
    state = rt.table.state_json()
    snapshot = rt.table.board.snapshot()
    rt.stop()
    again = build_runtime(Config(buttons=FAST_BUTTONS), tmp_path, mock=True, pin="2468", say=lambda _: None)
    assert again.table.board.snapshot() == snapshot
    resumed = again.table.state_json()
    for key in ("players", "row", "turn", "expect", "ancestors_left", "events", "day"):
        assert resumed[key] == state[key], key
    again.stop()


# --- the HTTP API ------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with api_client(tmp_path) as client:
        yield client


def test_api_state_has_the_contract_fields_and_what_the_table_needs(client: Any) -> None:
    http, _ = client
    state = http.get("/api/state").get_json()
    for key in (
        "finished",
        "day",
        "players",
        "winners",
        "turn",
        "row",
        "ancestors_left",
        "pending",
        "expect",
    ):
        assert key in state
    assert len(state["row"]) == 6 and state["expect"]["kind"] == "itinerary"
    assert set(state["expect"]) == {"kind", "player", "choices"}


def test_api_controls_need_the_table_pin(client: Any) -> None:
    http, rt = client
    body = json.dumps({"tag": "T01"})
    missing = http.post("/api/reader/tap", data=body, content_type="application/json")
    assert missing.status_code == 401 and "PIN" in missing.get_json()["error"]
    wrong = http.post(
        "/api/reader/tap", data=body, content_type="application/json", headers={"X-Table-Pin": "0000"}
    )
    assert wrong.status_code == 403
    assert http.post("/api/buttons/confirm").status_code == 401
    assert rt.table.seq == 6, "only the dealer's six reveals so far"


def test_api_tap_and_buttons_with_the_pin(client: Any) -> None:
    http, _ = client
    pin = {"X-Table-Pin": "2468"}
    ok = http.post("/api/reader/tap", json={"tag": "T01"}, headers=pin)
    assert ok.status_code == 200 and ok.get_json()["outcome"]["accepted"]
    bad = http.post("/api/reader/tap", json={"nope": 1}, headers=pin)
    assert bad.status_code == 400 and "tag" in bad.get_json()["error"]
    button = http.post("/api/buttons/confirm", headers=pin)
    assert button.status_code == 200 and not button.get_json()["outcome"]["accepted"]
    assert http.post("/api/buttons/launch", headers=pin).status_code == 404
    assert http.get("/api/nowhere").status_code == 404
    assert http.get("/api/nowhere").get_json()["error"]
    ring = http.get("/api/ring").get_json()["leds"]
    assert len(ring) == 24


def test_the_table_renders_on_every_ring_size(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    for leds in (12, 16, 24, 60):
        frame = render(view_of(rt.table, 0.0), RingLayout(leds), 0.0)
        assert len(frame) == leds
    rt.stop()


def test_a_second_table_on_the_same_store_sees_the_same_game(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    rt.tap(rt.table.expect()["choices"][0])
    other = Table(rt.store, rt.store.load(rt.table.game_id), log=lambda _: None)
    assert other.board.snapshot() == rt.table.board.snapshot()
    rt.stop()


class Hand:
    """A player's hand over the reader: a tag enters the field, flickers, stays, leaves."""

    def __init__(self, rt: Runtime, window: float) -> None:
        self.now = 0.0
        self.readings: list[str | None] = []
        self.loop = ReaderLoop(self._read, rt.tap, 0.05, TagDebouncer(window), clock=lambda: self.now)

    def _read(self) -> str | None:
        return self.readings.pop(0) if self.readings else None

    def tap(self, uid: str) -> None:
        # present, flickers out once, present again, then away long enough to count anew
        self.readings = [uid, uid, None, uid, uid] + [None] * 12
        while self.readings:
            self.now += 0.05
            self.loop.poll()


def test_a_whole_game_through_the_reader_loop_with_enrolled_tags(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    ed = rt.table.board.edition
    ids = [c.id for c in ed.cards] + [it.id for it in ed.itineraries] + ["ancestor"]
    uids = {card: f"{n:08X}" for n, card in enumerate(ids, start=0x1000)}
    for card, uid in uids.items():
        rt.store.enroll(uid, card, ed.name)
    rt.resolver.tags = rt.store.tags()
    hand = Hand(rt, window=0.4)
    rng = random.Random(9)
    taps = 0
    while not rt.table.board.finished:
        expect = rt.table.expect()
        assert expect is not None and expect["kind"] in ("itinerary", "take")
        events = rt.table.seq
        hand.tap(uids[rng.choice(expect["choices"])])
        taps += 1
        if rt.table.pending is not None:
            assert rt.press("confirm").accepted
        assert rt.table.seq > events, "every tap of an offered card counted exactly once"
        assert taps < 300
    assert replay_text(rt.store.export(rt.table.game_id)).to_json()["winners"] == rt.table.board.winners()
    rt.stop()


def test_a_card_taken_once_cannot_be_taken_again(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    while (expect := rt.table.expect()) is not None and expect["kind"] == "itinerary":
        rt.tap(expect["choices"][0])
    card = rt.table.state_json()["row"][5]
    assert rt.tap(card).accepted
    if rt.table.pending is not None:
        assert rt.press("confirm").accepted
    again = rt.tap(card)
    assert not again.accepted and again.code == "card_not_available"
    rt.stop()


def test_a_tag_enrolled_while_running_is_recognised(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    first = rt.table.expect()
    assert first is not None
    assert not rt.tap("CAFE0001").accepted
    Store(tmp_path, TREKKING).enroll("CAFE0001", first["choices"][0], "reference")
    assert rt.tap("CAFE0001").accepted
    rt.stop()
