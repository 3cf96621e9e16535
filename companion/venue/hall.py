"""The hall: follows every table of the venue through the broker and keeps each game.

`Hall.handle` takes one message and never raises: whatever is not a venue message of a table
it follows is logged and shown (`problems`), never trusted. An event is stored only as the
next of its game (its setup came, its checksum follows the chain from the setup's ``sum``, the
rules accept it); later ones wait (bounded) for the gap to fill, earlier ones are QoS 1's
duplicates. Each game has its own store (``<data>/games/<table>/<game>/``, so its record is
``companion export``'s); an index (``<data>/hall.sqlite``) keeps each game's place and chain.

`Hall.connect` follows a persistent session at QoS 1 (the broker queues while the hall is
away). A broker killed outright loses what it held in memory, so the hall tells each table,
retained on ``P/T/games/G/stored``, the last event it stored of each game (on connecting, on a
gap, for events with no setup, when a game ends); a table behind it sends again from there.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import sqlite3
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.engine import Board
from companion.records.trekking import TREKKING
from companion.store.log import Store, event_sum
from companion.table.commit import game_result
from companion.util.config import VenueSettings
from companion.util.wording import say
from companion.venue.enrolment import enrol, enrolled_keys
from companion.venue.league import FinishedGame, ordered_games, past_of
from companion.venue.topics import (
    MAX_PAYLOAD,
    Where,
    broker_address,
    encode,
    parse_topic,
    read_json,
    signed,
    signed_by,
    stored_message,
)

#: Events of one game waiting for a gap to fill (or for the setup), at most.
MAX_WAITING = 2000
#: Tables followed at most (a hostile publisher inventing tables cannot fill the disk).
MAX_TABLES = 500
#: A game whose setup is older than this (seconds) and still playing is "running long".
RUNNING_LONG = 3 * 3600
#: Problems kept for the page.
MAX_PROBLEMS = 200
#: Games whose store is open and board in memory, at most: the most recently stored into (a
#: store holds 4 descriptors); a game that comes back is opened and replayed again.
HOT_GAMES = 64
#: Games of one table the hall checks at once against the table's last committed game (a table
#: claiming game 10^9 does not make the hall ask 10^9 times).
MAX_CATCH_UP = 2000
#: A game the hall lacks events of is asked for again at most this often (seconds), and only
#: when nothing of it was stored for as long: events on their way are not asked for twice.
ASK_EVERY = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    tbl TEXT NOT NULL, game INTEGER NOT NULL, seq INTEGER NOT NULL, sum TEXT NOT NULL,
    setup TEXT NOT NULL, at TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0,
    result TEXT, assisted INTEGER NOT NULL DEFAULT 0, start TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tbl, game)
)
"""
#: Where each enrolled table's live line stood (`Live.committed`, `Live.clock`): after a restart
#: the hall shows no older signed state (a retained one a rogue put back).
_LINES = "CREATE TABLE IF NOT EXISTS lines (tbl TEXT PRIMARY KEY, game INTEGER, seq INTEGER, clock INTEGER)"


@dataclass
class Game:
    """One table's game as the hall keeps it."""

    table: str
    game: int
    setup: dict[str, Any]
    at: str
    seq: int
    sum: str
    store: Store | None = None
    board: Board | None = None
    result: dict[str, Any] | None = None
    waiting: dict[int, dict[str, Any]] = field(default_factory=dict)
    claimed: dict[str, Any] | None = None  # the result the table published
    #: Events in the game's store: after a power cut it may be one ahead of the index (that
    #: event, sent again, is only checked).
    rows: int = 0
    #: The table says the coach gave advice in it (its result message): counted, not rated.
    assisted: bool = False
    #: Where its checksum chain starts (its setup's ``sum``): another setup for the same
    #: (table, game) with another start competes with it (a forged one, a reinstalled table).
    start: str = ""
    #: When the hall last stored an event of it, and last asked the table for it (monotonic).
    heard: float = 0.0
    asked: float = 0.0
    #: A finished game's replay for the league (`companion.venue.league.past_of`): a few KB,
    #: kept instead of its board.
    past: Any = None


@dataclass
class Live:
    """What a table says of itself now: online or not, and its public state (shown, not trusted)."""

    online: bool = False
    state: dict[str, Any] | None = None
    #: Its games up to this number were checked against what the hall holds (on this connection).
    checked: int = 0
    #: When the hall last asked it for its last committed game's setup (monotonic).
    asked: float = 0.0
    #: The newest (committed game, seq) and table clock (ns) of the signed states shown: a signed
    #: state newer in neither is the table's own told again by someone, and not shown.
    committed: tuple[int, int] = (0, 0)
    clock: int = 0
    #: When a state the table did not sign last came, and what it claimed (shown as such).
    forged: dict[str, Any] | None = None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Hall:
    """Every game of every table, from the venue's messages."""

    def __init__(
        self,
        data_dir: str | Path,
        prefix: str = "trekking",
        tables: set[str] | None = None,
        log: Callable[[str], None] = print,
    ) -> None:
        self.folder = Path(data_dir)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.prefix = prefix
        self.allowed = tables
        #: Enrolled tables' keys (`companion.venue.enrolment`): with any, only what they sign counts.
        self.keys = enrolled_keys(self.folder)
        self.log = log
        self.lock = threading.RLock()
        self.games: dict[tuple[str, int], Game] = {}
        self.early: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}  # events before their setup
        self.live: dict[str, Live] = {}
        self.problems: deque[dict[str, Any]] = deque(maxlen=MAX_PROBLEMS)
        self.counts = {"stored": 0, "duplicates": 0, "refused": 0}
        #: (table, game, seq) -> when it was stored (monotonic), for the lag figures.
        self.on_stored: Callable[[str, int, int], None] | None = None
        self.index = sqlite3.connect(self.folder / "hall.sqlite", check_same_thread=False)
        # Each game's place and the table's chain must match its store after a power cut: one
        # fsync of the WAL per commit (a rollback journal would cost several).
        self.index.execute("PRAGMA journal_mode=WAL")
        self.index.execute("PRAGMA synchronous=FULL")
        self.index.execute(_SCHEMA)
        self.index.execute(_LINES)
        rows = self.index.execute(
            "SELECT tbl, game, seq, sum, setup, at, finished, result, assisted, start FROM games"
        )
        for table, number, seq, chain, setup, at, finished, result, assisted, start in rows:
            kept = {} if finished else json.loads(setup)  # a finished game's setup stays on disk
            result = json.loads(result) if result else None
            self.games[(table, number)] = Game(
                table, number, kept, at, seq, chain, result=result, assisted=bool(assisted), start=start
            )
            self.live.setdefault(table, Live())
        for table, number, seq, clock in self.index.execute("SELECT tbl, game, seq, clock FROM lines"):
            self.live.setdefault(table, Live()).committed, self.live[table].clock = (number, seq), clock
        self.client: Any = None
        #: The clock of the hall's last acknowledgement (ns, never going back): orders them.
        self._told = 0
        #: The games whose store is open or board in memory, least recently used first.
        self._hot: OrderedDict[tuple[str, int], Game] = OrderedDict()
        #: A second setup for a (table, game) the hall holds with another chain: it wins once an
        #: event follows its chain (`_contend`), as a reinstalled table's first game does.
        self.contenders: dict[tuple[str, int], dict[str, Any]] = {}
        #: Whether the coach spoke in a game whose setup has not come yet (its result came first).
        self.early_assisted: dict[tuple[str, int], bool] = {}
        #: The finished games replayed for the league, and the hall's version they are of.
        self._league: tuple[tuple[int, int], list[FinishedGame]] | None = None

    # --- one message ------------------------------------------------------------------------

    def problem(self, code: str, **params: Any) -> None:
        """Log and keep a problem with what a table sent (never raised: the hall goes on)."""
        self.counts["refused"] += 1
        words = say(code, **params)
        self.problems.append({"at": _now(), "code": code, "params": params, "words": words})
        self.log(words)

    def handle(self, topic: str, payload: bytes) -> None:
        """Take one message from the broker; whatever it holds, the hall goes on."""
        with self.lock:
            try:
                self._handle(topic, payload)
            except Exception as exc:  # a bug must not stop the hall following the other tables
                self.problem("hall_failed", topic=topic[:120], error=f"{type(exc).__name__}: {exc}")

    def _admitted(self, where: Where, payload: bytes) -> Live | None:
        """The table's live record when a message from it may be read at all: not too big,
        from a table allowed (and enrolled, where the hall enrols), within the table limit."""
        if len(payload) > MAX_PAYLOAD:
            self.problem("hall_too_big", table=where.table, size=len(payload), limit=MAX_PAYLOAD)
            return None
        if self.allowed is not None and where.table not in self.allowed:
            self.problem("hall_unknown_table", table=where.table)
            return None
        if self.keys and where.table not in self.keys:  # only enrolled tables count, and only they
            self.problem("hall_not_enrolled", table=where.table)
            return None
        if where.table not in self.live:
            if len(self.live) >= MAX_TABLES:
                self.problem("hall_unknown_table", table=where.table)
                return None
            self.live[where.table] = Live()
        return self.live[where.table]

    def _handle(self, topic: str, payload: bytes) -> None:
        where = parse_topic(self.prefix, topic)
        if where is None:
            if topic.split("/")[0] == self.prefix:
                self.problem("hall_bad_topic", topic=topic[:120])
            return
        live = self._admitted(where, payload)
        if live is None:
            return
        if where.kind == "status":
            live.online = payload == b"online"
            return
        if where.kind in ("stored", "tag"):  # the hall's own acknowledgement; Home Assistant's tag scans
            return
        if not payload and where.kind in ("setup", "result", "state"):  # a retained message cleared
            if where.kind == "setup":
                self._setup_cleared(where.table, where.game)
            return
        message = read_json(payload)  # bounded: deep nesting is no RecursionError here
        if not isinstance(message, dict):
            self.problem("hall_bad_message", table=where.table, kind=where.kind)
            return
        if where.kind == "state":
            self._state(where.table, live, message)
            return
        if message.get("table") != where.table or message.get("game") != where.game:
            self.problem("hall_bad_message", table=where.table, kind=where.kind)
            return
        if self.keys and not signed_by(self.keys[where.table], where.kind, message):
            self.problem("hall_unsigned", table=where.table, kind=where.kind)
            return
        if where.kind == "setup":
            self._setup(where.table, where.game, message)
        elif where.kind == "events":
            self._event(where.table, where.game, message)
        else:
            game = self.games.get((where.table, where.game))
            if game is not None and isinstance(message.get("result"), dict):
                game.claimed = message["result"]
            if isinstance(message.get("assisted"), bool):
                self._assisted(where.table, where.game, game, message["assisted"])

    def _state(self, table: str, live: Live, message: dict[str, Any]) -> None:
        """A table's live state: where the hall enrols, shown (and its ``committed`` followed)
        only when the table signed it and it is not older than the one shown; a state it did not
        sign is kept apart and shown as such, never as the table's line."""
        if self.keys:
            if not signed_by(self.keys[table], "state", message):
                self.problem("hall_unsigned", table=table, kind="state")
                players = message.get("players")
                claimed = [str(p.get("name"))[:40] for p in players if isinstance(p, dict)][:8] if isinstance(
                    players, list) else []  # fmt: skip
                live.forged = {"at": _now(), "players": claimed}
                return
            order = _state_order(message)
            newest = (live.committed, live.clock)  # the one shown, told again (a reconnection): the same
            if order is None or not (order[0] > live.committed or order[1] > live.clock or order == newest):
                self.problem("hall_stale_state", table=table)
                return
            live.committed, live.clock = max(live.committed, order[0]), max(live.clock, order[1])
            # kept with the index's next commit (an event's, or the hall's stop): no fsync of its own
            self.index.execute("INSERT OR REPLACE INTO lines VALUES (?, ?, ?, ?)", (table, *live.committed,
                               live.clock))  # fmt: skip
        live.state = message
        self._catch_up(table, live, message.get("committed"))

    def _assisted(self, table: str, number: int, game: Game | None, assisted: bool) -> None:
        """Keep whether the coach gave advice in a game (the league rates it or not)."""
        if game is None:
            if len(self.early_assisted) < MAX_WAITING:
                self.early_assisted[(table, number)] = assisted
            return
        if game.assisted != assisted:
            game.assisted = assisted
            self.index.execute("UPDATE games SET assisted = ? WHERE tbl = ? AND game = ?",
                               (int(assisted), table, number))  # fmt: skip
            self.index.commit()
            self._league = None

    def _setup(self, table: str, number: int, message: dict[str, Any]) -> None:
        key = (table, number)
        if key in self.games:  # retained: told again on every subscription; or a competing one
            held = self.games[key]
            fresh = key not in self.contenders and len(self.contenders) < MAX_TABLES
            if fresh and message.get("sum") != held.start:  # another chain: not the setup it started from
                self.contenders[key] = message
                self.problem("hall_competing_setup", table=table, game=number)
            return
        setup, chain = message.get("setup"), message.get("sum")
        try:
            if message.get("format") != TREKKING.format or not isinstance(setup, dict):
                raise ValueError("not a setup of this format")
            board = Board(TREKKING.setup_from_json(setup))
            if not isinstance(chain, str):
                raise ValueError("no chain start")
        except Exception:
            self.problem("hall_bad_message", table=table, kind="setup")
            return
        folder = self.folder / "games" / table / str(number)
        store = Store(folder, TREKKING)
        kept = store.current_game() is not None  # the index lost it (a power cut): the store has it
        if not kept:
            store.new_game(setup, {"table": table, "game": number})
        at = str(message.get("at", ""))
        game = Game(table, number, setup, at, 0, chain, store, None if kept else board, start=chain)
        self.games[key] = game
        self._touch(game)
        game.assisted = self.early_assisted.pop(key, False)
        self.index.execute(
            "INSERT OR REPLACE INTO games (tbl, game, seq, sum, setup, at, assisted, start)"
            " VALUES (?, ?, 0, ?, ?, ?, ?, ?)",
            (table, number, chain, json.dumps(setup), game.at, int(game.assisted), chain),
        )
        self.index.commit()
        early = self.early.pop(key, {})
        game.waiting.update(early)
        self._drain(game)
        if early:  # the table was told the setup was missing: tell it where the game stands now
            self.acknowledge(game)

    def _event(self, table: str, number: int, message: dict[str, Any]) -> None:
        seq, event, chain, at = (message.get(name) for name in ("seq", "event", "sum", "at"))
        if (
            not isinstance(seq, int)
            or seq < 1
            or not isinstance(event, dict)
            or not isinstance(chain, str)
            or not isinstance(at, str)
        ):
            self.problem("hall_bad_message", table=table, kind="events")
            return
        if (table, number) in self.contenders and self._contend(table, number, message):
            self.problem("hall_new_epoch", table=table, game=number)
        game = self.games.get((table, number))
        if game is None:  # its setup has not come yet: keep it a while, and ask the table for it
            early = self.early.setdefault((table, number), {})
            if not early:
                self.send_stored(table, number, 0, setup=False)
            if len(early) < MAX_WAITING and len(self.early) < MAX_TABLES:
                early[seq] = message
            return
        if seq <= game.seq:
            self.counts["duplicates"] += 1
            return
        if seq > game.seq + 1:
            now = time.monotonic()
            if not game.waiting and now - game.asked >= ASK_EVERY:  # the table sends again from here
                self.problem("hall_gap", table=table, game=number, after=game.seq, seq=seq)
                self._ask(game, now)  # at most every ASK_EVERY s: a chain it refuses is no loop
            if len(game.waiting) < MAX_WAITING:
                game.waiting[seq] = message
            return
        game.waiting[seq] = message
        self._drain(game)

    def _contend(self, table: str, number: int, message: dict[str, Any]) -> bool:
        """An event for a (table, game) with a competing setup: the first event of the
        competitor's chain makes it the table's game (the events decide). The game held before
        is dropped when it has no event (a forged setup), else kept as the table's earlier epoch
        (``<table>~<chain>``: a reinstalled table reusing game numbers)."""
        contender = self.contenders[(table, number)]
        if message["seq"] != 1:
            return False
        text = json.dumps(message["event"])
        if event_sum(str(contender.get("sum")), number, 1, text, message["at"]) != message["sum"]:
            return False
        del self.contenders[(table, number)]
        held = self.games.pop((table, number))
        self._cool(held)
        folder = self.folder / "games" / table / str(number)
        if held.seq == 0 and held.rows == 0:
            shutil.rmtree(folder, ignore_errors=True)
            self.index.execute("DELETE FROM games WHERE tbl = ? AND game = ?", (table, number))
        else:
            epoch = f"{table}~{(held.start or held.sum)[:8]}"
            (self.folder / "games" / epoch).mkdir(parents=True, exist_ok=True)
            folder.rename(self.folder / "games" / epoch / str(number))
            self.index.execute("UPDATE games SET tbl = ? WHERE tbl = ? AND game = ?", (epoch, table, number))
            held.table = epoch
            self.games[(epoch, number)] = held
        self.index.commit()
        self._league = None
        self._setup(table, number, contender)
        return True

    def _drain(self, game: Game) -> None:
        """Store every waiting event that follows the last stored one, in order."""
        while game.seq + 1 in game.waiting:
            message = game.waiting.pop(game.seq + 1)
            if not self._store(game, message):
                game.waiting.clear()  # what follows a refused event cannot be checked
                return
        for seq in [s for s in game.waiting if s <= game.seq]:
            del game.waiting[seq]

    def _store(self, game: Game, message: dict[str, Any]) -> bool:
        seq, event = message["seq"], message["event"]
        text = json.dumps(event)
        if event_sum(game.sum, game.game, seq, text, message["at"]) != message["sum"]:
            self.problem("hall_bad_sum", table=game.table, game=game.game, seq=seq)
            now = time.monotonic()
            if game.seq == 0 and now - game.asked >= ASK_EVERY:  # perhaps a setup not the table's:
                game.asked = now  # ask for its own (it competes, and its events decide)
                self.send_stored(game.table, game.game, 0, setup=False)
            return False
        try:
            parsed = TREKKING.event_from_json(event)
            canonical = json.dumps(TREKKING.event_to_json(parsed)) == text
        except (ValueError, KeyError, TypeError):
            canonical = False
        board = self._board(game)
        if not canonical or (seq > game.rows and board.push(parsed) is not None):  # the rules refuse it
            self.problem("hall_bad_event", table=game.table, game=game.game, seq=seq)
            return False
        if seq > game.rows:
            self._open(game).write_events(1, seq, [parsed], board.finished)
            game.rows = seq
        game.seq, game.sum = seq, message["sum"]
        game.heard = time.monotonic()
        finished = board.finished
        game.result = game_result(board) if finished else None
        self.index.execute(
            "UPDATE games SET seq = ?, sum = ?, finished = ?, result = ? WHERE tbl = ? AND game = ?",
            (seq, game.sum, int(finished), json.dumps(game.result) if finished else None, game.table,
             game.game),
        )  # fmt: skip
        self.index.commit()
        self.counts["stored"] += 1
        if finished:
            game.past = past_of(board, game.at)
            self.acknowledge(game)
            self._cool(game)  # a finished game keeps its result and replay, not its store or board
        else:
            game.past = None  # an undo reopened it
        if self.on_stored is not None:
            self.on_stored(game.table, game.game, seq)
        return True

    def acknowledge(self, game: Game) -> None:
        """Tell the table (retained) the last event of ``game`` the hall stored in order."""
        self.send_stored(game.table, game.game, game.seq)

    def send_stored(self, table: str, number: int, seq: int, setup: bool = True) -> None:
        """Tell the table where ``number`` stands (retained), signed with its key when enrolled:
        the table reads only the hall's acknowledgements, each newer than the last."""
        client = self.client
        if client is None:
            return
        self._told = max(time.time_ns(), self._told + 1)
        message = signed(
            self.keys.get(table), "stored", stored_message(table, number, seq, setup, self._told)
        )
        client.publish(f"{self.prefix}/{table}/games/{number}/stored", encode(message), qos=1, retain=True)

    def enrol(self, table: str) -> str:
        """Enrol ``table`` (a new key when it was enrolled before) and return its key, shown once
        (`companion.venue.enrolment`); from now on the hall keeps only what that key signs."""
        with self.lock:
            key = enrol(self.folder, table)
            self.keys = enrolled_keys(self.folder)
            return key

    def _catch_up(self, table: str, live: Live, committed: Any) -> None:
        """The table's last committed (game, seq), from its state: ask it for every game and
        event the hall lacks up to there, whatever the broker lost while the hall was away."""
        last, seq = _committed(committed) or (0, 0)
        if not (0 < last < 10**9 and 0 <= seq < 10**9):
            return
        now = time.monotonic()
        for number in range(max(live.checked + 1, last - MAX_CATCH_UP), last):  # games before the last
            game = self.games.get((table, number))
            if game is None:
                if (table, number) not in self.early:
                    self.send_stored(table, number, 0, setup=False)
            elif game.result is None:  # a table that sends nothing after this place has no more
                self._ask(game, now)
        live.checked = max(live.checked, last - 1)
        game = self.games.get((table, last))
        if game is None:
            if (table, last) not in self.early and now - live.asked >= ASK_EVERY:
                live.asked = now
                self.send_stored(table, last, 0, setup=False)
        elif game.seq < seq and now - game.heard >= ASK_EVERY:
            self._ask(game, now)

    def _ask(self, game: Game, now: float) -> None:
        """Tell the table where ``game`` stands, at most every `ASK_EVERY` seconds."""
        if now - game.asked >= ASK_EVERY:
            game.asked = now
            self.acknowledge(game)

    def _setup_cleared(self, table: str, number: int) -> None:
        """The table cleared its retained setup (the hall stored the finished game whole): the
        hall's acknowledgement is cleared too, so the broker keeps nothing of a finished game."""
        game = self.games.get((table, number))
        if game is not None and game.result is not None and self.client is not None:
            self.client.publish(f"{self.prefix}/{table}/games/{number}/stored", b"", qos=1, retain=True)

    def _touch(self, game: Game) -> None:
        """``game`` is in use: the most recent of the hot games; the least recent beyond
        `HOT_GAMES` is closed (its store) and forgotten (its board, rebuilt when it comes back)."""
        key = (game.table, game.game)
        self._hot[key] = game
        self._hot.move_to_end(key)
        while len(self._hot) > HOT_GAMES:
            _, cold = self._hot.popitem(last=False)
            self._close(cold)

    def _cool(self, game: Game) -> None:
        self._hot.pop((game.table, game.game), None)
        self._close(game)

    @staticmethod
    def _close(game: Game) -> None:
        if game.store is not None:
            game.store.close()
            game.store = None
        game.board = None
        if game.result is not None:
            game.setup = {}  # kept in the index and the game's store; a finished game needs neither

    def _open(self, game: Game) -> Store:
        if game.store is None:
            game.store = Store(self.folder / "games" / game.table / str(game.game), TREKKING)
        self._touch(game)
        return game.store

    def _board(self, game: Game) -> Board:
        """The game's board as stored (rebuilt from its store after a restart, or once cooled)."""
        if game.board is None:
            stored = self._open(game).load(1)
            board = Board(stored.setup)
            for event in stored.events:
                board.push(event)
            game.board, game.rows = board, len(stored.rows)
        self._touch(game)
        return game.board

    def _past(self, game: Game) -> Any:
        """A finished game's replay, from its store once after a restart of the hall."""
        if game.past is None:
            hot = (game.table, game.game) in self._hot
            game.past = past_of(self._board(game), game.at)
            if not hot:
                self._cool(game)
        return game.past

    # --- what the page shows ------------------------------------------------------------------

    def record(self, table: str, number: int) -> str:
        """The game as the hall keeps it, as ``companion export`` writes a record."""
        with self.lock:
            game = self.games[(table, number)]
            hot = (table, number) in self._hot
            try:
                return self._open(game).export(1)
            finally:
                if not hot:
                    self._cool(game)

    def view(self) -> dict[str, Any]:
        """Tables live, finished games, standings across tables and problems (``/api/hall``)."""
        with self.lock:
            now = datetime.now(UTC)
            tables = []
            current_of: dict[str, Game] = {}  # each table's newest game, playing or not, in one pass
            for g in self.games.values():
                if g.table not in current_of or g.game > current_of[g.table].game:
                    current_of[g.table] = g
            for name in sorted(self.live):
                live = self.live[name]
                current = current_of.get(name)
                state = live.state or {}
                long = False
                over = current is not None and current.result is not None
                if current is not None and current.at and not over:
                    with contextlib.suppress(ValueError):  # a setup time that is none: not long
                        long = (now - datetime.fromisoformat(current.at)).total_seconds() > RUNNING_LONG
                tables.append({
                    "table": name, "online": live.online, "game": current.game if current else None,
                    "players": [{"name": p.get("name"), "total": p.get("total")} for p in
                                state.get("players", []) if isinstance(p, dict)][:8],
                    "turn": state.get("turn"), "day": state.get("day"), "finished": over,
                    "running_long": long, "events": current.seq if current else 0,
                    "forged": live.forged,
                })  # fmt: skip
            finished = [
                {"table": g.table, "game": g.game, "at": g.at, "result": g.result,
                 "agrees": g.claimed is None or g.claimed.get("players") == (g.result or {}).get("players")}
                for g in sorted(self.games.values(), key=lambda g: (g.at, g.table, g.game))
                if g.result is not None
            ]  # fmt: skip
            return {"tables": tables, "finished": finished, "standings": standings(finished),
                    "problems": list(self.problems), "counts": dict(self.counts)}  # fmt: skip

    def league_games(self) -> list[FinishedGame]:
        """Every finished game as the hall replayed it, oldest first (`companion.venue.league`)."""
        with self.lock:  # a board is only read under the lock that feeds it
            version = (self.counts["stored"], len(self.games))  # a finished game changes by a store
            if self._league is not None and self._league[0] == version:
                return self._league[1]
            pasts = [(g.table, g.game, g.at, self._past(g), g.assisted) for g in list(self.games.values())
                     if g.result is not None]  # fmt: skip
            games = ordered_games(pasts)
            self._league = (version, games)
            return games

    # --- the broker ---------------------------------------------------------------------------

    def connect(self, settings: VenueSettings, client_id: str = "") -> None:
        """Follow ``prefix/#`` on the broker: a persistent session at QoS 1, in the background."""
        from companion.venue.publisher import guarded, make_client

        host, port, _ = broker_address(settings.broker)
        client = make_client(settings, client_id or f"{self.prefix}-hall-{socket.gethostname()}", clean=False)
        client.reconnect_delay_set(1, 5)

        def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
            if reason.is_failure:
                self.log(say("venue_refused", broker=settings.broker, reason=str(reason)))
                return
            client.subscribe(f"{self.prefix}/#", qos=1)
            self.log(say("hall_following", broker=settings.broker, prefix=self.prefix))
            with self.lock:  # where each game stands, which the broker may have forgotten
                for game in self.games.values():
                    if game.result is None:
                        self.acknowledge(game)
                for live in self.live.values():  # each table's state says again what it has
                    live.checked = 0

        client.suppress_exceptions = True
        client.on_connect = guarded(on_connect, lambda words: self.log(words))
        client.on_message = lambda client, userdata, message: self.handle(  # never raises
            message.topic, bytes(message.payload)
        )
        self.client = client  # before the first connection: its callback acknowledges through it
        client.connect_async(host, port, keepalive=30)
        client.loop_start()

    def stop(self) -> None:
        """Disconnect (the broker keeps the session and queues what comes meanwhile) and close."""
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()
            self.client = None
        with self.lock:
            for game in self.games.values():
                self._close(game)
            self._hot.clear()
            self.index.commit()  # where the live lines stood (`_LINES`), kept with no commit of their own
            self.index.close()


def _committed(committed: Any) -> tuple[int, int] | None:
    """A state's ``committed`` (the table's last committed game and seq), or None when it says not."""
    game, seq = (committed.get("game"), committed.get("seq")) if isinstance(committed, dict) else (0, None)
    return (game, seq) if isinstance(game, int) and isinstance(seq, int) else None


def _state_order(message: dict[str, Any]) -> tuple[tuple[int, int], int] | None:
    """Where a state stands: ((committed game, seq), the table's clock), or None when it says not."""
    committed, at = _committed(message.get("committed")), message.get("at")
    return None if committed is None or not isinstance(at, int) else (committed, at)


def standings(finished: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every player across the tables' finished games: games, wins and points, best first."""
    rows: dict[str, dict[str, Any]] = {}
    for entry in finished:
        result = entry["result"] or {}
        for player in result.get("players", []):
            name = str(player.get("name"))
            row = rows.setdefault(name, {"name": name, "games": 0, "wins": 0, "points": 0})
            row["games"] += 1
            row["wins"] += name in result.get("winners", [])
            row["points"] += int(player.get("total", 0) or 0)
    return sorted(rows.values(), key=lambda r: (-r["wins"], -r["points"], r["name"]))
