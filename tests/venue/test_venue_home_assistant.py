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
from tests.support.venue import Broker, Collector, stop_all, wait_until

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
        devices = {json.dumps(c["device"], sort_keys=True) for t, c in configs if "/binary_sensor/" in t}
        for topic, payload in [(t, c) for t, c in configs if "/sensor/" in t]:
            check_sensor_config(topic, payload)
            assert payload["availability_topic"] == "trekking/t1/status"
            assert (payload["payload_available"], payload["payload_not_available"]) == ("online", "offline")
            assert payload["state_topic"] in ("trekking/t1/status", "trekking/t1/state")
            devices.add(json.dumps(payload["device"], sort_keys=True))
        assert len(devices) == 1, "one device per table"
        names = {topic.split("/")[-2] for topic, _ in configs}
        assert {"connected", "turn", "day", "hour", "leader", "game", "game_id"} <= names
        sent = len(collector.configs())
        collector.client.publish("homeassistant/status", b"online", qos=1).wait_for_publish(10)
        wait_until(lambda: len(collector.configs()) >= sent + 7, 30, "the configs sent again")
    finally:
        rt.stop()
        collector.close()
        broker.stop()


def test_with_tag_scans_each_tap_is_a_home_assistant_tag_scan(tmp_path: Path) -> None:
    """Home Assistant's MQTT tag scanner: a discovery config at
    ``<prefix>/tag/[<node_id>/]<object_id>/config`` whose required ``topic`` then carries each
    scanned tag's id (the documented way; Home Assistant fires ``tag_scanned`` per message)."""
    from companion.venue.hall import Hall

    broker = Broker(tmp_path / "broker").start()
    discovery = Collector(broker, prefix="homeassistant")
    taps = Collector(broker)
    venue = VenueSettings(broker=broker.url, table="t1", home_assistant=True, tag_scans=True)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "t1", config=config)
    hall = Hall(tmp_path / "hall", log=lambda _: None)
    try:
        rt.venue.start()
        scanner = wait_until(lambda: [(t, c) for t, c in discovery.configs() if "/tag/" in t], 30)[0]
        topic, payload = scanner
        parts = topic.split("/")
        assert parts[:2] == ["homeassistant", "tag"] and parts[-1] == "config" and len(parts) in (4, 5)
        assert all(ID.match(part) for part in parts[2:-1]), topic
        assert payload["topic"] == "trekking/t1/tag", "topic is required"
        assert payload["device"] == json.loads(json.dumps(discovery.configs()[0][1]["device"]))
        wait_until(lambda: rt.venue_status()["reachable"], 30)
        card = rt.table.expect()["choices"][0]
        rt.tap(card)
        rt.tap("04:A2:19:6B")  # a tag no card has: still a scan for Home Assistant
        wait_until(lambda: len([m for m in taps.messages if m[0] == "trekking/t1/tag"]) == 2, 30, "the scans")
        scans = [(p, retained) for t, p, retained in taps.messages if t == "trekking/t1/tag"]
        assert scans == [(card.encode(), False), (b"04:A2:19:6B", False)]
        hall.handle("trekking/t1/tag", b"04:A2:19:6B")  # the hall follows trekking/#: no problem
        assert not hall.problems
    finally:
        stop_all(rt, hall, discovery, taps, broker)


def test_without_tag_scans_no_tap_is_sent(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    taps = Collector(broker)
    venue = VenueSettings(broker=broker.url, table="t1", home_assistant=True)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "t1", config=config)
    try:
        rt.venue.start()
        wait_until(lambda: rt.venue_status()["reachable"] and taps.of("t1/state"), 30)
        before = len(taps.of("t1/state"))
        rt.tap(rt.table.expect()["choices"][0])
        assert rt.venue.wait_delivered(30)
        wait_until(lambda: len(taps.of("t1/state")) > before, 30, "the state after the tap")
        assert not [m for m in taps.messages if m[0].endswith("/tag")]
    finally:
        rt.stop()
        taps.close()
        broker.stop()
