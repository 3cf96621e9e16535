"""The mock reader's tap answered on waitress's event loop thread when the table's lock is free.

The daemon's own server (`companion.run.serving.make_server`) on a loopback port, asked with raw
bytes. Answering the tap where it was read saves the pool's hand-off (two thread wake-ups, the
loop's trigger and a pass, issue 26); its bytes must be the pool's, and a tap that would wait for
the table's lock must wait on the pool, never on the loop that serves every other connection.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.run.runtime import Runtime
from companion.run.serving import answered_at_once, make_server
from tests.support.tables import make_runtime
from tests.support.wire import raw, wait_for

LOOP = "http-loop"


@contextmanager
def serving(tmp_path: Path, inline: bool = True) -> Iterator[tuple[int, Runtime, list[str]]]:
    """The daemon's server on a mock table: its port, the runtime, and the name of the thread
    each tap reached the runtime on (``inline`` False: every request to the pool, as waitress)."""
    rt = make_runtime(tmp_path)
    server = make_server(rt, "127.0.0.1", 0, heartbeat=1.0)
    if not inline:
        for listener in server._map.values():
            if "add_task" in vars(listener):
                del listener.add_task  # waitress's own: every request to the pool
    threads: list[str] = []
    tap = rt.tap

    def noted(seen: str) -> Any:
        threads.append(threading.current_thread().name)
        return tap(seen)

    rt.tap = noted  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, name=LOOP, daemon=True)
    thread.start()
    try:
        yield server.socket.getsockname()[1], rt, threads
    finally:
        server.close()
        thread.join(10)
        rt.stop()


def tap_request(tag: str, pin: str = "2468", extra: bytes = b"") -> bytes:
    body = json.dumps({"tag": tag}).encode()
    head = "POST /api/reader/tap HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    if pin:
        head += f"X-Table-Pin: {pin}\r\n"
    return head.encode() + extra + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body


def without_date(answer: bytes) -> bytes:
    return b"\r\n".join(line for line in answer.split(b"\r\n") if not line.startswith(b"Date: "))


def choice(rt: Runtime) -> str:
    expect = rt.table.expect()
    assert expect is not None
    return str(expect["choices"][0])


def test_a_taps_answer_from_the_loop_is_the_pools_byte_for_byte(tmp_path: Path) -> None:
    """Two identical tables, one answering plain taps on the loop's thread, one on the pool:
    the same bytes for each request (its Date aside), accepted, refused or Flask's; only the
    plain taps with their PIN reach the table on the loop's thread."""
    with serving(tmp_path / "loop") as (port, rt, threads), serving(tmp_path / "pool", inline=False) as pool:
        pool_port, pool_rt, pool_threads = pool
        kinds: list[tuple[bytes, str]] = []
        for step in range(8):
            tag = choice(rt)
            assert tag == choice(pool_rt)
            requests = [
                (tap_request(tag), LOOP),
                (tap_request("no-such-card"), LOOP),  # refused by the table, on the loop too
                (tap_request(tag, pin="0000"), ""),  # a wrong PIN: refused before the table
                (tap_request(tag, extra=b"Cookie: session=x\r\n"), "pool"),  # Flask's to answer
                (tap_request(tag, pin=""), ""),  # no PIN: Flask's refusal
            ]
            request, where = requests[step % len(requests)] if step else requests[0]
            before = len(threads)
            answer = raw(port, request)
            assert without_date(answer) == without_date(raw(pool_port, request)), request
            kinds.append((answer.split(b"\r\n", 1)[0], where))
            if where == LOOP:
                assert threads[before:] == [LOOP], (request, threads[before:])
            elif where == "pool":
                assert len(threads) == before + 1 and threads[-1].startswith("waitress-"), threads[before:]
            else:
                assert len(threads) == before  # refused before any tap
        assert all(name.startswith("waitress-") for name in pool_threads)
        assert {status for status, _ in kinds} >= {b"HTTP/1.1 200 OK", b"HTTP/1.1 401 UNAUTHORIZED"}, kinds


def test_a_tap_while_the_tables_lock_is_held_waits_on_the_pool_and_the_loop_serves_on(tmp_path: Path) -> None:
    """Something holds the table's lock (an input answered by the pool, a new game's switch):
    the tap is handed to the pool, where it waits, and the loop goes on answering other
    connections; once the lock is free the tap is answered as usual."""
    with serving(tmp_path) as (port, rt, threads):
        read = b"GET /api/state?page=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        assert raw(port, read).startswith(b"HTTP/1.1 200 OK")  # the page's snapshot made
        tag = choice(rt)
        answers: list[bytes] = []
        lock = rt.table.lock
        lock.acquire()
        try:
            tapping = threading.Thread(
                target=lambda: answers.append(raw(port, tap_request(tag))), daemon=True
            )
            tapping.start()
            assert wait_for(lambda: len(threads) == 1), "the tap reached the table"
            assert threads[0].startswith("waitress-"), threads
            for _ in range(3):  # answered by the loop while the tap waits for the lock
                assert raw(port, read).startswith(b"HTTP/1.1 200 OK")
            assert tapping.is_alive() and not answers
        finally:
            lock.release()
        tapping.join(10)
        assert answers and answers[0].startswith(b"HTTP/1.1 200 OK") and b'"accepted":true' in answers[0]
        assert raw(port, tap_request(choice(rt))).startswith(b"HTTP/1.1 200 OK")
        assert threads[-1] == LOOP, "the lock free again: the next tap on the loop's thread"


class Stub:
    """What `answered_at_once` reads of a runtime: whether it is a mock, and its table's lock."""

    def __init__(self, mock: bool) -> None:
        self.mock = mock
        self.table = self
        self.lock = threading.RLock()
        self.capture: Any = None


TAP_HEAD = {"HOST": "t", "X_TABLE_PIN": "2468", "CONTENT_LENGTH": "12", "CONTENT_TYPE": "application/json"}


def test_only_a_plain_mock_tap_with_its_lock_free_is_answered_at_once() -> None:
    mock = Stub(mock=True)
    inline = answered_at_once(mock)  # type: ignore[arg-type]
    assert inline("GET", "/api/state", {}) is True
    assert inline("POST", "/api/state", {}) is False
    held = inline("POST", "/api/reader/tap", TAP_HEAD)
    assert callable(held)
    held()  # given back: free for another thread
    assert mock.lock.acquire(blocking=False)
    mock.lock.release()
    for changed in (
        {"COOKIE": "s=1"},
        {"X_TABLE_PIN": ""},
        {"TRANSFER_ENCODING": "chunked"},
        {"CONTENT_LENGTH": "x"},
    ):
        assert inline("POST", "/api/reader/tap", {**TAP_HEAD, **changed}) is False, changed
    assert inline("POST", "/api/reader/tap", {k: v for k, v in TAP_HEAD.items() if k != "HOST"}) is False
    assert inline("POST", "/api/buttons/confirm", TAP_HEAD) is False  # a press may wait: the pool's
    assert answered_at_once(Stub(mock=False))("POST", "/api/reader/tap", TAP_HEAD) is False  # type: ignore[arg-type]
    other = threading.Thread(target=mock.lock.acquire)
    other.start()
    other.join()
    assert inline("POST", "/api/reader/tap", TAP_HEAD) is False, "held elsewhere: never waited for"


def test_a_tap_while_an_edition_is_transcribed_goes_to_the_pool() -> None:
    """The edition page dates a sticker's tap by its poll's answer: a tap answered on the loop
    raced it, and keys typed at once after the tap went to the card before (1 run in 3)."""
    from companion.web.editions import Capture

    mock = Stub(mock=True)
    mock.capture = Capture()
    inline = answered_at_once(mock)  # type: ignore[arg-type]
    held = inline("POST", "/api/reader/tap", TAP_HEAD)
    assert callable(held), "no edition being transcribed: the loop's"
    held()
    mock.capture.edition = "mybox"
    assert inline("POST", "/api/reader/tap", TAP_HEAD) is False
    assert mock.lock.acquire(blocking=False), "nothing held for a tap sent to the pool"
    mock.lock.release()


def test_what_an_answer_on_the_loop_held_is_given_back_whatever_the_answer() -> None:
    """The lock `answered_at_once` took is given back on the loop's thread once the answer is
    out: after an answer, after an app that failed (waitress's 500), and never for a request
    handed to the pool."""
    from companion.web.http_server import create_guarded_server

    given_back: list[str] = []

    def inline(method: str, path: str, headers: dict[str, str]) -> Any:
        if path == "/pool":
            return False
        return lambda: given_back.append(f"{path} {threading.current_thread().name}")

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        if environ["PATH_INFO"] == "/fails":
            raise RuntimeError("a bug")
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    server = create_guarded_server(app, "127.0.0.1", 0, 2, inline=inline)
    thread = threading.Thread(target=server.run, name=LOOP, daemon=True)
    thread.start()
    port = server.socket.getsockname()[1]
    try:
        for path, status in (("/here", b"200"), ("/fails", b"500"), ("/pool", b"200")):
            answer = raw(port, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            assert answer.startswith(b"HTTP/1.1 " + status), answer
        assert given_back == [f"/here {LOOP}", f"/fails {LOOP}"]
    finally:
        server.close()
        thread.join(10)
