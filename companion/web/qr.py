"""How another phone reaches a page: its address, and the page's one QR code route.

``GET /api/join`` is the page's address for phones (as this request reached the companion, when
that is one of its names); ``GET /api/qr.svg`` draws it, and ``?game=N`` instead finished game
N's card on the history page, whose "Send to BG Stats" link the phone with BG Stats opens. Its
refusal and its guests' bound are the history's (`companion.web.history`). Not the createPlay
link itself: 1.5-2 kB of JSON makes a code a phone cannot read off another phone's screen.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.table.access import host_allowed
from companion.web.history import finished_game, guest_read
from companion.web.route_support import table_runtime

qr_api = Blueprint("qr", __name__)


@qr_api.get("/api/qr.svg")
def qr() -> Any:
    """A QR code of the page's address, so a phone joins in one scan; with ``?game=N``, of
    that finished game's card on the history page."""
    game = request.args.get("game")
    if game is not None:
        return _game_qr(game)
    return qr_svg(_join_url())


@guest_read
def _game_qr(game: str) -> Response:
    found = finished_game(game)
    if isinstance(found, Response):
        return found
    return qr_svg(game_address(found.id))


def qr_svg(text: str) -> Response:
    """``text`` as a QR code (error correction M, which survives a smudged screen), an SVG."""
    import io

    import segno

    drawing = io.BytesIO()
    segno.make(text, error="m").save(drawing, kind="svg", scale=5, light="#fff")
    return Response(drawing.getvalue(), mimetype="image/svg+xml")


def _join_url() -> str:
    """The page's address for phones: as this request reached us, if that is one of our names."""
    runtime = table_runtime()
    if host_allowed(request.host, current_app.config["HOST_NAMES"]):
        return runtime.join_url(request.host)
    return runtime.join_url()


def game_address(game_id: int) -> str:
    """This game on the history page, at the address phones at the table can open."""
    return f"{_join_url().rstrip('/')}/history#game-{game_id}"


@qr_api.get("/api/join")
def join() -> Any:
    return jsonify({"url": _join_url()})
