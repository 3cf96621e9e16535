"""The hall's page: tables live, finished games, standings across tables, CSV, and the league.

Nothing here controls a table. Guests only read (GET); the league's host, logged in with the
hall's PIN (the table's access code: `companion.table.access`, its guessing limits and
server-side sessions), merges names and defines seasons through POST forms that carry the
session's CSRF token. Every sentence comes from the catalogues (``?lang=fr`` for French);
whatever a table sent is escaped before it is shown.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from companion.editions import defuse
from companion.table.access import Access
from companion.venue.hall import Hall
from companion.venue.league import LeagueBook
from companion.venue.league_web import league_routes, page_html

#: The page refreshes itself every few seconds (a venue's screen on the wall).
REFRESH_SECONDS = 5
#: Finished games the page lists, newest first (``/results.csv`` and ``/api/hall`` have all).
PAGE_FINISHED = 50


def create_hall_app(hall: Hall, access: Access | None = None, book: LeagueBook | None = None) -> Any:
    """The Flask app of the hall's page, its JSON (``/api/hall``), ``/results.csv``, and with a
    ``book`` the league (``/league``, ``/api/league``, ``/league.csv``); with ``access`` too,
    the host's forms behind the hall's PIN."""
    from flask import Flask, Response, jsonify, request

    app = Flask("companion.hall")

    def lang() -> str:
        return "fr" if (request.args.get("lang") or request.form.get("lang")) == "fr" else "en"

    if book is not None:
        league_routes(app, hall, book, access, lang)

    @app.get("/api/hall")
    def api() -> Any:
        return jsonify(hall.view())

    @app.get("/results.csv")
    def results() -> Any:
        return Response(results_csv(hall.view()), mimetype="text/csv")

    @app.get("/")
    def page() -> Any:
        return Response(render(hall.view(), lang()), mimetype="text/html")

    return app


def hall_server(app: Any, host: str, port: int) -> Any:
    """The hall's waitress server: ``poll()``, not ``select()``, so a descriptor numbered past
    1023 (a hall with many games, a busy venue) is served rather than the end of the hall."""
    from waitress import create_server

    return create_server(app, host=host, port=port, threads=4, asyncore_use_poll=True)


def results_csv(view: dict[str, Any]) -> str:
    """One row per player of each finished game: table, game, started, player, points, rank, winner."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["table", "game", "started", "player", "points", "rank", "winner"])
    for entry in view["finished"]:
        result = entry["result"]
        for rank, player in enumerate(result.get("players", []), start=1):
            name = player.get("name")
            winner = name in result.get("winners", [])
            # a name as typed at the table: one a spreadsheet would run as a formula gets a quote
            cells = [defuse(entry["table"]), entry["game"], defuse(str(entry["at"])), defuse(str(name))]
            writer.writerow([*cells, player.get("total"), rank, int(winner)])
    return out.getvalue()


def render(view: dict[str, Any], lang: str = "en") -> str:
    """The page as HTML (server-rendered, templates/hall.html: a wall screen needs no script)."""
    finished = list(reversed(view["finished"]))[:PAGE_FINISHED]
    return page_html("hall.html", lang, view=view, finished=finished, refresh=REFRESH_SECONDS)
