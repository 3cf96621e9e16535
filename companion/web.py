"""The HTTP side of the table: the JSON API (and, later, the live page).

Reading is open to everyone on the LAN; every control needs the table PIN in
the ``X-Table-Pin`` header. Errors are JSON objects with a plain ``error``
message and a 4xx status, never a traceback. In mock mode two more controls
stand in for the hardware: the virtual reader and the buttons (driving
gpiozero's mock pins, so the same code path as a real press runs).
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

WEB_ROOT = Path(__file__).resolve().parent.parent / "web"

api = Blueprint("api", __name__, url_prefix="/api")


def _runtime() -> Any:
    return current_app.config["RUNTIME"]


def _error(status: int, message: str) -> tuple[Any, int]:
    return jsonify({"error": message}), status


def _require_pin() -> tuple[Any, int] | None:
    given = request.headers.get("X-Table-Pin", "")
    if not given:
        return _error(401, "This control needs the table PIN (shown on the companion's console at start).")
    if not hmac.compare_digest(given.encode(), _runtime().pin.encode()):
        return _error(403, "Wrong table PIN.")
    return None


@api.get("/state")
def state() -> Any:
    return jsonify(_runtime().table.state_json())


@api.get("/ring")
def ring() -> Any:
    """The Clock as the ring shows it now: one "#rrggbb" per LED."""
    return jsonify({"leds": [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in _runtime().ring_frame()]})


def control(mock_only: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A control endpoint: the table PIN first; ``mock_only`` refuses it on real hardware."""

    def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            denied = _require_pin()
            if denied:
                return denied
            if mock_only and not _runtime().mock:
                return _error(409, mock_only)
            return view(*args, **kwargs)

        return guarded

    return wrap


@api.post("/reader/tap")
@control(mock_only="The virtual reader only exists in mock mode; tap the card on the reader.")
def tap() -> Any:
    runtime = _runtime()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("tag"), str) or not body["tag"].strip():
        return _error(400, 'Send {"tag": "<tag uid, card id or title>"}.')
    outcome = runtime.tap(body["tag"])
    return jsonify({"outcome": outcome.to_json(), "state": runtime.table.state_json()})


@api.post("/buttons/<name>")
@control(mock_only="The virtual buttons only exist in mock mode; press the real ones.")
def press(name: str) -> Any:
    runtime = _runtime()
    if name not in ("crystal", "confirm", "undo"):
        return _error(404, f"There is no {name!r} button; use crystal, confirm or undo.")
    outcome = runtime.press(name)
    return jsonify({"outcome": outcome.to_json(), "state": runtime.table.state_json()})


def create_app(runtime: Any) -> Flask:
    """The application factory: one app per running table."""
    app = Flask(__name__, template_folder=str(WEB_ROOT / "templates"), static_folder=str(WEB_ROOT / "static"))
    app.config["RUNTIME"] = runtime
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.register_blueprint(api)

    @app.get("/")
    def index() -> Any:
        return app.send_static_file("index.html")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        return _error(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def crash(exc: Exception) -> Any:  # pragma: no cover - a bug, reported without a traceback
        app.logger.exception("unexpected error")
        return _error(500, f"The companion hit an internal error ({type(exc).__name__}); the game is safe.")

    return app
