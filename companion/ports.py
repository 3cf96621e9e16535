"""What the web layer needs from a running table, as an interface.

`companion.web` serves whatever object it is given that has this shape;
`companion.app` builds the real one (`companion.app.Runtime`) and wires the two.
So the arrows point down: the app knows the web, the web knows only this module
(and the lower ones: the store, editions, enrolment, the engine).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from companion.access import Access
from companion.coach_service import CoachService
from companion.config import Config
from companion.hardware.health import Health
from companion.store import Store
from companion.table import Outcome, Table
from companion.tags import TagResolver


class GameSetupError(ValueError):
    """A new game was asked for something impossible; the message says what.

    ``code`` and ``params`` name the refusal for the page, which words it in its language."""

    def __init__(self, message: str, *, code: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class TableRuntime(Protocol):
    """The running table as the page and its API see it."""

    config: Config
    store: Store
    table: Table
    mock: bool
    access: Access
    #: Each hardware part's status (`companion.hardware.health`), shown on the page.
    health: Health
    #: The last tag the reader saw that maps to no card (for enrolling it from the page).
    unknown_tag: str | None
    #: How a tag becomes a card; enrolment refreshes its table of tags.
    resolver: TagResolver
    #: While the host transcribes an edition, taps go to it first (`companion.editions.web`).
    capture: Callable[[str], bool] | None
    #: The host's coach switch (`companion.coach_service`), off by default.
    coach: CoachService

    @property
    def secret_key(self) -> bytes: ...

    def join_url(self, request_host: str = "") -> str: ...

    def tap(self, seen: str) -> Outcome: ...

    def press(self, name: str) -> Outcome: ...

    def ring_frame(self, private: bool = False) -> list[tuple[int, int, int]]: ...

    def start_game(
        self, players: list[str], colours: list[str] | None, edition: str, seed: int | None
    ) -> int:
        """Store a new game and put it on the table; raises `GameSetupError` (or an edition
        error) with a message for people."""
        ...
