"""The venue's topics and messages, shared by the table's publisher and the hall.

With ``P`` the prefix and ``T`` the table id: ``P/T/status`` (retained ``online``, or
``offline``: the last will), ``P/T/state`` (retained public state), and per game ``G``:
``P/T/games/G/setup`` (retained), ``P/T/games/G/events`` (QoS 1, one per committed event)
and ``P/T/games/G/result`` (retained); the hall answers on ``P/T/games/G/stored`` (retained:
the last event it stored, so that the table sends again what a broker lost). No MQTT library
here: both sides import it lazily.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from companion.table.stream import GameFinished, GameStarted
from companion.util import json_bounds
from companion.util.config import TOPIC_WORD

#: The largest message the hall reads; an event is well under 1 KB, a state a few KB.
MAX_PAYLOAD = 64 * 1024


def table_id(configured: str, hostname: str | None = None) -> str:
    """The table's id: ``[venue] table``, else the host name made fit for a topic level."""
    if configured:
        return configured
    name = (hostname if hostname is not None else socket.gethostname()).split(".")[0]
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "-", name)[:40].strip("-")
    return cleaned or "table"


def broker_address(url: str) -> tuple[str, int, bool]:
    """(host, port, tls) of ``mqtt://host[:port]`` or ``mqtts://host[:port]`` (checked by the config)."""
    parts = urlsplit(url)
    tls = parts.scheme == "mqtts"
    return parts.hostname or "localhost", parts.port or (8883 if tls else 1883), tls


@dataclass(frozen=True)
class Topics:
    """The topics of one table under ``prefix``."""

    prefix: str
    table: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table}"

    def of(self, kind: str) -> str:
        """``kind``: status, state, or tag (each tag tap, for Home Assistant's tag scanner)."""
        return f"{self.base}/{kind}"

    def game(self, game: int, kind: str) -> str:
        """``kind``: setup, events, result, or stored (the hall's acknowledgement)."""
        return f"{self.base}/games/{game}/{kind}"


@dataclass(frozen=True)
class Where:
    """What a topic names: a table, the kind of message and its game (0 for status and state)."""

    table: str
    kind: str
    game: int


def parse_topic(prefix: str, topic: str) -> Where | None:
    """What ``topic`` under ``prefix`` names, or None when it is no venue topic."""
    parts = topic.split("/")
    if len(parts) < 3 or parts[0] != prefix or not TOPIC_WORD.match(parts[1]):
        return None
    if len(parts) == 3 and parts[2] in ("status", "state", "tag"):
        return Where(parts[1], parts[2], 0)
    if (
        len(parts) == 5
        and parts[2] == "games"
        and parts[3].isdigit()
        and len(parts[3]) < 10
        and parts[4] in ("setup", "events", "result", "stored")
    ):
        return Where(parts[1], parts[4], int(parts[3]))
    return None


def setup_message(item: GameStarted) -> dict[str, Any]:
    """The retained setup: the game's setup line (as stored), its format and the chain's start."""
    return {"table": item.table, "game": item.game, "at": item.at, "format": item.format,
            "setup": item.setup, "sum": item.sum}  # fmt: skip


def result_message(item: GameFinished, assisted: bool = False) -> dict[str, Any]:
    """The retained result: the final standings after event ``seq``, and whether the coach
    gave advice in the game (``assisted``: kept beside the game in the table's store, not in
    its events; the league rates it no more than the table's own history does)."""
    return {"table": item.table, "game": item.game, "seq": item.seq, "result": item.result,
            "assisted": assisted}  # fmt: skip


def stored_message(table: str, game: int, seq: int, setup: bool = True, at: int = 0) -> dict[str, Any]:
    """The hall's acknowledgement: it has stored game ``game``'s events up to ``seq`` in order
    (``setup`` False: it has not even the game's setup, send it all again); ``at`` (the hall's
    clock, in ns) orders its acknowledgements, so a signed one told again is not news."""
    return {"table": table, "game": game, "seq": seq, "setup": setup, "at": at}


def read_stored(payload: bytes) -> dict[str, Any] | None:
    """A hall's acknowledgement (`stored_message`, ``setup`` and ``at`` perhaps left out), or
    None when the payload is none."""
    message = read_json(payload)
    if not isinstance(message, dict):
        return None
    seq, setup, at = message.get("seq"), message.get("setup", True), message.get("at", 0)
    if type(seq) is not int or seq < 0 or type(at) is not int or not isinstance(setup, bool):
        return None  # (a bool is an int, not a number here)
    return message


def read_json(payload: bytes) -> Any:
    """The JSON value of a message within `companion.util.json_bounds`'s bounds, or None: deep
    nesting would otherwise raise RecursionError in paho's network thread, and end it."""
    try:
        return json_bounds.parse(payload)
    except json_bounds.BadJson:
        return None


def signature(key: bytes, kind: str, message: dict[str, Any]) -> str:
    """HMAC-SHA256 of what makes a message the table's (for ``stored``, the hall's to it): a
    setup's table, game, setup line and chain start; an event's table, game, seq and checksum
    (which chains every event before it); otherwise the whole message but ``sig``, its kind
    first, so one kind's signature never passes for another's."""
    if kind == "setup":
        text = json.dumps(["setup", message.get("table"), message.get("game"), message.get("sum"),
                           message.get("setup")], sort_keys=True, separators=(",", ":"))  # fmt: skip
    elif kind == "events":
        text = json.dumps(["event", message.get("table"), message.get("game"), message.get("seq"),
                           message.get("sum")], separators=(",", ":"))  # fmt: skip
    else:
        rest = {name: value for name, value in message.items() if name != "sig"}
        text = json.dumps([kind, rest], sort_keys=True, separators=(",", ":"))
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def signed(key: bytes | None, kind: str, message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its ``sig`` under ``key`` (unchanged without a key: nobody enrolled)."""
    return message if key is None else {**message, "sig": signature(key, kind, message)}


def signed_by(key: bytes, kind: str, message: dict[str, Any]) -> bool:
    given = message.get("sig")
    return isinstance(given, str) and hmac.compare_digest(given, signature(key, kind, message))


def encode(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
