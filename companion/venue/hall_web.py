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
from html import escape
from typing import Any

from companion.editions import defuse
from companion.table.access import Access
from companion.util.wording import say
from companion.venue.hall import Hall
from companion.venue.league import LeagueBook
from companion.venue.league_web import league_routes

#: The page refreshes itself every few seconds (a venue's screen on the wall).
REFRESH_SECONDS = 5
#: Finished games the page lists, newest first (``/results.csv`` and ``/api/hall`` have all).
PAGE_FINISHED = 50
#: The league page's style: the same look at 360 px, each table scrolling inside its own box.
STYLE = (
    "body{font-family:system-ui,sans-serif;margin:0 auto;padding:0 .6rem;max-width:60rem}"
    ".wide{overflow-x:auto}table{border-collapse:collapse;width:100%}"
    "th,td{padding:.25rem .4rem;border-bottom:1px solid #ccc;text-align:left;vertical-align:top}"
    "td{overflow-wrap:anywhere}strong{color:#a00}"
)


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


def heads(lang: str, *codes: str) -> list[str]:
    """A table's column headings, from the catalogue."""
    return [say(code, lang) for code in codes]


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def render(view: dict[str, Any], lang: str = "en") -> str:
    """The page as HTML (server-rendered: a wall screen needs no script)."""

    def w(code: str, **params: Any) -> str:
        return escape(say(code, lang, **params))

    live = []
    for table in view["tables"]:
        scores = ", ".join(f"{escape(str(p['name']))} {escape(str(p['total']))}" for p in table["players"])
        if table["game"] is None:
            doing = w("hall_no_game")
        elif table["finished"]:
            doing = w("hall_game_over")
        else:
            doing = w("hall_turn", player=str(table["turn"]), day=str(table["day"]))
        if table["running_long"]:
            doing += f" <strong>{w('hall_running_long')}</strong>"
        if table.get("forged"):  # a line the table did not sign: said as such, never as the table's
            forged = table["forged"]
            claimed = ", ".join(forged["players"])
            doing += (
                f' <strong class="forged">{w("hall_forged_line", at=forged["at"], players=claimed)}</strong>'
            )
        online = w("hall_online") if table["online"] else f"<strong>{w('hall_offline')}</strong>"
        live.append([escape(table["table"]), online, escape(str(table["game"] or "")), doing, scores])
    finished = []
    for entry in list(reversed(view["finished"]))[:PAGE_FINISHED]:
        result = entry["result"]
        scores = ", ".join(f"{escape(str(p['name']))} {p['total']}" for p in result.get("players", []))
        if not entry["agrees"]:
            scores += f" <em>{w('hall_disagrees')}</em>"
        finished.append([escape(entry["table"]), str(entry["game"]), escape(entry["at"]),
                         escape(", ".join(result.get("winners", []))), scores])  # fmt: skip
    standings = [
        [escape(r["name"]), str(r["games"]), str(r["wins"]), str(r["points"])] for r in view["standings"]
    ]
    problems = "".join(f"<li>{escape(p['at'])}: {escape(say(p['code'], lang, **p['params']))}</li>"
                       for p in reversed(view["problems"]))  # fmt: skip
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{w('hall_title')}</title><style>{STYLE}</style></head><body><h1>{w('hall_title')}</h1>"
        f"<h2>{w('hall_tables')}</h2>"
        + _table(
            [
                say(c, lang)
                for c in (
                    "hall_col_table",
                    "hall_online",
                    "hall_col_game",
                    "hall_turn_col",
                    "hall_col_scores",
                )
            ],
            live,
        )
        + f"<h2>{w('hall_finished')}</h2>"
        + _table(
            [
                say(c, lang)
                for c in (
                    "hall_col_table",
                    "hall_col_game",
                    "hall_col_when",
                    "hall_col_winners",
                    "hall_col_scores",
                )
            ],
            finished,
        )
        + f"<h2>{w('hall_standings')}</h2>"
        + _table(
            [say(c, lang) for c in ("hall_col_player", "hall_col_games", "hall_col_wins", "hall_col_points")],
            standings,
        )
        + f'<p><a href="/results.csv">{w("hall_csv")}</a> · '
        + f'<a href="/league?lang={lang}">{w("league_title")}</a> · '
        + f'<a href="/league?lang={lang}#enrol">{w("hall_enrol_title")}</a></p>'
        + (f"<h2>{w('hall_problems')}</h2><ul>{problems}</ul>" if problems else "")
        + "</body></html>"
    )
