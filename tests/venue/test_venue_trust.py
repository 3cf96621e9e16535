"""Issue 36 item 6, the smallest complete slice of trust: the hall enrols its tables (a key per
table, given once by ``companion hall --enrol``), each table signs its setups and events, and
the hall keeps only what an enrolled table signed.

A rogue on a real, anonymous Mosquitto (so with every table's broker rights too) forges a
whole legal game as an unknown table and as the enrolled table (unsigned, and signed with a
key of its own), replays the table's own signed game under another game number and invents
500 tables: the league, the games and the tables counted are the enrolled table's alone.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import escape
from pathlib import Path

from companion.util.config import Config, TableSettings, VenueSettings
from companion.venue.hall import Hall
from companion.venue.topics import signature
from tests.support.hall_feed import GameTemplate
from tests.support.tables import FAST_BUTTONS, make_runtime
from tests.support.venue import Broker, Collector, enrolled_t1, follow, hall_has_all, play_all, wait_until


def test_only_what_an_enrolled_table_signed_reaches_the_league(tmp_path: Path) -> None:
    command = ["hall", "--broker", "mqtt://127.0.0.1", "--data-dir", str(tmp_path / "hall"), "--enrol", "t1"]
    enrolled = subprocess.run([sys.executable, "-m", "companion", *command], capture_output=True, text=True)
    assert enrolled.returncode == 0, enrolled.stderr
    key = re.findall(r"[0-9a-f]{64}", enrolled.stdout)[-1]
    with enrolled_t1(tmp_path, seed=61, rogue="rogue", key=key) as scene:
        hall, wire, rt, rogue = scene.hall, scene.wire, scene.rt, scene.rogue
        play_all([rt], None, seed=1)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store the signed game")

        forged = GameTemplate(tmp_path / "forged", ["Mallory", "Trudy"], seed=5)
        own_key = bytes(32)
        sent = [(f"trekking/invented-{n}/status", b"online") for n in range(500)]
        sent += forged.messages("mallory", 1)  # a table nobody enrolled
        sent += forged.messages("t1", 7)  # the enrolled table's name, unsigned
        for topic, payload in forged.messages("t1", 8):  # signed with a key that is not t1's
            message = json.loads(payload)
            kind = "setup" if topic.endswith("/setup") else "events"
            sent.append((topic, json.dumps({**message, "sig": signature(own_key, kind, message)}).encode()))
        for topic, payload in wire.messages_of("trekking/t1/games/1/"):  # t1's own game, replayed as 9
            if topic.endswith(("/setup", "/events")) and payload:  # (a cleared setup is empty)
                message = {**json.loads(payload), "game": 9}
                sent.append((topic.replace("/games/1/", "/games/9/"), json.dumps(message).encode()))
        last = None
        for topic, payload in sent:
            last = rogue.publish(topic, payload, qos=1)
        assert last is not None
        last.wait_for_publish(60)
        wait_until(
            lambda: hall.counts["refused"] >= 500 + 3 * 30, 120, "the hall to refuse the rogue's messages"
        )
        with hall.lock:
            assert set(hall.games) == {("t1", 1)}, sorted(hall.games)
            assert set(hall.live) == {"t1"}, "only enrolled tables count"
        names = {p["name"] for p in hall.view()["standings"]}
        assert names == {"Ann", "Ben"}
        assert {p.name for g in hall.league_games() for p in g.past.players} == {"Ann", "Ben"}
        codes = {p["code"] for p in hall.view()["problems"]}
        assert {"hall_not_enrolled", "hall_unsigned"} <= codes
        assert hall.record("t1", 1) == rt.store.export(1)


def _setups_after_cleared(wire: Collector) -> int:
    """t1's game 1 setups on the wire since t1 cleared it (the hall had stored the game whole):
    one is only sent when an acknowledgement says the hall lacks it (what the rogue forges)."""
    payloads = [payload for _, payload in wire.messages_of("trekking/t1/games/1/setup")]
    cleared = max((i for i, payload in enumerate(payloads) if not payload), default=len(payloads))
    return sum(1 for payload in payloads[cleared:] if payload)


def test_a_rogue_cannot_speak_for_an_enrolled_table_live_results_or_acknowledgements(tmp_path: Path) -> None:
    """Issue 36 item 6, finished: results, the live state and the hall's acknowledgements are
    signed too. Once t1's game is over and stored whole, a rogue on the anonymous broker forges
    t1's live line (unsigned, signed with a key of its own, and t1's own older line told again),
    its result (Mallory won, with the coach's advice, so the league would not rate it), and the
    hall's acknowledgements (asking t1 for its game again: unsigned, with its own key, and the
    hall's own ask told again): the hall shows t1's own line (the forged one said as such), the
    game stays t1's and rated, and t1 sends nothing again."""
    from companion.venue.hall_web import render

    own_key = bytes(32)
    with enrolled_t1(tmp_path, seed=62, rogue="rogue-live") as scene:
        hall, wire, rt, rogue = scene.hall, scene.wire, scene.rt, scene.rogue
        play_all([rt], 3, seed=2)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store t1's moves")
        old_state = wire.messages_of("trekking/t1/state")[0][1]  # t1's own line, before its moves

        def asks() -> list[bytes]:  # the hall's acknowledgements saying it lacks game 1's setup
            return [p for _, p in wire.messages_of("trekking/t1/games/1/stored") if b'"setup":false' in p]

        before = len(asks())
        hall.send_stored("t1", 1, 0, setup=False)  # the hall's own ask (t1 sends its game again)
        genuine_ask = wait_until(lambda: asks()[before:], 60, "the hall's own ask on the wire")[-1]
        play_all([rt], None, seed=4)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to store t1's whole game")
        wait_until(lambda: wire.messages_of("trekking/t1/games/1/setup")[-1][1] == b"", 60,
                   "t1 to clear its finished game's retained setup")  # fmt: skip
        newest = [p["total"] for p in rt.table.state_json()["players"]]
        wait_until(lambda: _shown_totals(hall, "t1") == newest, 60, "the hall to show t1's newest line first")
        refused = hall.counts["refused"]

        mallory = {"table": "t1", "players": [{"name": "Mallory", "total": 999}], "turn": "Mallory",
                   "day": 3, "committed": {"game": 40, "seq": 0}, "at": 2**62}  # fmt: skip
        won = {"players": [{"name": "Mallory", "total": 999}], "winners": ["Mallory"]}
        claim = {"table": "t1", "game": 1, "seq": 99, "assisted": True, "result": won}
        ask = {"table": "t1", "game": 1, "seq": 0, "setup": False, "at": 2**62}
        attacks = []
        for kind, topic, message in (("state", "trekking/t1/state", mallory),
                                     ("result", "trekking/t1/games/1/result", claim),
                                     ("stored", "trekking/t1/games/1/stored", ask)):  # fmt: skip
            attacks.append((topic, json.dumps(message).encode()))  # unsigned
            signed = {**message, "sig": signature(own_key, kind, message)}  # with a key not t1's
            attacks.append((topic, json.dumps(signed).encode()))
        attacks += [
            ("trekking/t1/state", old_state),  # t1's own signed line, told again
            ("trekking/t1/games/1/stored", genuine_ask),  # the hall's own ask, told again
            ("trekking/sentinel/status", b"online"),  # last: refused by any hall that enrols
        ]
        last = None
        for topic, payload in attacks:
            last = rogue.publish(topic, payload, qos=1)
        assert last is not None
        last.wait_for_publish(60)

        def hall_read_all() -> bool:
            with hall.lock:
                return any(p["params"].get("table") == "sentinel" for p in hall.problems)

        wait_until(hall_read_all, 60, "the hall to read the rogue's messages")
        # the table read the three acknowledgements: it refused them, or (one read) sent its game again
        wait_until(lambda: getattr(rt.venue, "forged_acks", 0) >= 3 or _setups_after_cleared(wire), 60,
                   "the table to read the rogue's acknowledgements")  # fmt: skip
        assert _setups_after_cleared(wire) == 0, "the rogue made the table send its game again"

        row = next(t for t in hall.view()["tables"] if t["table"] == "t1")
        own = rt.table.state_json()
        assert [p["name"] for p in row["players"]] == ["Ann", "Ben"]
        assert [p["total"] for p in row["players"]] == [p["total"] for p in own["players"]], (
            "the live line is t1's newest, not its older one told again"
        )
        assert row["forged"] is not None and row["forged"]["players"] == ["Mallory"]
        page = render(hall.view())
        assert page.count("Mallory") == 1 and 'class="forged"' in page  # said as forged, never as t1's
        assert hall.counts["refused"] - refused >= len(attacks) - 3  # the acks are the table's to refuse
        assert not [t for t, _ in wire.messages_of("trekking/t1/games/") if "/games/30/" in t]
        assert hall.record("t1", 1) == rt.store.export(1)
        (entry,) = hall.view()["finished"]
        assert entry["agrees"], "t1's own result agrees with the hall's replay; the forged one is not read"
        with hall.lock:
            assert hall.games[("t1", 1)].assisted is False, (
                "the forged advice would keep it out of the ratings"
            )
        assert {p.name for g in hall.league_games() for p in g.past.players} == {"Ann", "Ben"}


def test_a_host_enrols_a_table_from_the_hall_page_and_the_table_takes_its_key(tmp_path: Path) -> None:
    """Pairing without a terminal, as Home Assistant pairs a device: the hall's host, logged in
    with the hall's PIN, enrols t1 on the page, which shows its key once (never cached, never
    shown again) with the lines that put it on the table, in English and French; t1 takes it
    (``[venue] key_file``) and its signed game is kept, the hall following on without a restart."""
    from companion.table.access import Access
    from companion.util.wording import say
    from companion.venue.hall_web import create_hall_app, render
    from companion.venue.league import LeagueBook
    from tests.support.league import PIN

    broker = Broker(tmp_path / "broker").start()
    hall = follow(tmp_path / "hall", broker)
    page = create_hall_app(hall, Access.for_pin(PIN, tmp_path), LeagueBook(tmp_path / "hall" / "league"))
    host = page.test_client()
    rt = None
    try:
        assert 'href="/league?lang=fr#enrol"' in render(hall.view(), "fr")
        guest = host.post("/league/enrol", data={"table": "t1"})  # not logged in: nothing drawn
        assert guest.status_code == 403 and not hall.keys
        assert host.post("/league/login", data={"pin": PIN}).status_code == 303
        form = host.get("/league?lang=fr").get_data(as_text=True)
        assert say("hall_enrol_title", "fr") in form and 'action="/league/enrol"' in form
        csrf = re.search(r'name="csrf" value="([^"]+)"', form)
        assert csrf is not None
        bad = host.post("/league/enrol", data={"table": "t1/#", "csrf": csrf.group(1), "lang": "fr"})
        assert bad.status_code == 400 and not hall.keys
        assert escape(say("hall_enrol_bad_table", "fr", table="t1/#")) in bad.get_data(as_text=True)
        given = host.post("/league/enrol", data={"table": "t1", "csrf": csrf.group(1), "lang": "fr"})
        assert given.status_code == 200 and given.headers["Cache-Control"] == "no-store"
        shown = given.get_data(as_text=True)
        key = re.search(r'<code id="key">([0-9a-f]{64})</code>', shown)
        assert key is not None and say("hall_enrol_then", "fr").split("[")[0] in shown.replace("&#x27;", "'")
        assert key.group(1) not in host.get("/league").get_data(as_text=True), "the key is shown once"
        assert set(hall.keys) == {"t1"}

        key_file = tmp_path / "venue-key"  # what the page's lines do on the table
        key_file.write_text(key.group(1) + "\n")
        venue = VenueSettings(broker=broker.url, table="t1", key_file=str(key_file))
        config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
        rt = make_runtime(tmp_path / "t1", "Ann,Ben", seed=63, config=config)
        rt.venue.start()
        wait_until(lambda: rt is not None and rt.venue_status()["reachable"], 30, "the table connected")
        play_all([rt], 4, seed=5)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: hall_has_all(hall, [rt]), 60, "the hall to keep t1's signed moves")
        row = next(t for t in hall.view()["tables"] if t["table"] == "t1")
        assert [p["name"] for p in row["players"]] == ["Ann", "Ben"] and row["forged"] is None
        assert not [p for p in hall.view()["problems"] if p["code"] == "hall_unsigned"]
    finally:
        if rt is not None:
            rt.stop()
        hall.stop()
        broker.stop()


def test_a_restarted_hall_does_not_show_an_older_line_a_rogue_put_back(tmp_path: Path) -> None:
    """While the hall is stopped, a rogue puts t1's own older signed line back as the retained
    state; the hall, started again, reads it first: it keeps where t1's line stood (its index)
    and shows nothing rather than the older line, then t1's next move."""

    def row(of: Hall) -> dict[str, object]:
        return next(t for t in of.view()["tables"] if t["table"] == "t1")

    def totals() -> list[object]:
        return [p["total"] for p in rt.table.state_json()["players"]]

    with enrolled_t1(tmp_path, seed=64, rogue="rogue-back") as scene:
        hall, wire, rt, rogue = scene.hall, scene.wire, scene.rt, scene.rogue
        play_all([rt], 3, seed=6)
        assert rt.venue.wait_delivered(30)
        wait_until(
            lambda: [p["total"] for p in row(hall)["players"]] == totals(), 60, "t1's line on the hall"
        )
        old = wire.messages_of("trekking/t1/state")[0][1]
        assert (
            json.loads(old)["players"][1]["total"] != totals()[1]
            or json.loads(old)["turn"] != (rt.table.state_json()["turn"])
        )
        hall.stop()
        rogue.publish("trekking/t1/state", old, qos=1, retain=True).wait_for_publish(30)
        hall = scene.hall = follow(tmp_path / "hall", scene.broker)
        wait_until(lambda: row(hall)["players"] or hall.view()["problems"], 60, "the hall to read the line")
        assert row(hall)["players"] == [], "t1's older line, put back, is not shown"
        assert {p["code"] for p in hall.view()["problems"]} == {"hall_stale_state"}  # queued, and retained
        play_all([rt], 1, seed=7)
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: [p["total"] for p in row(hall)["players"]] == totals(), 60, "t1's next line")


def _shown_totals(hall: Hall, table: str) -> list[int]:
    """The totals of ``table``'s live line as the hall's page shows them (none yet: [])."""
    row = next((t for t in hall.view()["tables"] if t["table"] == table), None)
    return [p["total"] for p in row["players"]] if row and row.get("players") else []
