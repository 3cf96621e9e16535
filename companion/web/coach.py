"""The coach on the page: the host's switch, a player's question, the advice, the seats.

The host's switch and the release of a seat are controls; taking a seat and asking may come
from any phone at the table (`guest_refusal`), and claim the player's seat for that phone. The
advice goes to the phone holding the mover's seat only (to all in a teaching game). A phone is
known by a random id (``phone``) in the page's signed cookie (`companion.web.cookie_session`),
made when it first takes a seat and kept across a login and a logout. The coach itself is
`companion.coach.service`, the seats `companion.table.seats`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, jsonify, session

from companion.coach.service import CoachRefused
from companion.web.route_support import control, guest_refusal, json_body, json_error, table_runtime

coach_api = Blueprint("coach", __name__)


def phone_id(make: bool = False) -> str | None:
    """This phone's id from its cookie; with ``make``, a new one when it has none (set in the
    answer's cookie)."""
    phone = session.get("phone")
    if isinstance(phone, str) and 16 <= len(phone) <= 64:
        return phone
    if not make:
        return None
    phone = secrets.token_urlsafe(16)
    session["phone"] = phone
    session.permanent = True
    return phone


def _player() -> str | None:
    player = json_body().get("player")
    return player if isinstance(player, str) and player.strip() else None


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


def _as_guest(act: Callable[[str, str], Response]) -> Response:
    """A phone's request for its player (an ask, a seat): the checks any phone passes
    (`guest_refusal`), the player it names, and its id (made if it has none); ``act(player,
    phone)`` answers, and a refusal of the coach's is a 409 with its code."""
    refused = guest_refusal()
    if refused is not None:
        return refused
    player = _player()
    if player is None:
        return json_error(400, code="coach_player")
    phone = phone_id(make=True)
    assert phone is not None
    try:
        return act(player, phone)
    except CoachRefused as exc:
        return json_error(409, code=exc.code, **exc.params)


@coach_api.post("/api/coach/ask")
def coach_ask() -> Any:
    """The player to move asks the coach from their phone: the answer goes back to this
    phone only, which holds that player's seat from then on (`coach_advice`)."""

    def ask(player: str, phone: str) -> Response:
        runtime = table_runtime()
        answer = runtime.ask_coach(player, phone)
        return _private(jsonify({"coach": answer, **runtime.coach_seat(phone)}))

    return _as_guest(ask)


@coach_api.get("/api/coach")
def coach_advice() -> Any:
    """The coach's answer for the position on the table, for the phone holding the seat of
    the player to move (anyone's in a teaching game); any other phone, the host's as well,
    gets only whether the coach is on. With it, the seat this phone holds and the seats held."""
    runtime = table_runtime()
    phone = phone_id()
    return _private(jsonify({"coach": runtime.coach_advice(phone), **runtime.coach_seat(phone)}))


def _private(response: Response) -> Response:
    """An answer that may carry one phone's advice: kept by no cache, the phone's own neither
    (it depends on the cookie, and a later read must ask again)."""
    response.headers["Cache-Control"] = "no-store, private"
    response.vary.add("Cookie")
    return response


@coach_api.post("/api/coach/seat")
def coach_seat() -> Any:
    """A phone takes its player's seat when it joins, before its first ask (which would take
    it too): from then on the coach answers that player on this phone only."""
    return _as_guest(lambda player, phone: jsonify(table_runtime().take_seat(player, phone)))


@coach_api.post("/api/coach/release")
@control()
def coach_release() -> Any:
    """The host frees a player's seat (a lost phone, a seat claimed by mistake): the next
    phone to ask for that player holds it. The host sees the seats, never the advice."""
    player = _player()
    if player is None:
        return json_error(400, code="coach_player")
    runtime = table_runtime()
    released = runtime.release_seat(player)
    return jsonify({"released": released, **runtime.coach_seat(phone_id())})
