"""Home Assistant MQTT discovery: the table's sensors under one device, found by themselves.

Each sensor's config goes, retained, to ``<discovery prefix>/sensor/<node>/<object>/config``;
its state is a template over the table's retained ``state``, its availability the ``status``
topic (the last will says ``offline``). Sent on each connection and when Home Assistant says
``online`` on ``<discovery prefix>/status``. With ``tag_scans`` the table is also an MQTT tag
scanner (``<discovery prefix>/tag/<node>/reader/config``): each tap's tag id on its ``topic``.
"""

from __future__ import annotations

from typing import Any

from companion.util.config import VenueSettings
from companion.venue.topics import Topics, encode

#: Each sensor: (object id, name, template over the state JSON, its extra config). A template
#: renders ``None`` when there is nothing to say (no one to move after a game): Home Assistant
#: shows *unknown* for that payload, not an empty string. The leader is the player ahead (the
#: winners once the game is over; everyone tied for the lead, joined), never the first seat.
SENSORS: tuple[tuple[str, str, str, dict[str, str]], ...] = (
    ("turn", "Whose turn", "{{ value_json.turn if value_json.turn else none }}", {}),
    ("day", "Day", "{{ value_json.day if value_json.day else none }}", {"state_class": "measurement"}),
    # the Clock's hour of the player to move (each player's hour is in the standings)
    (
        "hour",
        "Hour",
        "{% set p = (value_json.players or []) | selectattr('name', 'eq', value_json.turn) | list %}"
        "{{ p[0].hour if value_json.turn and p else none }}",
        {"unit_of_measurement": "h", "state_class": "measurement"},
    ),
    (
        "leader",
        "Leader",
        "{% set ps = value_json.players or [] %}"
        "{% if value_json.finished and value_json.winners %}{{ value_json.winners | join(', ') }}"
        "{% elif ps %}{% set top = ps | map(attribute='total') | max %}"
        "{{ ps | selectattr('total', 'eq', top) | map(attribute='name') | join(', ') }}"
        "{% else %}{{ none }}{% endif %}",
        {},
    ),
    ("game", "Game", "{{ 'finished' if value_json.finished else 'playing' }}", {}),
    (
        "game_id",
        "Game number",
        "{{ value_json.game if value_json.game else none }}",
        {"state_class": "total_increasing"},
    ),
)


def node_id(topics: Topics) -> str:
    """The device's id in discovery topics and unique ids (letters, digits, ``_`` and ``-``)."""
    return f"{topics.prefix}_{topics.table}"


def config_topic(settings: VenueSettings, topics: Topics, component: str, object_id: str) -> str:
    return f"{settings.discovery_prefix}/{component}/{node_id(topics)}/{object_id}/config"


def discovery_messages(settings: VenueSettings, topics: Topics) -> list[tuple[str, bytes]]:
    """(topic, retained payload) of every config to send on a connection: with ``home_assistant``
    the sensors, the connectivity binary sensor and (``tag_scans``) the tag scanner; an empty
    payload (the entity and the retained config removed) for each config not announced, so a
    table retired from Home Assistant leaves nothing."""
    node = node_id(topics)
    device = {
        "identifiers": [node],
        "name": f"Trekking table {topics.table}",
        "manufacturer": "Trekking Companion",
        "model": "Raspberry Pi referee",
    }
    announced: list[tuple[str, str, dict[str, Any]]] = []
    for object_id, name, template, extra in SENSORS:
        config: dict[str, Any] = {
            "name": name,
            "unique_id": f"{node}_{object_id}",
            "state_topic": topics.of("state"),
            "value_template": template,
            "availability_topic": topics.of("status"),
            "payload_available": "online",
            "payload_not_available": "offline",
            "device": device,
            **extra,
        }
        announced.append(("sensor", object_id, config))
    # the table's link itself: on while it is online, off when it stops or its will is told
    # (no availability: an entity whose availability is its own state could never show off)
    connectivity = {"name": "Connected", "unique_id": f"{node}_connected", "state_topic": topics.of("status"),
                    "payload_on": "online", "payload_off": "offline", "device_class": "connectivity",
                    "device": device}  # fmt: skip
    announced.append(("binary_sensor", "connected", connectivity))
    scanner = ("tag", "reader", {"topic": topics.of("tag"), "device": device})
    if settings.tag_scans:
        announced.append(scanner)
    if not settings.home_assistant:
        announced = []
    messages = [(config_topic(settings, topics, c, o), encode(config)) for c, o, config in announced]
    kept = {(c, o) for c, o, _ in announced}
    every = [("sensor", s[0]) for s in SENSORS] + [("binary_sensor", "connected"), scanner[:2]]
    messages += [(config_topic(settings, topics, c, o), b"") for c, o in every if (c, o) not in kept]
    return messages
