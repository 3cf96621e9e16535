"""Issue 36 item 10: Home Assistant's discovery configs, checked against its schemas' facts and
rendered as it renders them, on a real Mosquitto.

Facts from Home Assistant's MQTT documentation and its sensor model (home-assistant.io,
integrations sensor.mqtt and binary_sensor.mqtt; the sensor's state classes): a sensor needs
``state_topic``; ``state_class`` is one of measurement, measurement_angle, total,
total_increasing, and a sensor with a state class or a unit must have a numeric state (a
template rendering ``None`` makes it *unknown*); a binary sensor's state is ``payload_on`` or
``payload_off`` on its ``state_topic`` and ``connectivity`` is one of its device classes;
an empty retained config removes the entity. The templates are rendered with Jinja2, as
Home Assistant renders ``value_template`` (``value_json`` the state's JSON).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jinja2

from companion.util.config import Config, TableSettings, VenueSettings
from tests.support.tables import FAST_BUTTONS, make_runtime, play_turn
from tests.support.venue import Broker, Collector, retained, wait_until

SENSOR_KEYS = {
    "name",
    "unique_id",
    "state_topic",
    "value_template",
    "availability_topic",
    "payload_available",
    "payload_not_available",
    "device",
    "state_class",
    "unit_of_measurement",
    "device_class",
}
BINARY_KEYS = {
    "name",
    "unique_id",
    "state_topic",
    "payload_on",
    "payload_off",
    "device_class",
    "device",
    "value_template",
}
STATE_CLASSES = {"measurement", "measurement_angle", "total", "total_increasing"}
BINARY_CLASSES = {
    "battery",
    "battery_charging",
    "carbon_monoxide",
    "cold",
    "connectivity",
    "door",
    "garage_door",
    "gas",
    "heat",
    "light",
    "lock",
    "moisture",
    "motion",
    "moving",
    "occupancy",
    "opening",
    "plug",
    "power",
    "presence",
    "problem",
    "running",
    "safety",
    "smoke",
    "sound",
    "tamper",
    "update",
    "vibration",
    "window",
}


def render(template: str, state: dict[str, Any]) -> str:
    return jinja2.Environment().from_string(template).render(value_json=state, value=json.dumps(state))


def ahead(state: dict[str, Any]) -> str:
    """The player ahead, as a spectator would say it (the winners once it is over)."""
    if state["finished"] and state.get("winners"):
        return ", ".join(state["winners"])
    top = max(p["total"] for p in state["players"])
    return ", ".join(p["name"] for p in state["players"] if p["total"] == top)


def ha_table(tmp_path: Path, broker: Broker, on: bool) -> Any:
    venue = VenueSettings(broker=broker.url, table="t1", home_assistant=on, tag_scans=on)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    return make_runtime(tmp_path / "t1", "Ann,Ben,Cy", seed=9, config=config)


def test_the_configs_follow_home_assistant_s_schemas_and_say_what_a_spectator_would(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    discovery = Collector(broker, prefix="homeassistant")
    states = Collector(broker)
    rt = ha_table(tmp_path, broker, on=True)
    try:
        rt.venue.start()
        configs = dict(
            wait_until(lambda: (c := discovery.configs()) and len(c) >= 8 and c, 30, "the configs")
        )
        sensors = {t.split("/")[-2]: c for t, c in configs.items() if t.split("/")[1] == "sensor"}
        binaries = {t.split("/")[-2]: c for t, c in configs.items() if t.split("/")[1] == "binary_sensor"}
        for config in sensors.values():
            assert set(config) <= SENSOR_KEYS and config["state_topic"], config
            assert config.get("state_class", "measurement") in STATE_CLASSES
        assert {k: sensors[k].get("state_class") for k in ("day", "hour", "game_id")} == {
            "day": "measurement", "hour": "measurement", "game_id": "total_increasing"}  # fmt: skip
        assert sensors["hour"]["unit_of_measurement"] == "h"
        connected = binaries["connected"]
        assert set(connected) <= BINARY_KEYS and connected["device_class"] in BINARY_CLASSES
        assert (connected["state_topic"], connected["payload_on"], connected["payload_off"]) == (
            "trekking/t1/status", "online", "offline")  # fmt: skip
        assert "availability_topic" not in connected, "it must be able to show offline"
        assert "status" not in sensors, "the old Status sensor is removed"

        rng = random.Random(3)
        behind = False  # a state where the first seat is not ahead, waited for once published
        while rt.table.expect() is not None:
            play_turn(rt, rng)
            totals = [p["total"] for p in rt.state()["players"]]
            if not behind and totals[0] < max(totals):
                behind = True  # states are published as they come, some coalesced: wait for this one
                published = lambda t=totals: any(  # noqa: E731
                    [p["total"] for p in s["players"]] == t for s in states.of("t1/state")
                )
                wait_until(published, 30, "a state where the first seat is behind")
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: any(s["finished"] for s in states.of("t1/state")), 30, "the last state")
        seen = states.of("t1/state")
        assert any(s["players"][0]["total"] < max(p["total"] for p in s["players"]) for s in seen), (
            "a state where the first seat is not ahead (the test could not fail otherwise)"
        )
        for state in seen:
            assert render(sensors["leader"]["value_template"], state) == ahead(state)
            for numeric in ("day", "hour", "game_id"):
                shown = render(sensors[numeric]["value_template"], state)
                assert shown == "None" or shown.isdigit(), (numeric, shown)
        last = seen[-1]
        assert last["finished"]
        assert render(sensors["turn"]["value_template"], last) == "None", "unknown, not an empty string"
        assert render(sensors["hour"]["value_template"], last) == "None"
        assert render(sensors["game"]["value_template"], last) == "finished"
    finally:
        rt.stop()
        discovery.close()
        states.close()
    with retained(broker) as kept:
        assert kept["trekking/t1/status"] == b"offline", "the connectivity sensor shows off"
    broker.stop()


def test_turning_home_assistant_off_removes_the_table_s_retained_configs(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    rt = ha_table(tmp_path, broker, on=True)
    try:
        rt.venue.start()
        wait_until(lambda: rt.venue_status()["reachable"], 30)
        assert rt.venue.wait_delivered(30)

        def configs() -> set[str]:
            with retained(broker, "homeassistant/#") as kept:
                return {t for t, p in kept.items() if "trekking_t1" in t and p}

        wait_until(lambda: len(configs()) >= 8, 30, "the configs retained")
    finally:
        rt.stop()
    rt = ha_table(tmp_path, broker, on=False)  # the venue turned Home Assistant off for this table
    try:
        rt.venue.start()
        wait_until(lambda: not configs(), 30, "the retained configs removed")
    finally:
        rt.stop()
        broker.stop()
