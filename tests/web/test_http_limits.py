"""The production server under a flood: big bodies, many live pages, slow connections.

Each test runs the real waitress server on a free loopback port and speaks HTTP
over sockets, from many loopback addresses (Linux answers on all of 127/8), as
the audit did.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.run.serving import make_server
from companion.util.config import ButtonSettings, Config, TableSettings
from companion.web import http_server
from tests.support.tables import make_runtime


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """Start a server for a config: ``serve(config, threads) -> (port, runtime)``."""
    started: list[tuple[Any, Any]] = []

    def start(config: Config | None = None, threads: int | None = None) -> tuple[int, Any]:
        rt = make_runtime(tmp_path / str(len(started)), config=config)
        server = make_server(rt, "127.0.0.1", 0, threads=threads, heartbeat=1.0)
        threading.Thread(target=server.run, daemon=True).start()
        started.append((server, rt))
        return server.socket.getsockname()[1], rt

    yield start
    for server, rt in started:
        server.close()
        rt.stop()


def connect(port: int, address: str = "127.0.0.1", timeout: float = 10) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(address, 0))
    return sock


def login_headers(port: int, framing: bytes) -> socket.socket:
    """A connection that has sent a login's headers, ``framing`` the body's length, and no body yet."""
    sock = connect(port)
    sock.sendall(
        b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + framing
        + b"\r\n\r\n"
    )
    return sock


def status_of(sock: socket.socket) -> int:
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0


def get(port: int, path: str, address: str = "127.0.0.1", timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(address, 0))
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def open_stream(port: int, address: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
    conn.request("GET", "/api/events")
    return conn, conn.getresponse()


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


# --- bodies ---------------------------------------------------------------------------------------


def test_an_oversized_body_is_refused_from_its_headers(serve: Any) -> None:
    """The audit held 1.2 GB of disk with three unfinished 400 MB bodies and no PIN."""
    port, _ = serve()
    sock = login_headers(port, b"Content-Length: 400000000")
    assert status_of(sock) == 413, "answered before a single byte of the body was sent"
    sock.close()


def test_a_chunked_body_is_cut_off_at_the_limit(serve: Any) -> None:
    port, _ = serve()
    sock = login_headers(port, b"Transfer-Encoding: chunked")
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    for _ in range(8):  # 128 KiB, never finished
        try:
            sock.sendall(chunk)
        except OSError:
            break
    assert status_of(sock) == 413
    sock.close()


def test_a_normal_control_still_fits(serve: Any) -> None:
    port, _ = serve()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(
        "POST", "/api/login", body=json.dumps({"pin": "2468"}), headers={"Content-Type": "application/json"}
    )
    assert conn.getresponse().status == 200


# --- live pages ------------------------------------------------------------------------------------


def test_live_pages_are_capped_per_address_and_in_all(serve: Any) -> None:
    port, _ = serve(Config(table=TableSettings(live_pages=4, live_pages_per_address=2)))
    streams = [open_stream(port, "127.0.2.1") for _ in range(2)]
    assert [r.status for _, r in streams] == [200, 200]
    third = open_stream(port, "127.0.2.1")[1]
    assert third.status == 503 and "Too many live pages" in json.loads(third.read())["error"]
    streams += [open_stream(port, f"127.0.2.{k}") for k in (2, 3)]
    assert [r.status for _, r in streams] == [200] * 4
    assert open_stream(port, "127.0.2.9")[1].status == 503, "the table's cap"
    assert get(port, "/api/state")[0] == 200 and get(port, "/")[0] == 200
    for conn, response in streams:  # the pages are closed (their sockets too)
        response.close()
        conn.close()
    deadline = time.monotonic() + 30  # a wait, not a measure
    while open_stream(port, "127.0.2.9")[1].status != 200:  # closed pages give their threads back
        assert time.monotonic() < deadline, "closed pages still hold their slots"
        time.sleep(0.2)


def test_the_page_answers_with_100_live_pages_and_100_slow_connections(serve: Any) -> None:
    """The audit: 48 live pages stopped the page for everyone; 99 slow headers stopped all answers."""
    port, _ = serve()
    held: list[Any] = []
    try:
        for k in range(100):
            conn = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=10, source_address=(f"127.0.3.{k + 1}", 0)
            )
            conn.putrequest("GET", "/api/events")
            conn.endheaders()
            held.append(conn)
        for k in range(100):
            sock = connect(port, f"127.0.4.{k + 1}")
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(sock)
        for path in ("/", "/api/state", "/api/state?page=1"):
            status, _ = get(port, path, "127.0.5.1", timeout=10)
            assert status == 200, path
    finally:
        for item in held:
            item.close()


def test_a_request_that_never_finishes_is_closed(serve: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(http_server, "REQUEST_SECONDS", 0.5)
    port, _ = serve()
    sock = connect(port)
    sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
    assert closed_by_server(sock, within=6.0)
    sock.close()


def test_connections_per_address_are_capped(serve: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(http_server, "PER_ADDRESS", 3)
    port, _ = serve()
    socks = [connect(port, "127.0.6.1") for _ in range(5)]
    # the server takes them in order: the 4th and 5th are closed as it takes them (waited for,
    # however loaded the machine), and by then it kept the first three, open
    assert [closed_by_server(s, within=30.0) for s in socks[3:]] == [True, True]
    assert [closed_by_server(s, within=0.5) for s in socks[:3]] == [False, False, False]
    assert get(port, "/api/state", "127.0.6.2")[0] == 200, "other devices are served"
    for s in socks:
        s.close()


def test_a_failing_ring_never_turns_a_stored_tap_into_a_500(serve: Any) -> None:
    port, rt = serve(Config(buttons=ButtonSettings(bounce=0.0, undo_hold=0.15)))

    def broken(*_: Any) -> None:
        raise ValueError("invalid literal for int() with base 16: 'zz'")

    rt.table.listeners.append(broken)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = json.dumps({"tag": rt.table.expect()["choices"][0]})
    conn.request(
        "POST",
        "/api/reader/tap",
        body=body,
        headers={"X-Table-Pin": "2468", "Content-Type": "application/json"},
    )
    response = conn.getresponse()
    assert response.status == 200 and json.loads(response.read())["outcome"]["accepted"]


def test_live_streams_never_take_every_thread_of_a_small_pool(tmp_path: Path) -> None:
    """A pool smaller than the live pages' cap (a test's, a benchmark's) still keeps two
    threads for polls and controls from the pages that hold one (HTTP/1.0: not handed over);
    the pages handed over hold none, so the table's cap is theirs whatever the pool."""
    rt = make_runtime(tmp_path)
    small = make_server(rt, "127.0.0.1", 0, threads=4)
    usual = make_server(rt, "127.0.0.1", 0)
    try:
        assert small.stream_slots.held_total == 2
        assert usual.stream_slots.held_total == http_server.HELD_PAGES
        assert small.stream_slots.total == usual.stream_slots.total == rt.config.table.live_pages
    finally:
        small.close()
        usual.close()
        rt.stop()


def test_pages_that_hold_a_thread_are_capped_apart(serve: Any) -> None:
    """An HTTP/1.0 page (no chunks: its connection is not handed over) keeps its thread, so
    only `HELD_PAGES` of them are streamed; HTTP/1.1 pages are still taken meanwhile."""
    port, _ = serve(threads=4)  # two threads at most for pages that hold one
    held = []
    for k in range(3):
        sock = connect(port, f"127.0.7.{k + 1}")
        sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        held.append(sock)
    assert [status_of(sock) for sock in held] == [200, 200, 503]
    conn, response = open_stream(port, "127.0.7.9")
    assert response.status == 200, "a page handed over needs no thread of its own"
    assert get(port, "/api/state")[0] == 200
    conn.close()
    for sock in held:
        sock.close()


# --- slow readers and the clock (issue 16) ---------------------------------------------------------

OPENAPI_GET = b"GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def pipeline_without_reading(port: int, address: str, requests: int) -> socket.socket:
    """A connection that pipelines ``requests`` answers of 60 KB and never reads one (the audit's)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
    sock.settimeout(10)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(OPENAPI_GET * requests)
    return sock


def test_connections_that_never_read_leave_threads_for_the_page(tmp_path: Path) -> None:
    """The audit: 90 connections pipelining 150 GETs each and never reading froze ``/`` for
    everyone. Here a pool of 4 threads and 6 such connections: each used to hold a thread."""
    rt = make_runtime(tmp_path)
    server = make_server(rt, "127.0.0.1", 0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.socket.getsockname()[1]
    held = [pipeline_without_reading(port, f"127.0.7.{k % 3 + 1}", 150) for k in range(6)]
    try:
        time.sleep(1.0)  # their answers are written as far as they go
        for path in ("/", "/api/state"):
            assert get(port, path, "127.0.7.9", timeout=5)[0] == 200, path
    finally:
        for sock in held:
            sock.close()
        server.close()
        rt.stop()


def test_a_connection_gets_only_a_few_pipelined_answers_then_is_closed(serve: Any) -> None:
    port, _ = serve()
    sock = connect(port)
    sock.sendall(b"GET /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 50)
    received = b""
    while chunk := sock.recv(65536):  # the server closes it after the last one it kept
        received += chunk
    sock.close()
    assert received.count(b"HTTP/1.1 200") == http_server.PIPELINED
    assert received.count(b"Connection: close") == 1


def test_a_connection_that_does_not_read_its_answer_is_closed(serve: Any, monkeypatch: Any) -> None:
    """The kernel takes a few answers for a client; what is left waits in the server (and may
    block a thread): past `SEND_SECONDS` without a byte taken, the connection is closed."""
    monkeypatch.setattr(http_server, "SEND_SECONDS", 0.5)
    monkeypatch.setattr(http_server, "PIPELINED", 1000)  # more than the kernel's buffers take
    port, _ = serve()
    sock = pipeline_without_reading(port, "127.0.7.20", 150)
    sock.setblocking(False)
    ended = False
    # Each round leaves the answers unread for 3 s (the deadline, and two sweeps or more),
    # then takes what the kernel holds. A loaded machine may need more than one round before
    # the server's sweep runs; without the deadline, the connection stays open after the
    # last answer (kept alive for 30 s), so the 7 rounds run out first.
    for _ in range(7):
        time.sleep(3.0)
        try:
            while True:  # what the kernel took for it, then the end (or a reset)
                if not sock.recv(1 << 20):
                    ended = True
                    break
        except BlockingIOError:
            pass
        except ConnectionResetError:
            ended = True
        if ended:
            break
    sock.close()
    assert ended, "still open with answers nobody reads"


def test_deadlines_hold_when_the_wall_clock_steps_back(serve: Any, monkeypatch: Any) -> None:
    """waitress swept its connections by the wall clock: stepped back an hour, no deadline held."""
    monkeypatch.setattr(http_server, "REQUEST_SECONDS", 0.5)
    port, _ = serve()
    assert get(port, "/api/state")[0] == 200  # the server has swept once, by the clock as it was
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 3600)
    sock = connect(port)
    sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
    assert closed_by_server(sock, within=6.0)
    sock.close()


def test_a_connection_handed_over_while_the_server_closes_is_closed_too() -> None:
    """`close_all` may come between a connection's registration and its taker's answer (the
    taker runs on the event loop's thread): the closer given late is called at once."""
    handed = http_server.HandedOver()
    closed: list[str] = []
    early = handed.add("127.0.0.1", lambda: None)
    handed.closer(early, lambda: closed.append("early"))
    late = handed.add("127.0.0.2", lambda: None)  # registered, its taker still working
    handed.close_all()
    assert closed == ["early"]
    handed.closer(late, lambda: closed.append("late"))
    assert closed == ["early", "late"]
    handed.closed(late)
    handed.closer(late, lambda: closed.append("gone"))  # already closed: nothing to call
    assert closed == ["early", "late"]
