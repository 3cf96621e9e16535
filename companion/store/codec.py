"""The game a store keeps, as the store sees it: a codec's JSON, and the rows it hands back.

The store knows no game: it is given a `GameCodec` (a format name, and the setup and events
to and from JSON), stores the JSON it returns, and hands back `StoredGame` and `StoredEvent`
values made with the same codec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from companion.store.checksums import Damage


class GameCodec(Protocol):
    """What the store is told about the game it keeps: its format's name, and how its
    setup and events go to and from JSON. The store stores that JSON, checks it with its
    checksums and hands back what ``*_from_json`` makes of it; it never looks inside.

    ``setup_from_json`` and ``event_from_json`` raise ``ValueError`` (or a subclass) for
    JSON they cannot read: a stored event that does not read is damage like a bad checksum.
    """

    @property
    def format(self) -> str:
        """The format's name and version, stored with each game ("trekking/1")."""
        ...

    def setup_to_json(self, setup: Any) -> dict[str, Any]: ...

    def setup_from_json(self, obj: dict[str, Any]) -> Any: ...

    def event_to_json(self, event: Any) -> dict[str, Any]: ...

    def event_from_json(self, obj: Any) -> Any: ...


class StoredEvent(NamedTuple):
    """One committed event row: its game, place, time, JSON text and chained checksum (a named
    tuple, as a game's load makes hundreds)."""

    game: int
    seq: int
    at: str
    text: str
    sum: str


@dataclass(frozen=True)
class StoredGame:
    """A game as the store keeps it: its setup and events as the codec reads them."""

    id: int
    created: str
    #: The codec's value for the setup line (Trekking: a `companion.engine.Setup`).
    setup: Any
    setup_json: dict[str, Any]
    meta: dict[str, Any]
    finished: bool
    #: The codec's values for the checked events, in order (Trekking: `companion.engine.Event`).
    events: tuple[Any, ...]
    #: A take being prepared when the game was last saved (card tapped, crystals counted).
    pending: dict[str, Any] | None = None
    #: Damage its checksums found: ``events`` stops before it (None: every row checks).
    damage: Damage | None = None
    #: ``events`` as stored (time, JSON, checksum), one for one: what a stream catches up from.
    rows: tuple[StoredEvent, ...] = ()
    #: The checksum of the game's own row: where its events' chain starts (`event_sum`).
    sum: str = ""
