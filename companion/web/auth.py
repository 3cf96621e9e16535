"""The page's login: a host types the table PIN once, and the page's controls ride on a session.

``POST /api/login`` checks the PIN (throttled per address and for the whole table), opens a
server-side session (`companion.table.access`) in a signed cookie and returns the CSRF token
each control must echo in ``X-CSRF-Token``; ``POST /api/logout`` revokes it; ``GET
/api/session`` tells the page whether it is the host's. The login answers only under this
machine's own names or an IP address (``Host``), so a DNS-rebinding page cannot reach it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, session

from companion.table.access import LogoutNotSaved
from companion.web.route_support import (
    check_pin,
    csrf_refusal,
    foreign_host,
    host_session,
    json_body,
    json_error,
    table_runtime,
)

auth_api = Blueprint("auth", __name__)


@auth_api.post("/api/login")
def login() -> Any:
    foreign = foreign_host()
    if foreign is not None:
        return foreign
    pin = json_body().get("pin", "")
    if not isinstance(pin, str | int) or isinstance(pin, bool) or not str(pin):
        return json_error(400, code="pin_missing")
    denied = check_pin(str(pin))
    if denied is not None:
        return denied
    sessions = table_runtime().access.sessions
    sessions.close(session.get("sid"))
    sid, host = sessions.open()
    _clear()
    session["sid"] = sid
    session.permanent = True  # the cookie ends with the server-side session
    return jsonify({"csrf": host.csrf})


@auth_api.post("/api/logout")
def logout() -> Any:
    """End the page's login. Like every control it needs the login's CSRF token: a page on
    another port of this host (the same site for the cookie) could log the host out."""
    host = host_session()
    if host is not None:
        refused = csrf_refusal(host)
        if refused is not None:
            return refused
        try:
            table_runtime().access.sessions.close(session.get("sid"))
        except LogoutNotSaved as exc:  # still logged in, and told so: never an OK a restart undoes
            return json_error(507, code=exc.code, **exc.params)
    _clear()
    return jsonify({"ok": True})


def _clear() -> None:
    """Forget the cookie's host session, but not the phone's id: a player who is also the host
    keeps the seat their phone holds (`companion.web.coach`)."""
    phone = session.get("phone")
    session.clear()
    if phone is not None:
        session["phone"] = phone
        session.permanent = True


@auth_api.get("/api/session")
def whoami() -> Any:
    runtime = table_runtime()
    host = host_session() if foreign_host() is None else None
    return jsonify(
        {
            "host": host is not None,
            "csrf": host.csrf if host is not None else None,
            "mock": runtime.mock,
            "unknown_tag": runtime.unknown_tag if host is not None else None,
        }
    )
