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
- each live page holds a thread: `companion.web.live` caps them (in all and per
  address), and the pool has `SPARE_THREADS` more, so ``/`` and ``/api/state``
  are answered however many pages are open;
- a client that pipelines many requests and never reads the answers (90 connections
  of 150 ``GET /api/openapi.json`` each, in the audit of issue 16) made waitress queue
  every request and block one thread per connection on output nobody took, until no
  thread was left: a connection may have only `PIPELINED` requests queued (the last
  one kept is answered with ``Connection: close``, the rest dropped: browsers never
  pipeline) and 256 KiB of output unsent (``outbuf_high_watermark``, set by
  `companion.run.serving.make_server`: the thread writing more waits), and output no byte of
  which has been taken for `SEND_SECONDS` closes the connection, which frees that thread;
- every deadline here is on the monotonic clock: waitress schedules its sweep and
  times idle connections by the wall clock, so a clock stepped back (NTP at boot, a
  Pi without a real-time clock) stopped the sweep, and with it every deadline above.
"""

from __future__ import annotations

import math
import time
from typing import Any

from waitress import create_server
from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.server import BaseWSGIServer  # type: ignore[import-untyped]

#: Connections open at once, in all (waitress's default is 100).
CONNECTIONS = 600
#: Connections one address may hold (a phone's browser opens at most 6 to one host).
PER_ADDRESS = 24
#: Seconds a request may take to arrive, headers and body, from its first byte.
REQUEST_SECONDS = 10.0
#: Seconds an idle keep-alive connection is kept.
IDLE_SECONDS = 30
#: Threads beyond the live pages' cap: what answers everything else.
SPARE_THREADS = 16
#: Requests one connection may have queued ahead of their answers (HTTP pipelining).
PIPELINED = 4
#: Seconds a connection's unsent output may wait without the client taking a byte of it.
SEND_SECONDS = 10.0
#: Seconds between two sweeps of the connections (the deadlines above are checked then).
SWEEP_SECONDS = 1.0


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that counts against its address, must send each request promptly, may
    queue only a few, and must read its answers."""

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
        super().__init__(server, sock, addr, adj, map)
        now = time.monotonic()
        self.request_started = now
        #: The last byte read or sent (waitress's own ``last_activity`` is on the wall clock).
        self.active_at = now
        #: Since when the unsent output has waited without the client taking any of it.
        self.drained_at = now
        address = _address(addr)
        same = sum(1 for ch in list(server.active_channels.values()) if _address(ch.addr) == address)
        if same > PER_ADDRESS:
            self.will_close = True  # closed by the event loop before anything is read

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

    def write_soon(self, data: bytes) -> Any:
        if data and not self.total_outbufs_len:
            self.drained_at = time.monotonic()  # output starts waiting now
        return super().write_soon(data)

    def _flush_some(self, do_close: bool = True) -> bool:
        sent: bool = super()._flush_some(do_close)
        if sent:
            self.active_at = self.drained_at = time.monotonic()
        return sent


def _address(addr: Any) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)


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


def _monotonic_sweeps(server: Any) -> Any:
    """The listener's ``readable``, with its periodic sweep on the monotonic clock.

    waitress runs its ``maintenance`` from ``readable`` when the wall clock passes the
    next sweep's time: a clock stepped back an hour meant no sweep for an hour. Its own
    sweep is pushed to never; `sweep` runs every `SWEEP_SECONDS` of the monotonic clock."""
    original = server.readable
    next_sweep = 0.0

    def readable() -> bool:
        nonlocal next_sweep
        now = time.monotonic()
        if now >= next_sweep:
            next_sweep = now + SWEEP_SECONDS
            sweep(server, now)
        server.next_channel_cleanup = math.inf
        answer: bool = original()
        return answer

    return readable


def create_guarded_server(app: Any, host: str, port: int, threads: int, **options: Any) -> Any:
    """A waitress server for ``app`` with the limits above (``options`` go to waitress)."""
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
    for listener in list(sockets.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = GuardedChannel
            listener.readable = _monotonic_sweeps(listener)
    return server
