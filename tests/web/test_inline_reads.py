"""``GET /api/state`` answered on waitress's event loop thread, everything else by the pool.

The real waitress server on a loopback port; a WSGI app notes which thread answered each
request. Answering the page's read on the loop's thread saves two thread wake-ups a request
(issue 26); a request that may wait (a control, a slow route) must never hold the loop.
"""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import waitress.server

from companion.run.serving import make_server
from companion.web import http_server
from companion.web.http_server import GuardedChannel, create_guarded_server
from companion.web.state_answers import FastReads
from tests.support.tables import make_runtime
from tests.support.wire import raw, wait_for


class Noting:
    """A WSGI app that answers every path with its own name and notes the answering thread."""

    def __init__(self) -> None:
        self.threads: list[tuple[str, str]] = []
        self.release = threading.Event()
        self.release.set()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        path = environ["PATH_INFO"]
        self.threads.append((path, threading.current_thread().name))
        if path == "/slow":
            self.release.wait(30)
        body = path.encode()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]


@pytest.fixture
def noting() -> Iterator[tuple[int, Noting]]:
    app = Noting()
    server = create_guarded_server(app, "127.0.0.1", 0, 4, inline=FastReads.answers_at_once)
    thread = threading.Thread(target=server.run, name="loop", daemon=True)
    thread.start()
    yield server.socket.getsockname()[1], app
    app.release.set()
    server.close()
    thread.join(10)


def ask(port: int, method: str, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_the_pages_read_is_answered_on_the_loops_thread_and_the_rest_by_the_pool(noting: Any) -> None:
    port, app = noting
    assert ask(port, "GET", "/api/state?page=1") == (200, b"/api/state")
    assert ask(port, "GET", "/api/state") == (200, b"/api/state")
    assert ask(port, "POST", "/api/state") == (200, b"/api/state")
    assert ask(port, "GET", "/api/events") == (200, b"/api/events")
    threads = [name for _, name in app.threads]
    assert threads[:2] == ["loop", "loop"]  # both reads: the loop's own thread
    assert all(name.startswith("waitress-") for name in threads[2:])  # a POST, another path


def test_pipelined_reads_are_answered_in_order(noting: Any) -> None:
    port, app = noting
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        one = b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n"
        other = b"GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        sock.sendall(one + other)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.count(b"HTTP/1.1 200 OK") == 2
    assert received.index(b"/api/state") < received.index(b"/other")
    assert [path for path, _ in app.threads] == ["/api/state", "/other"]


def test_a_slow_answer_on_the_pool_does_not_hold_the_pages_reads(noting: Any) -> None:
    port, app = noting
    app.release.clear()
    slow = threading.Thread(target=ask, args=(port, "GET", "/slow"), daemon=True)
    slow.start()
    try:
        # answered while the pool's thread still waits in /slow
        assert ask(port, "GET", "/api/state") == (200, b"/api/state")
        assert slow.is_alive()
    finally:
        app.release.set()
        slow.join(10)


def test_the_daemons_read_from_the_loop_equals_the_pools(tmp_path: Path) -> None:
    """The same table's ``GET /api/state?page=1`` through the inline path and through the pool:
    the same status, headers and body."""
    answers = []
    for inline in (True, False):
        rt = make_runtime(tmp_path / str(inline))
        server = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
        if not inline:
            for listener in server.map.values() if hasattr(server, "map") else server._map.values():
                if "add_task" in vars(listener):
                    del listener.add_task  # waitress's own: every request to the pool
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", server.socket.getsockname()[1], timeout=10)
            conn.request("GET", "/api/state?page=1")
            response = conn.getresponse()
            headers = sorted((k, v) for k, v in response.getheaders() if k not in ("Date",))
            answers.append((response.status, headers, response.read()))
            conn.close()
        finally:
            server.close()
            rt.stop()
    assert answers[0][0] == 200
    assert answers[0][1] == answers[1][1]
    assert answers[0][2].startswith(b"{") and len(answers[0][2]) == len(answers[1][2])


class Streaming(Noting):
    """`Noting`, with a chunked answer (no length) at ``/chunks``, in three pieces."""

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        if environ["PATH_INFO"] == "/big":  # more than a socket takes at once: the rest buffered
            body = bytes(range(256)) * (12 * 1024)
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
            return [body, b""]
        if environ["PATH_INFO"] != "/chunks":
            return super().__call__(environ, start_response)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"one", b"", b"two", b"three"]


REQUESTS = [
    b"GET /api/state?page=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # on the loop
    b"GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # on the pool
    b"HEAD /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # a head, no body
    b"GET /chunks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # chunked
    b"GET /chunks HTTP/1.0\r\nHost: x\r\n\r\n",  # no chunks: closed at the end
    b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",  # 3 MiB: sent in parts
    b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\nGET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
]


def without_date(answer: bytes) -> bytes:
    return b"\r\n".join(line for line in answer.split(b"\r\n") if not line.startswith(b"Date: "))


def test_each_answer_is_the_bytes_waitress_sends_with_its_head_in_the_bodys_send(monkeypatch: Any) -> None:
    """A response's head goes out in the same ``send`` as its body's first piece (one loopback
    delivery instead of two), and every byte is what waitress alone sends (its Date aside):
    on the loop's thread or the pool's, with a length or chunked, with no body at all."""
    import waitress

    sends: list[tuple[int, bytes]] = []
    original = GuardedChannel.send

    def send(channel: Any, data: bytes, **options: Any) -> int:
        sent: int = original(channel, data, **options)
        sends.append((id(channel), bytes(data[:sent])))
        return sent

    monkeypatch.setattr(GuardedChannel, "send", send)
    ours = create_guarded_server(Streaming(), "127.0.0.1", 0, 4, inline=FastReads.answers_at_once)
    plain = waitress.create_server(Streaming(), host="127.0.0.1", port=0, threads=4)
    for server in (ours, plain):
        threading.Thread(target=server.run, daemon=True).start()
    try:
        for request in REQUESTS * 2:  # the second time from the heads kept (`KeptHeads`)
            sends.clear()
            answer = raw(ours.socket.getsockname()[1], request)
            assert without_date(answer) == without_date(raw(plain.socket.getsockname()[1], request))
            assert b"".join(data for _, data in sends) == answer
            heads = [data for _, data in sends if data.startswith(b"HTTP/1.")]
            assert all(not head.endswith(b"\r\n\r\n") for head in heads if b"HEAD" not in request), heads
        sends.clear()
        raw(ours.socket.getsockname()[1], REQUESTS[0])
        assert len(sends) == 1, "the page's read: one send"
    finally:
        ours.close()
        plain.close()


def test_the_loop_never_wakes_itself_for_a_read_it_answered(monkeypatch: Any) -> None:
    """waitress wakes its event loop (a write to its trigger's pipe) after each request: for a
    read answered on the loop's own thread that cost a pass of the loop for nothing. Requests
    served by the pool still wake it, and are answered."""
    app = Noting()
    server = create_guarded_server(app, "127.0.0.1", 0, 4, inline=FastReads.answers_at_once)
    pulls: list[str] = []
    original = server.trigger.pull_trigger

    def pull_trigger(thunk: Any = None) -> None:
        pulls.append(threading.current_thread().name)
        original(thunk)

    monkeypatch.setattr(server.trigger, "pull_trigger", pull_trigger)
    thread = threading.Thread(target=server.run, name="loop", daemon=True)
    thread.start()
    port = server.socket.getsockname()[1]
    try:
        for _ in range(5):
            assert ask(port, "GET", "/api/state?page=1") == (200, b"/api/state")
        assert "loop" not in pulls, pulls
        assert ask(port, "GET", "/other") == (200, b"/other")
        # the pool's thread wakes the loop after its answer went out: maybe after the client read it
        assert wait_for(lambda: any(name.startswith("waitress-") for name in pulls)), (
            "the pool still wakes the loop"
        )
    finally:
        server.close()
        thread.join(10)


def test_no_request_shows_the_app_a_proxys_headers_as_with_waitress_own_middleware() -> None:
    """No proxy is trusted: the headers one sets (a client can claim any address with them)
    are taken out before the app sees the request, as waitress's proxy middleware takes them,
    without that middleware's CPU; the rest of the request is what waitress gives the app."""
    import waitress
    from waitress.proxy_headers import PROXY_HEADERS as WAITRESS_PROXY_HEADERS

    assert set(http_server.PROXY_HEADERS) == {f"HTTP_{name}" for name in WAITRESS_PROXY_HEADERS}
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append({k: v for k, v in environ.items() if isinstance(v, str)})
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    ours = create_guarded_server(app, "127.0.0.1", 0, 4, inline=FastReads.answers_at_once)
    plain = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    for server in (ours, plain):
        threading.Thread(target=server.run, daemon=True).start()
    claims = (
        b"X-Forwarded-For: 10.9.9.9\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil\r\n"
        b"X-Forwarded-Port: 1\r\nX-Forwarded-By: me\r\nForwarded: for=10.9.9.9\r\nX-Other: kept\r\n"
    )
    try:
        for path in (b"/api/state", b"/other"):  # on the loop's thread, on the pool's
            for server in (ours, plain):
                request = b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n" + claims + b"Connection: close\r\n\r\n"
                raw(server.socket.getsockname()[1], request)
            mine, theirs = seen[-2:]
            assert not any("FORWARDED" in name for name in mine) and mine["HTTP_X_OTHER"] == "kept"
            ignored = ("SERVER_PORT", "REMOTE_PORT")
            assert {k: v for k, v in mine.items() if k not in ignored} == {
                k: v for k, v in theirs.items() if k not in ignored
            }
    finally:
        ours.close()
        plain.close()


def test_a_request_that_came_with_its_connection_is_answered_in_the_pass_that_accepts_it() -> None:
    """Most requests arrive with their connection: read in the event loop's pass that accepts
    it, not in a pass of its own (a poll of every connection). A connection that sends
    nothing yet is read when it does, as before."""
    passes: list[int] = []
    answered_in: list[int] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        answered_in.append(len(passes))
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    server = create_guarded_server(app, "127.0.0.1", 0, 4, inline=FastReads.answers_at_once)
    (listener,) = [ch for ch in server._map.values() if isinstance(ch, waitress.server.BaseWSGIServer)]
    hooked = listener.readable

    def readable() -> bool:  # the listener's, asked once at the start of each pass
        passes.append(1)
        answer: bool = hooked()
        return answer

    listener.readable = readable
    port = server.socket.getsockname()[1]
    early = socket.create_connection(("127.0.0.1", port), timeout=10)
    early.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")  # before the loop runs at all
    late = socket.create_connection(("127.0.0.1", port), timeout=10)  # sends later
    threading.Thread(target=server.run, daemon=True).start()
    try:
        assert early.recv(65536).endswith(b"\r\n\r\nok")
        assert answered_in == [1], "answered in the first pass, which accepted it"
        late.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")
        assert late.recv(65536).endswith(b"\r\n\r\nok")
    finally:
        early.close()
        late.close()
        server.close()


def test_an_answer_the_socket_takes_in_part_goes_on_through_waitress_buffers(monkeypatch: Any) -> None:
    """An answer is sent at once when nothing waits before it (`GuardedChannel._send_now`);
    what the socket does not take (a client that does not read yet) waits in waitress's own
    buffers and goes out as the client reads: the same bytes as waitress alone sends."""
    import waitress

    partial: list[tuple[int, int]] = []
    original = GuardedChannel._send_now

    def noted(channel: Any, data: bytes) -> int:
        sent: int = original(channel, data)
        partial.append((sent, len(data)))
        return sent

    monkeypatch.setattr(GuardedChannel, "_send_now", noted)
    ours = create_guarded_server(Streaming(), "127.0.0.1", 0, 4, inline=FastReads.answers_at_once)
    plain = waitress.create_server(Streaming(), host="127.0.0.1", port=0, threads=4)
    for server in (ours, plain):
        threading.Thread(target=server.run, daemon=True).start()
    request = b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    try:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: the send stops
            sock.settimeout(10)
            sock.connect(("127.0.0.1", ours.socket.getsockname()[1]))
            sock.sendall(request)
            assert wait_for(lambda: any(0 < sent < size for sent, size in partial)), partial
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
        assert without_date(received) == without_date(raw(plain.socket.getsockname()[1], request))
    finally:
        ours.close()
        plain.close()
