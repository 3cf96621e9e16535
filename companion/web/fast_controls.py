"""The mock reader's tap and the virtual buttons answered before Flask (issue 26).

A tap through Flask cost about half a millisecond of CPU in Flask's own machinery (its
contexts, routing, session, response object and hooks) before the table did anything: as
much as the table's work. `FastControls` answers ``POST /api/reader/tap`` and
``POST /api/buttons/<name>`` from the WSGI environ with the very same code as the routes
(`companion.web.mock`): the guard is `companion.web.route_support.control_refusal`, its inputs
read from the environ as werkzeug's request reads them (`ask_from`: its ``host`` by werkzeug's
`get_host`, headers and address; `read_body`), the body goes through
`route_support.body_object`, the tag through `mock.given_tag`, refusals are written by
`route_support.refusal_text` and bugs by the app's crash handler (``CRASH``).

Only the plain case comes here: the PIN in ``X-Table-Pin``, a ``Host`` header, no cookie (a cookie's session
may renew it: Flask's to answer), a body of known length within bounds that is a JSON object
with a tag, a button of the three. Anything else goes to Flask before anything counts (the
rate, a PIN guess), so no request is counted twice; once the guard has run, every answer is
this path's.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.sansio.utils import get_host
from werkzeug.wsgi import get_input_stream

from companion.table.access import HostSession
from companion.web.mock import BUTTONS, given_tag
from companion.web.route_support import (
    SECURITY_HEADERS,
    ControlAsk,
    Refusal,
    body_object,
    control_refusal,
    refusal_text,
)

TAP = "/api/reader/tap"
#: ``PATH_INFO`` of each virtual button's control.
BUTTON_PATHS = {f"/api/buttons/{name}": name for name in BUTTONS}

StartResponse = Callable[..., Any]


class FastControls:
    """The tap's and the buttons' answers for one app (`FastControls.answer`), with the app's
    own settings read at each request as the routes read them: its runtime, rate limit,
    names, answers, body limit and crash handler."""

    def __init__(self, app: Flask) -> None:
        self.config = app.config
        self.dumps: Callable[..., str] = app.json.dumps
        #: Each route's refusal on real hardware, as its guard (`route_support.control`) has it.
        views = app.view_functions
        self.off_mock: tuple[str, str] = (
            getattr(views["mock.tap"], "off_mock"),  # noqa: B009  # set by the decorator, untyped
            getattr(views["mock.press"], "off_mock"),  # noqa: B009
        )

    def asked(self, environ: dict[str, Any]) -> tuple[ControlAsk, str | None, str | None] | None:
        """The request's guard inputs, its tag (a tap) or button: None for all that Flask answers.
        Reads nothing that counts; a body read is put back for Flask."""
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("SCRIPT_NAME"):
            return None
        path = environ.get("PATH_INFO")
        button = BUTTON_PATHS.get(path) if isinstance(path, str) else None
        if (path != TAP and button is None) or "HTTP_COOKIE" in environ:
            return None
        pin = environ.get("HTTP_X_TABLE_PIN")
        if not pin or "HTTP_TRANSFER_ENCODING" in environ or "HTTP_HOST" not in environ:
            return None
        try:
            ask = ask_from(environ, pin, self.no_session)
            if button is not None:
                return ask, None, button
            length = environ.get("CONTENT_LENGTH", "")
            if not (length.isascii() and length.isdigit()) or int(length) > self.config["MAX_CONTENT_LENGTH"]:
                return None
            data = read_body(environ)
            environ["wsgi.input"] = io.BytesIO(data)  # for Flask, should it answer after all
            tag = tag_of(data)
        except Exception:  # a Host werkzeug refuses, a body that is not JSON: Flask's answer
            return None
        return (ask, tag, None) if tag is not None else None

    def no_session(self) -> HostSession | None:
        """The host session of a request without a cookie (never asked: the PIN came)."""
        session: HostSession | None = self.config["RUNTIME"].access.sessions.get(None)
        return session

    def answer(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes] | None:
        """The answer to a tap or a button's press, or None: Flask's to answer."""
        asked = self.asked(environ)
        if asked is None:
            return None
        ask, tag, button = asked
        try:
            code = self.off_mock[0] if tag is not None else self.off_mock[1]
            config = self.config
            runtime = config["RUNTIME"]
            refusal = control_refusal(runtime, config["CONTROLS"], config["HOST_NAMES"], ask, code)
            if refusal is None:
                outcome = runtime.tap(tag) if tag is not None else runtime.press(button)
                return send(start_response, "200 OK", config["STATE_ANSWERS"].control_body(outcome))
        except Exception as exc:  # a bug: answered as Flask's error handler answers it
            crash: Callable[[BaseException, str], Refusal] = self.config["CRASH"]
            refusal = crash(exc, f"POST {environ['PATH_INFO']}")
        body = refusal_text(self.dumps, refusal.code, refusal.params).encode()
        return send(start_response, f"{refusal.status} {HTTP_STATUS_CODES[refusal.status].upper()}", body)


#: Most bodies a table's taps send, each once: the same few dozen cards are tapped game after game.
_TAGS: dict[bytes, str | None] = {}
#: `get_host` of each (scheme, ``Host`` header) seen: a table's phones send one or two.
_HOSTS: dict[tuple[str, str], str] = {}
#: Entries each memo keeps at most (emptied when full: a flood of new bodies costs no memory).
MEMO_LIMIT = 512
#: The longest body or header kept (a tap's body is about 20 bytes; a longer one is parsed each time).
MEMO_SIZE = 256


def tag_of(data: bytes) -> str | None:
    """`mock.given_tag` of the body ``data`` (`route_support.body_object`), each body parsed
    once: the bounded parser's pass was most of reading a tap (issue 26). Raises as they do
    (`BadJson`), and a body that raises is not kept."""
    try:
        return _TAGS[data]
    except KeyError:
        pass
    tag = given_tag(body_object(data))
    if len(data) <= MEMO_SIZE:
        if len(_TAGS) >= MEMO_LIMIT:
            _TAGS.clear()
        _TAGS[data] = tag
    return tag


def host_of(scheme: str, header: str) -> str:
    """werkzeug's `get_host` of ``scheme`` and a ``Host`` header (no trusted hosts: a pure
    function of both), each pair worked out once."""
    key = (scheme, header)
    found = _HOSTS.get(key)
    if found is None:
        found = get_host(scheme, header)
        if len(header) <= MEMO_SIZE:
            if len(_HOSTS) >= MEMO_LIMIT:
                _HOSTS.clear()
            _HOSTS[key] = found
    return found


def ask_from(environ: dict[str, Any], pin: str, session_of: Callable[[], HostSession | None]) -> ControlAsk:
    """`route_support.ask_of` of a request with a ``Host`` header, read from its environ as
    werkzeug's request reads it (its ``host`` is `get_host` of the scheme and that header,
    its headers the environ's ``HTTP_`` keys as sent) without building the request, which
    with its headers and stream was half of this path's CPU (issue 26)."""
    host = host_of(environ["wsgi.url_scheme"], environ["HTTP_HOST"])
    address = environ.get("REMOTE_ADDR") or "unknown"
    return ControlAsk(host, address, pin, environ.get("HTTP_X_CSRF_TOKEN", ""), session_of)


def read_body(environ: dict[str, Any]) -> bytes:
    """The body as werkzeug's request reads it (``get_data``): a stream its server ends
    (``wsgi.input_terminated``, as waitress's) read as it is, another through werkzeug's limits."""
    stream = environ["wsgi.input"] if "wsgi.input_terminated" in environ else get_input_stream(environ)
    data: bytes = stream.read()
    return data


def send(start_response: StartResponse, status: str, body: bytes) -> list[bytes]:
    """``body`` as JSON with the headers Flask's answer carries (its type, length, `SECURITY_HEADERS`)."""
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body))), *SECURITY_HEADERS]
    start_response(status, headers)
    return [body]
