"""Run by Home Assistant's own Python (``HA_PYTHON``, a venv of its own with ``homeassistant``
installed), never by the companion's: it imports Home Assistant, not the companion.

``schemas``: reads ``[[topic, config], ...]`` (the companion's discovery configs) on stdin and
prints, for each, ``"ok"`` or the error Home Assistant's MQTT discovery schema gives
(``homeassistant.components.mqtt.<sensor|binary_sensor|tag>.DISCOVERY_SCHEMA``), as JSON.

``config DIR PORT``: writes a Home Assistant configuration in DIR: its MQTT integration as a
config entry on ``127.0.0.1:PORT`` (made by Home Assistant's own ``ConfigEntry``, as its
config flow would store it) with discovery on, and ``mqtt_statestream`` publishing every
entity's state under ``hastate/`` (what the test reads: no token, no HTTP).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import MappingProxyType


def schemas() -> None:
    import asyncio

    from homeassistant.components.mqtt import binary_sensor, sensor, tag
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers import frame

    async def with_hass() -> None:  # templates are checked against a Home Assistant instance
        hass = HomeAssistant("/nonexistent")
        frame.async_setup(hass)
        check()

    def check() -> None:
        _check(sensor, binary_sensor, tag)

    asyncio.run(with_hass())


def _check(sensor: object, binary_sensor: object, tag: object) -> None:
    schema_of = {"sensor": sensor.DISCOVERY_SCHEMA, "binary_sensor": binary_sensor.DISCOVERY_SCHEMA,  # type: ignore[attr-defined]
                 "tag": tag.DISCOVERY_SCHEMA}  # type: ignore[attr-defined]  # fmt: skip
    answers = {}
    for topic, config in json.load(sys.stdin):
        component = topic.split("/")[1]
        try:
            schema_of[component](config)
            answers[topic] = "ok"
        except Exception as exc:  # voluptuous.Invalid, or a component HA has no schema for
            answers[topic] = f"{type(exc).__name__}: {exc}"
    json.dump(answers, sys.stdout)


def config(folder: Path, port: int) -> None:
    from homeassistant.config_entries import ConfigEntry

    entry = ConfigEntry(
        data={"broker": "127.0.0.1", "port": port},
        discovery_keys=MappingProxyType({}),
        domain="mqtt",
        minor_version=2,
        options={"discovery": True, "discovery_prefix": "homeassistant"},
        source="user",
        subentries_data=None,
        title="test broker",
        unique_id=None,
        version=1,
    )
    storage = folder / ".storage"
    storage.mkdir(parents=True, exist_ok=True)
    entries = {"version": 1, "minor_version": 5, "key": "core.config_entries",
               "data": {"entries": [json.loads(json.dumps(entry.as_dict(), default=str))]}}  # fmt: skip
    (storage / "core.config_entries").write_text(json.dumps(entries))
    (folder / "configuration.yaml").write_text(
        "homeassistant:\n  name: trekking-check\n  time_zone: UTC\n  country: FR\n"
        "  unit_system: metric\n  latitude: 0\n  longitude: 0\n  elevation: 0\n"
        "mqtt_statestream:\n  base_topic: hastate\n"
        "logger:\n  default: warning\n"
    )


if __name__ == "__main__":
    if sys.argv[1] == "schemas":
        schemas()
    else:
        config(Path(sys.argv[2]), int(sys.argv[3]))
