"""The page's URL rules, with their URL builders compiled when first used instead of at start.

werkzeug compiles, for every rule added to an app, two Python functions that build its URL
(for ``url_for``), whether or not a URL is ever built; the companion builds none, and a Pi Zero
pays for that work at every start (docs/benchmarks-pi.md). Matching a request needs none of it.
`LazyBuilderRule` compiles each builder the first time it is called, then keeps it: what
``url_for`` answers is unchanged.

A private use, pinned: it overrides werkzeug's ``Rule._compile_builder`` as werkzeug
`WERKZEUG_SERIES` has it (tests/web/test_url_rules.py fails under another series until the pin is
moved). Should that method be gone or take other parameters, `rule_class` falls back to
werkzeug's own `Rule`: the builders compiled at start again, the same URLs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule

#: The werkzeug series whose ``Rule.compile`` and ``_compile_builder`` `LazyBuilderRule` was read against.
WERKZEUG_SERIES = (3, 1)


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


def rule_class() -> type[Rule]:
    """`LazyBuilderRule` while werkzeug's method has the parameters it was written for; else `Rule`.

    (Its shape, not werkzeug's version: reading a package's metadata costs more than the saving.)"""
    builder = getattr(Rule, "_compile_builder", None)
    shape = list(inspect.signature(builder).parameters) if callable(builder) else []
    return LazyBuilderRule if shape == ["self", "append_unknown"] else Rule
