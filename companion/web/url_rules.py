"""The page's URL rules, with their URL builders compiled when first used instead of at start.

werkzeug compiles, for every rule added to an app, two Python functions that build its URL
(for ``url_for``: an ``ast`` tree each, then ``compile``), whether or not a URL is ever built;
the companion builds none, and a Pi Zero pays for that work at every start (the figures:
docs/benchmarks.md, "Figures once in docstrings"). Matching a
request needs none of it. This rule compiles each builder the first time it is called, then
keeps it: what ``url_for`` answers is unchanged.

It overrides ``Rule._compile_builder``, werkzeug's own (private) method: should a later werkzeug
rename it, nothing breaks, the builders are just compiled at start again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule


class LazyBuilderRule(Rule):
    """A werkzeug `Rule` whose URL builders are compiled at their first call."""

    def _compile_builder(self, *args: Any, **kwargs: Any) -> Callable[..., tuple[str, str]]:
        compile_now = super()._compile_builder
        compiled: list[Callable[..., tuple[str, str]]] = []

        def build(rule: Rule, *values: Any, **named: Any) -> tuple[str, str]:
            # two threads building at once may both compile: the same function, either kept
            if not compiled:
                compiled.append(compile_now(*args, **kwargs).__get__(rule, None))
            return compiled[0](*values, **named)

        return build
