"""Issue 36 item 10 against a real Home Assistant core (opt-in: ``HA_PYTHON`` names the Python of
a venv with ``homeassistant`` installed; skipped without it, never a dependency of the suite).

Home Assistant needs a newer Python than the companion's (2025.4 runs on 3.13), so it lives in
a venv of its own, outside the repository (docs/venue.md, "Checking against Home Assistant")::

    python3.13 -m venv /var/tmp/ha/venv && /var/tmp/ha/venv/bin/pip install homeassistant paho-mqtt==2.1.0
    HA_PYTHON=/var/tmp/ha/venv/bin/python scripts/test --fast tests/venue/test_venue_ha_core.py

Two checks. Every discovery config the companion publishes goes through Home Assistant's own
MQTT discovery schemas (``homeassistant.components.mqtt.<component>.DISCOVERY_SCHEMA``, run by
``tests/support/ha_side.py`` under ``HA_PYTHON``). Then a Home Assistant core is started on a
test Mosquitto (its MQTT integration a config entry, as its config flow stores one, discovery
on) with ``mqtt_statestream``, which publishes each entity's state back to the broker: the
test reads what Home Assistant made of the table's configs and states, with no token and no
HTTP. A table plays a whole game: one device's 7 entities appear, their states follow the
game (the leader is the player ahead), after the game "Whose turn" and "Hour" are unknown,
each tapped tag is a tag Home Assistant knows, and once the table stops every sensor is
unavailable and "Connected" off.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from companion.util.config import Config, TableSettings, VenueSettings
from companion.venue.discovery import discovery_messages
from companion.venue.topics import Topics
from tests.support.tables import FAST_BUTTONS, make_runtime, play_turn
from tests.support.venue import Broker, Collector, wait_until

HA_PYTHON = os.environ.get("HA_PYTHON", "")
SIDE = Path(__file__).parent.parent / "support" / "ha_side.py"
pytestmark = pytest.mark.skipif(not HA_PYTHON, reason="HA_PYTHON (a Python with homeassistant) not set")

#: The entity ids Home Assistant gives the table's entities: ``<component>.<device name>_<name>``.
SENSORS = ("whose_turn", "day", "hour", "leader", "game", "game_number")


def test_every_discovery_config_passes_home_assistant_s_own_schemas() -> None:
    venue = VenueSettings(broker="mqtt://127.0.0.1:1883", table="t1", home_assistant=True, tag_scans=True)
    configs = [[t, json.loads(p)] for t, p in discovery_messages(venue, Topics("trekking", "t1")) if p]
    answer = subprocess.run([HA_PYTHON, str(SIDE), "schemas"], input=json.dumps(configs), text=True,
                            capture_output=True, timeout=300, check=True)  # fmt: skip
    verdicts = json.loads(answer.stdout)
    assert len(verdicts) == 8
    assert {topic: v for topic, v in verdicts.items() if v != "ok"} == {}
    bad = [["homeassistant/sensor/x/day/config", {"state_topic": "a/b", "state_class": "bogus"}]]
    refused = subprocess.run([HA_PYTHON, str(SIDE), "schemas"], input=json.dumps(bad), text=True,
                             capture_output=True, timeout=300, check=True)  # fmt: skip
    assert "state_class" in json.loads(refused.stdout)["homeassistant/sensor/x/day/config"], (
        "the check can fail"
    )


def test_a_real_home_assistant_core_follows_a_table_through_a_game(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    folder = tmp_path / "ha"
    subprocess.run([HA_PYTHON, str(SIDE), "config", str(folder), str(broker.port)], check=True, timeout=300)
    states = Collector(broker, prefix="hastate")
    log = (tmp_path / "hass.out").open("w")
    hass = subprocess.Popen([HA_PYTHON, "-m", "homeassistant", "-c", str(folder)], stdout=log, stderr=log)
    venue = VenueSettings(broker=broker.url, table="t1", home_assistant=True, tag_scans=True)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "t1", "Ann,Ben", seed=71, config=config)

    def state(entity: str) -> str | None:
        component = "binary_sensor" if entity == "connected" else "sensor"
        got = states.messages_of(f"hastate/{component}/trekking_table_t1_{entity}/state")
        return got[-1][1].decode() if got else None

    try:
        rt.venue.start()
        wait_until(lambda: state("connected") == "on", 300, "Home Assistant to find the table")
        wait_until(lambda: all(state(s) not in (None, "unavailable") for s in SENSORS), 120, "its sensors")
        rng = random.Random(3)
        tapped = []
        while rt.table.expect() is not None:
            own = rt.table.state_json()
            if own["turn"] and own["players"]:
                totals = [p["total"] for p in own["players"]]
                ahead = ", ".join(p["name"] for p in own["players"] if p["total"] == max(totals))
                wait_until(lambda own=own, ahead=ahead: (state("leader"), state("whose_turn"), state("day"))
                           == (ahead, own["turn"], str(own["day"])), 60,
                           f"Home Assistant to say {ahead} leads, {own['turn']} to play")  # fmt: skip
            choices = (rt.table.expect() or {}).get("choices") or []
            if len(tapped) < 3 and choices:
                tapped.append(choices[0])
            play_turn(rt, rng)
        final = rt.table.state_json()
        winners = ", ".join(final["winners"])
        wait_until(lambda: (state("game"), state("leader")) == ("finished", winners), 60, "the game's end")
        assert (state("whose_turn"), state("hour")) == ("unknown", "unknown"), "said unknown, not empty"
        assert state("game_number") == "1"
        for uid in ("04:A2:19:6B", "04:77:10:2C"):  # a tap on the reader: a tag Home Assistant knows
            rt.tap(uid)
        wait_until(lambda: len(states.messages_of("hastate/tag/")) >= 2, 60, "Home Assistant's tags")
        rt.stop()
        wait_until(lambda: state("connected") == "off", 30, "Connected off once the table stops")
        wait_until(lambda: all(state(s) == "unavailable" for s in SENSORS), 30, "its sensors unavailable")
        said = (tmp_path / "hass.out").read_text() + (folder / "home-assistant.log").read_text()
        problems = [line for line in said.splitlines() if "trekking" in line.lower()]
        assert problems == [], "Home Assistant said nothing about the table's entities"
    finally:
        rt.stop()
        hass.terminate()
        try:
            hass.wait(60)
        except subprocess.TimeoutExpired:
            hass.kill()
        log.close()
        states.close()
        broker.stop()
