"""How another phone reaches the page: its address (``GET /api/join``) and its QR code
(``GET /api/qr.svg``), as this request reached the companion when that is one of its names.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.table.access import host_allowed
from companion.web.route_support import table_runtime

qr_api = Blueprint("qr", __name__)


@qr_api.get("/api/qr.svg")
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


@qr_api.get("/api/join")
def join() -> Any:
    return jsonify({"url": _join_url()})
