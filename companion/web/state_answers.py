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
from typing import Any

from flask import Response, current_app

from companion.web.ports import TableRuntime


def _text(value: Any) -> str:
    """``value`` as ``jsonify`` encodes it (Flask's JSON provider), compact."""
    text: str = current_app.json.dumps(value, separators=(",", ":"))
    return text


class StateAnswers:
    """``GET /api/state`` and the controls' answers, for one running table."""

    def __init__(self, runtime: TableRuntime) -> None:
        self.runtime = runtime
        self.lock = threading.Lock()
        #: The last ``?page=1`` answer and the texts it was made of (compared by identity or
        #: value: a new snapshot, parts' status, store damage or venue status makes another).
        self.page: tuple[tuple[str, str, str, str], bytes] | None = None

    def extras(self) -> tuple[str, str, str]:
        """``hardware``, ``store`` and ``venue`` as JSON text: they change apart from the game."""
        runtime = self.runtime
        return runtime.hardware_text(), _text(runtime.store_damage()), _text(runtime.venue_status())

    def state(self, page: bool) -> Response:
        """The table's state with its extras; ``page``: the page's snapshot (what it draws)."""
        hardware, store, venue = self.extras()
        tail = f',"hardware":{hardware},"store":{store},"venue":{venue}}}'
        if not page:
            return _json(f"{self.runtime.state_text()[:-1]}{tail}\n")
        snapshot = self.runtime.page_text()[1]
        key = (snapshot, hardware, store, venue)
        cached = self.page
        if cached is None or not _same(cached[0], key):
            body = f"{snapshot[:-1]}{tail}".encode()
            with self.lock:
                cached = self.page = (key, body)
        return _json(cached[1])

    def control(self, outcome: Any) -> Response:
        """A control's answer: what it did (its outcome) and the state after it."""
        return _json(f'{{"outcome":{_text(outcome.to_json())},"state":{self.runtime.state_text()}}}\n')


def _same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same texts: the snapshot by identity (cached per version), the rest by value."""
    return a[0] is b[0] and a[1:] == b[1:]


def _json(body: str | bytes) -> Response:
    return Response(body, mimetype="application/json")
