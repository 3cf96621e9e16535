"""The application factory: one Flask app per running table, its feature blueprints registered.

Each feature's routes live in a module of their own, each one blueprint:

- `companion.web.live`: the page, ``/api/state``, the live stream, the ring, the card search,
  the editions to start with, ``/api/openapi.json`` (reading, open on the LAN);
- `companion.web.qr`: the page's address and its QR code;
- `companion.web.auth`: the page's login, logout and session;
- `companion.web.controls`: a new game, undo, corrections, the store's notices read;
- `companion.web.coach`: the coach's switch, a player's question, its advice;
- `companion.web.enrol`: a sticker's tag bound to a card;
- `companion.web.mock`: mock mode's virtual reader and buttons;
- `companion.web.editions`: the owner's edition library and transcription mode;
- `companion.web.history`: after the game: history, ratings, BG Stats, merges.

What they share about a request (the runtime, the body, errors, the PIN guard) is in
`companion.web.route_support`. This module holds what is the app's own: its settings,
security headers, and errors as JSON (``{"error": "..."}`` with a 4xx status; never a
traceback; internal errors logged one line each, `CrashLog`).

- Every control needs the table PIN: either in the ``X-Table-Pin`` header
  (scripts; no cookie, so nothing for a CSRF attack to ride on) or through the
  page's login, which sets a session cookie and returns a CSRF token that each
  control must echo in ``X-CSRF-Token``. Sessions live on the server
  (`companion.table.access`): logout revokes them and they expire. Wrong PINs are
  throttled per address and for the whole table.
- Controls and the login answer only under this machine's own names or an IP
  address (``Host``), so a DNS-rebinding page cannot reach them.

Everything is served from this process (no CDN: the table may be offline) and
the page needs no build step. The web layer knows the running table only through
`companion.web.ports.TableRuntime`: `companion.run.startup` builds it and
`companion.run.serving` wires it in.
"""

from __future__ import annotations

import importlib.resources
import logging
import math
import secrets
import threading
import time
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, request
from werkzeug.exceptions import HTTPException

from companion.table.access import own_names
from companion.util.json_bounds import BadJson
from companion.util.rate import SlidingWindow
from companion.util.text import printable
from companion.web.auth import auth_api
from companion.web.coach import coach_api
from companion.web.controls import controls_api
from companion.web.cookie_session import SignedIdCookie
from companion.web.editions import library_api
from companion.web.enrol import enrol_api
from companion.web.history import history_api
from companion.web.live import HEARTBEAT, STREAM_INTERVAL, StreamSlots, live_api
from companion.web.live_streams import Broadcaster, SseMessages
from companion.web.mock import mock_api
from companion.web.ports import TableRuntime
from companion.web.qr import qr_api
from companion.web.route_support import SECURITY_HEADERS, Refusal, json_error, refused
from companion.web.state_answers import StateAnswers
from companion.web.url_rules import rule_class

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: The page's files: web/ in a checkout, installed as the package companion.page
#: (pyproject.toml), so a wheel serves the same page as an editable install.
WEB_ROOT = Path(str(importlib.resources.files("companion.page")))
#: The largest request body: controls send a few hundred bytes. The HTTP server refuses
#: bigger ones from their headers (`companion.web.http_server`), before reading them.
MAX_BODY = 64 * 1024
#: Every feature's routes, one blueprint each, in the order they are registered.
BLUEPRINTS = (
    live_api,
    qr_api,
    auth_api,
    controls_api,
    coach_api,
    enrol_api,
    mock_api,
    library_api,
    history_api,
)


class CrashLog:
    """Internal errors in the log: one line each (the error and where it was raised), at most
    one line every ``every`` seconds, then how many were left out. What a client chose (the
    path, the error's text) is cut short and its control characters escaped.

    A traceback per request let one client write 535 KiB/s to the journal (issue 16)."""

    def __init__(self, logger: logging.Logger, every: float = 10.0) -> None:
        self.logger, self.every = logger, every
        self.next_at = -math.inf
        self.left_out = 0
        self.lock = threading.Lock()

    def report(self, exc: BaseException, where: str) -> None:
        with self.lock:
            now = time.monotonic()
            if now < self.next_at:
                self.left_out += 1
                return
            self.next_at, left_out, self.left_out = now + self.every, self.left_out, 0
        frames = traceback.extract_tb(exc.__traceback__)
        place = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
        more = f" ({left_out} more since the last line)" if left_out else ""
        self.logger.error(
            "internal error on %s: %s%s: %s%s",
            printable(where[:100]),
            type(exc).__name__,
            place,
            repr(str(exc)[:200]),
            more,
        )


def crashed(crash_log: CrashLog, exc: BaseException, where: str) -> Refusal:
    """A bug while answering ``where`` (``"POST /api/reader/tap"``): one line in the log, and the
    500 that says so, without a traceback."""
    crash_log.report(exc, where)
    return Refusal(500, code="internal_error", params={"error_type": type(exc).__name__})


def with_security_headers(wsgi_app: WSGIApplication) -> WSGIApplication:
    """``wsgi_app`` with `SECURITY_HEADERS` on every answer, each one its route did not set: added
    to the header list as it starts (Flask's ``after_request`` looked each one up in werkzeug's
    `Headers`, a walk of the list per name, on every answer)."""

    def answer(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            own = {name.lower() for name, _ in headers}
            headers.extend(header for header in SECURITY_HEADERS if header[0].lower() not in own)
            return start_response(status, headers, exc_info)

        return wsgi_app(environ, start)

    return answer


class PageApp(Flask):
    """Flask with URL builders compiled when first used (`companion.web.url_rules`): a quicker start."""

    url_rule_class = rule_class()


def create_app(
    runtime: TableRuntime,
    heartbeat: float = HEARTBEAT,
    stream_interval: float = STREAM_INTERVAL,
    hostname: str | None = None,
) -> Flask:
    """The application factory: one app per running table."""
    import socket
    from datetime import timedelta

    from companion.table.access import SESSION_SECONDS

    app = PageApp(__name__, static_folder=str(WEB_ROOT / "static"), static_url_path="/static")
    table_settings = runtime.config.table
    boot, messages = secrets.token_hex(4), SseMessages()
    app.config.update(
        RUNTIME=runtime,
        HEARTBEAT=heartbeat,
        STREAM_INTERVAL=stream_interval,
        BOOT=boot,
        SSE_MESSAGES=messages,
        BROADCASTER=Broadcaster(runtime, messages, boot, stream_interval, heartbeat),
        CONTROLS=SlidingWindow(table_settings.controls_per_minute, 60),  # per address
        STREAMS=StreamSlots(table_settings.live_pages, table_settings.live_pages_per_address),
        HOST_NAMES=own_names(hostname if hostname is not None else socket.gethostname()),
        SECRET_KEY=runtime.secret_key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(seconds=SESSION_SECONDS),
        MAX_CONTENT_LENGTH=MAX_BODY,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config["STATE_ANSWERS"] = StateAnswers(runtime)
    app.session_interface = SignedIdCookie()  # a wall clock stepped back logs no one out
    app.wsgi_app = with_security_headers(app.wsgi_app)  # type: ignore[method-assign,assignment]
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)

    @app.errorhandler(HTTPException)
    def httpjson_error(exc: HTTPException) -> Any:
        status = exc.code or 500
        return json_error(status, code="http_error", status=status)

    @app.errorhandler(BadJson)
    def bad_json(exc: BadJson) -> Any:
        return json_error(400, code=exc.code, **exc.params)

    crash_log = CrashLog(app.logger)

    @app.errorhandler(Exception)
    def crash(exc: Exception) -> Any:  # a bug, reported without a traceback
        return refused(crashed(crash_log, exc, f"{request.method} {request.path}"))

    return app
