"""What every HTTP route needs from the request it serves: the runtime, the body, errors, the PIN.

The page's routes live in one module per feature, each a blueprint (`companion.web.live`,
`companion.web.controls`, `companion.web.editions`, ...; `companion.web.app` registers them).
They guard their controls and answer errors the same way; these helpers live here, below all
of them, so that route modules need not import one another (only `companion.web.qr` asks
`companion.web.history` for a finished game) and none imports the app.

- `table_runtime` is the running table the app was built for (``RUNTIME`` in the
  app's config: `companion.web.app.create_app` puts it there).
- `json_error` is every refusal: ``{"error": "...", "code": "...", "params": {...}}`` with a
  4xx status. ``error`` is the English sentence (scripts and logs read it); ``code`` and
  ``params`` let the page write the same refusal in its own language (``msg`` in
  the catalogues web/static/i18n/*.json, where every code has an English and a French sentence).
- `json_body` is the request's JSON object (``{}`` for no body or another JSON value),
  decoded within bounds (`companion.util.json_bounds`: depth, number length; the size is
  bounded before); a body out of bounds or not JSON is a 400 with its code.
- `control` guards a control: the PIN in ``X-Table-Pin``, or the page's login with
  its CSRF token; only under this machine's own names; throttled.
- `answer` is a table input's answer (a tap, a press, an undo, a correction): its outcome and
  the table's new state.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any, NamedTuple

from flask import Response, current_app, g, request, session

from companion.editions import write_refused
from companion.store.log import DiskFull, StoreError
from companion.table.access import Access, HostSession, host_allowed
from companion.util.json_bounds import parse as parse_json
from companion.util.rate import SlidingWindow
from companion.util.wording import say
from companion.web.ports import TableRuntime

#: Headers on every answer (`companion.web.app.with_security_headers` adds any its route did not):
#: nothing sniffed, never framed, and only this server's own scripts and styles.
SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"),
)


def table_runtime() -> TableRuntime:
    runtime: TableRuntime = current_app.config["RUNTIME"]
    return runtime


class Refusal(NamedTuple):
    """A refusal before it is an HTTP answer: its status, its catalogue code and its params."""

    status: int
    code: str
    params: dict[str, Any]


def refused(refusal: Refusal) -> Response:
    """`refusal` as the route's answer, as ``jsonify`` writes it."""
    body: dict[str, object] = {"error": say(refusal.code, **refusal.params), "code": refusal.code}
    if refusal.params:
        body["params"] = refusal.params
    return Response(f"{current_app.json.dumps(body)}\n", status=refusal.status, mimetype="application/json")


def json_error(status: int, /, code: str, **params: Any) -> Response:
    """A refusal: its ``code`` and ``params`` for the page's language, and ``error``, the same
    sentence in English from the catalogue (scripts, logs and tests read it)."""
    return refused(Refusal(status, code, params))


def answer(outcome: Any) -> Response:
    """An input's answer (a tap, a press, an undo, a correction): what the table made of it
    (`companion.table` outcomes) and the table's state after it."""
    # the state's text encoded once per change (`companion.web.state_answers`)
    return current_app.config["STATE_ANSWERS"].control(outcome)  # type: ignore[no-any-return]


def page_file(name: str) -> Response:
    """One of the page's HTML files (web/static), which the browser asks again each time it
    opens it: a new version of the companion is never shown with the old page."""
    response = current_app.send_static_file(name)
    response.headers["Cache-Control"] = "no-cache"
    return response


def not_saved(exc: OSError) -> Response:
    """An owner's edition file the disk refused to write (full, read-only): nothing changed
    (`companion.editions.atomic_write` leaves the old file and no temporary one); a 507 that
    says what to do, for the edition page's changes and the table page's enrolment alike."""
    refused = write_refused(exc)
    return json_error(507, code=refused.code, **refused.params)


def store_refused(exc: StoreError) -> Response:
    """The game store refused: a full disk (507, with what to do) or another failure (503,
    with the store's own code and params, which the page words in its language); either way
    nothing of it was stored."""
    if isinstance(exc, DiskFull):
        return json_error(507, code="disk_full")
    return json_error(503, code=exc.code, **exc.params)


def json_body() -> dict[str, Any]:
    """The request's JSON object: ``{}`` for no body or a JSON value that is not an object.

    Every body goes through the one bounded parser (`companion.util.json_bounds`), whatever its
    ``Content-Type``: one that is not JSON within the bounds raises `BadJson`, which the app
    answers 400 with its code (`companion.web.app.create_app`)."""
    cached: dict[str, Any] | None = g.get("json_body")
    if cached is not None:
        return cached
    data = request.get_data(cache=True)
    body = parse_json(data) if data.strip() else {}
    obj = g.json_body = body if isinstance(body, dict) else {}
    return obj


def client_address() -> str:
    return request.remote_addr or "unknown"


def _limiter() -> SlidingWindow:
    limiter: SlidingWindow = current_app.config["CONTROLS"]
    return limiter


def pin_refusal(access: Access, address: str, given: str) -> Refusal | None:
    """None if ``given`` is the PIN; else the refusal (throttled per address and for the table)."""
    refused_pin = access.guard.check(address, given, access.pin)
    if refused_pin is None:
        return None
    code, _english = refused_pin  # the catalogue words it, in English and French
    if code == "wrong_pin":
        return Refusal(403, code="wrong_pin", params={})
    return Refusal(429, code, {})  # a lockout: the PIN was not checked


def check_pin(given: str) -> Response | None:
    """None if ``given`` is the PIN; else the refusal (throttled per address and for the table)."""
    refusal = pin_refusal(table_runtime().access, client_address(), given)
    return None if refusal is None else refused(refusal)


def host_session() -> HostSession | None:
    """The logged-in host's server-side session, or None (never logged in, logged out, expired)."""
    return table_runtime().access.sessions.get(session.get("sid"))


def foreign_host() -> Response | None:
    """A refusal when the request came in under a name that is not this machine's."""
    if host_allowed(request.host, current_app.config["HOST_NAMES"]):
        return None
    return json_error(403, code="foreign_host", url=table_runtime().join_url())


def _authorise(mock_code: str | None = None) -> Response | None:
    """Whether a control may run, or its refusal: this machine's name, the per-address rate,
    the PIN in the header or a logged-in page with its CSRF token, and (``mock_code``: the
    refusal's code) mock mode. The rate and the PIN count each request."""
    foreign = foreign_host()
    if foreign is not None:
        return foreign
    runtime, address = table_runtime(), client_address()
    if not _limiter().hit(address):
        return json_error(429, code="rate_limited")
    pin = request.headers.get("X-Table-Pin")
    if pin:
        refusal = pin_refusal(runtime.access, address, pin)
    else:
        host = host_session()
        token = request.headers.get("X-CSRF-Token", "")
        refusal = Refusal(401, code="login_needed", params={}) if host is None else csrf_check(host, token)
    if refusal is None and mock_code is not None and not runtime.mock:
        refusal = Refusal(409, mock_code, {})
    return None if refusal is None else refused(refusal)


def guest_refusal() -> Response | None:
    """The checks a POST anyone may make passes (the coach's ask): this machine's name, the
    per-address rate, and a JSON body, which another site's page cannot send without the
    browser asking this server first (and it says no)."""
    foreign = foreign_host()
    if foreign is not None:
        return foreign
    if not _limiter().hit(client_address()):
        return json_error(429, code="rate_limited")
    if not request.is_json:
        return json_error(415, code="json_needed")
    return None


def csrf_check(host: HostSession, token: str) -> Refusal | None:
    """None if ``token`` (``X-CSRF-Token``) is ``host``'s CSRF token, else the refusal.

    SameSite=Strict cookies still come with requests from another port of the same host
    (the same site): only the token, which such a page cannot read, tells the host's page."""
    if token and hmac.compare_digest(token, host.csrf):
        return None
    return Refusal(403, code="csrf_stale", params={})


def csrf_refusal(host: HostSession) -> Response | None:
    """None if the request carries ``host``'s CSRF token in ``X-CSRF-Token``, else the refusal."""
    refusal = csrf_check(host, request.headers.get("X-CSRF-Token", ""))
    return None if refusal is None else refused(refusal)


def control(
    mock_only: str | None = None, mock_code: str = "mock_only"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Guard a control endpoint: authorisation first; ``mock_only`` (the refusal, ``mock_code``
    its code) refuses it on real hardware."""

    off_mock = mock_code if mock_only else None

    def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            denied = _authorise(off_mock)
            if denied is not None:
                return denied
            return view(*args, **kwargs)

        return guarded

    return wrap
