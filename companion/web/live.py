"""The live page: what every phone at the table reads, and the stream that keeps it current.

Reading is open on the LAN: the page itself (``/``), ``GET /api/state``, the live stream
``GET /api/events`` (Server-Sent Events: a full snapshot on connect and after every change,
heartbeats, ``Last-Event-ID`` catch-up), ``/api/ring``, ``/api/cards`` (the enrolment
search), ``/api/editions`` (the new game's choice) and ``/api/openapi.json``.

Live pages are capped in all and per address (`StreamSlots`): past the cap a page polls
``/api/state``. Under waitress a page's connection is handed to one writer for every page
once its first snapshot is sent (`companion.web.live_streams`): its server thread is free.
"""

from __future__ import annotations

import importlib.resources
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.web.live_streams import Broadcaster, SseMessages
from companion.web.route_support import (
    client_address,
    foreign_host,
    host_session,
    json_error,
    page_file,
    table_runtime,
)
from companion.web.state_answers import StateAnswers

#: Seconds between heartbeats on an idle live stream.
HEARTBEAT = 15.0
#: Least time between two snapshots on one live stream: at most 25 redraws a second.
#: A table moves every few seconds, so this never delays a real update; it keeps a
#: burst of changes (a reveal right after a take, a script driving the table) from
#: waking every page's thread for every step. The page always ends on the latest state.
STREAM_INTERVAL = 0.04
#: The API description (a data file beside this package's modules, kept in step by the tests).
#: Read as the package's data (not beside this module's file), wherever the module lives.
OPENAPI: dict[str, Any] = json.loads(
    importlib.resources.files("companion").joinpath("openapi.json").read_text(encoding="utf-8")
)

live_api = Blueprint("live", __name__)


class StreamSlots:
    """Live pages being streamed, in all and per address, each on a connection; and those
    that hold a server thread for as long as they last (``held``: under waitress, a page
    whose connection cannot be handed over, over HTTP/1.0), capped apart."""

    def __init__(self, total: int, per_address: int, held_total: int | None = None) -> None:
        self.total, self.per_address = total, per_address
        self.held_total = total if held_total is None else held_total
        self.by_address: dict[str, int] = {}
        self.held = 0
        self.lock = threading.Lock()

    def hold(self) -> bool:
        """Take a server thread for a page's whole stream (after `take`), if one is left."""
        with self.lock:
            if self.held >= self.held_total:
                return False
            self.held += 1
            return True

    def unhold(self) -> None:
        with self.lock:
            self.held -= 1

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


@live_api.get("/")
def index() -> Any:
    return page_file("index.html")


@live_api.get("/api/state")
def state() -> Any:
    """The table's state; ``?page=1`` adds what the page draws. Also the polling fallback.

    With each hardware part's status (a ring or reader that is down), damage the store's
    checksums found (shown until a host acknowledges it) and the venue's status; encoded
    once per change however many pages poll (`companion.web.state_answers`)."""
    answers: StateAnswers = current_app.config["STATE_ANSWERS"]
    return answers.state(page=bool(request.args.get("page")))


def too_many_pages() -> Response:
    response = json_error(503, code="too_many_pages")
    response.headers["Retry-After"] = "30"
    return response


@live_api.get("/api/events")
def events() -> Response:
    """Live updates: a snapshot now, then one after each change; heartbeats in between.

    Streams are capped (`StreamSlots`); a page refused here polls `/api/state` instead.
    Under waitress the stream's thread is free once the first snapshot is sent (the
    broadcaster sees the page go away at once); elsewhere it holds the thread and notices
    within a second that its page went away.
    """
    runtime = table_runtime()
    last = request.headers.get("Last-Event-ID") or request.args.get("last_event_id") or ""
    heartbeat = current_app.config["HEARTBEAT"]
    interval = current_app.config["STREAM_INTERVAL"]
    boot = current_app.config["BOOT"]
    slots: StreamSlots = current_app.config["STREAMS"]
    address = client_address()
    # Under waitress, over HTTP/1.1 (chunked), the page's connection is handed over to one
    # writer for every page once its first snapshot is out (`companion.web.live_streams`);
    # elsewhere (a test client, HTTP/1.0) the page's own thread writes its updates.
    channel = getattr(request.environ.get("waitress.client_disconnected"), "__self__", None)
    shared = hasattr(channel, "hand_over") and request.environ.get("SERVER_PROTOCOL") == "HTTP/1.1"
    holds = channel is not None and not shared  # a waitress thread for the stream's whole life
    if not slots.take(address):
        return too_many_pages()
    if holds and not slots.hold():
        slots.give_back(address)
        return too_many_pages()
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected", lambda: False)
    released = threading.Event()
    handed = threading.Event()  # the broadcaster holds the page: it gives the slot back

    def give_back() -> None:  # once, whether the stream ran to its end or never started
        if not released.is_set():
            released.set()
            slots.give_back(address)
            if holds:
                slots.unhold()

    def release() -> None:
        if not handed.is_set():
            give_back()

    messages: SseMessages = current_app.config["SSE_MESSAGES"]
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
                handed.set()  # before the hand-over: the slot may be given back from then on
                if channel is None or not channel.hand_over(broadcaster.take(sent, give_back)):
                    handed.clear()  # the page went away: the slot is given back below
                return  # the thread is free; the broadcaster writes the rest of the response
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


@live_api.get("/api/ring")
def ring() -> Any:
    """The Clock as the ring shows it now: one "#rrggbb" per LED. While the ring shows the
    table PIN (Confirm held), only a logged-in host sees it; anyone else gets the game's picture."""
    host = foreign_host() is None and host_session() is not None
    frame = table_runtime().ring_frame(private=host)
    return jsonify({"leds": [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in frame]})


@live_api.get("/api/cards")
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


@live_api.get("/api/editions")
def editions() -> Any:
    from companion.editions import EditionLibrary

    library = EditionLibrary(table_runtime().data_dir)
    # a draft (an owner's box still being transcribed) is no choice for a new game: listed
    # apart, so the form can leave it out and the edition page still knows it
    drafts = library.drafts()
    names = [name for name in library.names() if name not in drafts]
    return jsonify({"editions": names, "drafts": drafts, "default": library.default()})


@live_api.get("/api/openapi.json")
def openapi() -> Any:
    return jsonify(OPENAPI)
