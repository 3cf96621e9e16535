"""Issue 36 item 6: the broker lines docs/venue.md gives (``use_username_as_clientid``,
``message_size_limit``) on a real Mosquitto: a guessed client id takes over no table's
session (the id is the user name), and a message over the limit never reaches the hall."""

from __future__ import annotations

import threading
from pathlib import Path

import paho.mqtt.client as mqtt

from tests.support.venue import Broker, wait_until

DOCS = Path(__file__).resolve().parents[2] / "docs" / "venue.md"


def documented_lines() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    block = text[text.index("/etc/mosquitto/conf.d/trekking.conf") :].split("```", 2)[1]
    wanted = ("use_username_as_clientid", "message_size_limit")
    return [line.split("#")[0].strip() for line in block.splitlines() if line.startswith(wanted)]


def client(
    broker: Broker, user: str, client_id: str, got: list[bytes] | None = None
) -> tuple[mqtt.Client, threading.Event]:
    gone = threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    c.username_pw_set(user, "pw")
    c.on_disconnect = lambda *_: gone.set()
    if got is not None:
        c.on_message = lambda _c, _u, m: got.append(bytes(m.payload))
        c.on_connect = lambda c, *_: c.subscribe("trekking/#", qos=1)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    return c, gone


def test_the_documented_broker_lines_stop_session_takeover_and_oversized_messages(tmp_path: Path) -> None:
    lines = documented_lines()
    assert [line.split()[0] for line in lines] == ["use_username_as_clientid", "message_size_limit"]
    broker = Broker(tmp_path / "broker", users={"table-1": "pw", "hall": "pw", "mallory": "pw"})
    broker.config.write_text(broker.config.read_text() + "\n".join(lines) + "\n")
    broker.start()
    got: list[bytes] = []
    hall, _ = client(broker, "hall", "trekking-hall", got)
    table, table_gone = client(broker, "table-1", "trekking-table-table-1")
    rogue, _ = client(broker, "mallory", "trekking-table-table-1")  # the table's predictable id
    try:
        wait_until(lambda: rogue.is_connected() and table.is_connected(), 20, "both connected")
        assert not table_gone.is_set(), "a guessed client id takes no table's session"
        hall.publish("trekking/probe", b"x", qos=1)
        wait_until(lambda: b"x" in got, 20, "the hall subscribed")
        table.publish("trekking/table-1/state", b"x" * 70_000, qos=1)
        table.publish("trekking/table-1/state", b"small", qos=1)
        wait_until(lambda: b"small" in got, 20, "the small message")
        assert all(len(p) < 65536 for p in got), "the oversized message was dropped"
    finally:
        for c in (hall, table, rogue):
            c.loop_stop()
            c.disconnect()
        broker.stop()
