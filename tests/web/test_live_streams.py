"""Under waitress a live page's connection is handed to one writer for every page once its
first snapshot is out (`companion.web.live_streams`): each page still gets every change and
its heartbeats, its server thread is free, waitress's event loop no longer holds it, it still
counts against its address, and a page that leaves frees everything."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.run.serving import make_server
from companion.util.config import Config, TableSettings
from companion.web import app as web_app
from companion.web import http_server
from companion.web.live_streams import BACKLOG, LAST_CHUNK, Broadcaster, Page, SseMessages, chunk
from tests.support.daemon import free_port
from tests.support.tables import FAST_BUTTONS, make_runtime
from tests.support.wire import wait_for

PAGES = 5


def writers(before: set[threading.Thread]) -> list[threading.Thread]:
    """The live pages' writers started since ``before`` (the threads then): this test's own, not a
    neighbour's still stopping."""
    return [t for t in threading.enumerate() if t.name == "live-pages" and t not in before]


def stopped(broadcaster: Broadcaster) -> bool:
    """``broadcaster``'s writer and watcher are not running."""
    return broadcaster.thread is None and broadcaster.watcher is None


def open_page(port: int, address: str) -> tuple[socket.socket, bytes]:
    """A live page from ``address``: its socket and what it read up to its first snapshot."""
    page = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0))
    page.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return page, read_until(page, b"event: state", b"")


def read_until(page: socket.socket, marker: bytes, received: bytes) -> bytes:
    while marker not in received:
        data = page.recv(65536)
        assert data, "the live stream closed"
        received += data
    return received


def test_one_writer_sends_every_page_each_change_and_heartbeats_then_stops(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    port = free_port()
    before = set(threading.enumerate())
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
        assert wait_for(lambda: len(writers(before)) == 1), "one writer for every page"
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
        assert len(writers(before)) == 1
    finally:
        for page, _ in pages:
            page.close()
        rt.stop()
    assert wait_for(lambda: not writers(before)), "the writer stops with the last page"
    server.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Callable[..., tuple[Any, Any, int]]]:
    """A mock table served by waitress: (server, runtime, port); closed after the test."""
    made: list[tuple[Any, Any]] = []

    def serve(config: Config | None = None, threads: int = PAGES + 4) -> tuple[Any, Any, int]:
        rt = make_runtime(tmp_path, config=config)
        port = free_port()
        server = make_server(rt, "127.0.0.1", port, threads=threads)
        threading.Thread(target=server.run, daemon=True).start()
        made.append((server, rt))
        return server, rt, port

    yield serve
    for server, rt in made:
        server.close()
        rt.stop()


def test_a_page_handed_over_frees_its_thread_and_leaves_waitress_event_loop(served: Any) -> None:
    server, rt, port = served()
    loop_before = len(server._map)  # the listener and waitress's trigger
    pages = [open_page(port, f"127.0.2.{k + 1}")[0] for k in range(PAGES)]
    try:
        # each page held a server thread and was walked on every pass of the event loop
        assert wait_for(lambda: server.task_dispatcher.active_count == 0), "no thread holds a page"
        assert wait_for(lambda: len(server._map) == loop_before), "the event loop no longer holds the pages"
        assert len(server.handed_over.open) == PAGES
        # the threads answer everything else, and the pages still get every change
        status = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        status.request("GET", "/api/state")
        assert status.getresponse().status == 200
        rt.tap(rt.table.expect()["choices"][0])
        wanted = f'"version":{rt.table.version},'.encode()
        for page in pages:
            read_until(page, wanted, b"")
    finally:
        for page in pages:
            page.close()


def test_a_page_that_leaves_frees_its_socket_slot_and_the_threads(served: Any, monkeypatch: Any) -> None:
    """What this server's broadcaster holds for its pages (their server-side sockets, its
    selector, its two threads) is let go once they leave: this test's own resources, never the
    whole process's (a neighbour's server may still be closing its own)."""
    made: list[Broadcaster] = []

    class Recorded(Broadcaster):  # the app's broadcaster, kept where the test can see it
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(web_app, "Broadcaster", Recorded)
    server, _, port = served()
    (broadcaster,) = made
    pages = [open_page(port, f"127.0.2.{k + 1}")[0] for k in range(PAGES)]
    # a page is counted as handed over a moment before the broadcaster holds it
    assert wait_for(lambda: len(server.handed_over.open) == PAGES and len(broadcaster.pages) == PAGES)
    held = list(broadcaster.pages.values())  # each page's end in the server
    selector, threads = broadcaster.selector, [broadcaster.thread, broadcaster.watcher]
    assert len(held) == PAGES and all(page.sock.fileno() != -1 for page in held)
    assert selector is not None and selector.get_map() is not None
    assert all(thread is not None and thread.is_alive() for thread in threads)
    for page in pages:
        page.close()
    assert wait_for(lambda: all(page.sock.fileno() == -1 for page in held)), "every page's socket closed"
    assert wait_for(lambda: selector.get_map() is None), "the broadcaster's selector closed"
    assert wait_for(lambda: not any(thread and thread.is_alive() for thread in threads)), (
        "the broadcaster's threads stop with the last page"
    )
    assert stopped(broadcaster) and broadcaster.pages == {} and broadcaster.selector is None
    assert not server.handed_over.open and server.stream_slots.by_address == {}


def test_a_page_handed_over_keeps_its_slot_and_counts_against_its_address(
    served: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(http_server, "PER_ADDRESS", 3)
    server, _, port = served(Config(table=TableSettings(live_pages_per_address=2), buttons=FAST_BUTTONS))
    pages = [open_page(port, "127.0.2.1")[0] for _ in range(2)]
    try:
        assert wait_for(lambda: len(server.handed_over.open) == 2)
        third = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.2.1", 0))
        third.request("GET", "/api/events")
        assert third.getresponse().status == 503, "the pages handed over still hold their slots"
        third.close()
        more = [
            socket.create_connection(("127.0.0.1", port), source_address=("127.0.2.1", 0)) for _ in range(3)
        ]
        # 2 pages + 2 connections are the address's 4th: past PER_ADDRESS (3) the next is closed
        more[-1].settimeout(10)
        assert more[-1].recv(1) == b"", "the pages count against their address"
        for sock in more:
            sock.close()
    finally:
        for page in pages:
            page.close()


def test_closing_the_server_ends_each_page_response(served: Any) -> None:
    server, _, port = served()
    page, received = open_page(port, "127.0.2.1")
    assert wait_for(lambda: len(server.handed_over.open) == 1)
    server.close()
    while not received.endswith(LAST_CHUNK):  # waitress's end of a chunked response, then the close
        data = page.recv(65536)
        assert data, "closed without the response's last chunk"
        received += data
    assert page.recv(1) == b""
    page.close()


def test_a_chunk_goes_straight_to_the_socket_and_waits_only_for_room() -> None:
    framed = chunk(b"data: x\n\n" * 50)
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    page = Page(ours, "", 0.0)
    assert page.write(framed, 1.0)
    assert not page.pending and theirs.recv(65536) == framed
    # output already waiting: the chunk goes after it, never ahead of it
    page.pending += b"earlier"
    assert page.write(framed, 2.0)
    assert page.pending == b"earlier" + framed and page.drained_at == 0.0
    page.flush(3.0)
    assert not page.pending and page.drained_at == 3.0
    assert theirs.recv(65536) == b"earlier" + framed
    # a page still draining a backlog is skipped (it gets the latest snapshot later)
    page.pending += b"x" * (BACKLOG + 1)
    assert not page.write(framed, 4.0)
    assert page.pending == b"x" * (BACKLOG + 1)
    ours.close()
    theirs.close()


def test_a_chunk_the_socket_does_not_take_whole_waits_from_then() -> None:
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    ours.setblocking(False)
    framed = chunk(b"y" * 1_000_000)
    page = Page(ours, "", 0.0)
    assert page.write(framed, 5.0)
    assert 0 < len(page.pending) < len(framed) and page.drained_at == 5.0
    taken = len(framed) - len(page.pending)
    assert framed.endswith(bytes(page.pending)) and taken > 0
    ours.close()
    theirs.close()


class Versions:
    """The runtime's side the broadcaster reads: a snapshot of ``size`` bytes, a new version
    at each `bump`."""

    def __init__(self, size: int = 10) -> None:
        self.version, self.size = 1, size
        self.changed = threading.Condition()

    def page_text(self) -> tuple[int, str]:
        return self.version, f'{{"version":{self.version},"pad":"{"p" * self.size}"}}'

    def bump(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def wait_for_change(self, version: int, timeout: float) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.version != version, timeout)
            return self.version


def test_the_broadcaster_closes_a_page_as_soon_as_it_goes_away() -> None:
    runtime: Any = Versions()
    broadcaster = Broadcaster(runtime, SseMessages(), "boot", interval=0.01, heartbeat=15.0)
    ours, theirs = socket.socketpair()
    closed = threading.Event()
    page = broadcaster.add(ours, "", on_close=closed.set)
    assert read_until(theirs, b"boot-1", b""), "the page got the snapshot"
    assert not closed.wait(0.2), "it is held while its page is there"
    theirs.close()  # the page went away
    assert closed.wait(10.0) and page.closed and ours.fileno() == -1
    assert wait_for(lambda: broadcaster.thread is None and broadcaster.watcher is None)
    assert broadcaster.selector is None, "the selector is closed with the last page"


def test_a_page_that_takes_nothing_is_closed_after_send_seconds(monkeypatch: Any) -> None:
    monkeypatch.setattr(http_server, "SEND_SECONDS", 0.3)
    runtime: Any = Versions(size=400_000)
    broadcaster = Broadcaster(runtime, SseMessages(), "boot", interval=0.01, heartbeat=15.0)
    ours, theirs = socket.socketpair()
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    closed = threading.Event()
    page = broadcaster.add(ours, "", on_close=closed.set)
    assert wait_for(lambda: bool(page.pending) or closed.is_set()), "the page's output waits"
    assert closed.wait(10.0), "the page that never reads is closed"
    theirs.close()
    assert wait_for(lambda: broadcaster.thread is None and broadcaster.watcher is None)


class Leaving:
    """A waitress connection that waitress closed (its page went away) while it was being
    handed over: what `_let_go` reads of it."""

    def __init__(self, taker: Any) -> None:
        self.outbuf_lock = threading.Condition()
        self.outbufs: list[Any] = []
        self.total_outbufs_len, self.connected = 0, True
        self.socket, self.addr, self.taker = None, ("127.0.2.1", 5000), taker

    def del_channel(self) -> None:
        pass


def test_a_page_gone_while_it_is_handed_over_gives_its_slot_back() -> None:
    runtime: Any = Versions()
    broadcaster = Broadcaster(runtime, SseMessages(), "boot", interval=0.01, heartbeat=15.0)
    given_back = threading.Event()
    listener: Any = type("Listener", (), {"handed_over": http_server.HandedOver()})()
    http_server._let_go(listener, Leaving(broadcaster.take("boot-1", given_back.set)))
    assert given_back.is_set(), "the slot is given back"
    assert not listener.handed_over.open and stopped(broadcaster) and broadcaster.selector is None


class FailsOnce(Versions):
    """A table whose snapshot fails once (a bug, a disk error) before it works again."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def page_text(self) -> tuple[int, str]:
        if not self.failed:
            self.failed = True
            raise RuntimeError("the snapshot failed")
        return super().page_text()


def test_a_snapshot_that_fails_once_does_not_stop_the_writer(caplog: Any) -> None:
    runtime: Any = FailsOnce()
    broadcaster = Broadcaster(runtime, SseMessages(), "boot", interval=0.01, heartbeat=15.0)
    ours, theirs = socket.socketpair()
    theirs.settimeout(10)
    closed = threading.Event()
    broadcaster.add(ours, "", on_close=closed.set)
    assert read_until(theirs, b"boot-1", b""), "the writer tried again and the page got it"
    assert runtime.failed and "the snapshot failed" in caplog.text
    runtime.bump()
    assert read_until(theirs, b"boot-2", b"")
    theirs.close()
    assert closed.wait(10.0)


def recount(server: Any) -> dict[str, int]:
    """Every address's connections counted the slow way: waitress's and those handed over."""
    counts: dict[str, int] = {}
    channels = list(server.active_channels.values())
    handed = [address for address, _ in list(server.handed_over.open.values())]
    for address in [http_server._address(ch.addr) for ch in channels] + handed:
        counts[address] = counts.get(address, 0) + 1
    return counts


def test_each_address_s_count_follows_every_connection_opened_answered_handed_over_and_closed(
    served: Any, monkeypatch: Any
) -> None:
    """The per-address counts (kept as connections come and go, not recounted at each accept)
    always equal a recount, over a random mix of plain connections, answered requests, live
    pages and closes from many addresses; and an address at its limit is refused, then served
    again once one of its connections closed."""
    import random

    monkeypatch.setattr(http_server, "PER_ADDRESS", 4)
    server, _, port = served(Config(table=TableSettings(live_pages=40, live_pages_per_address=2)))
    draw = random.Random(26)
    addresses = [f"127.0.3.{k + 1}" for k in range(12)]
    held: list[tuple[str, socket.socket]] = []
    try:
        for _ in range(8):
            for _ in range(10):
                address, what = draw.choice(addresses), draw.random()
                if held and what < 0.3:
                    held.pop(draw.randrange(len(held)))[1].close()
                elif what < 0.5 and sum(1 for a, _ in held if a == address) < 2:
                    held.append((address, open_page(port, address)[0]))
                elif sum(1 for a, _ in held if a == address) < 4:
                    sock = socket.create_connection(
                        ("127.0.0.1", port), timeout=10, source_address=(address, 0)
                    )
                    if what < 0.8:  # answered, and kept alive
                        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        read_until(sock, b"}", b"")
                    held.append((address, sock))
            expected: dict[str, int] = {}
            for address, _ in held:
                expected[address] = expected.get(address, 0) + 1
            assert wait_for(lambda wanted=expected: recount(server) == wanted), (recount(server), expected)  # type: ignore[misc]
            assert server.handed_over.by_address == expected
        # fill one address to its limit: the next connection is refused, then served once one left
        full = "127.0.3.200"
        socks = [
            socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(full, 0))
            for _ in range(5)
        ]
        socks[-1].settimeout(10)
        assert socks[-1].recv(1) == b"", "the address's fifth connection is refused"
        socks.pop().close()
        socks.pop(0).close()
        assert wait_for(lambda: server.handed_over.by_address.get(full) == 3)
        again = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(full, 0))
        again.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_until(again, b"}", b"").startswith(b"HTTP/1.1 200"), "served again"
        again.close()
        for sock in socks:
            sock.close()
    finally:
        for _, sock in held:
            sock.close()
    assert wait_for(lambda: server.handed_over.by_address == {}), "every count given back"


def test_pages_that_take_a_change_whole_or_in_part_each_get_every_byte_in_order() -> None:
    """The writer's usual case (nothing waiting: the change straight to the socket) and its
    others (part of a change left waiting, sent as the page reads) give each page the same
    stream: each version's message whole, in order, none twice, the last one always."""
    runtime: Any = Versions(size=600_000)  # more than a socket takes at once
    messages = SseMessages()
    broadcaster = Broadcaster(runtime, messages, "boot", interval=0.0, heartbeat=15.0)
    pairs = [socket.socketpair() for _ in range(3)]
    for ours, _ in pairs:
        broadcaster.add(ours, "")
    streams = [bytearray() for _ in pairs]
    frames: dict[int, bytes] = {}

    def read_some(k: int, theirs: socket.socket) -> None:
        theirs.settimeout(0.05)
        with contextlib.suppress(TimeoutError):
            streams[k] += theirs.recv(1 << 20)

    try:
        for _ in range(6):
            frames[runtime.version] = chunk(messages.message(runtime, "boot")[2])
            for k, (_, theirs) in enumerate(pairs):
                for _ in range(k + 1):  # the pages read at their own pace
                    read_some(k, theirs)
            runtime.bump()
        frames[runtime.version] = chunk(messages.message(runtime, "boot")[2])
        last = frames[runtime.version]
        for k, (_, theirs) in enumerate(pairs):
            assert wait_for(
                lambda k=k, theirs=theirs: read_some(k, theirs) or bytes(streams[k]).endswith(last)  # type: ignore[misc]
            )
            stream, versions = bytes(streams[k]), []
            while stream:  # the stream is whole messages, in version order, none repeated
                found = [v for v, frame in frames.items() if stream.startswith(frame)]
                assert len(found) == 1, stream[:80]
                versions.append(found[0])
                stream = stream[len(frames[found[0]]) :]
            assert versions == sorted(set(versions)) and versions[-1] == runtime.version
    finally:
        for _, theirs in pairs:
            theirs.close()
        assert wait_for(lambda: stopped(broadcaster))
