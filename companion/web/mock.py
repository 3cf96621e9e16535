"""Mock mode's virtual parts: the reader's taps and the three buttons, pressed from the page.

Registered always, so that on real hardware each answers a 409 saying to use the real
part (``real_reader``, ``real_buttons``) rather than a bare 404; both are controls.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from companion.web.route_support import answer, control, json_body, json_error, table_runtime

mock_api = Blueprint("mock", __name__)

#: The virtual buttons' names: ``POST /api/buttons/<name>``.
BUTTONS = ("crystal", "confirm", "undo")


@mock_api.post("/api/reader/tap")
@control(
    mock_only="The virtual reader only exists in mock mode; tap the card on the reader.",
    mock_code="real_reader",
)
def tap() -> Any:
    tag = json_body().get("tag")  # {"tag": "..."}
    if not isinstance(tag, str) or not tag.strip():
        return json_error(400, code="tag_missing")
    return answer(table_runtime().tap(tag))


@mock_api.post("/api/buttons/<name>")
@control(
    mock_only="The virtual buttons only exist in mock mode; press the real ones.", mock_code="real_buttons"
)
def press(name: str) -> Any:
    if name not in BUTTONS:
        return json_error(
            404,
            code="no_button",
            button=name[:40],
        )
    return answer(table_runtime().press(name))
