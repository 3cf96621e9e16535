"""Under waitress one thread writes every live page's updates (`companion.web.live_streams`):
each page still gets every change and its heartbeats, and the writer stops with the last page."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.daemon import free_port
from companion.run.serving import make_server
from companion.web.live_streams import chunk
from tests.support.tables import make_runtime

PAGES = 5


def until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def writers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "live-pages"]


def read_until(page: socket.socket, marker: bytes, received: bytes) -> bytes:
    while marker not in received:
        data = page.recv(65536)
        assert data, "the live stream closed"
        received += data
    return received


def test_one_writer_sends_every_page_each_change_and_heartbeats_then_stops(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    port = free_port()
    server = make_server(rt, "127.0.0.1", port, threads=PAGES + 4, heartbeat=0.3)
    threading.Thread(target=server.run, daemon=True).start()
    pages = []
    try:
        for k in range(PAGES):
            page = socket.create_connection(
                ("127.0.0.1", port), timeout=10, source_address=(f"127.0.2.{k + 1}", 0)
            )
            page.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = read_until(page, b"event: state", b"")
            assert b"Transfer-Encoding: chunked" in head
            pages.append((page, head))
        assert until(lambda: len(writers()) == 1), "one writer for every page"
        version = rt.table.version
        rt.tap(rt.table.expect()["choices"][0])
        assert rt.table.version != version
        wanted = f'"version":{rt.table.version},'.encode()
        for page, head in pages:
            received = read_until(page, wanted, head)
            # the writer frames each message as waitress frames what an app yields
            message = received[received.rindex(b"id: ") :]
            message = message[: message.index(b"\n\n") + 2]
            assert chunk(message) in received
            read_until(page, b": heartbeat", received[received.index(wanted) :])
        assert len(writers()) == 1
    finally:
        for page, _ in pages:
            page.close()
        rt.stop()
    assert until(lambda: not writers()), "the writer stops with the last page"
    server.close()
