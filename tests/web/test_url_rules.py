"""The page's URL rules compile their URL builders at first use (a Zero's start).

werkzeug compiles two builder functions per rule when the rule is added; the page builds no
URL at start, so `companion.web.url_rules.LazyBuilderRule` compiles them on the first
``url_for``. These tests check that the app's start compiles none, and that the URLs built
are the ones werkzeug's own rules build.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, url_for
from werkzeug.routing import Rule

from companion.web.url_rules import WERKZEUG_SERIES, LazyBuilderRule, rule_class
from tests.support.tables import api_app


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each URL builder werkzeug compiles, by its rule, from now on."""
    compiled: list[str] = []
    real = Rule._compile_builder

    def compile_builder(self: Rule, append_unknown: bool = True) -> Any:  # werkzeug's parameters
        compiled.append(self.rule)
        return real(self, append_unknown)

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


def test_the_private_builder_is_pinned_to_a_werkzeug_series_and_falls_back_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """werkzeug's ``Rule._compile_builder`` is private: the series it was read in is pinned here, and
    a werkzeug whose method is gone or takes other parameters gets werkzeug's own `Rule`."""
    installed = tuple(int(n) for n in version("werkzeug").split(".")[:2])
    assert installed == WERKZEUG_SERIES, (
        f"werkzeug {version('werkzeug')} is installed: re-read Rule.compile and _compile_builder in it, "
        "run this file, then move WERKZEUG_SERIES in companion/web/url_rules.py"
    )
    assert rule_class() is LazyBuilderRule
    monkeypatch.setattr(Rule, "_compile_builder", lambda self, append_unknown, escape: None, raising=False)
    assert rule_class() is Rule, "other parameters"
    monkeypatch.delattr(Rule, "_compile_builder")
    assert rule_class() is Rule, "no such method"
