"""What the web layer needs from a running table, as an interface.

The page's routes serve whatever object has this shape; `companion.run.startup` builds the real
one (`companion.run.runtime.Runtime`). So the arrows point down: the web knows only this module
(and the lower ones: the store, editions, enrolment, the engine).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from companion.engine import Edition
from companion.hardware.health import Health
from companion.table import Outcome
from companion.table.access import Access
from companion.util.config import Config

if TYPE_CHECKING:  # types only: the history and the league load when a page first asks
    from companion.history.past import History, Replays


class TableRuntime(Protocol):
    """The running table as the page and its API see it: intents and answers, never the
    `Table` or the `Store` themselves (`tests/project/test_architecture.py` checks the web layer)."""

    config: Config
    mock: bool
    access: Access
    #: Each hardware part's status (`companion.hardware.health`), shown on the page.
    health: Health
    #: The last tag the reader saw that maps to no card (for enrolling it from the page).
    unknown_tag: str | None
    #: While the host transcribes an edition, taps go to it first (`companion.web.editions`).
    capture: Callable[[str], bool] | None

    @property
    def secret_key(self) -> bytes: ...

    def join_url(self, request_host: str = "") -> str: ...

    def tap(self, seen: str) -> Outcome: ...

    def press(self, name: str) -> Outcome: ...

    def ring_frame(self, private: bool = False) -> list[tuple[int, int, int]]: ...

    def venue_status(self) -> dict[str, Any] | None:
        """The venue's table id and whether its broker is reachable; None without ``[venue]``."""

    def start_game(
        self, players: list[str], colours: list[str] | None, edition: str, seed: int | None
    ) -> int:
        """Store a new game and put it on the table; raises `GameSetupError` (or an edition
        error) with a message for people."""

    def seats(self, players: list[str], colours: list[str | None] | None) -> list[dict[str, Any]]:
        """Each seat's name, colour and marker as `start_game` would give them (the new-game
        form shows them before Start)."""

    @property
    def data_dir(self) -> Path:
        """Where this table keeps its games, editions and sessions."""

    # --- the game on the table -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """``GET /api/state``: the standings and what the table waits for."""

    def page_text(self) -> tuple[int, str]:
        """The page's snapshot as JSON text with its version, projected once per change."""

    def state_text(self) -> str:
        """`state` as compact JSON text, encoded once per change."""

    def hardware_text(self) -> str:
        """Each hardware part's status (``hardware`` in ``/api/state``) as JSON text."""

    def version(self) -> int:
        """The version of the table's latest change (it counts up across new games)."""

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until the table's version differs from ``version`` (or the timeout); return it."""

    def edition(self) -> Edition:
        """The edition of the game on the table."""

    def player_names(self) -> list[str]:
        """The players of the game on the table, as the game keeps their names."""

    def undo(self, seen: tuple[str, int] | None = None) -> Outcome:
        """The page's Undo; ``seen``: the (process, version) of the snapshot it showed."""

    def correct_wild(self, wild: list[str]) -> Outcome: ...

    def switch_coach(self, on: bool, everyone: bool | None = None) -> None:
        """The host's coach switch (`companion.coach.service`): off by default, remembered
        until the companion stops; ``everyone``: the teaching setting (None: unchanged)."""

    def ask_coach(self, player: str, phone: str) -> dict[str, Any]:
        """The coach's answer for ``player``, the one to move, asked from ``phone`` (which
        claims the player's seat); raises `CoachRefused`."""

    def coach_advice(self, phone: str | None) -> dict[str, Any]:
        """The coach's answer for the position now, or what it is doing, as ``phone`` may see
        it (the advice for the holder of the mover's seat only, or everyone in a teaching game)."""

    def coach_seat(self, phone: str | None) -> dict[str, Any]:
        """``{"seat": the player whose seat phone holds or None, "seats": every held seat}``."""

    def take_seat(self, player: str, phone: str) -> dict[str, Any]:
        """``phone`` takes ``player``'s seat (`coach_seat`'s answer); raises `CoachRefused`."""

    def release_seat(self, player: str) -> bool:
        """The host frees ``player``'s seat (a lost phone); whether a phone held it."""

    def correct_itinerary(self, player: str, itinerary: str) -> Outcome: ...

    # --- what the store keeps besides the game ------------------------------------------------

    def store_damage(self) -> list[dict[str, Any]]:
        """The damage the store's checksums found, until a host acknowledges it."""

    def acknowledge_damage(self) -> int: ...

    def tags(self) -> dict[str, str]:
        """Every enrolled tag: UID -> card id."""

    def rebind_tag(self, uid: str, card: str, edition: str) -> None:
        """Bind a tag to a card (moved from another); taps resolve it at once."""

    def unbind_tag(self, uid: str) -> bool:
        """Free a tag; False if it was bound to nothing."""

    def enroll(
        self, own_file: Path, uid: str, card: str, values: tuple[int, list[str]] | None
    ) -> tuple[str, dict[str, Any]]:
        """Enrol one tag for a card of the game's edition (`companion.table.enrol.enroll_tag`)."""

    def history(self, replays: Replays) -> History:
        """Every finished game, replayed once per process (`companion.history.past`)."""

    def history_version(self) -> int:
        """Moves on whenever the history changes (`companion.store.log.Store.history_version`)."""

    def story(self, game_id: int) -> dict[str, Any]:
        """A stored game's Clock and points after each take (`companion.history.past.game_story`)."""

    def set_rate_assisted(self, include: bool) -> None:
        """The host's choice: games played with the coach's help count in the ratings or not."""

    def merge_player(self, alias: str, player: str, name: str) -> None: ...

    def unmerge_player(self, alias: str) -> bool: ...
