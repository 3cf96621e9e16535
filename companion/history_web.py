"""After the game: the history page, the BG Stats link of a finished game, player merges.

Reading is open on the LAN like the live page (``GET /history``, ``/api/history``,
``/api/bgstats/<game>`` and its QR code). Merging two spellings of a player is the
host's decision, so ``POST /api/players/merge`` and ``/unmerge`` are controls: the
table PIN, like every control (`companion.web_requests.control`).

Everything is derived from the stored games (`companion.past`), so there is no second
copy of any score to drift: each finished game is replayed once per process and kept in
memory until its log changes (``benchmarks/bench_history.py`` times both cases).
"""

from __future__ import annotations

import io
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.access import host_allowed
from companion.bgstats import play, play_url
from companion.past import (
    History,
    PastGame,
    Replays,
    display_names,
    family_rating,
    player_key,
    player_stats,
    with_aliases,
)
from companion.store import StoreError
from companion.web_requests import control, json_body, json_error, store_refused, table_runtime
from companion.wording import LANGUAGES, say

history_api = Blueprint("history", __name__)
#: The newest games whose BG Stats link the history lists: a play is logged soon after it
#: ends, and each link is 1-2 kB (500 games' links would make the page's answer 1 MB).
BGSTATS_RECENT = 20


@history_api.get("/history")
def page() -> Any:
    response = current_app.send_static_file("history.html")
    response.headers["Cache-Control"] = "no-cache"
    return response


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _game_json(
    game: PastGame, names: dict[str, str], merged: dict[str, str] | None, lang: str = "en"
) -> dict[str, Any]:
    return {
        "id": game.id,
        "bgstats": None if merged is None else play_url(play(game, merged, lang)),
        "started": game.started.isoformat(),
        "ended": game.ended.isoformat() if game.ended else None,
        "minutes": game.minutes,
        "edition": game.edition,
        "solo": game.solo,
        "winners": [p.name for p in game.players if p.winner],
        "players": [
            {
                "name": p.name,
                "key": p.key,
                "player": names.get(p.key, p.name),
                "score": p.score,
                "rank": p.rank,
                "winner": p.winner,
                "colour": p.colour,
                "track": p.track,
                "crystals": p.crystals,
                "trek_points": p.trek_points,
                "treks": list(p.treks),
            }
            for p in game.players
        ],
    }


def _lang() -> str:
    """The asking page's language (``?lang=``) for the BG Stats comments; English otherwise."""
    asked = request.args.get("lang", "en")
    return asked if asked in LANGUAGES else "en"


def history_json(history: History, lang: str = "en") -> dict[str, Any]:
    """What the history page draws: games newest first, each player's figures and rating."""
    names = display_names(history.games, history.aliases)
    stats = player_stats(history.games, history.aliases)
    merged = {player: name for player, name in history.aliases.values()}
    return {
        "games": [
            _game_json(g, names, merged if n < BGSTATS_RECENT else None, lang)
            for n, g in enumerate(reversed(history.games))
        ],
        "players": [
            {
                "key": s.key,
                "name": s.name,
                "spellings": s.spellings,
                # the spellings the host merged into this player (each can be separated again)
                "merged": [n for n in s.spellings if player_key(n) in history.aliases],
                "games": s.games,
                "wins": s.wins,
                "average": _round(s.average),
                "best": s.best,
                "longest_trek": s.longest_trek,
                "average_trek_points": _round(s.average_trek_points),
                "average_crystals": _round(s.average_crystals),
                # the family's number (0 and up); the model's own figures beside it, by their names
                "rating": family_rating(s.rating),
                "ordinal": _round(s.rating),
                "mu": _round(s.mu),
                "sigma": _round(s.sigma),
                "rated_games": s.rated_games,
            }
            for s in stats
        ],
        "unreadable": history.unreadable,
    }


def _replays() -> Replays:
    """This app's finished games already replayed (`companion.past.Replays`)."""
    replays: Replays = current_app.config.setdefault("REPLAYS", Replays())
    return replays


def _history() -> History | Response:
    try:
        return table_runtime().history(_replays())
    except StoreError as exc:
        return store_refused(exc)


@history_api.get("/api/history")
def history() -> Any:
    found = _history()
    if isinstance(found, Response):
        return found
    return jsonify(history_json(found, _lang()))


def _finished(game: str) -> PastGame | Response:
    """The finished game numbered ``game`` (as the address has it), or the refusal."""
    runtime = table_runtime()
    aliases = runtime.aliases()
    refusal = json_error(
        404,
        code="no_finished_game",
        game=game[:20],
    )
    if not (game.isascii() and game.isdigit() and len(game) < 19):
        return refusal
    game_id = int(game)
    try:
        found = runtime.finished_game(game_id, _replays())
    except StoreError as exc:
        return store_refused(exc)
    except ValueError as exc:
        return json_error(503, code="not_saved", detail=str(exc))
    return refusal if found is None else with_aliases(found, aliases)


def _bgstats_url(game: PastGame) -> tuple[dict[str, Any], str]:
    merged = {player: name for player, name in table_runtime().aliases().values()}
    data = play(game, merged, _lang())
    return data, play_url(data)


@history_api.get("/api/bgstats/<game>")
def bgstats(game: str) -> Any:
    """The finished game as a BG Stats play: the link to open and the JSON it carries."""
    found = _finished(game)
    if isinstance(found, Response):
        return found
    data, url = _bgstats_url(found)
    return jsonify({"url": url, "play": data})


def game_address(game_id: int) -> str:
    """This game on the history page, at the address phones at the table can open."""
    runtime = table_runtime()
    known = host_allowed(request.host, current_app.config["HOST_NAMES"])
    base = runtime.join_url(request.host) if known else runtime.join_url()
    return f"{base.rstrip('/')}/history#game-{game_id}"


@history_api.get("/api/bgstats/<game>/qr.svg")
def bgstats_qr(game: str) -> Response:
    """A QR code for the phone that has BG Stats: this game's card on the history page, whose
    "Send to BG Stats" link is the createPlay link.

    Not the createPlay link itself: with its JSON it is 1.5-2 kB, a version 25-31 code (up to
    141 modules a side) that a phone cannot read off another phone's screen; this address
    makes a small one, and a phone at the table reaches the companion like the join code."""
    import segno

    found = _finished(game)
    if isinstance(found, Response):
        return found
    drawing = io.BytesIO()
    segno.make(game_address(found.id), error="m").save(drawing, kind="svg", scale=5, light="#fff")
    return Response(drawing.getvalue(), mimetype="image/svg+xml")


# --- the host's merges -----------------------------------------------------------------------


def _saved(action: Any) -> Response | None:
    try:
        action()
    except StoreError as exc:
        return store_refused(exc)
    return None


@history_api.post("/api/players/merge")
@control()
def merge() -> Any:
    """Merge the spelling ``name`` into the player ``into``: their games count as one player's."""
    body = json_body()
    name, into = body.get("name"), body.get("into")
    if not isinstance(name, str) or not isinstance(into, str) or not name.strip() or not into.strip():
        return json_error(400, code="merge_fields")
    found = _history()
    if isinstance(found, Response):
        return found
    runtime = table_runtime()
    aliases = found.aliases
    spellings = {player_key(p.name): p.key for g in found.games for p in g.players}
    for given in (name, into):
        if player_key(given) not in spellings:
            return json_error(
                400,
                code="unknown_player",
                name=given[:40],
            )
    moving, target = player_key(name), spellings[player_key(into)]
    if spellings[moving] == target:
        return json_error(
            400,
            code="same_player",
            name=name[:40],
            into=into[:40],
        )
    # the spelling, and the spellings merged into it, join the target's group
    group = {k for k, player in spellings.items() if k == moving or player == moving}
    for game in found.games:
        here = {player_key(p.name) for p in game.players}
        if here & group and any(spellings[k] == target for k in here):
            return json_error(
                400,
                code="played_together",
                game=game.id,
                name=name[:40],
                into=into[:40],
            )
    shown = display_names(found.games, aliases)[target]
    failed = _saved(lambda: runtime.merge_player(moving, target, shown))
    if failed is not None:
        return failed
    return jsonify(
        {
            "message": say("merged", name=name.strip()[:40], into=shown),
            "code": "merged",
            "params": {"name": name.strip()[:40], "into": shown},
        }
    )


@history_api.post("/api/players/unmerge")
@control()
def unmerge() -> Any:
    """Undo a merge: the spelling ``name`` is a player of its own again."""
    name = json_body().get("name")
    if not isinstance(name, str) or not name.strip():
        return json_error(400, code="merge_fields")
    runtime = table_runtime()
    result: list[bool] = []
    failed = _saved(lambda: result.append(runtime.unmerge_player(player_key(name))))
    if failed is not None:
        return failed
    if not result[0]:
        return json_error(400, code="not_merged", name=name[:40])
    return jsonify(
        {
            "message": say("unmerged", name=name.strip()[:40]),
            "code": "unmerged",
            "params": {"name": name.strip()[:40]},
        }
    )
