"""The table's side of the venue: an outbox that publishes what the table commits.

The committed stream hands each item to `VenuePublisher.hook`, which only appends it to the
outbox (nothing the table does waits for the broker); the publisher's thread hands the outbox
to paho while connected and, on each PUBACK, moves the table's place in the store
(``Store.save_cursor("venue", ...)``) over the events acknowledged in order. What was not
acknowledged goes again on the next connection, and after a power cut the table subscribes
again from its place: every event arrives, in order, perhaps twice (the hall drops duplicates).
A broker killed outright may lose what it acknowledged: the table follows the hall's retained
acknowledgements (``P/T/games/G/stored``) and sends again, from its store, what the hall lacks.

paho-mqtt is imported in `start` only: a table without ``[venue]`` never imports it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.store.log import StoreError
from companion.table.session import Session
from companion.table.stream import Committed, GameFinished, GameStarted, StreamItem, Subscription
from companion.util.config import VenueSettings
from companion.util.wording import CodedError, say
from companion.venue.discovery import discovery_messages
from companion.venue.topics import (
    Topics,
    broker_address,
    encode,
    parse_topic,
    read_stored,
    result_message,
    setup_message,
    signed,
    signed_by,
)

#: The outbox's place in the store (`Store.cursor`).
CURSOR = "venue"
#: The state is published at most this often (seconds): about 5 a second.
STATE_EVERY = 0.2
#: A message handed to paho and not acknowledged this long (seconds) while "connected": the
#: link is dead (a broker that stopped answering, a network thread that stopped), and the
#: page says so rather than "connected" while the outbox grows.
STALL_AFTER = 30.0


@dataclass
class Message:
    """One message of the outbox; ``seq`` > 0 for a committed event (its place moves the cursor)."""

    topic: str
    payload: bytes
    retain: bool
    game: int = 0
    seq: int = 0
    acked: bool = False
    #: Sent again because the hall lacks it: its acknowledgement does not move the table's place.
    again: bool = False
    #: When it was handed to paho on this connection (monotonic; 0: not yet).
    sent_at: float = 0.0


@dataclass
class Reachability:
    """Whether the broker is reachable now, and if not, why (a catalogue code and its params)."""

    connected: bool = False
    problem: str = "venue_connecting"
    params: dict[str, Any] = field(default_factory=dict)


def first_line(path: str) -> str | None:
    """The first line of the file at ``path`` (a password, a key), or None when no path is set."""
    return Path(path).read_text(encoding="utf-8").splitlines()[0].strip() if path else None


class VenueLibraryMissing(CodedError, RuntimeError):
    """paho-mqtt (the ``venue`` extra) is not installed: the sentence says what to install."""


def mqtt_library() -> Any:
    """paho's client module, imported now (only a table or hall with a venue needs it);
    `VenueLibraryMissing` when the ``venue`` extra is not installed."""
    try:
        from paho.mqtt import client as mqtt
    except ImportError:
        raise VenueLibraryMissing("venue_library_missing") from None
    return mqtt


def library_problem() -> str | None:
    """The sentence saying what to install when paho-mqtt is missing, else None (`run --check`,
    `companion hall`)."""
    try:
        mqtt_library()
    except VenueLibraryMissing as exc:
        return str(exc)
    return None


def guarded(callback: Callable[..., None], log: Callable[[str], None]) -> Callable[..., None]:
    """``callback`` for paho's network thread, whatever a message holds: an exception there
    would end the thread, and the table or hall would stop unseen. ``log`` says what failed."""

    def run(*args: Any) -> None:
        try:
            callback(*args)
        except Exception as exc:
            log(say("venue_callback_failed", error=f"{type(exc).__name__}: {exc}"[:300]))

    return run


def make_client(settings: VenueSettings, client_id: str, clean: bool = True) -> Any:
    """A paho client with the settings' credentials and TLS (raises OSError for an unreadable
    password or CA file, ValueError for a CA file that is no certificate, `VenueLibraryMissing`
    without the venue extra)."""
    mqtt = mqtt_library()
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean,
        protocol=mqtt.MQTTv311,
    )
    password = first_line(settings.password_file)
    if settings.username or password is not None:
        client.username_pw_set(settings.username or None, password)
    if broker_address(settings.broker)[2]:
        try:
            client.tls_set(ca_certs=settings.ca_file or None)
        except Exception as exc:  # ssl.SSLError: a file that is not a CA certificate
            raise ValueError(str(exc)) from None
    return client


def probe(settings: VenueSettings, timeout: float = 5.0) -> tuple[str, dict[str, Any]] | None:
    """Connect once to the venue's broker (``companion doctor``): None when it accepts this
    table, else why not (a catalogue code and its params)."""
    host, port, _ = broker_address(settings.broker)
    answer: list[Any] = []
    if library_problem() is not None:
        return "venue_library_missing", {}
    try:
        client = make_client(settings, f"{settings.topic_prefix}-doctor-{time.monotonic_ns()}")
        client.on_connect = lambda _c, _u, _f, reason, _p: answer.append(reason)
        client.connect(host, port, keepalive=10)
        deadline = time.monotonic() + timeout
        while not answer and time.monotonic() < deadline:
            client.loop(0.1)
        client.disconnect()
    except (OSError, ValueError, IndexError) as exc:  # refused, unreachable, TLS, unreadable files
        return "venue_unreachable_because", {"broker": settings.broker, "error": str(exc)}
    if not answer:
        return "venue_unreachable", {"broker": settings.broker}
    if answer[0].is_failure:
        return "venue_refused", {"broker": settings.broker, "reason": str(answer[0])}
    return None


class VenuePublisher:
    """Publishes one table's committed stream, status and state to the venue's broker."""

    def __init__(self, settings: VenueSettings, session: Session, log: Callable[[str], None]) -> None:
        self.settings = settings
        self.session = session
        self.log = log
        self.retry_max = 5  # seconds between reconnections, at most
        self.stall_after = STALL_AFTER
        #: The key the hall gave this table (``key_file``, hex on its first line): what it sends is signed.
        self.key: bytes | None = None
        self._key_problem = ""
        try:
            self.key = None if (hex_key := first_line(settings.key_file)) is None else bytes.fromhex(hex_key)
        except (OSError, ValueError, IndexError) as exc:  # said at start; nothing unsigned goes out
            self._key_problem = str(exc)
        self.table = session.stream.table
        self.topics = Topics(settings.topic_prefix, self.table)
        self.reach = Reachability()
        self.client: Any = None
        self.subscription: Subscription | None = None
        self._cond = threading.Condition()
        self._outbox: list[Message] = []  # not yet acknowledged, in order
        self._sent = 0  # how many of the outbox were handed to paho on this connection
        self._acks: deque[int] = deque()  # mids acknowledged (from paho's thread)
        self._by_mid: dict[int, Message] = {}
        self._early: set[int] = set()
        self._state_due = True
        self._state_at = 0.0
        self._discovery_due = True  # the configs, or their removal once home_assistant is off
        #: The hall's places told since the last round: game -> (last seq stored, has its setup).
        self._behind: dict[int, tuple[int, bool]] = {}
        #: Finished games the hall stored whole whose retained setup and result this run cleared.
        self._cleared: set[int] = set()
        #: The table's last committed (game, seq), told in its retained state: the hall asks for
        #: every game and event it lacks from it, whatever the broker lost.
        self.committed = (0, 0)
        #: The newest signed acknowledgement read of each game on this connection (the hall's ns).
        self._told_at: dict[int, int] = {}
        #: Acknowledgements refused: unsigned, signed with another key, or told again.
        self.forged_acks = 0
        #: The state's clock (ns, never going back in a run): the hall keeps only a newer state.
        self._state_ns = 0
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="venue", daemon=True)

    # --- what the page and the doctor read ----------------------------------------------------

    def status(self) -> dict[str, Any]:
        """``venue`` in ``GET /api/state``: the table id, whether the broker is reachable, if not why."""
        reach = self.reach
        words = None if reach.connected else say(reach.problem, **reach.params)
        return {"table": self.table, "reachable": reach.connected, "problem": None if reach.connected
                else reach.problem, "words": words, "waiting": len(self._outbox)}  # fmt: skip

    def pending(self) -> int:
        """Messages not yet acknowledged by the broker."""
        with self._cond:
            return len(self._outbox)

    # --- the table's side: the hook and the listeners only enqueue -------------------------------

    def hook(self, item: StreamItem) -> None:
        """The committed stream's hook: the item joins the outbox (never waits for the network)."""
        message = self._message(item)
        with self._cond:
            self._outbox.append(message)
            if isinstance(item, Committed | GameStarted):
                self.committed = max(self.committed, (item.game, getattr(item, "seq", 0)))
                self._state_due = True  # the state tells the hall the table's new place
            self._cond.notify_all()

    def _message(self, item: StreamItem, again: bool = False) -> Message:
        if isinstance(item, Committed):
            event = encode(signed(self.key, "events", item.to_json()))
            return Message(
                self.topics.game(item.game, "events"), event, False, item.game, item.seq, again=again
            )
        if isinstance(item, GameStarted):
            setup = encode(signed(self.key, "setup", setup_message(item)))
            return Message(self.topics.game(item.game, "setup"), setup, True, again=again)
        assisted = item.game in self.session.store.assisted()  # the coach spoke in it
        result = encode(signed(self.key, "result", result_message(item, assisted)))
        return Message(self.topics.game(item.game, "result"), result, True, again=again)

    def tag_scanned(self, seen: str) -> None:
        """A tag reached the reader: with ``home_assistant`` and ``tag_scans``, tell Home
        Assistant now (QoS 0, never queued: a late tap would fire its automations late)."""
        client = self.client
        if not (self.settings.home_assistant and self.settings.tag_scans) or client is None:
            return
        if self.reach.connected and seen.strip():
            client.publish(self.topics.of("tag"), seen.strip()[:100].encode(), qos=0, retain=False)

    def changed(self, *_: Any) -> None:
        """A listener: the table's state changed, publish it (at most ~5 a second)."""
        with self._cond:
            self._state_due = True
            self._cond.notify_all()

    # --- paho's callbacks (its network thread) -----------------------------------------------

    def _set_reach(self, connected: bool, problem: str = "", **params: Any) -> None:
        before, self.reach = self.reach, Reachability(connected, problem, params)
        if self.reach != before:
            if connected:
                self.log(say("venue_connected", broker=self.settings.broker, table=self.table))
            else:
                self.log(say(problem, **params))

    def _guarded(self, callback: Callable[..., None]) -> Callable[..., None]:
        return guarded(callback, lambda words: self.log(words))  # the log as it is then (tests swap it)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._set_reach(False, "venue_refused", broker=self.settings.broker, reason=str(reason))
            return
        client.publish(self.topics.of("status"), b"online", qos=1, retain=True)
        client.subscribe(f"{self.topics.base}/games/+/stored", qos=1)  # the hall's places
        if self.settings.home_assistant:
            client.subscribe(f"{self.settings.discovery_prefix}/status", qos=1)
        self._set_reach(True)
        self._told_at.clear()  # the hall's retained places are read again, once each
        with self._cond:
            self._sent = 0  # what was not acknowledged goes again, in order
            self._state_due = True
            self._discovery_due = True
            self._cond.notify_all()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not self._stopping and self.reach.problem != "venue_refused":  # a refusal stays the reason
            self._set_reach(False, "venue_unreachable", broker=self.settings.broker)

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self._set_reach(False, "venue_unreachable", broker=self.settings.broker)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        self._acks.append(mid)
        with self._cond:
            self._cond.notify_all()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        where = parse_topic(self.topics.prefix, message.topic)
        if where is not None and where.kind == "stored" and where.table == self.table:
            told = read_stored(bytes(message.payload))
            if told is not None and self._from_hall(where.game, told):
                with self._cond:
                    self._behind[where.game] = (told["seq"], told.get("setup", True))
                    self._cond.notify_all()
            return
        if message.topic.endswith("/status") and message.payload == b"online":  # Home Assistant restarted
            with self._cond:
                self._discovery_due = True
                self._cond.notify_all()

    def _from_hall(self, game: int, message: dict[str, Any]) -> bool:
        """Is ``message`` the hall's news about ``game``? With a key, only an acknowledgement the hall
        signed for this table and game, newer than the last read: a forged one would make the
        table send a game again or stop mending what a broker lost."""
        if self.key is None:
            return True
        fresh = message.get("at", 0) > self._told_at.get(game, 0)
        mine = message.get("table") == self.table and message.get("game") == game
        if not (mine and fresh and signed_by(self.key, "stored", message)):
            self.forged_acks += 1
            if self.forged_acks == 1 or self.forged_acks % 1000 == 0:  # said, never a flood
                self.log(say("venue_ack_refused", game=game, n=self.forged_acks))
            return False
        self._told_at[game] = message.get("at", 0)
        return True

    # --- the outbox's thread ---------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background and follow the stream from the table's place in the store."""
        host, port, _ = broker_address(self.settings.broker)
        try:
            if self._key_problem:  # a hall that enrolled this table would refuse it unsigned
                raise OSError(self._key_problem)
            client = make_client(self.settings, f"{self.settings.topic_prefix}-table-{self.table}")
        except VenueLibraryMissing:  # the game goes on; the page and the console say what to install
            self._set_reach(False, "venue_library_missing")
        except (OSError, ValueError, IndexError) as exc:
            self._set_reach(False, "venue_credentials", broker=self.settings.broker, error=str(exc))
        else:
            client.will_set(self.topics.of("status"), b"offline", qos=1, retain=True)
            client.reconnect_delay_set(1, self.retry_max)
            client.suppress_exceptions = True  # paho's own guard, beside ours
            client.on_connect = self._guarded(self._on_connect)
            client.on_disconnect = self._guarded(self._on_disconnect)
            client.on_connect_fail = self._guarded(self._on_connect_fail)
            client.on_publish = self._guarded(self._on_publish)
            client.on_message = self._guarded(self._on_message)
            client.connect_async(host, port, keepalive=30)
            client.loop_start()
            self.client = client
        store = self.session.store
        for game, _created, _finished, count in store.games():  # newest first: the last committed
            self.committed = (int(game), int(count))
            break
        self._thread.start()
        self.session.listen(self.changed)
        self.session.on_table.append(self.changed)
        self.subscription = self.session.subscribe(
            self.hook, after=store.cursor(CURSOR) or (0, 0), name="venue"
        )

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(self._work, timeout=STATE_EVERY)
                if self._stopping:
                    return
                acks = [self._acks.popleft() for _ in range(len(self._acks))]
                connected = self.reach.connected and self.client is not None
                batch = self._outbox[self._sent :] if connected else []
                self._sent += len(batch)
                now = time.monotonic()
                for message in batch:
                    message.sent_at = now
                oldest = self._outbox[0].sent_at if self._outbox and self._sent else 0.0
                stalled = connected and oldest and now - oldest > self.stall_after
                state = connected and self._state_due and time.monotonic() - self._state_at >= STATE_EVERY
                if state:
                    self._state_due, self._state_at = False, time.monotonic()
                discovery = connected and self._discovery_due
                self._discovery_due = self._discovery_due and not discovery
                behind, self._behind = self._behind, {}
            if stalled:
                self._set_reach(False, "venue_stalled", broker=self.settings.broker,
                                seconds=round(self.stall_after))  # fmt: skip
            self._acknowledge(acks)
            for game, (seq, setup) in behind.items():
                self._send_again(game, seq, setup)
            for message in batch:
                info = self.client.publish(message.topic, message.payload, qos=1, retain=message.retain)
                self._by_mid[info.mid] = message
                if info.mid in self._early:
                    self._early.discard(info.mid)
                    self._acknowledge([info.mid])
            if state:
                self._publish_state()
            if discovery:
                for topic, payload in discovery_messages(self.settings, self.topics):
                    self.client.publish(topic, payload, qos=1, retain=True)

    def _work(self) -> bool:
        connected = self.reach.connected
        # a state due but published less than STATE_EVERY ago waits for the wait's timeout (no spin)
        state = self._state_due and time.monotonic() - self._state_at >= STATE_EVERY
        return bool(
            self._stopping
            or self._acks
            or self._behind
            or (connected and (self._sent < len(self._outbox) or state or self._discovery_due))
        )

    def _acknowledge(self, mids: list[int]) -> None:
        """Mark acknowledged messages; move the store's place over those acknowledged in order."""
        for mid in mids:
            message = self._by_mid.pop(mid, None)
            if message is None:
                self._early.add(mid)
            else:
                message.acked = True
        if mids and self.reach.problem == "venue_stalled":  # the broker answers again
            self._set_reach(True)
        place = None
        with self._cond:
            while self._outbox and self._outbox[0].acked:
                message = self._outbox.pop(0)
                self._sent = max(0, self._sent - 1)
                if message.seq and not message.again:
                    place = (message.game, message.seq)
        if place is not None:
            try:
                self.session.store.save_cursor(CURSOR, *place)
            except Exception as exc:  # a full disk: the place stays behind; events go again, never lost
                self.log(say("venue_cursor_unsaved", error=str(exc)))

    def _send_again(self, game: int, seq: int, setup: bool) -> None:
        """The hall stored ``game`` up to ``seq`` (``setup`` False: not even its setup): queue
        again, from the store, what follows and is no longer in the outbox (a broker lost it)."""
        try:
            stored = self.session.store.load(game)
            items = self.session.stream.game_items(stored, game, seq if setup else None)
        except Exception as exc:  # the store cannot be read now: the next acknowledgement asks again
            if not (isinstance(exc, StoreError) and exc.code == "store_no_game"):  # a game it never had
                self.log(say("venue_again_unread", game=game, error=str(exc)))
            return
        with self._cond:
            waiting = {(m.game, m.seq) for m in self._outbox if m.seq}
            again = [
                self._message(item, again=True)
                for item in items
                if not (isinstance(item, Committed) and (item.seq <= seq or (game, item.seq) in waiting))
            ]
            if setup and not any(m.seq for m in again):  # the hall lacks nothing: a result alone is no news
                whole = any(isinstance(i, GameFinished) and i.seq <= seq for i in items)
                if whole and game not in self._cleared:  # the broker need not keep the game's setup
                    self._cleared.add(game)  # and result for anyone any more
                    self._outbox.extend(Message(self.topics.game(game, kind), b"", True, again=True)
                                        for kind in ("setup", "result"))  # fmt: skip
                    self._cond.notify_all()
                return
            self._outbox.extend(again)
            self._cond.notify_all()

    def _publish_state(self) -> None:
        try:
            game, seq = self.committed
            state = {**self.session.table.state_json(), "table": self.table,
                     "committed": {"game": game, "seq": seq}}  # fmt: skip
        except Exception:  # the table is between games: the next change publishes it
            return
        self._state_ns = max(time.time_ns(), self._state_ns + 1)
        state["at"] = self._state_ns
        self.client.publish(
            self.topics.of("state"), encode(signed(self.key, "state", state)), qos=1, retain=True
        )

    def wait_delivered(self, timeout: float) -> bool:
        """Block until the outbox is empty (every message acknowledged), or ``timeout``."""
        if self.subscription is not None:
            self.subscription.wait_idle(timeout)
        with self._cond:
            return self._cond.wait_for(lambda: not self._outbox, timeout)

    def stop(self, timeout: float = 2.0) -> None:
        """Deliver what can be in ``timeout``, say ``offline`` and disconnect (a clean stop)."""
        if self.subscription is not None:
            self.session.stream.unsubscribe(self.subscription, timeout)
        if self.reach.connected:
            self.wait_delivered(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout)
        client = self.client
        if client is not None:
            if self.reach.connected:
                info = client.publish(self.topics.of("status"), b"offline", qos=1, retain=True)
                with contextlib.suppress(RuntimeError, ValueError):  # disconnected: the will says offline
                    info.wait_for_publish(timeout)
            client.disconnect()
            client.loop_stop()
