"""waitress's event loop only reads and writes: every request is answered by the pool.

The real waitress server on a loopback port. A request that waits (the table's lock, a store
write held by SQLite's busy timeout) must hold one pool thread, never the loop and with it
every connection; and the bytes on the wire are waitress's own.
"""

from __future__ import annotations

import http.client
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import waitress

from companion.run.serving import make_server
from companion.web.http_server import create_guarded_server
from tests.support.tables import make_runtime
from tests.support.wire import raw, wait_for


class Noting:
    """A WSGI app that answers every path with its own name and notes the answering thread."""

    def __init__(self) -> None:
        self.threads: list[tuple[str, str]] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        path = environ["PATH_INFO"]
        self.threads.append((path, threading.current_thread().name))
        if path == "/big":  # more than a socket takes at once: the rest buffered
            body = bytes(range(256)) * (12 * 1024)
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
            return [body, b""]
        if path == "/chunks":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"one", b"", b"two", b"three"]
        body = path.encode()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]


@pytest.fixture
def noting() -> Iterator[tuple[int, Noting]]:
    app = Noting()
    server = create_guarded_server(app, "127.0.0.1", 0, 4)
    thread = threading.Thread(target=server.run, name="loop", daemon=True)
    thread.start()
    yield server.socket.getsockname()[1], app
    server.close()
    thread.join(10)


def ask(port: int, method: str, path: str, source: str = "127.0.0.1") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_every_request_is_answered_by_the_pool(noting: Any) -> None:
    port, app = noting
    for method, path in (("GET", "/api/state?page=1"), ("GET", "/api/state"), ("POST", "/api/reader/tap")):
        assert ask(port, method, path)[0] == 200
    assert all(name.startswith("waitress-") for _, name in app.threads), app.threads


def test_pipelined_reads_are_answered_in_order(noting: Any) -> None:
    port, _app = noting
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        one = b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n"
        other = b"GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        sock.sendall(one + other)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.count(b"HTTP/1.1 200 OK") == 2
    assert received.index(b"/api/state") < received.index(b"/other")


REQUESTS = [
    b"GET /api/state?page=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"HEAD /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # a head, no body
    b"GET /chunks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # chunked
    b"GET /chunks HTTP/1.0\r\nHost: x\r\n\r\n",  # no chunks: closed at the end
    b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # 3 MiB: sent in parts
    b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\nGET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
]


def without_date(answer: bytes) -> bytes:
    return b"\r\n".join(line for line in answer.split(b"\r\n") if not line.startswith(b"Date: "))


def test_the_loop_does_not_spin_while_a_requests_thread_sends_its_answer() -> None:
    """waitress's loop polled a connection for writing while the request's thread was sending
    its answer itself (holding the output's lock): writable at once, nothing it could send, so
    it passed again and again, about 50 passes an answer on a kept-alive connection. Now a pass
    is a read, the answer's end, or the loop's idle second."""
    body = b"x" * 4096

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    server = create_guarded_server(app, "127.0.0.1", 0, 4)
    passes = [0]
    readable = server.readable  # asked once at the start of every pass of the loop

    def counted() -> bool:
        passes[0] += 1
        return bool(readable())

    server.readable = counted
    thread = threading.Thread(target=server.run, name="loop", daemon=True)
    thread.start()
    conn = http.client.HTTPConnection("127.0.0.1", server.socket.getsockname()[1], timeout=30)
    try:
        conn.request("GET", "/")  # connected and warm
        conn.getresponse().read()
        answers, before, started = 100, passes[0], time.monotonic()
        for _ in range(answers):
            conn.request("GET", "/")
            assert conn.getresponse().read() == body
        idle = time.monotonic() - started + 1  # the loop's idle passes: one a second
        assert passes[0] - before <= 4 * answers + idle, (passes[0] - before, answers)
    finally:
        conn.close()
        server.close()
        thread.join(10)


def test_each_answer_is_the_bytes_waitress_sends() -> None:
    ours = create_guarded_server(Noting(), "127.0.0.1", 0, 4)
    plain = waitress.create_server(Noting(), host="127.0.0.1", port=0, threads=4)
    for server in (ours, plain):
        threading.Thread(target=server.run, daemon=True).start()
    try:
        for request in REQUESTS:
            answer = raw(ours.socket.getsockname()[1], request)
            assert without_date(answer) == without_date(raw(plain.socket.getsockname()[1], request))
    finally:
        ours.close()
        plain.close()


def test_no_request_shows_the_app_a_proxys_headers() -> None:
    """No proxy is trusted: the headers one sets (a client can claim any address with them)
    are taken out before the app sees the request, as waitress's own default does."""
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append({k: v for k, v in environ.items() if isinstance(v, str)})
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    ours = create_guarded_server(app, "127.0.0.1", 0, 4)
    plain = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    for server in (ours, plain):
        threading.Thread(target=server.run, daemon=True).start()
    claims = (
        b"X-Forwarded-For: 10.9.9.9\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil\r\n"
        b"X-Forwarded-Port: 1\r\nX-Forwarded-By: me\r\nForwarded: for=10.9.9.9\r\nX-Other: kept\r\n"
    )
    try:
        for server in (ours, plain):
            request = b"GET /api/state HTTP/1.1\r\nHost: x\r\n" + claims + b"Connection: close\r\n\r\n"
            raw(server.socket.getsockname()[1], request)
        mine, theirs = seen
        assert not any("FORWARDED" in name for name in mine) and mine["HTTP_X_OTHER"] == "kept"
        ignored = ("SERVER_PORT", "REMOTE_PORT")
        assert {k: v for k, v in mine.items() if k not in ignored} == {
            k: v for k, v in theirs.items() if k not in ignored
        }
    finally:
        ours.close()
        plain.close()


def test_a_store_write_held_by_another_process_never_holds_an_uninvolved_phone(tmp_path: Path) -> None:
    """Another connection holds SQLite's write lock for 5 s (a backup, a slow SD card): a tap
    waits in its store write, holding the table's lock, for SQLite's busy timeout. A guest polls
    ``GET /api/state`` all that time; a phone at another address opening the page is answered
    at once: no request waits for the table's lock on the event loop's thread."""
    rt = make_runtime(tmp_path / "data")
    server = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.socket.getsockname()[1]
    blocker = sqlite3.connect(rt.store.path, isolation_level=None, timeout=0)
    stop, polls = threading.Event(), []

    def guest() -> None:
        while not stop.is_set():
            try:
                polls.append(ask(port, "GET", "/api/state", "127.0.0.7")[0])
            except OSError:
                polls.append(0)

    tapped: list[Any] = []
    try:
        choices = rt.table.expect()["choices"]
        blocker.execute("BEGIN IMMEDIATE")
        held_at = time.monotonic()
        tap = threading.Thread(target=lambda: tapped.append(_tap(rt, choices[0])), daemon=True)
        tap.start()
        assert wait_for(lambda: _held_elsewhere(rt.table.lock), 2.0), "the tap holds the table's lock"
        polling = [threading.Thread(target=guest, daemon=True) for _ in range(3)]
        for thread in polling:
            thread.start()
        assert wait_for(lambda: len(polls) >= 3 or time.monotonic() - held_at > 2, 3.0)
        started = time.monotonic()
        status, page = ask(port, "GET", "/", "127.0.0.9")
        took = time.monotonic() - started
        still_held = time.monotonic() - held_at < 5.0 and tap.is_alive()
        assert status == 200 and b"<html" in page.lower()
        assert took < 1.0, f"GET / took {took:.2f} s while a store write waited"
        assert still_held, "the store's lock was let go before the phone was answered: inconclusive"
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
        stop.set()
        server.close()
        rt.stop()


def _held_elsewhere(lock: Any) -> bool:
    """Whether another thread holds ``lock`` (an RLock: taken here at once, or not)."""
    if lock.acquire(blocking=False):
        lock.release()
        return False
    return True


def _tap(rt: Any, tag: str) -> Any:
    try:
        return rt.tap(tag)
    except Exception as exc:  # the store gave up (busy): what the tap answered is not this test's
        return exc


def test_another_waitress_series_gets_waitress_plain_channel(monkeypatch: Any) -> None:
    """The private uses are pinned to one series (`http_server.fits`): another one serves with
    waitress's own channel and sweep, and still answers."""
    import importlib.metadata

    from companion.web.http_server import GuardedChannel, fits

    assert fits("3.0.2") and not fits("3.1.0") and not fits("4")
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "9.9.9")
    app = Noting()
    server = create_guarded_server(app, "127.0.0.1", 0, 2)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        assert ask(server.socket.getsockname()[1], "GET", "/plain") == (200, b"/plain")
        listeners = [ch for ch in server._map.values() if isinstance(ch, waitress.server.BaseWSGIServer)]
        assert listeners and all(ch.channel_class is not GuardedChannel for ch in listeners)
    finally:
        server.close()
