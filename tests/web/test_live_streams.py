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
from companion.web.live_streams import BACKLOG, Page, chunk
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


class Channel:
    """What `Page.write` uses of a waitress connection: a socket that takes ``room`` bytes at
    most, and waitress's buffered write for the rest."""

    def __init__(self, room: int, waiting: bytes = b"") -> None:
        self.room, self.sent, self.buffered = room, b"", waiting
        self.connected, self.will_close = True, False
        self.outbuf_lock = threading.Condition()
        self.active_at = self.drained_at = 0.0

    @property
    def total_outbufs_len(self) -> int:
        return len(self.buffered)

    def send(self, data: bytes, do_close: bool = True) -> int:
        taken = data[: self.room]
        self.sent += taken
        self.room -= len(taken)
        return len(taken)

    def write_soon(self, data: bytes) -> int:
        self.buffered += data
        return len(data)


def test_a_chunk_goes_straight_to_the_socket_and_only_the_rest_through_waitress() -> None:
    framed = chunk(b"data: x\n\n" * 50)
    whole = Channel(room=1 << 20)
    assert Page(whole, "", 0.0).write(framed)
    assert whole.sent == framed and whole.buffered == b""
    part = Channel(room=100)  # the socket's buffer is full after 100 bytes
    assert Page(part, "", 0.0).write(framed)
    assert part.sent + part.buffered == framed and len(part.sent) == 100
    # output already waiting: the chunk goes after it, through waitress, never ahead of it
    behind = Channel(room=1 << 20, waiting=b"earlier")
    assert Page(behind, "", 0.0).write(framed)
    assert behind.sent == b"" and behind.buffered == b"earlier" + framed
    # a page still draining a backlog is skipped (it gets the latest snapshot later)
    full = Channel(room=0, waiting=b"x" * (BACKLOG + 1))
    assert not Page(full, "", 0.0).write(framed)
    assert full.buffered == b"x" * (BACKLOG + 1)


class StillTable:
    """The runtime's side the broadcaster reads: one snapshot that never changes."""

    def page_text(self) -> tuple[int, str]:
        return 1, '{"version":1}'

    def wait_for_change(self, version: int, timeout: float) -> int:
        time.sleep(min(timeout, 0.05))
        return 1


def test_the_broadcaster_wakes_a_page_thread_once_its_page_is_gone() -> None:
    from typing import Any

    from companion.web.live_streams import Broadcaster, SseMessages

    runtime: Any = StillTable()
    broadcaster = Broadcaster(runtime, SseMessages(), "boot", interval=0.01, heartbeat=15.0)
    channel = Channel(room=1 << 20)
    page = broadcaster.add(channel, "")
    assert until(lambda: b"boot-1" in channel.sent), "the page got the snapshot"
    held = threading.Thread(target=broadcaster.wait_until_gone, args=(page, lambda: False))
    held.start()
    held.join(0.2)
    assert held.is_alive(), "the page's thread waits while its page is there"
    channel.connected = False  # the page went away (waitress saw its connection close)
    held.join(10.0)
    assert not held.is_alive(), "the broadcaster woke it: it never had to ask itself"
    broadcaster.remove(page)
    assert until(lambda: broadcaster.thread is None), "the broadcaster stops with the last page"
