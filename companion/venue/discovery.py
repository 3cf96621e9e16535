"""Home Assistant MQTT discovery: the table's sensors under one device, found by themselves.

Each sensor's config goes, retained, to ``<discovery prefix>/sensor/<node>/<object>/config``
(Home Assistant's discovery topic); its state is read from the table's retained ``state``
topic with a template, and the status topic (``online``, or ``offline`` by the last will)
makes every sensor available or not. They are sent on each connection and again when Home
Assistant announces ``online`` on ``<discovery prefix>/status`` (it restarted).

With ``tag_scans``, the table is also a Home Assistant MQTT tag scanner: its config goes to
``<discovery prefix>/tag/<node>/reader/config`` with the ``topic`` on which each tap's tag id
is then published (Home Assistant fires its ``tag_scanned`` event for each message).
"""

from __future__ import annotations

from typing import Any

from companion.util.config import VenueSettings
from companion.venue.topics import Topics, encode

#: (object id, name, template over the state JSON, or None for the status topic itself).
SENSORS: tuple[tuple[str, str, str | None], ...] = (
    ("status", "Status", None),
    ("turn", "Whose turn", "{{ value_json.turn if value_json.turn is not none else '' }}"),
    ("day", "Day", "{{ value_json.day }}"),
    # the Clock's hour of the player to move (each player's hour is in the standings)
    (
        "hour",
        "Hour",
        "{% for p in value_json.players if p.name == value_json.turn %}{{ p.hour }}{% endfor %}",
    ),
    ("leader", "Leader", "{{ value_json.players[0].name if value_json.players else '' }}"),
    ("game", "Game", "{{ 'finished' if value_json.finished else 'playing' }}"),
    ("game_id", "Game number", "{{ value_json.game }}"),
)


def node_id(topics: Topics) -> str:
    """The device's id in discovery topics and unique ids (letters, digits, ``_`` and ``-``)."""
    return f"{topics.prefix}_{topics.table}"


def discovery_messages(settings: VenueSettings, topics: Topics) -> list[tuple[str, bytes]]:
    """(topic, retained payload) of every sensor's discovery config."""
    node = node_id(topics)
    device = {
        "identifiers": [node],
        "name": f"Trekking table {topics.table}",
        "manufacturer": "Trekking Companion",
        "model": "Raspberry Pi referee",
    }
    messages = []
    for object_id, name, template in SENSORS:
        config: dict[str, Any] = {
            "name": name,
            "unique_id": f"{node}_{object_id}",
            "state_topic": topics.status if template is None else topics.state,
            "availability_topic": topics.status,
            "payload_available": "online",
            "payload_not_available": "offline",
            "device": device,
        }
        if template is not None:
            config["value_template"] = template
        messages.append((f"{settings.discovery_prefix}/sensor/{node}/{object_id}/config", encode(config)))
    if settings.tag_scans:
        scanner = {"topic": topics.tag, "device": device}
        messages.append((f"{settings.discovery_prefix}/tag/{node}/reader/config", encode(scanner)))
    return messages
