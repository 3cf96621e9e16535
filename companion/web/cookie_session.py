"""The page's cookie: the host session's random id, the phone's random id (the coach's seat,
`companion.web.coach`) and their HMAC, nothing else.

The login's lifetime is the server's business (`companion.table.access.Sessions`, on the
monotonic clock, fixed at login), so the cookie carries no date: Flask's own cookie sessions
date their signature on the wall clock and refused one dated in the future, so a wall clock
stepped back a few seconds (NTP at boot) logged the host out (issue 21). A cookie whose session
ended, or was logged out, names an id the server no longer knows.

The check is one HMAC-SHA256 of the two ids, compared in constant time: no JSON, no compression,
no timestamp, and the cookie is written only when a login, a logout or a phone's first seat
changes it (its expiry is the server session's, set at login), never again on each answer.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING

from flask.sessions import SecureCookieSession, SessionInterface, SessionMixin
from werkzeug.http import parse_cookie

if TYPE_CHECKING:
    from flask import Flask, Request, Response


def mac(key: bytes, payload: str) -> str:
    """The HMAC that vouches for ``payload`` (``sid:phone``) under ``key`` (the app's secret key)."""
    return hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()


#: The session's fields, in the cookie's order: ``sid:phone``, each a URL-safe token or empty.
FIELDS = ("sid", "phone")


class SignedIdCookie(SessionInterface):
    """A session holding only ``sid`` and ``phone``, read from and written to a ``sid:phone.mac``
    cookie (``sid.mac``, a cookie written before phones had ids, reads as a session id alone)."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        key = app.secret_key
        if not key:  # Flask's own answer then: no session at all
            return None
        # the one ``Cookie`` header a WSGI environ holds: ``request.cookies`` joins every header of
        # that name, and `EnvironHeaders` finds them by walking the whole environ each request
        value = parse_cookie(request.headers.get("Cookie")).get(self.get_cookie_name(app), "")
        payload, _, given = value.rpartition(".")
        if payload and len(value) <= 200 and hmac.compare_digest(given, mac(_bytes(key), payload)):
            fields = dict(zip(FIELDS, payload.split(":"), strict=False))
            return SecureCookieSession({k: v for k, v in fields.items() if v})
        return SecureCookieSession()

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        """The cookie, written only when the session changed: set at login or when a phone takes
        its first seat, deleted when neither is left."""
        if session.accessed:  # caches keep one answer per cookie
            response.vary.add("Cookie")
        if not session.modified:
            return
        name, domain, path = self.get_cookie_name(app), self.get_cookie_domain(app), self.get_cookie_path(app)
        fields = [session.get(k) for k in FIELDS]
        payload = ":".join(v if isinstance(v, str) and ":" not in v and "." not in v else "" for v in fields)
        if not payload.strip(":"):
            response.delete_cookie(
                name,
                domain=domain,
                path=path,
                secure=self.get_cookie_secure(app),
                httponly=self.get_cookie_httponly(app),
                samesite=self.get_cookie_samesite(app),
            )
            return
        response.set_cookie(
            name,
            f"{payload}.{mac(_bytes(app.secret_key), payload)}",
            expires=self.get_expiration_time(app, session),
            httponly=self.get_cookie_httponly(app),
            domain=domain,
            path=path,
            secure=self.get_cookie_secure(app),
            samesite=self.get_cookie_samesite(app),
        )


def _bytes(key: str | bytes | None) -> bytes:
    return key.encode() if isinstance(key, str) else bytes(key or b"")
