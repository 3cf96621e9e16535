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
from pathlib import Path

import paho.mqtt.client as mqtt

from companion.util.config import Config, TableSettings, VenueSettings
from companion.venue.topics import signature
from tests.support.hall_feed import GameTemplate
from tests.support.tables import FAST_BUTTONS, make_runtime
from tests.support.venue import Broker, Collector, follow, hall_has_all, play_all, wait_until


def test_only_what_an_enrolled_table_signed_reaches_the_league(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    command = ["hall", "--broker", broker.url, "--data-dir", str(tmp_path / "hall"), "--enrol", "t1"]
    enrolled = subprocess.run([sys.executable, "-m", "companion", *command], capture_output=True, text=True)
    assert enrolled.returncode == 0, enrolled.stderr
    key = re.findall(r"[0-9a-f]{64}", enrolled.stdout)[-1]
    key_file = tmp_path / "t1.key"
    key_file.write_text(key + "\n")
    hall = follow(tmp_path / "hall", broker)
    wire = Collector(broker)
    venue = VenueSettings(broker=broker.url, table="t1", key_file=str(key_file))
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "t1", "Ann,Ben", seed=61, config=config)
    rogue = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rogue")
    rogue.connect("127.0.0.1", broker.port)
    rogue.loop_start()
    try:
        rt.venue.start()
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
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
    finally:
        rogue.loop_stop()
        wire.close()
        rt.stop()
        hall.stop()
        broker.stop()
