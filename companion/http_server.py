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
- each live page holds a thread: `companion.web` caps them (in all and per
  address), and the pool has `SPARE_THREADS` more, so ``/`` and ``/api/state``
  are answered however many pages are open.
"""

from __future__ import annotations

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


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that counts against its address and must send each request promptly."""

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
        super().__init__(server, sock, addr, adj, map)
        self.request_started = time.monotonic()
        address = _address(addr)
        same = sum(1 for ch in list(server.active_channels.values()) if _address(ch.addr) == address)
        if same > PER_ADDRESS:
            self.will_close = True  # closed by the event loop before anything is read

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_started = time.monotonic()  # the first byte of a new request
        result: bool = super().received(data)
        return result


def _address(addr: Any) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)


def _maintenance(server: Any, original: Any) -> Any:
    """waitress's periodic sweep, plus: close connections whose request is overdue."""

    def sweep(now: float) -> None:
        original(now)
        overdue = time.monotonic() - REQUEST_SECONDS
        for channel in list(server.active_channels.values()):
            request = getattr(channel, "request", None)
            started = getattr(channel, "request_started", None)
            if request is not None and not request.completed and started is not None and started < overdue:
                channel.will_close = True

    return sweep


def create_guarded_server(app: Any, host: str, port: int, threads: int, **options: Any) -> Any:
    """A waitress server for ``app`` with the limits above (``options`` go to waitress)."""
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        connection_limit=CONNECTIONS,
        asyncore_use_poll=True,
        channel_timeout=IDLE_SECONDS,
        cleanup_interval=2,
        channel_request_lookahead=1,  # lets a live stream see that its page went away
        **options,
    )
    sockets = getattr(server, "map", None) or server._map
    for listener in list(sockets.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = GuardedChannel
            listener.maintenance = _maintenance(listener, listener.maintenance)
    return server
