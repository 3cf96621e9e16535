"""A real Mosquitto for the venue tests (never a mock broker), and a subscriber that records.

`Broker` writes its own config file in a temporary folder and runs Debian's
``/usr/sbin/mosquitto`` on a free loopback port, with persistence (a hall's queued messages
outlive a clean restart); `stop`, `kill` and `start` are the faults the tests make. `table`,
`follow`, `play_all` and `hall_has_all`: mock tables publishing to it and a hall following them;
`raw_client` (a rogue's or a bulk sender's connection), `stop_all` (a test's clean-up);
`enrolled_t1`, the trust tests' scene.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.run.runtime import Runtime
from companion.util.config import Config, TableSettings, VenueSettings
from companion.venue.hall import Hall
from tests.support.tables import FAST_BUTTONS, make_runtime, play_turn, require_tool

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
require_tool(Path(MOSQUITTO).exists(), "mosquitto is not installed", "apt-get install mosquitto")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
    """Poll ``condition`` until it is truthy (a bound, not a pause); fail saying ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.02)


class Broker:
    """A Mosquitto process on ``127.0.0.1:port`` with a config of its own."""

    def __init__(
        self,
        folder: Path,
        users: dict[str, str] | None = None,
        tls: tuple[Path, Path, Path] | None = None,
        acl: str | None = None,
    ) -> None:
        """``users``: a password file with these; ``tls``: (CA, certificate, key) of a TLS
        listener; ``acl``: the text of an ACL file (`docs_acl`: the one docs/venue.md gives)."""
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        lines = [
            f"listener {self.port} 127.0.0.1",
            *([f"cafile {tls[0]}", f"certfile {tls[1]}", f"keyfile {tls[2]}"] if tls else []),
            "persistence true",
            f"persistence_location {folder}/",
            "max_queued_messages 100000",
            # Run as root (CI), Mosquitto would become the user "mosquitto", who cannot read
            # the test's private folder; as anyone else the option is ignored.
            f"user {getpass.getuser()}",
        ]
        if users:
            passwords = folder / "passwords"
            passwords.write_text("")
            for user, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        if acl is not None:
            (folder / "acl").write_text(acl)
            lines.append(f"acl_file {folder / 'acl'}")
        else:
            lines.append("allow_anonymous true")
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Broker:
        log = (self.folder / "mosquitto.log").open("ab")
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=log, stderr=log)
        wait_until(self._answers, 20, "mosquitto to listen")
        return self

    def _answers(self) -> bool:
        assert self.process is not None and self.process.poll() is None, "mosquitto exited"
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def stop(self) -> None:
        """A clean stop (SIGTERM): Mosquitto saves its persistence (retained, queued) first."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(20)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(20)


def page_text(port: int, path: str = "/") -> str | None:
    """The page at ``path`` on ``127.0.0.1:port`` (a hall's), or None while nothing answers."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as answer:
            return str(answer.read().decode())
    except OSError:
        return None


def docs_acl(prefix: str = "trekking") -> str:
    """The Mosquitto ACL file docs/venue.md gives a venue (its first block after "The ACL")."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "venue.md").read_text(encoding="utf-8")
    after = text[text.index("The ACL, `/etc/mosquitto/trekking.acl`") :]
    block = after.split("```", 2)[1]
    return block.replace("trekking/", f"{prefix}/")


class Collector:
    """A test's subscriber to ``prefix/#``: every message as (topic, payload, retained)."""

    def __init__(self, broker: Broker, prefix: str = "trekking", persistent: bool = False) -> None:
        """``persistent``: a session the broker keeps (and queues for) while either is down."""
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"collector-{id(self)}",
            clean_session=not persistent,
            protocol=mqtt.MQTTv311,
        )
        self.client.reconnect_delay_set(1, 2)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda client, *_: client.subscribe(f"{prefix}/#", qos=1)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        with self.lock:
            self.messages.append((message.topic, bytes(message.payload), bool(message.retain)))

    def of(self, suffix: str) -> list[Any]:
        with self.lock:
            return [json.loads(p) for t, p, _ in self.messages if t.endswith(suffix)]

    def messages_of(self, prefix: str) -> list[tuple[str, bytes]]:
        """(topic, payload) of every message whose topic starts with ``prefix``, in order."""
        with self.lock:
            return [(t, p) for t, p, _ in self.messages if t.startswith(prefix)]

    def configs(self) -> list[tuple[str, Any]]:
        """Home Assistant discovery configs received: (topic, JSON); removals (empty) left out."""
        with self.lock:
            return [(t, json.loads(p)) for t, p, _ in self.messages if t.endswith("/config") and p]

    def record(self, table: str, game: int, prefix: str = "trekking") -> str:
        """The game's record rebuilt from what arrived, duplicates dropped by seq."""
        setup = self.of(f"{prefix}/{table}/games/{game}/setup")[-1]
        events: dict[int, Any] = {}
        for message in self.of(f"{prefix}/{table}/games/{game}/events"):
            events.setdefault(message["seq"], message["event"])
        head = (
            {**setup["setup"], "record": setup["format"]}
            if "record" not in setup["setup"]
            else setup["setup"]
        )
        return "\n".join(json.dumps(x) for x in [head, *(events[s] for s in sorted(events))]) + "\n"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def raw_client(broker: Broker, name: str, queued: bool = True) -> Any:
    """A bare paho client of ``broker`` with its network loop started (``queued`` False: no
    bound on the messages paho holds, for a sender of thousands)."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
    if not queued:
        client.max_queued_messages_set(0)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    return client


def stop_all(*started: Any) -> None:
    """Stop what a test started, in the order given: a paho client's loop, a `Collector`, and
    anything with ``stop`` (a table's runtime, a hall, a broker); None is skipped."""
    import paho.mqtt.client as mqtt

    for thing in started:
        if isinstance(thing, mqtt.Client):
            thing.loop_stop()
        elif isinstance(thing, Collector):
            thing.close()
        elif thing is not None:
            thing.stop()


def table(tmp_path: Path, broker: Broker, name: str, seed: int, players: str = "Ann,Ben") -> Runtime:
    """A mock table publishing to ``broker`` as table ``name`` (its outbox started)."""
    venue = VenueSettings(broker=broker.url, table=name)
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / name, players, seed=seed, config=config)
    rt.venue.start()
    return rt


def follow(folder: Path, broker: Broker, **options: object) -> Hall:
    """A hall keeping its games in ``folder``, following ``broker`` (a persistent session)."""
    hall = Hall(folder, log=lambda _: None, **options)  # type: ignore[arg-type]
    hall.connect(VenueSettings(broker=broker.url), client_id="hall-under-test")
    return hall


def play_all(tables: list[Runtime], turns: int | None, seed: int) -> None:
    """Each table plays ``turns`` steps (None: to the end), all at once, each on its own thread."""
    failures: list[BaseException] = []

    def run(rt: Runtime, rng: random.Random) -> None:
        try:
            done = 0
            while rt.table.expect() is not None and (turns is None or done < turns):
                play_turn(rt, rng)
                done += 1
        except BaseException as exc:
            failures.append(exc)

    threads = [
        threading.Thread(target=run, args=(rt, random.Random(seed + i))) for i, rt in enumerate(tables)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not failures, failures


def hall_keeps_every_game(hall: Hall, tables: list[Runtime]) -> None:
    """Every table's outbox delivers, the hall stores every event, and each table's current game
    as the hall keeps it is the table's own record, to the byte."""
    for rt in tables:
        assert rt.venue.wait_delivered(60), rt.venue.table
    wait_until(lambda: hall_has_all(hall, tables), 120, "the hall to store every event")
    for rt in tables:
        game = rt.table.game_id
        assert hall.record(rt.venue.table, game) == rt.store.export(game), rt.venue.table


def hall_has_all(hall: Hall, tables: list[Runtime]) -> bool:
    """Has the hall stored every event of each table's current game?"""
    with hall.lock:
        for rt in tables:
            game = hall.games.get((rt.venue.table, rt.table.game_id))
            if game is None or game.seq != len(rt.store.load(rt.table.game_id).rows):
                return False
    return True


@contextlib.contextmanager
def retained(broker: Broker, topic: str = "trekking/#") -> Iterator[dict[str, bytes]]:
    """What the broker keeps retained under ``topic`` now (a marker published after the
    subscription comes after every retained message, which arrive first)."""
    import paho.mqtt.client as mqtt

    seen: dict[str, bytes] = {}
    marker = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="retained-reader")

    def on_message(_c: object, _u: object, message: Any) -> None:
        if message.topic == "trekking/zz-marker/status":
            marker.set()
        elif message.retain:
            seen[message.topic] = bytes(message.payload)

    client.on_message = on_message
    client.on_subscribe = lambda c, *_: c.publish("trekking/zz-marker/status", b"x", qos=1)
    client.on_connect = lambda c, *_: c.subscribe([(topic, 1), ("trekking/zz-marker/status", 1)])
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        assert marker.wait(30), "the marker came back"
        yield seen
    finally:
        client.loop_stop()
        client.disconnect()


@dataclass
class Enrolled:
    """A hall that enrolled table t1, t1 itself signing with its key, the test's subscriber and
    a rogue's client, all on one anonymous broker (so the rogue has every right t1 has)."""

    broker: Broker
    hall: Hall
    wire: Collector
    rt: Runtime
    rogue: Any


@contextlib.contextmanager
def enrolled_t1(tmp_path: Path, seed: int, rogue: str, key: str | None = None) -> Iterator[Enrolled]:
    """The scene, t1 connected; ``key``: t1's key as the hall's command gave it (None: enrolled
    here). Everything is stopped after, ``scene.hall`` last as the test left it (restarted or not)."""
    from companion.venue.enrolment import enrol

    broker = Broker(tmp_path / "broker").start()
    key_file = tmp_path / "t1.key"
    key_file.write_text((key or enrol(tmp_path / "hall", "t1")) + "\n")
    hall = follow(tmp_path / "hall", broker)
    wire = Collector(broker)
    venue = VenueSettings(broker=broker.url, table="t1", key_file=str(key_file))
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
    rt = make_runtime(tmp_path / "t1", "Ann,Ben", seed=seed, config=config)
    scene = Enrolled(broker, hall, wire, rt, raw_client(broker, rogue))
    try:
        rt.venue.start()
        wait_until(lambda: rt.venue_status()["reachable"], 30, "the table connected")
        yield scene
    finally:
        stop_all(scene.rogue, wire, rt, scene.hall, broker)
