"""The host's controls of the game: a new game, undo, corrections, the store's notices read.

Every route here is a control (`companion.web.route_support.control`): the table PIN in
``X-Table-Pin`` (scripts) or the page's login with its CSRF token, only under this machine's
own names, throttled. Each answers the outcome and the table's new state.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from companion.engine.tokens import COLUMNS
from companion.table.game_setup import GameSetupError
from companion.util.config import colour_problem
from companion.util.text import name_key
from companion.web.route_support import answer, control, json_body, json_error, store_refused, table_runtime

controls_api = Blueprint("controls", __name__)


@controls_api.post("/api/game/new")
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
        from companion.editions import EditionLibrary, LibraryError

        # a draft of the owner's box is refused here, by what it lacks (the CLI may still
        # start one, to try a box being transcribed)
        EditionLibrary(runtime.data_dir).require_finished(edition)
    except LibraryError as exc:
        return json_error(400, code=exc.code, **exc.params)
    try:
        if body.get("check") is True:  # asked before "replace the game in progress?": nothing starts
            from companion.table.game_setup import checked_setup

            checked_setup(runtime.data_dir, players, runtime.config, colours, edition)
            # the seats as Start would give them: the form shows each one's colour and marker
            return jsonify({"ok": True, "seats": runtime.seats(players, colours)})
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


@controls_api.post("/api/store/acknowledge")
@control()
def store_acknowledge() -> Any:
    """The host has read the store's damage notices (``store`` in the state): stop showing them."""
    from companion.store.log import StoreError

    try:
        done = table_runtime().acknowledge_damage()
    except StoreError as exc:
        return store_refused(exc)
    return jsonify({"acknowledged": done})


@controls_api.post("/api/undo")
@control()
def undo() -> Any:
    # Optional: the page names the table it showed ({"process", "version"} of its snapshot),
    # and an undo of a table that changed since is refused (Table.undo).
    body = json_body()
    if "version" not in body:
        return answer(table_runtime().undo())
    version, process = body.get("version"), body.get("process")
    if type(version) is not int or not isinstance(process, str):
        return json_error(
            400,
            code="bad_undo_version",
        )
    return answer(table_runtime().undo((process, version)))


@controls_api.post("/api/correct/wild")
@control()
def correct_wild() -> Any:
    wild = json_body().get("wild")
    if not isinstance(wild, list) or not wild or not all(w in COLUMNS for w in wild):
        return json_error(400, code="wild_columns")
    return answer(table_runtime().correct_wild(wild))


@controls_api.post("/api/correct/itinerary")
@control()
def correct_itinerary() -> Any:
    body = json_body()
    player, itinerary = body.get("player"), body.get("itinerary")
    if not isinstance(player, str) or not isinstance(itinerary, str):
        return json_error(400, code="itinerary_fields")
    runtime = table_runtime()
    # the name as the game keeps it: a script may send "Zoé" decomposed, or in another case
    player = next((name for name in runtime.player_names() if name_key(name) == name_key(player)), player)
    return answer(runtime.correct_itinerary(player, itinerary))
