"""The page's cookie: the host session's random id and its HMAC, nothing else.

The login's lifetime is the server's business (`companion.table.access.Sessions`, on the
monotonic clock, fixed at login), so the cookie carries no date: Flask's own cookie sessions
date their signature on the wall clock and refused one dated in the future, so a wall clock
stepped back a few seconds (NTP at boot) logged the host out (issue 21). A cookie whose session
ended, or was logged out, names an id the server no longer knows.

The check is one HMAC-SHA256 of the id, compared in constant time: no JSON, no compression, no
timestamp, and the cookie is written only when the login or logout changes it (its expiry is
the server session's, set at login), never again on each answer.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING

from flask.sessions import SecureCookieSession, SessionInterface, SessionMixin

if TYPE_CHECKING:
    from flask import Flask, Request, Response


def mac(key: bytes, sid: str) -> str:
    """The HMAC that vouches for ``sid`` under ``key`` (the app's secret key)."""
    return hmac.new(key, sid.encode(), hashlib.sha256).hexdigest()


class SignedIdCookie(SessionInterface):
    """A session holding only ``sid``, read from and written to a ``sid.mac`` cookie."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        key = app.secret_key
        if not key:  # Flask's own answer then: no session at all
            return None
        value = request.cookies.get(self.get_cookie_name(app), "")
        sid, _, given = value.rpartition(".")
        if sid and len(value) <= 200 and hmac.compare_digest(given, mac(_bytes(key), sid)):
            return SecureCookieSession({"sid": sid})
        return SecureCookieSession()

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        """The cookie, written only when the session changed: set at login, deleted at logout."""
        name, domain, path = self.get_cookie_name(app), self.get_cookie_domain(app), self.get_cookie_path(app)
        if session.accessed:
            response.vary.add("Cookie")
        if not session.modified:
            return
        sid = session.get("sid")
        if not isinstance(sid, str) or not sid:
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
            f"{sid}.{mac(_bytes(app.secret_key), sid)}",
            expires=self.get_expiration_time(app, session),
            httponly=self.get_cookie_httponly(app),
            domain=domain,
            path=path,
            secure=self.get_cookie_secure(app),
            samesite=self.get_cookie_samesite(app),
        )


def _bytes(key: str | bytes | None) -> bytes:
    return key.encode() if isinstance(key, str) else bytes(key or b"")
