"""Which phone holds which player's seat, so a player's advice goes to that phone alone.

The first phone to ask the coach for a player claims that seat for the game on the table;
the host can release it. Claims are kept like the host's sessions (``<data>/seats.json``,
digests of the phones' ids); a file that cannot be read frees every seat, nothing worse, and
a disk that refuses keeps the claims in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from pathlib import Path

from companion.store.private_files import write_private
from companion.util.files import read_text_file
from companion.util.json_bounds import BadJson
from companion.util.json_bounds import check as check_json
from companion.util.text import name_key

#: The most ``seats.json`` may hold: a handful of seats of about 120 bytes each, with room.
SEATS_FILE_LIMIT = 16 * 1024


def phone_digest(phone: str) -> str:
    """What the file keeps of a phone's id (a random 128-bit id: a plain digest suffices)."""
    return hashlib.sha256(phone.encode("utf-8")).hexdigest()


class Seats:
    """The seats claimed in the game on the table: player's key -> (name, phone digest)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._game: int | None = None
        self._held: dict[str, tuple[str, str]] = {}
        self._load()

    def _load(self) -> None:
        """The claims kept in ``path`` (read bounded like every input; anything odd: none)."""
        if self.path is None:
            return
        try:
            text = read_text_file(self.path, SEATS_FILE_LIMIT, follow_links=False)
            check_json(text)
            kept = json.loads(text)
            game, held = kept["game"], {}
            for entry in kept["seats"][:16]:
                name, phone = entry["player"], entry["phone"]
                if isinstance(name, str) and isinstance(phone, str):
                    held[name_key(name)] = (name, phone)
            if isinstance(game, int) and not isinstance(game, bool):
                self._game, self._held = game, held
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError, AttributeError, BadJson, RecursionError):
            self._game, self._held = None, {}

    def _save(self) -> None:
        """Keep the claims (called under the lock); a refusing disk keeps them in memory only."""
        if self.path is None:
            return
        seats = [{"player": name, "phone": phone} for name, phone in self._held.values()]
        with contextlib.suppress(OSError):
            write_private(self.path, json.dumps({"game": self._game, "seats": seats}).encode("utf-8"))

    def _for(self, game: int, playing: bool) -> None:
        """Release every claim that is not of ``game`` still being played (under the lock)."""
        if self._game == game and playing:
            return
        if self._held:
            self._held = {}
            self._game = game
            self._save()
        self._game = game

    def seat_of(self, game: int, playing: bool, phone: str | None) -> str | None:
        """The player whose seat ``phone`` holds, or None."""
        if not phone:
            return None
        digest = phone_digest(phone)
        with self._lock:
            self._for(game, playing)
            return next((name for name, held in self._held.values() if held == digest), None)

    def held(self, game: int, playing: bool) -> list[str]:
        """The players whose seat a phone holds (names only: who holds them is no one's business)."""
        with self._lock:
            self._for(game, playing)
            return [name for name, _ in self._held.values()]

    def claim(self, game: int, playing: bool, player: str, phone: str) -> str | None:
        """``phone`` takes ``player``'s seat if it is free and the phone holds none; returns the
        player whose seat the phone holds afterwards, or None when the seat is another phone's
        (then nothing changes), or None in a finished game (no seat to hold). A phone that holds
        another seat keeps it, and that seat is returned."""
        digest = phone_digest(phone)
        key = name_key(player)
        with self._lock:
            self._for(game, playing)
            if not playing:
                return None
            held = self._held.get(key)
            if held is not None:
                return held[0] if held[1] == digest else None
            mine = next((name for name, d in self._held.values() if d == digest), None)
            if mine is not None:
                return mine
            self._held[key] = (player, digest)
            self._save()
            return player

    def release(self, game: int, playing: bool, player: str) -> bool:
        """Free ``player``'s seat (the host's choice); whether a phone held it."""
        with self._lock:
            self._for(game, playing)
            if self._held.pop(name_key(player), None) is None:
                return False
            self._save()
            return True
