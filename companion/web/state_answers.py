"""The answers every step asks for: ``GET /api/state`` and each control's, from the table's
projection (`companion.table.snapshot.Projection`: its state and page texts made once per
version, however many pages and answers carry them).

The state's answer adds what changes apart from the game: each hardware part's status (its
text kept by `companion.hardware.health`), the store's damage notices and the venue's status.
The bytes parse to what ``jsonify`` of the same dict gave.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from companion.table.snapshot import COMPACT
from companion.web.ports import TableRuntime


class StateAnswers:
    """``GET /api/state`` and the controls' answers, for one running table."""

    def __init__(self, runtime: TableRuntime) -> None:
        self.runtime = runtime

    @staticmethod
    def text(value: Any) -> str:
        """``value`` (plain JSON values) as ``jsonify`` encodes it, compact: the snapshots' one
        encoder (Flask's ``dumps`` made an encoder for each call)."""
        return COMPACT.encode(value)

    def state_body(self, page: bool) -> bytes:
        """The table's state with its extras; ``page``: the page's snapshot (what it draws)."""
        runtime = self.runtime
        store, venue = self.text(runtime.store_damage()), self.text(runtime.venue_status())
        tail = f',"hardware":{runtime.hardware_text()},"store":{store},"venue":{venue}}}'
        if not page:
            return f"{runtime.state_text()[:-1]}{tail}\n".encode()
        return f"{runtime.page_text()[1][:-1]}{tail}".encode()

    def state(self, page: bool) -> Response:
        """`state_body` as the route's answer."""
        return Response(self.state_body(page), mimetype="application/json")

    def control(self, outcome: Any) -> Response:
        """A control's answer: what it did (its outcome) and the state after it."""
        body = f'{{"outcome":{self.text(outcome.to_json())},"state":{self.runtime.state_text()}}}\n'
        return Response(body.encode(), mimetype="application/json")
