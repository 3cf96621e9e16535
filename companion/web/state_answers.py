"""The answers every step asks for, from text encoded once per change (issue 26).

``GET /api/state`` (``?page=1``: the page's snapshot) and the answer to each control carry
the table's state. Encoding it per request (and each hardware part's status, and Flask's
``jsonify`` of the whole) was a third of a step's CPU at the table; here the state and the
parts' status come as text cached by their owners (`companion.table.snapshot`,
`companion.hardware.health`), and the page's whole answer is kept until any part of it
changes. The bytes parse to what ``jsonify`` of the same dict gave.

`FastReads` answers ``GET /api/state`` under waitress before Flask sees it: Flask's request
and app contexts, routing and response objects cost about half a millisecond of CPU a
request on the reference PC, as much as the answer itself. It answers with the route's own
body and headers; anything else (another method, path, an error) goes to Flask.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from flask import Flask, Response

from companion.web.fast_controls import TAP, FastControls
from companion.web.ports import TableRuntime
from companion.web.route_support import SECURITY_HEADERS


class StateAnswers:
    """``GET /api/state`` and the controls' answers, for one running table. ``dumps``: the
    app's JSON encoder (``app.json.dumps``, what ``jsonify`` uses)."""

    def __init__(self, runtime: TableRuntime, dumps: Callable[..., str]) -> None:
        self.runtime, self.dumps = runtime, dumps
        self.lock = threading.Lock()
        #: The last ``?page=1`` answer and the texts it was made of (compared by identity or
        #: value: a new snapshot, parts' status, store damage or venue status makes another).
        self.page: tuple[tuple[str, str, str, str], bytes] | None = None
        #: `kept`'s values and their texts, by name.
        self.texts: dict[str, tuple[Any, str]] = {}

    def text(self, value: Any) -> str:
        """``value`` as ``jsonify`` encodes it, compact."""
        return self.dumps(value, separators=(",", ":"))

    def extras(self) -> tuple[str, str, str]:
        """``hardware``, ``store`` and ``venue`` as JSON text: they change apart from the game."""
        runtime = self.runtime
        store, venue = self.kept("store", runtime.store_damage()), self.kept("venue", runtime.venue_status())
        return runtime.hardware_text(), store, venue

    def kept(self, name: str, value: Any) -> str:
        """`text` of ``value``, kept while the value named ``name`` stays equal (an empty list of
        damage notices, no venue: encoding them at each read was most of a cached answer's CPU)."""
        found = self.texts.get(name)
        if found is None or found[0] != value:
            found = self.texts[name] = (value, self.text(value))
        return found[1]

    def state_body(self, page: bool) -> bytes:
        """The table's state with its extras; ``page``: the page's snapshot (what it draws)."""
        hardware, store, venue = self.extras()
        tail = f',"hardware":{hardware},"store":{store},"venue":{venue}}}'
        if not page:
            return f"{self.runtime.state_text()[:-1]}{tail}\n".encode()
        snapshot = self.runtime.page_text()[1]
        key = (snapshot, hardware, store, venue)
        cached = self.page
        if cached is None or not _same(cached[0], key):
            body = f"{snapshot[:-1]}{tail}".encode()
            with self.lock:
                cached = self.page = (key, body)
        return cached[1]

    def state(self, page: bool) -> Response:
        """`state_body` as the route's answer."""
        return Response(self.state_body(page), mimetype="application/json")

    def control_body(self, outcome: Any) -> bytes:
        """A control's answer: what it did (its outcome) and the state after it."""
        return f'{{"outcome":{self.text(outcome.to_json())},"state":{self.runtime.state_text()}}}\n'.encode()

    def control(self, outcome: Any) -> Response:
        """`control_body` as the route's answer."""
        return Response(self.control_body(outcome), mimetype="application/json")


def _same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same texts: the snapshot by identity (cached per version), the rest by value."""
    return a[0] is b[0] and a[1:] == b[1:]


def wants_page(query: str) -> bool:
    """``request.args.get("page")`` is set and not empty (the route's test), from the raw query."""
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == "page":
            return bool(value)
    return False


#: `wants_page` of the queries seen last (a page asks the same one every time); cleared
#: when full: the query is the client's, so the memo must stay small whatever it sends.
PAGE_QUERIES: dict[str, bool] = {}
PAGE_QUERIES_KEPT = 32


def wants_page_kept(query: str) -> bool:
    """`wants_page`, parsed once per query string (of the last `PAGE_QUERIES_KEPT`)."""
    found = PAGE_QUERIES.get(query)
    if found is None:
        if len(PAGE_QUERIES) >= PAGE_QUERIES_KEPT:
            PAGE_QUERIES.clear()
        found = PAGE_QUERIES[query] = wants_page(query)
    return found


StartResponse = Callable[..., Any]


class FastReads:
    """The WSGI app waitress serves: ``GET /api/state`` answered here, the mock reader's tap and
    the buttons by `companion.web.fast_controls.FastControls`, all else by ``app``."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.answers: StateAnswers = app.config["STATE_ANSWERS"]
        self.controls = FastControls(app)

    @staticmethod
    def answers_at_once(method: str, path: str, headers: Mapping[str, str] | None = None) -> bool:
        """The requests answered here from text already made (the snapshot is made once per
        change): the server may answer them on its event loop's thread rather than hand them
        to a pool thread (`companion.web.http_server.create_guarded_server`)."""
        return method == "GET" and path == "/api/state"

    @staticmethod
    def plain_tap(method: str, path: str, headers: Mapping[str, str]) -> bool:
        """A mock tap that `FastControls` answers itself as far as its head tells (the PIN in
        its header, a ``Host``, no cookie, a body of stated length), from waitress's parsed
        headers (``X_TABLE_PIN`` for ``X-Table-Pin``): everything else Flask answers, on the
        pool as before (`companion.run.serving.answered_at_once`)."""
        length = headers.get("CONTENT_LENGTH", "")
        return (
            method == "POST"
            and path == TAP
            and bool(headers.get("X_TABLE_PIN"))
            and "HOST" in headers
            and "COOKIE" not in headers
            and "TRANSFER_ENCODING" not in headers
            and length.isascii()
            and length.isdigit()
        )

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "POST":
            answered = self.controls.answer(environ, start_response)
            return self.app(environ, start_response) if answered is None else answered
        if environ.get("PATH_INFO") == "/api/state" and environ.get("REQUEST_METHOD") == "GET":
            try:
                body = self.answers.state_body(wants_page_kept(environ.get("QUERY_STRING", "")))
            except Exception:  # Flask answers it (its error handlers, the crash log)
                return self.app(environ, start_response)
            start_response("200 OK", self.headers(body))
            return [body]
        return self.app(environ, start_response)

    #: The last answer's body and headers (the page's body is the same object until it changes).
    last: tuple[bytes, tuple[tuple[str, str], ...]] = (b"", ())

    def headers(self, body: bytes) -> list[tuple[str, str]]:
        """The answer's headers for ``body``, made once per body (a list each time: waitress
        rewrites the one it is given)."""
        last = self.last
        if last[0] is not body:
            headers = (
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                *SECURITY_HEADERS,
            )
            last = self.last = (body, headers)
        return list(last[1])
