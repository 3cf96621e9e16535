"""The hall's league page (``/league``), its JSON (``/api/league``) and CSV (``/league.csv``).

Guests read a season's league (``?season=NAME``, all time without). The hall's host logs in
with the hall's PIN (`companion.table.access`: the table's guessing limits and server-side
sessions; the cookie holds only a session id) and then merges two names, undoes a merge, or
keeps and drops seasons, each a POST carrying the session's CSRF token. A refusal is the
page again with the catalogue's sentence and a 4xx status: nothing half-done, no traceback.
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from companion.editions import defuse
from companion.table.access import Access
from companion.util.config import TOPIC_WORD
from companion.util.wording import CodedError, say
from companion.venue.hall import Hall
from companion.venue.league import LeagueBook, LeagueRefused, league_view, season_from

if TYPE_CHECKING:
    import jinja2
    from flask import Flask

#: The host's cookie: only a session id (`companion.table.access.Sessions`).
COOKIE = "hall_host"


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
        html = page_html(
            "league.html",
            lang(),
            view=shown,
            session=host(),
            error=error,
            hosting=access is not None,
            enrolled=sorted(hall.keys),
            given=given,
            key_file=KEY_FILE,
        )
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

    def hosted(change: Callable[[], Any]) -> Any:
        """Make ``change`` for the logged-in host whose form carries their CSRF token: its answer,
        or back to the league (None)."""
        session = host()
        if session is None or request.form.get("csrf") != session.csrf:
            return page(LeagueRefused("league_login_needed"), 403)
        try:
            answer = change()
        except LeagueRefused as exc:
            return page(exc, 400)
        return back() if answer is None else answer

    def known() -> dict[str, str]:
        return {p["key"]: p["name"] for p in league_view(hall.league_games(), book, None)["everyone"]}

    @app.post("/league/enrol")
    def enrol_table() -> Any:
        """Enrol a table from the page, as Home Assistant pairs a device: its key is drawn, kept
        by the hall and shown once in this answer (never again, nor cached)."""
        table = request.form.get("table", "").strip()

        def enrol() -> Any:
            if not TOPIC_WORD.match(table):
                raise LeagueRefused("hall_enrol_bad_table", table=table[:60])
            return page(given=(table, hall.enrol(table)))

        return hosted(enrol)

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


#: Where the table keeps its key, in the lines the page gives with it (the installer's folder).
KEY_FILE = "/etc/trekking-companion/venue-key"


def page_html(template: str, lang: str, **values: Any) -> str:
    """One of the hall's pages (companion/venue/templates), its words from the catalogues in
    ``lang`` (``w``); Jinja escapes every value, whatever a table or a guest sent."""
    return (
        _templates().get_template(template).render(lang=lang, w=functools.partial(say, lang=lang), **values)
    )


@functools.cache
def _templates() -> jinja2.Environment:
    """Jinja's environment, made once: it compiles each template at its first use and keeps it."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("companion.venue"), autoescape=True, trim_blocks=True, lstrip_blocks=True
    )
