"""The answers every step asks for, from text encoded once per change (issue 26).

``GET /api/state`` (``?page=1``: the page's snapshot) and the answer to each control carry
the table's state. Encoding it per request (and each hardware part's status, and Flask's
``jsonify`` of the whole) was a third of a step's CPU at the table; here the state and the
parts' status come as text cached by their owners (`companion.table.snapshot`,
`companion.hardware.health`), and the page's whole answer is kept until any part of it
changes. The bytes parse to what ``jsonify`` of the same dict gave.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from flask import Response

from companion.web.ports import TableRuntime


class StateAnswers:
    """``GET /api/state`` and the controls' answers, for one running table. ``dumps``: the
    app's JSON encoder (``app.json.dumps``, what ``jsonify`` uses)."""

    def __init__(self, runtime: TableRuntime, dumps: Callable[..., str]) -> None:
        self.runtime, self.dumps = runtime, dumps
        self.lock = threading.Lock()
        #: The last ``?page=1`` answer and the texts it was made of (compared by identity or
        #: value: a new snapshot, parts' status, store damage or venue status makes another).
        self.page: tuple[tuple[str, str, str, str], bytes] | None = None
        #: `kept`'s values and their texts, by name.
        self.texts: dict[str, tuple[Any, str]] = {}

    def text(self, value: Any) -> str:
        """``value`` as ``jsonify`` encodes it, compact."""
        return self.dumps(value, separators=(",", ":"))

    def extras(self) -> tuple[str, str, str]:
        """``hardware``, ``store`` and ``venue`` as JSON text: they change apart from the game."""
        runtime = self.runtime
        store, venue = self.kept("store", runtime.store_damage()), self.kept("venue", runtime.venue_status())
        return runtime.hardware_text(), store, venue

    def kept(self, name: str, value: Any) -> str:
        """`text` of ``value``, kept while the value named ``name`` stays equal (an empty list of
        damage notices, no venue: encoding them at each read was most of a cached answer's CPU)."""
        found = self.texts.get(name)
        if found is None or found[0] != value:
            found = self.texts[name] = (value, self.text(value))
        return found[1]

    def state_body(self, page: bool) -> bytes:
        """The table's state with its extras; ``page``: the page's snapshot (what it draws)."""
        hardware, store, venue = self.extras()
        tail = f',"hardware":{hardware},"store":{store},"venue":{venue}}}'
        if not page:
            return f"{self.runtime.state_text()[:-1]}{tail}\n".encode()
        snapshot = self.runtime.page_text()[1]
        key = (snapshot, hardware, store, venue)
        cached = self.page
        if cached is None or not _same(cached[0], key):
            body = f"{snapshot[:-1]}{tail}".encode()
            with self.lock:
                cached = self.page = (key, body)
        return cached[1]

    def state(self, page: bool) -> Response:
        """`state_body` as the route's answer."""
        return Response(self.state_body(page), mimetype="application/json")

    def control_body(self, outcome: Any) -> bytes:
        """A control's answer: what it did (its outcome) and the state after it."""
        return f'{{"outcome":{self.text(outcome.to_json())},"state":{self.runtime.state_text()}}}\n'.encode()

    def control(self, outcome: Any) -> Response:
        """`control_body` as the route's answer."""
        return Response(self.control_body(outcome), mimetype="application/json")


def _same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same texts: the snapshot by identity (cached per version), the rest by value."""
    return a[0] is b[0] and a[1:] == b[1:]
