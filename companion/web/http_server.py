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
  walks it on every pass (at 20 pages the loop's thread took 2.0 ms a step instead of
  1.5, issue 26); it still counts against its address and the connection limit.
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
- per request (issue 26): each address's connections are counted as they open and close
  (`HandedOver.join`), a response's head goes out in its body's ``send`` (`OneSendTask`),
  the event loop does not wake itself after a request it answered (`_woken_from_elsewhere`),
  and a request that came with its connection is read in the pass that accepted it;
- every deadline here is on the monotonic clock: waitress schedules its sweep and
  times idle connections by the wall clock, so a clock stepped back (NTP at boot, a
  Pi without a real-time clock) stopped the sweep, and with it every deadline above.
"""

from __future__ import annotations

import errno
import math
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from waitress import create_server
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.server import BaseWSGIServer  # type: ignore[import-untyped]
from waitress.task import WSGITask  # type: ignore[import-untyped]

from companion.web.kept_heads import KeptAnswerHeads, KeptEnvironments, KeptHeads

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
    O(connections) a connection (issue 26)."""

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


class OneSendTask(KeptEnvironments, KeptAnswerHeads, WSGITask):  # type: ignore[misc]
    """waitress's task, writing a response's head with the first piece of its body: one
    ``send`` (and one segment to the client) instead of two. Each loopback ``send`` also
    delivers to the receiver in the sender's CPU time: the page's read and the tap each paid
    for two (issue 26). The bytes on the wire are the same."""

    def write(self, data: bytes) -> None:
        channel: GuardedChannel = self.channel
        if self.wrote_header or not data:
            super().write(data)
            return
        channel.holding = True  # `GuardedChannel.write_soon` keeps the head for the body's write
        try:
            super().write(data)
        finally:
            channel.holding = False
            head, channel.head = channel.head, b""
        if head:  # no body went out after all (a HEAD request, a 204, a 304)
            channel.write_soon(head)


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that counts against its address, must send each request promptly, may
    queue only a few, and must read its answers."""

    #: Who takes the connection over (`hand_over`); None while waitress holds it.
    taker: Taker | None = None
    #: Set by `hand_over`: from then on waitress neither polls, writes to nor closes the socket.
    leaving = False
    #: The address this connection is counted against (`HandedOver.join`) until `del_channel`.
    counted: str | None = None
    task_class = OneSendTask
    #: waitress's parser, a head read once kept for the next identical one (`KeptHeads`).
    parser_class = KeptHeads
    #: Set by `OneSendTask.write` while it writes a response's head and its first piece of body.
    holding = False
    #: The response's head, kept by `write_soon` to go out with the body's first piece.
    head = b""

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
        elif _has_input(sock):
            # the request came with the connection (most do): read it now, not in the loop's
            # next pass (a poll of every connection, issue 26)
            self.handle_read()

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

    #: True while `received` parses on the event loop's thread (`_serve_here` asks it).
    receiving = False
    #: Set by `_serve_here`: the request just received is answered here, not by the pool
    #: (True, or what gives back what its answer holds once it is answered: `Inline`).
    serve_here: bool | Callable[[], None] = False

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_started = time.monotonic()  # the first byte of a new request
        self.receiving = True
        try:
            result: bool = super().received(data)
            with self.requests_lock:
                if len(self.requests) > PIPELINED:  # one read held many requests: keep the first few
                    for dropped in self.requests[PIPELINED:]:
                        dropped.close()
                    del self.requests[PIPELINED:]
                    # not in service yet (only the first is): its answer closes the connection
                    self.requests[-1].headers["CONNECTION"] = "close"
        except BaseException:
            _give_back(self.serve_here)  # never kept by the loop's thread past this call
            self.serve_here = False
            raise
        finally:
            self.receiving = False
        held, self.serve_here = self.serve_here, False
        if held:  # outside the requests' lock, which waitress's service takes
            try:
                self.service()
            finally:
                _give_back(held)
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
        return not self.leaving and bool(super().writable())

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
        if self.holding:  # `OneSendTask.write`: the head waits for the body's first piece
            if not self.head:
                self.head = data
                return len(data)
            data, self.head = self.head + data, b""
        if data.__class__ is bytes and data and not self.total_outbufs_len:
            sent = self._send_now(data)
            if sent == len(data):
                return sent
            if sent:  # the rest waits in waitress's buffers, as all of it would have
                super().write_soon(data[sent:])
                return len(data)
        if data and not self.total_outbufs_len:
            self.drained_at = time.monotonic()  # output starts waiting now
        return super().write_soon(data)

    def _send_now(self, data: bytes) -> int:
        """Send ``data`` at once when nothing waits before it, in pieces of ``sendbuf_len`` as
        waitress's flush sends them; how much the socket took. Putting an answer in waitress's
        buffers to take it out again in the same call (append, get, skip, the buffer's
        bookkeeping) cost as much as the send itself (issue 26); what the socket does not take,
        or a connection that failed, goes to waitress's own path (`write_soon`)."""
        sent = 0
        with self.outbuf_lock:
            if self.total_outbufs_len or not self.connected:
                return 0
            try:
                while sent < len(data):
                    took: int = self.send(data[sent : sent + self.sendbuf_len], do_close=False)
                    if not took:
                        break
                    sent += took
            except OSError:  # waitress's path meets it again, and answers it its way
                pass
            if sent:
                self.active_at = self.drained_at = time.monotonic()
                self.last_activity = time.time()
        return sent

    def _flush_some(self, do_close: bool = True) -> bool:
        sent: bool = super()._flush_some(do_close)
        if sent:
            self.active_at = self.drained_at = time.monotonic()
        return sent


def _give_back(held: bool | Callable[[], None]) -> None:
    """Let go of what an answer on the loop's thread held (`Inline`), if anything."""
    if callable(held):
        held()


def _has_input(sock: socket.socket) -> bool:
    """Whether ``sock`` has something to read (or its end) right now."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


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


def _quick_accept(listener: Any) -> Callable[[], tuple[socket.socket, Any] | None]:
    """The listener's ``accept`` (wasyncore's: a connection and its address, None if there was
    none after all), without the standard library's conversion of the listener's family and type
    to enums at every connection: the same socket, made from the same numbers (issue 26)."""
    sock: socket.socket = listener.socket
    family, kind, proto = int(sock.family), int(sock.type), sock.proto
    quiet = (errno.EWOULDBLOCK, errno.ECONNABORTED, errno.EAGAIN)

    def accept() -> tuple[socket.socket, Any] | None:
        try:
            fd, addr = sock._accept()  # type: ignore[attr-defined]
        except OSError as why:
            if why.args[0] in quiet:
                return None
            raise
        conn = socket.socket(family, kind, proto, fileno=fd)
        if socket.getdefaulttimeout() is None and sock.gettimeout():
            conn.setblocking(True)
        return conn, addr

    return accept


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
    server.pull_trigger = _woken_from_elsewhere(server)

    def readable() -> bool:
        nonlocal next_sweep
        server.loop_thread = threading.get_ident()
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


def _woken_from_elsewhere(server: Any) -> Callable[[], None]:
    """The listener's ``pull_trigger``, which wakes the event loop, doing nothing when the
    loop's own thread calls it: waitress calls it at the end of every request's service,
    and for a request answered on the loop's thread (`_serve_here`) that cost a write to the
    trigger's pipe, a pass of the loop and a read, for nothing: the loop has not polled yet,
    and its next poll asks every connection what it waits for (issue 26)."""
    pull = server.pull_trigger

    def pull_trigger() -> None:
        if threading.get_ident() != getattr(server, "loop_thread", None):
            pull()

    return pull_trigger


#: Which requests the event loop's thread answers itself (`_serve_here`), asked with a whole
#: request's method, path and headers (waitress's: their names in upper case, ``_`` for ``-``):
#: False for the pool, True to answer it here, or a function to call on the loop's thread once
#: it is answered: the request needed a lock, taken at once (never waited for), given back then.
Inline = Callable[[str, str, dict[str, str]], bool | Callable[[], None]]


def _serve_here(listener: Any, inline: Inline) -> Callable[[Any], None]:
    """The listener's ``add_task``: a request ``inline`` names, received with nothing queued
    or unsent on its connection, is answered on the event loop's thread (`GuardedChannel.received`
    calls waitress's own ``service``); every other goes to the pool as before.

    Handing a request to a pool thread and back costs more CPU than answering one that needs
    no lock and no disk: two thread wake-ups and a pass of the loop woken by waitress's
    trigger, about a third of ``GET /api/state``'s CPU on the reference PC (issue 26). Only such
    requests are named (or one whose lock ``inline`` could take at once): a slow answer here
    would hold every connection."""
    pool = listener.add_task

    def add_task(channel: Any) -> None:
        requests = channel.requests
        if (
            getattr(channel, "receiving", False)  # not a pipelined one queued by a pool thread
            and len(requests) == 1
            and not channel.total_outbufs_len  # nothing to wait for: the answer goes out now
            and not requests[0].error
        ):
            request = requests[0]
            held = inline(request.command, request.path, request.headers)  # last: it may take a lock
            if held is not False:
                channel.serve_here = held
                return
        pool(channel)

    return add_task


#: The headers a proxy sets (waitress's ``PROXY_HEADERS``), as they appear in a WSGI environ.
PROXY_HEADERS = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_BY",
    "HTTP_FORWARDED",
)


def _without_proxy_headers(app: Any) -> Any:
    """``app``, never shown the headers a proxy sets: what waitress's proxy middleware does when
    no proxy is trusted (the client could claim any address or scheme with them)."""

    def without_proxy_headers(environ: dict[str, Any], start_response: Any) -> Any:
        for name in PROXY_HEADERS:
            environ.pop(name, None)
        return app(environ, start_response)

    return without_proxy_headers


def create_guarded_server(
    app: Any, host: str, port: int, threads: int, inline: Inline | None = None, **options: Any
) -> Any:
    """A waitress server for ``app`` with the limits above (``options`` go to waitress); the
    requests ``inline`` names are answered on the event loop's thread (`Inline`)."""
    if "trusted_proxy" not in options and "clear_untrusted_proxy_headers" not in options:
        # No proxy is trusted: waitress's proxy middleware would only take these headers
        # out of every request; `_without_proxy_headers` does that for a fifth of its CPU.
        app, options["clear_untrusted_proxy_headers"] = _without_proxy_headers(app), False
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
    sockets = getattr(server, "map", None) or server._map
    listeners = [listener for listener in list(sockets.values()) if isinstance(listener, BaseWSGIServer)]
    for listener in listeners:
        listener.channel_class = GuardedChannel
        listener.readable = _loop_hooks(listener)
        listener.accept = _quick_accept(listener)
        if inline is not None:
            listener.add_task = _serve_here(listener, inline)
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
