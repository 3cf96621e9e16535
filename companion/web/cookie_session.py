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

from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from itsdangerous import BadSignature

if TYPE_CHECKING:
    from flask import Flask, Request


class SignedIdCookie(SecureCookieSessionInterface):
    """Flask's signed cookie session, its signature's date not checked against the wall clock."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        signer = self.get_signing_serializer(app)
        if signer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        try:
            return self.session_class(signer.loads(value))
        except BadSignature:
            return self.session_class()
