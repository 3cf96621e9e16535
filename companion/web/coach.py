"""The coach on the page: the host's switch, a player's question, the current advice.

``POST /api/coach`` (a control) turns the coach on or off, for the host or for everyone;
``POST /api/coach/ask`` may come from any phone at the table (`guest_refusal`: this
machine's name, the per-address rate, a JSON body); ``GET /api/coach`` shows the advice to
the host (or to all in a teaching game). The coach itself is `companion.coach.service`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from companion.coach.service import CoachRefused
from companion.web.route_support import control, guest_refusal, is_host, json_body, json_error, table_runtime

coach_api = Blueprint("coach", __name__)


@coach_api.post("/api/coach")
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


@coach_api.post("/api/coach/ask")
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


@coach_api.get("/api/coach")
def coach_advice() -> Any:
    """The coach's answer for the position on the table, for the host's pages (and anyone's
    in a teaching game); a guest gets only whether the coach is on."""
    runtime = table_runtime()
    answer = runtime.coach_advice()
    if is_host() or runtime.coach_for_everyone():
        return jsonify({"coach": answer})
    return jsonify({"coach": {"on": answer["on"], "status": "host_only"}})
