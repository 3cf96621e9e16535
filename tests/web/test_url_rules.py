"""The page's URL rules compile their URL builders at first use (issue 26: a Zero's start).

werkzeug compiles two builder functions per rule when the rule is added; the page builds no
URL at start, so `companion.web.url_rules.LazyBuilderRule` compiles them on the first
``url_for``. These tests check that the app's start compiles none, and that the URLs built
are the ones werkzeug's own rules build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask, url_for
from werkzeug.routing import Rule

from companion.web.url_rules import LazyBuilderRule
from tests.support.tables import api_app


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each URL builder werkzeug compiles, by its rule, from now on."""
    compiled: list[str] = []
    real = Rule._compile_builder

    def compile_builder(self: Rule, *args: Any, **kwargs: Any) -> Any:
        compiled.append(self.rule)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Rule, "_compile_builder", compile_builder)
    return compiled


def test_the_page_app_compiles_no_url_builder_until_one_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = counting(monkeypatch)
    with api_app(tmp_path) as (app, _rt):
        assert len(list(app.url_map.iter_rules())) > 20  # the page's routes are there
        assert compiled == []
        assert app.test_client().get("/api/state").status_code == 200  # matching needs none
        assert compiled == []
        with app.test_request_context():
            assert url_for("history.bgstats", game="7") == "/api/bgstats/7"
        assert compiled == ["/api/bgstats/<game>"]  # that rule's builder, once asked for
        with app.test_request_context():
            assert url_for("history.bgstats", game="8", lang="fr") == "/api/bgstats/8?lang=fr"
        assert compiled == ["/api/bgstats/<game>"]  # compiled once, then kept


class LazyApp(Flask):
    url_rule_class = LazyBuilderRule


@pytest.mark.parametrize(
    ("endpoint", "values"),
    [
        ("plain", {}),
        ("plain", {"q": "a b", "n": 3}),
        ("one", {"game": 12}),
        ("one", {"game": 12, "x": "é/?"}),
        ("two", {"name": "a b/c", "part": "x y"}),
        ("defaults", {}),
        ("defaults", {"page": 4}),
        ("static", {"filename": "a b.js"}),
    ],
)
def test_a_lazy_rule_builds_the_url_werkzeug_builds(endpoint: str, values: dict[str, Any]) -> None:
    def routes(app: Flask) -> Flask:
        app.add_url_rule("/plain", "plain", lambda: "")
        app.add_url_rule("/games/<int:game>", "one", lambda game: "")
        app.add_url_rule("/e/<name>/<path:part>", "two", lambda name, part: "")

        def listing(page: int) -> str:
            return ""

        app.add_url_rule("/list/", "defaults", listing, defaults={"page": 1})
        app.add_url_rule("/list/<int:page>", "defaults", listing)
        return app

    built = []
    for app in (routes(Flask(__name__)), routes(LazyApp(__name__))):
        with app.test_request_context():
            built.append((url_for(endpoint, **values), url_for(endpoint, _external=True, **values)))
    assert built[0] == built[1]
