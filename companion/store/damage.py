"""Damage found in a store and dealt with: what the console and the page say until it is seen.

`companion.store.checksums` finds it; `companion.store.log.Store.set_aside` deals with it (a copy
of the database, the rows set aside in the same file, a record); a `DamageNotice` is that
record, worded by the catalogues, shown until the host acknowledges it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.store.checksums import Damage
from companion.store.errors import StoreError
from companion.util.wording import say


class GameDamaged(StoreError):
    """A game's setup line fails its checksum: the game cannot be resumed as it was played."""

    def __init__(self, code: str, /, *, damage: Damage, **params: Any) -> None:
        super().__init__(code, **params)
        self.damage = damage


@dataclass(frozen=True)
class DamageNotice:
    """Damage found and dealt with, shown (page, console) until the host acknowledges it."""

    id: int
    at: str
    game: int
    code: str
    params: dict[str, Any]

    @property
    def _facts(self) -> dict[str, Any]:
        """The params of its sentence, as the page gets them (the damaged event is ``next``)."""
        return {"game": self.game, "next": self.params.get("kept", 0) + 1, **self.params}

    @property
    def message(self) -> str:
        """The English sentence (console, journal), the catalogue's, which the page words too."""
        return say(self.code, **self._facts)

    @property
    def fix(self) -> str:
        return say(f"{self.code}.fix", **self._facts)

    def to_json(self) -> dict[str, Any]:
        """For ``/api/state``: like a hardware part's status, for the page's status line."""
        return {
            "part": "store",
            "ok": False,
            "id": self.id,
            "at": self.at,
            "code": self.code,
            "params": self._facts,
            "message": self.message,
            "fix": self.fix,
        }
