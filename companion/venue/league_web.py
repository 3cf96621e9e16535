"""The hall's league page (``/league``), its JSON (``/api/league``) and CSV (``/league.csv``).

Guests read a season's league (``?season=NAME``, all time without). The hall's host logs in
with the hall's PIN (`companion.table.access`: the table's guessing limits and server-side
sessions; the cookie holds only a session id) and then merges two names, undoes a merge, or
keeps and drops seasons, each a POST carrying the session's CSRF token. A refusal is the
page again with the catalogue's sentence and a 4xx status: nothing half-done, no traceback.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from companion.editions import defuse
from companion.table.access import Access
from companion.util.config import TOPIC_WORD
from companion.util.wording import CodedError, say
from companion.venue.hall import Hall
from companion.venue.league import LeagueBook, LeagueRefused, league_view, season_from

if TYPE_CHECKING:
    from flask import Flask

#: The host's cookie: only a session id (`companion.table.access.Sessions`).
COOKIE = "hall_host"
_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:0 auto;padding:0 .6rem;max-width:60rem}"
    ".wide{overflow-x:auto}table{border-collapse:collapse;width:100%}"
    "th,td{padding:.25rem .4rem;border-bottom:1px solid #ccc;text-align:left}"
    "td.n,th.n{text-align:right}form{margin:.4rem 0}input,select,button{font-size:1rem;max-width:100%}"
    ".error{color:#a00;font-weight:bold}nav a{margin-right:.6rem}"
    # a table's key (64 characters) breaks anywhere on a phone; the lines to type scroll in their box
    "code{overflow-wrap:anywhere;word-break:break-all;font-size:1.05rem}pre{overflow-x:auto}"
)


def league_routes(  # noqa: C901 (each route is a small closure; mccabe adds their branches here)
    app: Flask, hall: Hall, book: LeagueBook, access: Access | None, lang: Callable[[], str]
) -> None:
    """Add the league's routes to the hall's Flask ``app``."""
    from flask import Response, jsonify, redirect, request

    def host() -> Any:
        if access is None:
            return None
        return access.sessions.get(request.cookies.get(COOKIE))

    #: Leagues computed, by (the hall's finished games, the host's decisions, the season): a
    #: page read again before anything changed costs no rating (bench_league: 0.8 s for 1000 games).
    cache: dict[tuple[int, int, str], tuple[object, dict[str, Any]]] = {}

    def view() -> dict[str, Any]:
        season = book.season(request.values.get("season") or None)
        games = hall.league_games()  # the same list while the hall stores nothing new
        key = (id(games), book.store.history_version, "" if season is None else season.name)
        kept = cache.get(key)
        if kept is not None and kept[0] is games:
            return kept[1]
        shown = league_view(games, book, season)
        if len(cache) >= 16:
            cache.clear()
        cache[key] = (games, shown)
        return shown

    def page(error: CodedError | None = None, status: int = 200, given: tuple[str, str] | None = None) -> Any:
        try:
            shown = view()
        except LeagueRefused as exc:  # an unknown season: all time, with the reason
            shown, error, status = league_view(hall.league_games(), book, None), exc, 404
        enrolled = sorted(hall.keys)
        html = render_league(shown, lang(), host(), error, access is not None, enrolled, given)
        answer = Response(html, status=status, mimetype="text/html")
        if given is not None:  # a table's key, shown once: no cache keeps it
            answer.headers["Cache-Control"] = "no-store"
        return answer

    def back() -> Any:
        query = {k: v for k, v in (("lang", lang()), ("season", request.values.get("season"))) if v}
        return redirect("/league" + ("?" + urlencode(query) if query else ""), code=303)

    @app.get("/league")
    def league_page() -> Any:
        return page()

    @app.get("/api/league")
    def league_api() -> Any:
        try:
            return jsonify(view())
        except LeagueRefused as exc:
            return jsonify(
                {"code": exc.code, "params": exc.params, "error": say(exc.code, lang(), **exc.params)}
            ), 404

    @app.get("/league.csv")
    def league_csv_route() -> Any:
        try:
            return Response(league_csv(view()), mimetype="text/csv")
        except LeagueRefused as exc:
            return Response(say(exc.code, lang(), **exc.params), status=404, mimetype="text/plain")

    @app.post("/league/login")
    def login() -> Any:
        if access is None:
            return page(LeagueRefused("league_no_pin"), 403)
        refused = access.guard.check(
            request.remote_addr or "?", request.form.get("pin", "").strip(), access.pin
        )
        if refused is not None:  # the hall's own words: no table here, no Confirm to hold
            locked = refused[0].startswith("pin_locked")
            return page(
                LeagueRefused("league_pin_locked" if locked else "league_wrong_pin"), 429 if locked else 403
            )
        sid, _ = access.sessions.open()
        answer = back()
        answer.set_cookie(COOKIE, sid, httponly=True, samesite="Strict", path="/league")
        return answer

    @app.post("/league/logout")
    def logout() -> Any:
        if access is not None:
            access.sessions.close(request.cookies.get(COOKIE))
        answer = back()
        answer.delete_cookie(COOKIE, path="/league")
        return answer

    def hosted(change: Callable[[], None]) -> Any:
        """Make ``change`` for the logged-in host whose form carries their CSRF token."""
        session = host()
        if session is None or request.form.get("csrf") != session.csrf:
            return page(LeagueRefused("league_login_needed"), 403)
        try:
            change()
        except LeagueRefused as exc:
            return page(exc, 400)
        return back()

    def known() -> dict[str, str]:
        return {p["key"]: p["name"] for p in league_view(hall.league_games(), book, None)["everyone"]}

    @app.post("/league/enrol")
    def enrol_table() -> Any:
        """Enrol a table from the page, as Home Assistant pairs a device: its key is drawn, kept
        by the hall and shown once in this answer (never again, nor cached)."""
        session = host()
        if session is None or request.form.get("csrf") != session.csrf:
            return page(LeagueRefused("league_login_needed"), 403)
        table = request.form.get("table", "").strip()
        if not TOPIC_WORD.match(table):
            return page(LeagueRefused("hall_enrol_bad_table", table=table[:60]), 400)
        return page(given=(table, hall.enrol(table)))

    @app.post("/league/merge")
    def merge() -> Any:
        form = request.form
        return hosted(lambda: book.merge(form.get("alias", ""), form.get("into", ""), known(),
                                         hall.league_games()))  # fmt: skip

    @app.post("/league/unmerge")
    def unmerge() -> Any:
        return hosted(lambda: book.unmerge(request.form.get("alias", "")))

    @app.post("/league/seasons")
    def keep_season() -> Any:
        form = request.form
        return hosted(lambda: book.keep_season(season_from(form.get("name", ""), form.get("from", ""),
                                                           form.get("to", ""))))  # fmt: skip

    @app.post("/league/seasons/drop")
    def drop_season() -> Any:
        return hosted(lambda: book.drop_season(request.form.get("name", "")))


COLUMNS = ("name", "games", "wins", "points", "best", "average", "rating", "mu", "sigma")


def league_csv(view: dict[str, Any]) -> str:
    """One row per player of the league shown: the page's figures, the season's name."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["season", "place", *COLUMNS, "spellings"])
    season = defuse((view["season"] or {}).get("name", ""))
    for place, row in enumerate(view["players"], start=1):
        # names and seasons as typed: a cell a spreadsheet would run as a formula gets a quote
        figures = [defuse(row[c]) if isinstance(row[c], str) else row[c] for c in COLUMNS]
        writer.writerow([season, place, *figures, defuse(" | ".join(row["spellings"]))])
    return out.getvalue()


def _cell(value: Any) -> str:
    return "&ndash;" if value is None else escape(str(value))


def render_league(
    view: dict[str, Any],
    lang: str,
    session: Any,
    error: CodedError | None,
    hosting: bool,
    enrolled: list[str] | None = None,
    given: tuple[str, str] | None = None,
) -> str:
    """The league as HTML (server-rendered, no script): fits a 360 px phone, tables scroll inside."""

    def w(code: str, **params: Any) -> str:
        return escape(say(code, lang, **params))

    chosen = (view["season"] or {}).get("name")
    season_q = {"season": chosen} if chosen else {}
    links = [f'<a href="/league?{urlencode({"lang": lang})}">{w("league_all_time")}</a>']
    links += [
        f'<a href="/league?{urlencode({"lang": lang, "season": s["name"]})}">{escape(s["name"])}</a>'
        f" ({escape(s['from'])} &ndash; {escape(s['to'])})"
        for s in view["seasons"]
    ]
    # the rating first after the name: what a phone shows before the table scrolls
    heads = ["league_col_place", "hall_col_player", "league_col_rating", "hall_col_games", "hall_col_wins",
             "hall_col_points", "league_col_mu", "league_col_sigma"]  # fmt: skip
    numeric = {"hall_col_games", "hall_col_wins", "hall_col_points", "league_col_rating", "league_col_mu",
               "league_col_sigma", "league_col_place"}  # fmt: skip
    head = "".join(f'<th class="{"n" if h in numeric else ""}">{w(h)}</th>' for h in heads)
    rows = []
    for place, p in enumerate(view["players"], start=1):
        also = [s for s in p["spellings"] if s != p["name"]]
        name = escape(p["name"]) + (f" <small>({escape(', '.join(also))})</small>" if also else "")
        cells = [
            str(place),
            name,
            *(_cell(p[k]) for k in ("rating", "games", "wins", "points", "mu", "sigma")),
        ]
        rows.append("<tr>" + "".join(f'<td class="{"" if i == 1 else "n"}">{c}</td>'
                                     for i, c in enumerate(cells)) + "</tr>")  # fmt: skip
    table = (f'<div class="wide"><table id="league"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
             "</tbody></table></div>") if rows else f"<p>{w('league_empty')}</p>"  # fmt: skip
    title = w("league_season", season=chosen) if chosen else w("league_all_time")
    parts = [
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{w('league_title')}</title><style>{_STYLE}</style></head><body>",
        f'<h1>{w("league_title")}</h1><nav><a href="/?lang={lang}">{w("hall_title")}</a>'
        f'<a href="/league.csv?{urlencode(season_q)}">{w("league_csv")}</a></nav>',
        f'<p class="error" role="alert">{w(error.code, **error.params)}</p>' if error else "",
        f"<p>{w('league_seasons')}: {' · '.join(links)}</p>",
        f"<h2>{title}</h2><p>{w('league_games', count=view['games'])}"
        + (f" {w('league_assisted', n=view['assisted'])}" if view["assisted"] else "")
        + f"</p>{table}",
        f"<p><small>{w('league_rating_note')}</small></p>",
    ]
    if given is not None:  # the table's key, this once: what to do with it, in the reader's language
        table, key = given
        parts.append(
            f'<section id="enrolled" role="status"><h2>{w("hall_enrol_title")}</h2>'
            f'<p>{w("hall_enrol_given", table=table)}</p><p><code id="key">{escape(key)}</code></p>'
            f'<pre class="wide">{escape(key_snippet(key))}</pre><p>{w("hall_enrol_then")}</p></section>'
        )
    if hosting:
        parts.append(host_forms(view, lang, session, chosen))
        if session is not None:
            parts.append(enrol_form(lang, session, enrolled or []))
    return "".join(parts) + "</body></html>"


#: Where the table keeps its key, in the lines the page gives with it (the installer's folder).
KEY_FILE = "/etc/trekking-companion/venue-key"


def key_snippet(key: str) -> str:
    """The commands that put ``key`` on the table, and its config line (shown with the key)."""
    return (f"echo {key} | sudo install -m 600 -o trekking /dev/stdin {KEY_FILE}\n"
            f"# config.toml, [venue]:\nkey_file = \"{KEY_FILE}\"")  # fmt: skip


def enrol_form(lang: str, session: Any, enrolled: list[str]) -> str:
    """The host's "enrol a table" form, and the tables enrolled (names only: keys are shown once)."""

    def w(code: str, **params: Any) -> str:
        return escape(say(code, lang, **params))

    tables = ", ".join(escape(t) for t in enrolled) if enrolled else w("hall_enrol_none")
    return (
        f'<h3 id="enrol">{w("hall_enrol_title")}</h3><p>{w("hall_enrol_note")}</p>'
        f"<form method=post action=/league/enrol>"
        f'<input type="hidden" name="lang" value="{lang}"><input type="hidden" name="csrf" '
        f'value="{escape(session.csrf)}"><label>{w("hall_col_table")} <input name=table maxlength=40 size=12 '
        f'pattern="[A-Za-z0-9_-]{{1,40}}" required></label> <button>{w("hall_enrol_button")}</button></form>'
        f"<p>{w('hall_enrolled_tables')}: {tables}</p>"
    )


def host_forms(view: dict[str, Any], lang: str, session: Any, season: str | None) -> str:
    """The host's part: a PIN login for guests, the merge and season forms once logged in."""

    def w(code: str, **params: Any) -> str:
        return escape(say(code, lang, **params))

    hidden = f'<input type="hidden" name="lang" value="{lang}">' + (
        f'<input type="hidden" name="season" value="{escape(season)}">' if season else ""
    )
    if session is None:
        return (f"<h2>{w('league_host')}</h2><form method=post action=/league/login>{hidden}"
                f'<label>{w("league_pin")} <input name=pin type=password inputmode=numeric autocomplete=off '
                f'size=8></label> <button>{w("login")}</button></form>')  # fmt: skip
    hidden += f'<input type="hidden" name="csrf" value="{escape(session.csrf)}">'
    options = "".join(
        f'<option value="{escape(p["key"])}">{escape(p["name"])}</option>' for p in view["everyone"]
    )
    merges = "".join(
        f"<li>{escape(m['alias'])} → {escape(m['name'])} "
        + ("" if m["applied"] else f"<strong>{w('league_merge_not_applied')}</strong> ")
        + "<form method=post action=/league/unmerge "
        f'style="display:inline">{hidden}<input type=hidden name=alias value="{escape(m["alias"])}">'
        f"<button>{w('league_unmerge')}</button></form></li>"
        for m in view["merges"]
    )
    seasons = "".join(
        f"<li>{escape(s['name'])} ({escape(s['from'])} &ndash; {escape(s['to'])}) <form method=post "
        f'action=/league/seasons/drop style="display:inline">{hidden}'
        f'<input type=hidden name=name value="{escape(s["name"])}">'
        f"<button>{w('league_drop')}</button></form></li>"
        for s in view["seasons"]
    )
    return (
        f"<h2>{w('league_host')}</h2>"
        f"<form method=post action=/league/logout>{hidden}<button>{w('league_logout')}</button></form>"
        f"<h3>{w('league_merge_title')}</h3><form method=post action=/league/merge>{hidden}"
        f"<label>{w('league_merge_alias')} <select name=alias>{options}</select></label> "
        f"<label>{w('league_merge_into')} <select name=into>{options}</select></label> "
        f"<button>{w('league_merge')}</button></form><ul>{merges}</ul>"
        f"<h3>{w('league_seasons')}</h3><form method=post action=/league/seasons>{hidden}"
        f"<label>{w('league_season_name_label')} <input name=name maxlength=40 size=12></label> "
        f"<label>{w('league_from')} <input name=from type=date></label> "
        f"<label>{w('league_to')} <input name=to type=date></label> "
        f"<button>{w('league_keep_season')}</button></form><ul>{seasons}</ul>"
    )
