"""The page's cookie: signed, carrying only the host session's random id.

Flask's own cookie sessions date the signature on the wall clock and refuse one dated in
the future, so a wall clock stepped back a few seconds (NTP at boot, the owner setting
the time) logged the host out until it caught up (issue 21). The login's lifetime is the
server's business (`companion.table.access.Sessions`, on the monotonic clock), so the cookie's
signature is checked here without an age: a cookie whose session ended, or was logged
out, names an id the server no longer knows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from itsdangerous import BadSignature

if TYPE_CHECKING:
    from flask import Flask, Request, Response


class SignedIdCookie(SecureCookieSessionInterface):
    """Flask's signed cookie session, its signature's date not checked against the wall clock."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if not app.secret_key:  # Flask's own answer then: no session at all
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:  # no cookie: nothing to check, so no signer to build
            return self.session_class()
        signer = self.get_signing_serializer(app)
        if signer is None:
            return None
        try:
            return self.session_class(signer.loads(value))
        except BadSignature:
            return self.session_class()

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        """Flask's, without its cookie settings looked up for a session left empty and
        unchanged (a request that had no cookie and set none): nothing to write then."""
        if not session and not session.modified:
            if session.accessed:
                response.vary.add("Cookie")
            return
        super().save_session(app, session, response)
