"""The page and its JSON API: every phone at the table follows the game live.

- Reading is open on the LAN: ``GET /api/state``, the live stream
  ``GET /api/events`` (Server-Sent Events: a full snapshot on connect and after
  every change, heartbeats, ``Last-Event-ID`` catch-up), ``/api/ring``,
  ``/api/qr.svg``, ``/api/cards`` and ``/api/openapi.json``.
- Every control needs the table PIN: either in the ``X-Table-Pin`` header
  (scripts; no cookie, so nothing for a CSRF attack to ride on) or through the
  page's login, which sets a session cookie and returns a CSRF token that each
  control must echo in ``X-CSRF-Token``. Sessions live on the server
  (`companion.table.access`): logout revokes them and they expire. Wrong PINs are
  throttled per address and for the whole table.
- Controls and the login answer only under this machine's own names or an IP
  address (``Host``), so a DNS-rebinding page cannot reach them.
- Live pages are capped in all and per address; past the cap a page polls.
- Errors are JSON (``{"error": "..."}``) with a 4xx status; never a traceback.

Everything is served from this process (no CDN: the table may be offline) and
the page needs no build step. The web layer knows the running table only through
`companion.web.ports.TableRuntime`: `companion.run.startup` builds it and
`companion.run.serving` wires it in.
"""

from __future__ import annotations

import importlib.resources
import json
import logging
import math
import secrets
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request, session
from werkzeug.exceptions import HTTPException

from companion.coach.service import CoachRefused
from companion.engine.tokens import BENEFITS, COLUMNS
from companion.table.access import LogoutNotSaved, host_allowed, own_names
from companion.table.game_setup import GameSetupError
from companion.util.config import colour_problem
from companion.util.json_bounds import BadJson
from companion.util.rate import SlidingWindow
from companion.util.text import name_key, printable
from companion.web.cookie_session import SignedIdCookie
from companion.web.editions import library_api
from companion.web.history import history_api
from companion.web.live_streams import Broadcaster, SseMessages
from companion.web.ports import TableRuntime
from companion.web.route_support import (
    check_pin,
    client_address,
    control,
    csrf_refusal,
    foreign_host,
    guest_refusal,
    host_session,
    is_host,
    json_body,
    json_error,
    not_saved,
    store_refused,
    table_runtime,
)

#: The page's files: web/ in a checkout, installed as the package companion.page
#: (pyproject.toml), so a wheel serves the same page as an editable install.
WEB_ROOT = Path(str(importlib.resources.files("companion.page")))
#: The largest request body: controls send a few hundred bytes. The HTTP server refuses
#: bigger ones from their headers (`companion.web.http_server`), before reading them.
MAX_BODY = 64 * 1024
#: Seconds between heartbeats on an idle live stream.
HEARTBEAT = 15.0
#: Least time between two snapshots on one live stream: at most 25 redraws a second.
#: A table moves every few seconds, so this never delays a real update; it keeps a
#: burst of changes (a reveal right after a take, a script driving the table) from
#: waking every page's thread for every step. The page always ends on the latest state.
STREAM_INTERVAL = 0.04
api = Blueprint("api", __name__, url_prefix="/api")


def _answer(outcome: Any) -> Response:
    return jsonify({"outcome": outcome.to_json(), "state": table_runtime().state()})


class StreamSlots:
    """Live pages being streamed, in all and per address: each holds a server thread."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total, self.per_address = total, per_address
        self.by_address: dict[str, int] = {}
        self.lock = threading.Lock()

    def take(self, address: str) -> bool:
        with self.lock:
            if (
                sum(self.by_address.values()) >= self.total
                or self.by_address.get(address, 0) >= self.per_address
            ):
                return False
            self.by_address[address] = self.by_address.get(address, 0) + 1
            return True

    def give_back(self, address: str) -> None:
        with self.lock:
            left = self.by_address.get(address, 0) - 1
            if left > 0:
                self.by_address[address] = left
            else:
                self.by_address.pop(address, None)


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


# --- reading -------------------------------------------------------------------------------


@api.get("/state")
def state() -> Any:
    """The table's state; ``?page=1`` adds what the page draws. Also the polling fallback."""
    runtime = table_runtime()
    # Each hardware part, so the page (and a host) can see a ring or reader that is down; and
    # damage the store's checksums found, shown the same way until a host acknowledges it.
    hardware = runtime.health.as_json()
    store = runtime.store_damage()
    if request.args.get("page"):  # computed once per change however many pages poll
        # the parts' status changes apart from the game: appended to the shared snapshot's text
        text = runtime.page_text()[1]
        venue = json.dumps(runtime.venue_status())
        extra = f',"hardware":{json.dumps(hardware)},"store":{json.dumps(store)},"venue":{venue}'
        return Response(f"{text[:-1]}{extra}}}", mimetype="application/json")
    return jsonify({**runtime.state(), "hardware": hardware, "store": store, "venue": runtime.venue_status()})


@api.get("/events")
def events() -> Response:
    """Live updates: a snapshot now, then one after each change; heartbeats in between.

    Each stream holds one server thread, so they are capped (`StreamSlots`); a page
    refused here polls `/api/state` instead. A stream notices within a second that
    its page went away (waitress tells), and gives its thread back.
    """
    runtime = table_runtime()
    last = request.headers.get("Last-Event-ID") or request.args.get("last_event_id") or ""
    heartbeat = current_app.config["HEARTBEAT"]
    interval = current_app.config["STREAM_INTERVAL"]
    boot = current_app.config["BOOT"]
    slots: StreamSlots = current_app.config["STREAMS"]
    address = client_address()
    if not slots.take(address):
        response = json_error(
            503,
            code="too_many_pages",
        )
        response.headers["Retry-After"] = "30"
        return response
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected", lambda: False)
    released = threading.Event()

    def release() -> None:  # once, whether the stream ran to its end or never started
        if not released.is_set():
            released.set()
            slots.give_back(address)

    messages: SseMessages = current_app.config["SSE_MESSAGES"]
    # Under waitress, over HTTP/1.1 (chunked), one thread writes every page's updates
    # (`companion.web.live_streams`); elsewhere (a test client, HTTP/1.0) the page's own thread does.
    channel = getattr(request.environ.get("waitress.client_disconnected"), "__self__", None)
    shared = channel is not None and request.environ.get("SERVER_PROTOCOL") == "HTTP/1.1"
    broadcaster: Broadcaster = current_app.config["BROADCASTER"]

    def stream() -> Iterator[bytes]:
        # Event ids are "<this process>-<table version>": a page that saw the latest
        # one (after a dropped connection) gets nothing again; any other id, or one
        # from before a restart, gets the current snapshot at once.
        try:
            yield b"retry: 2000\n: connected\n\n"
            sent, sent_at = last, -interval
            quiet_since = time.monotonic()
            if shared:
                version, event_id, message = messages.message(runtime, boot)
                if event_id != sent:
                    sent = event_id
                    yield message
                page = broadcaster.add(channel, sent)
                try:  # the broadcaster writes from now on: wait for the page to go away
                    while not gone() and not page.done.wait(1.0):
                        pass
                finally:
                    broadcaster.remove(page)
                return
            while not gone():
                version = runtime.version()
                if f"{boot}-{version}" != sent:
                    pause = sent_at + interval - time.monotonic()
                    if pause > 0:  # a snapshot just went out: send the latest one a moment later
                        time.sleep(pause)
                        continue
                    version, sent, message = messages.message(runtime, boot)
                    sent_at = quiet_since = time.monotonic()
                    yield message
                # wait in short steps, so a closed page frees its thread within a second
                wait = min(1.0, max(0.0, quiet_since + heartbeat - time.monotonic()))
                # a new game wakes this wait and bumps the version: it is sent at once
                unchanged = runtime.wait_for_change(version, wait) == version
                if unchanged and time.monotonic() - quiet_since >= heartbeat:
                    quiet_since = time.monotonic()
                    yield b": heartbeat\n\n"
        finally:
            release()

    response = Response(stream(), mimetype="text/event-stream")
    response.call_on_close(release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@api.get("/ring")
def ring() -> Any:
    """The Clock as the ring shows it now: one "#rrggbb" per LED. While the ring shows the
    table PIN (Confirm held), only a logged-in host sees it; anyone else gets the game's picture."""
    host = foreign_host() is None and host_session() is not None
    frame = table_runtime().ring_frame(private=host)
    return jsonify({"leds": [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in frame]})


@api.get("/qr.svg")
def qr() -> Response:
    """A QR code of the page's address, so a phone joins in one scan."""
    import io

    import segno

    drawing = io.BytesIO()
    segno.make(_join_url(), error="m").save(drawing, kind="svg", scale=5, light="#fff")
    return Response(drawing.getvalue(), mimetype="image/svg+xml")


def _join_url() -> str:
    """The page's address for phones: as this request reached us, if that is one of our names."""
    runtime = table_runtime()
    if host_allowed(request.host, current_app.config["HOST_NAMES"]):
        return runtime.join_url(request.host)
    return runtime.join_url()


@api.get("/join")
def join() -> Any:
    return jsonify({"url": _join_url()})


@api.get("/cards")
def cards() -> Any:
    """Search the edition by title, year or id (for enrolment): each match with its English
    ``label`` (scripts) and what the page words in its language (kind, title, year, hours, gains)."""
    from companion.table.enrol import find

    edition = table_runtime().edition()
    found: list[dict[str, Any]] = []
    for i, label in find(edition, request.args.get("q", "")):
        entry: dict[str, Any] = {"id": i, "label": label}
        if i in edition.card_index:
            card = edition.card(i)
            entry.update(kind="card", title=card.title, year=card.year, hours=card.hours)
            entry["gains"] = list(card.gains)
        else:
            entry["kind"] = "itinerary" if i in edition.itinerary_index else "ancestor"
        found.append(entry)
    return jsonify({"cards": found})


@api.get("/editions")
def editions() -> Any:
    from companion.editions import EditionLibrary

    library = EditionLibrary(table_runtime().data_dir)
    return jsonify({"editions": library.names(), "default": library.default()})


@api.get("/openapi.json")
def openapi() -> Any:
    return jsonify(OPENAPI)


# --- the page's login -------------------------------------------------------------------------


@api.post("/login")
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
    session.clear()
    session["sid"] = sid
    session.permanent = True  # the cookie ends with the server-side session
    return jsonify({"csrf": host.csrf})


@api.post("/logout")
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
    session.clear()
    return jsonify({"ok": True})


@api.get("/session")
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


# --- controls ---------------------------------------------------------------------------------


@api.post("/game/new")
@control()
def game_new() -> Any:
    from companion.editions import EditionNotFound
    from companion.engine import EditionError
    from companion.store.log import StoreError

    body = json_body()
    players = body.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        return json_error(
            400,
            code="players_missing",
        )
    colours = body.get("colours")
    # a seat's colour, or null: the player's own (`companion.table.marks`)
    if colours is not None and (
        not isinstance(colours, list) or any(c is not None and colour_problem(c) for c in colours)
    ):
        return json_error(400, code="bad_colours")
    edition = body.get("edition", "reference")
    seed = body.get("seed")
    if not isinstance(edition, str) or (
        seed is not None and (not isinstance(seed, int) or isinstance(seed, bool))
    ):
        return json_error(400, code="bad_edition_or_seed")
    runtime = table_runtime()
    try:
        if body.get("check") is True:  # asked before "replace the game in progress?": nothing starts
            from companion.table.game_setup import checked_setup

            checked_setup(runtime.data_dir, players, runtime.config, colours, edition)
            return jsonify({"ok": True})
        game = runtime.start_game(players, colours, edition, seed)
    except GameSetupError as exc:
        return json_error(400, code=exc.code, **exc.params)
    except EditionNotFound:
        from companion.editions import EditionLibrary

        known = ", ".join(EditionLibrary(runtime.data_dir).names())
        return json_error(400, code="unknown_edition", edition=edition[:40], known=known)
    except EditionError as exc:
        return json_error(400, code="edition_invalid", edition=edition[:40], detail=str(exc))
    except StoreError as exc:
        return store_refused(exc)
    return jsonify({"game": game, "state": runtime.state()})


@api.post("/store/acknowledge")
@control()
def store_acknowledge() -> Any:
    """The host has read the store's damage notices (``store`` in the state): stop showing them."""
    from companion.store.log import StoreError

    try:
        done = table_runtime().acknowledge_damage()
    except StoreError as exc:
        return store_refused(exc)
    return jsonify({"acknowledged": done})


@api.post("/undo")
@control()
def undo() -> Any:
    # Optional: the page names the table it showed ({"process", "version"} of its snapshot),
    # and an undo of a table that changed since is refused (Table.undo).
    body = json_body()
    if "version" not in body:
        return _answer(table_runtime().undo())
    version, process = body.get("version"), body.get("process")
    if type(version) is not int or not isinstance(process, str):
        return json_error(
            400,
            code="bad_undo_version",
        )
    return _answer(table_runtime().undo((process, version)))


@api.post("/coach")
@control()
def coach() -> Any:
    """The host turns the coach on or off, and "coach for everyone" (a teaching game) on or
    off; both are remembered until the companion stops."""
    body = json_body()
    on, everyone = body.get("on"), body.get("everyone")
    if not isinstance(on, bool) or not isinstance(everyone, bool | None):
        return json_error(400, code="coach_switch")
    runtime = table_runtime()
    runtime.switch_coach(on, everyone)
    return jsonify({"state": runtime.state()})


@api.post("/coach/ask")
def coach_ask() -> Any:
    """The player to move asks the coach (from their phone, or the host for them): the
    answer goes back to this phone only (and to the host's, `coach_advice`)."""
    refused = guest_refusal()
    if refused is not None:
        return refused
    player = json_body().get("player")
    if not isinstance(player, str) or not player.strip():
        return json_error(400, code="coach_player")
    try:
        return jsonify({"coach": table_runtime().ask_coach(player)})
    except CoachRefused as exc:
        return json_error(409, code=exc.code, **exc.params)


@api.get("/coach")
def coach_advice() -> Any:
    """The coach's answer for the position on the table, for the host's pages (and anyone's
    in a teaching game); a guest gets only whether the coach is on."""
    runtime = table_runtime()
    answer = runtime.coach_advice()
    if is_host() or runtime.coach_for_everyone():
        return jsonify({"coach": answer})
    return jsonify({"coach": {"on": answer["on"], "status": "host_only"}})


@api.post("/correct/wild")
@control()
def correct_wild() -> Any:
    wild = json_body().get("wild")
    if not isinstance(wild, list) or not wild or not all(w in COLUMNS for w in wild):
        return json_error(400, code="wild_columns")
    return _answer(table_runtime().correct_wild(wild))


@api.post("/correct/itinerary")
@control()
def correct_itinerary() -> Any:
    body = json_body()
    player, itinerary = body.get("player"), body.get("itinerary")
    if not isinstance(player, str) or not isinstance(itinerary, str):
        return json_error(400, code="itinerary_fields")
    runtime = table_runtime()
    # the name as the game keeps it: a script may send "Zoé" decomposed, or in another case
    player = next((name for name in runtime.player_names() if name_key(name) == name_key(player)), player)
    return _answer(runtime.correct_itinerary(player, itinerary))


@api.post("/enroll")
@control()
def enroll() -> Any:
    from companion.editions import EditionNotFound
    from companion.store.log import DiskFull, StoreError
    from companion.table.enrol import EnrolRefused

    body = json_body()
    tag, card = body.get("tag"), body.get("card")
    if not isinstance(tag, str) or not tag.strip() or not isinstance(card, str):
        return json_error(
            400,
            code="enrol_fields",
        )
    values = None
    if "hours" in body or "gains" in body:
        hours, gains = body.get("hours"), body.get("gains", [])
        if (
            not isinstance(hours, int)
            or isinstance(hours, bool)
            or not 1 <= hours <= 12
            or not isinstance(gains, list)
            or not all(g in BENEFITS for g in gains)
        ):
            return json_error(
                400,
                code="enrol_values",
                benefits=", ".join(BENEFITS),
            )
        values = (hours, list(gains))
    runtime = table_runtime()
    edition = runtime.edition()
    from companion.editions import EditionLibrary, mine_name

    library = EditionLibrary(runtime.data_dir)
    own = library.path(mine_name(edition.name))
    try:
        # enroll_tag reads, changes and writes the owner's file under the library's lock
        message, params = runtime.enroll(own, tag.strip(), card, values)
    except EnrolRefused as exc:
        return json_error(400, code=exc.code, **exc.params)
    except DiskFull as exc:
        return store_refused(exc)
    except OSError as exc:  # the owner's edition file (the values typed) was not written
        return not_saved(exc)
    except StoreError as exc:  # the store's own code: the page words it in its language
        return json_error(400, code=exc.code, **exc.params)
    except (ValueError, EditionNotFound) as exc:
        # the English detail stays beside the code: the page words the refusal without it
        return json_error(400, code="enrol_refused", detail=str(exc))
    if runtime.unknown_tag == tag.strip():
        runtime.unknown_tag = None
    return jsonify({"message": message, "code": "enrolled", "params": params})


@api.post("/reader/tap")
@control(
    mock_only="The virtual reader only exists in mock mode; tap the card on the reader.",
    mock_code="real_reader",
)
def tap() -> Any:
    body = json_body()
    if not isinstance(body.get("tag"), str) or not body["tag"].strip():
        return json_error(400, code="tag_missing")
    return _answer(table_runtime().tap(body["tag"]))


@api.post("/buttons/<name>")
@control(
    mock_only="The virtual buttons only exist in mock mode; press the real ones.", mock_code="real_buttons"
)
def press(name: str) -> Any:
    if name not in ("crystal", "confirm", "undo"):
        return json_error(
            404,
            code="no_button",
            button=name[:40],
        )
    return _answer(table_runtime().press(name))


# --- the app ----------------------------------------------------------------------------------


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

    app = Flask(__name__, static_folder=str(WEB_ROOT / "static"), static_url_path="/static")
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
    app.session_interface = SignedIdCookie()  # a wall clock stepped back logs no one out
    app.register_blueprint(api)
    app.register_blueprint(library_api)  # the owner's editions (a module of its own)
    app.register_blueprint(history_api)  # after the game: history, ratings, BG Stats

    @app.get("/")
    def index() -> Any:
        response = app.send_static_file("index.html")
        response.headers["Cache-Control"] = "no-cache"
        return response

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
        )
        return response

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
        crash_log.report(exc, f"{request.method} {request.path}")
        return json_error(
            500,
            code="internal_error",
            error_type=type(exc).__name__,
        )

    return app


#: The API description (a data file beside this module, kept in step by the tests).
#: Read as the package's data (not beside this module's file), wherever the module lives.
OPENAPI: dict[str, Any] = json.loads(
    importlib.resources.files("companion").joinpath("openapi.json").read_text(encoding="utf-8")
)
