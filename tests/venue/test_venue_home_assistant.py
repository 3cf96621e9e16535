"""Issue 23 item 2: Home Assistant finds the table by itself (MQTT discovery), on a real Mosquitto.

Each sensor's config is checked against the fields Home Assistant documents as required
(MQTT Sensor: ``state_topic``; a ``device`` needs ``identifiers`` or ``connections`` and only
works with a ``unique_id``; ``availability`` and ``availability_topic`` never together;
discovery topic ``<prefix>/<component>/[<node_id>/]<object_id>/config`` with ids of letters,
digits, ``_`` and ``-``), and the configs are sent again when Home Assistant says ``online``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.util.config import Config, TableSettings, VenueSettings
from tests.support.tables import FAST_BUTTONS, make_runtime
from tests.support.venue import Broker, Collector, wait_until

ID = re.compile(r"\A[A-Za-z0-9_-]+\Z")


def check_sensor_config(topic: str, config: dict[str, object], prefix: str = "homeassistant") -> None:
    parts = topic.split("/")
    assert parts[0] == prefix and parts[1] == "sensor" and parts[-1] == "config" and len(parts) in (4, 5)
    assert all(ID.match(part) for part in parts[2:-1]), topic
    assert isinstance(config.get("state_topic"), str) and config["state_topic"], "state_topic is required"
    assert isinstance(config.get("unique_id"), str), "a device only works with a unique_id"
    device = config.get("device")
    assert isinstance(device, dict) and (device.get("identifiers") or device.get("connections"))
    assert not ("availability" in config and "availability_topic" in config)


def test_discovery_puts_every_sensor_under_one_device_and_is_resent_when_home_assistant_restarts(
    tmp_path: Path,
) -> None:
    broker = Broker(tmp_path / "broker").start()
    collector = Collector(broker, prefix="homeassistant")
    venue = VenueSettings(broker=broker.url, table="t1", home_assistant=True)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "t1", config=config)
    try:
        rt.venue.start()
        configs = wait_until(lambda: collector.configs() if len(collector.configs()) >= 7 else None, 30)
        devices = set()
        for topic, payload in configs:
            check_sensor_config(topic, payload)
            assert payload["availability_topic"] == "trekking/t1/status"
            assert (payload["payload_available"], payload["payload_not_available"]) == ("online", "offline")
            assert payload["state_topic"] in ("trekking/t1/status", "trekking/t1/state")
            devices.add(json.dumps(payload["device"], sort_keys=True))
        assert len(devices) == 1, "one device per table"
        names = {topic.split("/")[-2] for topic, _ in configs}
        assert {"status", "turn", "day", "hour", "leader", "game"} <= names
        sent = len(collector.configs())
        collector.client.publish("homeassistant/status", b"online", qos=1).wait_for_publish(10)
        wait_until(lambda: len(collector.configs()) >= sent + 7, 30, "the configs sent again")
    finally:
        rt.stop()
        collector.close()
        broker.stop()
