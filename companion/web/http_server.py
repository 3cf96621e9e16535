"""The page's HTTP server: waitress, with limits that keep it answering under a flood.

waitress reads requests on one event loop and runs the app on a pool of threads.
What an audit showed, and the answer here:

- a request body is spooled to a temporary file (up to 1 GiB by default) before
  the app sees it: `max_request_body_size` is the app's own limit, so waitress
  answers 413 from the ``Content-Length`` header before reading anything, and
  stops a chunked body as soon as it passes the limit;
- by default waitress accepts 100 connections in all, so 99 connections sending
  their headers slowly stopped every answer: the limit is raised (with ``poll``
  instead of ``select``, which cannot watch more than 1,024 sockets), each
  address may hold only `PER_ADDRESS` connections, and a request must arrive
  whole within `REQUEST_SECONDS` of its first byte;
- a live page's connection leaves waitress once its first snapshot is written
  (`GuardedChannel.hand_over`): its thread is free again and the event loop no longer
  walks it on every pass (docs/benchmarks.md has the figure); it still counts against its
  address and the connection limit.
  `companion.web.live` caps the pages (in all and per address), and the pool has
  `SPARE_THREADS` threads, and `HELD_PAGES` more for the pages that cannot be handed over;
- a client that pipelines many requests and never reads the answers (90 connections
  of 150 ``GET /api/openapi.json`` each, in the audit of issue 16) made waitress queue
  every request and block one thread per connection on output nobody took, until no
  thread was left: a connection may have only `PIPELINED` requests queued (the last
  one kept is answered with ``Connection: close``, the rest dropped: browsers never
  pipeline) and 256 KiB of output unsent (``outbuf_high_watermark``, set by
  `companion.run.serving.make_server`: the thread writing more waits), and output no byte of
  which has been taken for `SEND_SECONDS` closes the connection, which frees that thread;
- the event loop's thread runs no application code: every request is answered by the pool,
  so a request that waits (the table's lock, a store write held by SQLite's busy timeout, a
  slow SD card) holds one pool thread, never every connection;
- every deadline here is on the monotonic clock: waitress schedules its sweep and
  times idle connections by the wall clock, so a clock stepped back (NTP at boot, a
  Pi without a real-time clock) stopped the sweep, and with it every deadline above.

waitress's private parts used here (the channel's buffers and locks for the hand-over and
`GuardedChannel.sending`, the listener's ``readable`` for the sweep) are listed in
tests/project/test_habits.py (``WAITRESS_PRIVATE``) and pinned in pyproject.toml; another
waitress series gets its plain channel (`fits`): no hand-over (each live page holds a pool
thread), waitress's own sweep, on the wall clock, and its loop's spin.
"""

from __future__ import annotations

import logging
import math
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from waitress import create_server
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.server import BaseWSGIServer  # type: ignore[import-untyped]

#: The waitress series this module's private uses were written for (pyproject.toml pins it).
WAITRESS_SERIES = (3, 0)

#: Connections open at once, in all (waitress's default is 100).
CONNECTIONS = 600
#: Connections one address may hold (a phone's browser opens at most 6 to one host).
PER_ADDRESS = 24
#: Seconds a request may take to arrive, headers and body, from its first byte.
REQUEST_SECONDS = 10.0
#: Seconds an idle keep-alive connection is kept.
IDLE_SECONDS = 30
#: Threads for everything but the live pages that hold one (`HELD_PAGES`).
SPARE_THREADS = 16
#: Live pages that may each hold a thread for as long as they last: those whose connection
#: cannot be handed over (HTTP/1.0, no chunks); every other page holds one only until its
#: first snapshot is out.
HELD_PAGES = 8
#: Requests one connection may have queued ahead of their answers (HTTP pipelining).
PIPELINED = 4
#: Seconds a connection's unsent output may wait without the client taking a byte of it.
SEND_SECONDS = 10.0
#: Seconds between two sweeps of the connections (the deadlines above are checked then).
SWEEP_SECONDS = 1.0


#: What takes a connection from waitress (`GuardedChannel.hand_over`): called once, on the
#: event loop's thread, with the socket (None if the connection closed before it could be
#: handed over), the output waitress had not sent yet and a function to call once the socket
#: is closed; returns a function that closes it (when the server closes).
Taker = Callable[[socket.socket | None, bytes, Callable[[], None]], Callable[[], None]]


class HandedOver:
    """The connections handed out of waitress (`GuardedChannel.hand_over`) and still open:
    they count against their address and the connection limit as if waitress held them.

    It also keeps the count of every address's connections, waitress's and these
    (`join`, `leave`): counting them by walking every connection at each accept cost
    O(connections) a connection."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open: dict[int, tuple[str, Callable[[], None]]] = {}  # key -> (address, close it)
        self.keys = 0
        #: Set by `close_all`: a connection whose taker answers later is closed then (`closer`).
        self.closing = False
        #: Connections open by address, waitress's and the ones handed out (absent: none).
        self.by_address: dict[str, int] = {}

    def join(self, address: str) -> int:
        """Count one more connection from ``address``; how many it holds now, this one included."""
        with self.lock:
            same = self.by_address[address] = self.by_address.get(address, 0) + 1
            return same

    def leave(self, address: str) -> None:
        """Count one connection from ``address`` fewer (it closed or left waitress)."""
        with self.lock:
            self._leave(address)

    def _leave(self, address: str) -> None:
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    def add(self, address: str, close: Callable[[], None]) -> int:
        with self.lock:
            self.keys += 1
            self.open[self.keys] = (address, close)
            self.by_address[address] = self.by_address.get(address, 0) + 1
            return self.keys

    def closer(self, key: int, close: Callable[[], None]) -> None:
        """What closes connection ``key``, known once its taker has it: called at once if the
        server began closing meanwhile (`close_all` came between `add` and this)."""
        with self.lock:
            if key not in self.open:
                return
            self.open[key] = (self.open[key][0], close)
            late = self.closing
        if late:
            close()

    def closed(self, key: int) -> None:
        with self.lock:
            found = self.open.pop(key, None)
            if found is not None:
                self._leave(found[0])

    def close_all(self) -> None:
        """Close every connection handed out (the server is closing: waitress closes its own)."""
        with self.lock:
            self.closing = True
            closers = [close for _, close in self.open.values()]
        for close in closers:
            close()


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that counts against its address, must send each request promptly, may
    queue only a few, and must read its answers."""

    #: Who takes the connection over (`hand_over`); None while waitress holds it.
    taker: Taker | None = None
    #: Set by `hand_over`: from then on waitress neither polls, writes to nor closes the socket.
    leaving = False
    #: The address this connection is counted against (`HandedOver.join`) until `del_channel`.
    counted: str | None = None

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
        super().__init__(server, sock, addr, adj, map)
        now = time.monotonic()
        self.request_started = now
        #: The last byte read or sent (waitress's own ``last_activity`` is on the wall clock).
        self.active_at = now
        #: Since when the unsent output has waited without the client taking any of it.
        self.drained_at = now
        handed: HandedOver = server.handed_over
        self.counted = address = _address(addr)
        if handed.join(address) > PER_ADDRESS:
            self.will_close = True  # closed by the event loop before anything is read

    def del_channel(self, map: Any = None) -> None:
        """Out of waitress's connections: no longer counted against its address (a connection
        handed over is counted again by `HandedOver.add`)."""
        super().del_channel(map)
        address, self.counted = self.counted, None
        if address is not None:
            self.server.handed_over.leave(address)

    def handle_read(self) -> None:
        self.active_at = time.monotonic()
        super().handle_read()

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_started = time.monotonic()  # the first byte of a new request
        result: bool = super().received(data)
        with self.requests_lock:
            if len(self.requests) > PIPELINED:  # one read held many requests: keep the first few
                for dropped in self.requests[PIPELINED:]:
                    dropped.close()
                del self.requests[PIPELINED:]
                # not in service yet (only the first is): its answer closes the connection
                self.requests[-1].headers["CONNECTION"] = "close"
        return result

    def hand_over(self, taker: Taker) -> bool:
        """Give this connection to ``taker`` once waitress has let go of it: the response's
        thread may return at once (what waitress would write after it is dropped: the taker
        writes the rest of the response, its end included). False if the connection is
        closing or gone (nothing is handed over then).

        waitress lets go on its event loop's thread, before a pass registers any connection
        (`_loop_hooks`): the socket is never in a poll of waitress's while another owns it."""
        with self.requests_lock:
            if not self.connected or self.will_close or self.leaving:
                return False
            self.taker, self.leaving = taker, True
        leaving: list[GuardedChannel] = self.server.leaving
        leaving.append(self)
        self.server.pull_trigger()
        return True

    def readable(self) -> bool:
        return not self.leaving and bool(super().readable())

    def writable(self) -> bool:
        return not self.leaving and bool(super().writable()) and not self.sending()

    def sending(self) -> bool:
        """Whether a request's thread is sending its answer itself (in `write_soon`, holding
        the output's lock): the event loop could send none of it then.

        waitress's loop flushes a connection with a request running only if it takes the
        output's lock without waiting; polled for writing meanwhile, the socket is writable at
        once, so the loop spun, pass after pass, until the thread let go: about 50 passes
        per answer, and the thread waited for the interpreter's lock behind them (docs/benchmarks.md
        has the figures). The thread leaves the lock with output unsent only for the loop (a full
        socket, past the high-water mark), and wakes it then (`write_soon`)."""
        if not self.requests or not self.outbuf_lock.acquire(blocking=False):
            return bool(self.requests)
        self.outbuf_lock.release()
        return False

    def handle_close(self) -> None:
        if self.leaving:  # the taker closes the socket (it sees the page gone itself)
            self.connected = False
            self.del_channel()
            return
        super().handle_close()

    def close(self) -> None:
        if self.leaving:
            self.connected = False
            self.del_channel()
            return
        super().close()

    def write_soon(self, data: bytes) -> Any:
        if self.leaving:  # handed over: the response goes on on the taker's side
            return len(data)
        if data and not self.total_outbufs_len:
            self.drained_at = time.monotonic()  # output starts waiting now
        written = super().write_soon(data)
        if self.total_outbufs_len:  # output left for the loop, which skipped us while we sent (`sending`)
            self.server.pull_trigger()
        return written

    def _flush_some(self, do_close: bool = True) -> bool:
        sent: bool = super()._flush_some(do_close)
        if sent:
            self.active_at = self.drained_at = time.monotonic()
        return sent


def _address(addr: Any) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)


def _nothing() -> None:
    pass


def _let_go(listener: Any, channel: GuardedChannel) -> None:
    """Take ``channel`` out of waitress (on the event loop's thread) and give its socket and
    unsent output to its taker."""
    with channel.outbuf_lock:
        pending = b"".join(outbuf.get() for outbuf in channel.outbufs)
        for outbuf in channel.outbufs:
            outbuf.close()
        channel.outbufs, channel.total_outbufs_len = [], 0
        channel.connected = False
    sock, address = channel.socket, _address(channel.addr)
    channel.del_channel()
    channel.socket = None
    taker, channel.taker = channel.taker, None
    if taker is None:
        return
    if sock is None:  # waitress closed it (the page went away) as it was being handed over
        taker(None, b"", _nothing)
        return
    handed: HandedOver = listener.handed_over
    key = handed.add(address, lambda: None)
    try:
        close = taker(sock, pending, lambda: handed.closed(key))
    except Exception:  # never out of the event loop: that would stop the server
        listener.logger.exception("live page not handed over")
        handed.closed(key)
        sock.close()
        return
    handed.closer(key, close)


def sweep(server: Any, now: float) -> None:
    """Close the connections past a deadline (``now`` is `time.monotonic`): a request not
    received whole in time, output not read in time, or idle past `IDLE_SECONDS`."""
    for channel in list(server.active_channels.values()):
        if not isinstance(channel, GuardedChannel):
            continue
        request = channel.request
        if request is not None and not request.completed and channel.request_started < now - REQUEST_SECONDS:
            channel.will_close = True
        elif channel.total_outbufs_len and channel.drained_at < now - SEND_SECONDS:
            channel.will_close = True  # the event loop closes it, which wakes a thread blocked on it
        elif not channel.requests and channel.active_at < now - IDLE_SECONDS:
            channel.will_close = True


def _loop_hooks(server: Any) -> Any:
    """The listener's ``readable`` (called by the event loop at the start of each pass), with
    its periodic sweep on the monotonic clock, the hand-overs, and the connections handed
    over counted against the connection limit.

    waitress runs its ``maintenance`` from ``readable`` when the wall clock passes the
    next sweep's time: a clock stepped back an hour meant no sweep for an hour. Its own
    sweep is pushed to never; `sweep` runs every `SWEEP_SECONDS` of the monotonic clock.
    The listeners come before any connection in the loop's map, so a connection let go
    here is not in this pass's poll, nor in any later one."""
    original = server.readable
    next_sweep = 0.0
    server.leaving, server.handed_over = [], HandedOver()

    def readable() -> bool:
        nonlocal next_sweep
        while server.leaving:
            _let_go(server, server.leaving.pop(0))
        now = time.monotonic()
        if now >= next_sweep:
            next_sweep = now + SWEEP_SECONDS
            sweep(server, now)
        server.next_channel_cleanup = math.inf
        answer: bool = original()
        handed = len(server.handed_over.open)
        return answer and not (handed and len(server._map) + handed >= server.adj.connection_limit)

    return readable


def fits(version: str) -> bool:
    """Whether waitress ``version`` is the series whose private parts this module uses
    (`WAITRESS_SERIES`): another gets waitress's plain channel and sweep."""
    parts = version.split(".")
    return len(parts) >= 2 and (parts[0], parts[1]) == tuple(map(str, WAITRESS_SERIES))


def create_guarded_server(app: Any, host: str, port: int, threads: int, **options: Any) -> Any:
    """A waitress server for ``app`` with the limits above (``options`` go to waitress). No
    proxy is trusted: waitress takes the headers a proxy sets out of every request (its
    default ``clear_untrusted_proxy_headers``), so no client can claim another address with them."""
    from importlib.metadata import version

    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        connection_limit=CONNECTIONS,
        asyncore_use_poll=True,
        channel_timeout=IDLE_SECONDS,  # what `sweep` applies, on the monotonic clock
        channel_request_lookahead=1,  # lets a live stream see that its page went away
        **options,
    )
    installed = version("waitress")
    if not fits(installed):
        logging.getLogger(__name__).warning(
            "waitress %s is not the %s series: live pages hold a thread each, and idle "
            "connections are timed by the wall clock",
            installed,
            ".".join(map(str, WAITRESS_SERIES)),
        )
        return server
    sockets = getattr(server, "map", None) or server._map
    listeners = [listener for listener in list(sockets.values()) if isinstance(listener, BaseWSGIServer)]
    for listener in listeners:
        listener.channel_class = GuardedChannel
        listener.readable = _loop_hooks(listener)
    close = server.close

    def close_all() -> Any:  # waitress closes what it holds; the connections handed out too
        answer = close()
        for listener in listeners:
            listener.handed_over.close_all()
            for channel in listener.leaving:  # asked to leave, never let go: the loop stopped
                if channel.socket is not None:
                    channel.socket.close()
                    channel.socket = None
                if channel.taker is not None:
                    channel.taker(None, b"", _nothing)
                    channel.taker = None
        return answer

    server.close = close_all
    return server
