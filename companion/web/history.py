"""After the game: the history page, the BG Stats link of a finished game, player merges.

Reading is open on the LAN like the live page (``/history``, ``/api/history``,
``/api/bgstats/<game>``, ``/api/story/<game>``; the QR code is `companion.web.qr`'s), so it is
bounded: computed once between games (`HistoryCache`), at most `HISTORY_READERS` guests at
once and `HISTORY_READS_PER_MINUTE` reads per address; past either, a 503 with Retry-After
rather than queueing for the threads the taps need. Merging two spellings of a player is the
host's decision: ``POST /api/players/merge`` and ``/unmerge`` are controls. Everything is
derived from the stored games (`companion.history.past`): no second copy of a score to drift.
"""

from __future__ import annotations

import functools
import gzip
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.store.log import StoreError
from companion.util.rate import SlidingWindow
from companion.util.wording import LANGUAGES, say
from companion.web.route_support import (
    client_address,
    control,
    host_session,
    json_body,
    json_error,
    page_file,
    store_refused,
    table_runtime,
)

if TYPE_CHECKING:  # types only: the history, the league and BG Stats load when first asked
    from companion.history.past import History
    from companion.records.league import PastGame

history_api = Blueprint("history", __name__)
#: The newest games whose BG Stats link the history lists: a play is logged soon after it
#: ends, and each link is 1-2 kB (500 games' links would make the page's answer 1 MB).
BGSTATS_RECENT = 20
#: Guests (no host login) reading the history, a BG Stats link or its QR code at once: a family's
#: phones after a game, with room; the server's threads stay free for the table.
HISTORY_READERS = 4
#: ``/api/history`` reads one guest's address may make a minute: a page reads it once per load;
#: past this the address is told to wait (a loop reading it is what slowed the taps).
HISTORY_READS_PER_MINUTE = 20


@history_api.get("/history")
def page() -> Any:
    return page_file("history.html")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _game_json(
    game: PastGame,
    names: dict[str, str],
    merged: dict[str, str] | None,
    lang: str = "en",
    assisted: bool = False,
) -> dict[str, Any]:
    from companion.history.bgstats import play, play_url

    return {
        "id": game.id,
        "bgstats": None if merged is None else play_url(play(game, merged, lang, assisted)),
        "started": game.started.isoformat(),
        "ended": game.ended.isoformat() if game.ended else None,
        "minutes": game.minutes,
        "edition": game.edition,
        "solo": game.solo,
        "assisted": assisted,
        "winners": [p.name for p in game.players if p.winner],
        "players": [
            {
                "name": p.name,
                "key": p.key,
                "player": names.get(p.key, p.name),
                "score": p.score,
                "rank": p.rank,
                "winner": p.winner,
                "colour": p.colour,  # as the table showed this seat
                "marker": p.marker,
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
    from companion.history.past import shown_marks
    from companion.records.league import display_names, family_rating, player_key, player_stats

    assisted = history.assisted
    names = display_names(history.games, history.aliases)
    # games played with the coach's help are not rated unless the host includes them
    unrated = () if history.rate_assisted else history.assisted
    stats = player_stats(history.games, history.aliases, unrated)
    merged = {player: name for player, name in history.aliases.values()}
    marks = shown_marks(history, [s.key for s in stats])  # each player's own, as on the table
    return {
        "games": [
            _game_json(g, names, merged if n < BGSTATS_RECENT else None, lang, g.id in assisted)
            for n, g in enumerate(reversed(history.games))
        ],
        "players": [
            {
                "key": s.key,
                "name": s.name,
                "colour": marks[s.key][0],
                "marker": marks[s.key][1],
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
        "assisted_rated": history.rate_assisted,
        # merged spellings seated beside their player at one table: their own player again
        "undone_merges": history.undone,
    }


class HistoryCache:
    """The history and ``/api/history``'s answer, computed once per `history_version`.

    One computation at a time (a flood waits for the one under way, then shares it), and
    the version is read before computing, so a game that ends meanwhile is computed next
    time. ``computed`` counts the computations (the tests read it)."""

    def __init__(self, readers: int = HISTORY_READERS) -> None:
        self._lock = threading.Lock()
        self.readers = threading.BoundedSemaphore(readers)
        self.reads = SlidingWindow(HISTORY_READS_PER_MINUTE, 60)  # per guest address
        self._version: int | None = None
        self._history: History | None = None
        #: ``/api/history``'s answer per language (the BG Stats comments are worded in it):
        #: its JSON and the same gzipped.
        self._bodies: dict[str, tuple[bytes, bytes]] = {}
        self.computed = 0

    def history(self) -> History:
        """The history now (`companion.history.past.load_history`); raises the store's refusal."""
        from companion.history.past import Replays

        runtime = table_runtime()
        version = runtime.history_version()
        with self._lock:
            if self._history is None or self._version != version:
                replays = current_app.config.setdefault("REPLAYS", Replays())  # games already replayed
                self._history, self._bodies = runtime.history(replays), {}
                self._version = version
                self.computed += 1
            return self._history

    def body(self, gzipped: bool = False, lang: str = "en") -> bytes:
        """``/api/history``'s JSON, serialised and gzipped once per history and language (the
        event loop that carries the taps pushes a tenth of the bytes)."""
        found = self.history()
        with self._lock:
            if self._history is not found:
                self._bodies = {}
            if lang not in self._bodies:
                body = current_app.json.dumps(history_json(found, lang)).encode("utf-8")
                self._bodies[lang] = (body, gzip.compress(body, compresslevel=6, mtime=0))
            plain, packed = self._bodies[lang]
            return packed if gzipped else plain


def history_cache() -> HistoryCache:
    """This app's `HistoryCache`."""
    cache: HistoryCache = current_app.config.setdefault("HISTORY", HistoryCache())
    return cache


def guest_read(view: Callable[..., Any]) -> Callable[..., Any]:
    """At most `HISTORY_READERS` guests in ``view`` at once; one more is refused (503,
    ``history_busy``) at once. A logged-in host is never refused."""

    @functools.wraps(view)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        if host_session() is not None:
            return view(*args, **kwargs)
        slots = history_cache().readers
        if not slots.acquire(blocking=False):
            refused = json_error(503, code="history_busy")
            refused.headers["Retry-After"] = "2"
            return refused
        try:
            return view(*args, **kwargs)
        finally:
            slots.release()

    return bounded


def _history() -> History | Response:
    try:
        return history_cache().history()
    except StoreError as exc:
        return store_refused(exc)


@history_api.get("/api/history")
@guest_read
def history() -> Any:
    if host_session() is None and not history_cache().reads.hit(client_address()):
        refused = json_error(503, code="history_too_often", max=HISTORY_READS_PER_MINUTE)
        refused.headers["Retry-After"] = "10"
        return refused
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    try:
        body = history_cache().body(gzipped, _lang())
    except StoreError as exc:
        return store_refused(exc)
    response = Response(body, mimetype="application/json")
    response.headers["Vary"] = "Accept-Encoding"
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    return response


def finished_game(game: str) -> PastGame | Response:
    """The finished game numbered ``game`` (as the address has it), or the refusal (its BG Stats
    play here, its QR code in `companion.web.qr`)."""
    refusal = json_error(
        404,
        code="no_finished_game",
        game=game[:20],
    )
    if not (game.isascii() and game.isdigit() and len(game) < 19):
        return refusal
    game_id = int(game)
    history = _history()  # the merges that hold, which need every game (see holding_merges)
    if isinstance(history, Response):
        return history
    found = next((g for g in history.games if g.id == game_id), None)
    return refusal if found is None else found


@history_api.get("/api/bgstats/<game>")
@guest_read
def bgstats(game: str) -> Any:
    """The finished game as a BG Stats play: the link to open and the JSON it carries."""
    from companion.history.bgstats import play, play_url

    found = finished_game(game)
    if isinstance(found, Response):
        return found
    history = _history()  # the merges that hold, and whether the coach helped
    if isinstance(history, Response):
        return history
    merged = {player: name for player, name in history.aliases.values()}
    data = play(found, merged, _lang(), found.id in history.assisted)
    return jsonify({"url": play_url(data), "play": data})


@history_api.get("/api/story/<game>")
@guest_read
def game_story(game: str) -> Any:
    """A finished game's story for its chart (the end screen's and each game's in /history):
    every player's Clock and points after each take, replayed from its event log."""
    found = finished_game(game)
    if isinstance(found, Response):
        return found
    try:
        told = table_runtime().story(found.id)
    except StoreError as exc:
        return store_refused(exc)
    return jsonify(told)


# --- the host's merges -----------------------------------------------------------------------


def _said(code: str, **params: Any) -> Response:
    """A decision done: its ``code`` and ``params`` (the page words them), and its English."""
    return jsonify({"message": say(code, **params), "code": code, "params": params})


def _saved(action: Callable[[], object], code: str, **params: Any) -> Response:
    """Store the host's decision (``action``) and say it (`_said`), or the store's refusal."""
    try:
        action()
    except StoreError as exc:
        return store_refused(exc)
    return _said(code, **params)


@history_api.post("/api/players/merge")
@control()
def merge() -> Any:
    """Merge the spelling ``name`` into the player ``into``: their games count as one player's."""
    from companion.records.league import display_names, player_key, resolve

    body = json_body()
    name, into = body.get("name"), body.get("into")
    if not isinstance(name, str) or not isinstance(into, str) or not name.strip() or not into.strip():
        return json_error(400, code="merge_fields")
    found = _history()
    if isinstance(found, Response):
        return found
    runtime = table_runtime()
    aliases = found.aliases
    # each spelling's player after the merges that hold (never a seat's "#2" of an old game)
    spellings = {player_key(p.name): resolve(p.name, aliases) for g in found.games for p in g.players}
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
    return _saved(
        lambda: runtime.merge_player(moving, target, shown), "merged", name=name.strip()[:40], into=shown
    )


@history_api.post("/api/history/assisted")
@control()
def rate_assisted() -> Any:
    """The host includes games played with the coach's help in the ratings, or leaves them out."""
    include = json_body().get("include")
    if not isinstance(include, bool):
        return json_error(400, code="assisted_include")
    done = "assisted_rated" if include else "assisted_unrated"
    return _saved(lambda: table_runtime().set_rate_assisted(include), done)


@history_api.post("/api/players/unmerge")
@control()
def unmerge() -> Any:
    """Undo a merge: the spelling ``name`` is a player of its own again."""
    from companion.records.league import player_key

    name = json_body().get("name")
    if not isinstance(name, str) or not name.strip():
        return json_error(400, code="merge_fields")
    try:
        unmerged = table_runtime().unmerge_player(player_key(name))
    except StoreError as exc:
        return store_refused(exc)
    if not unmerged:
        return json_error(400, code="not_merged", name=name[:40])
    return _said("unmerged", name=name.strip()[:40])
