"""The RFID reader: a polling loop with debounce, and how a tag becomes a card.

The loop asks the reader for the tag in its field every ``poll_interval`` seconds
and sleeps in between: ``SimpleMFRC522.read()`` spins a core at 100 %, so the Pi
adapter uses ``read_id_no_block`` instead. `TagDebouncer` turns the stream of
readings into taps: a tag held on the reader counts once, a reading that flickers
out for less than the debounce window is the same tag still there, and the same
tag counts again only after it has been away for the whole window.

`TagResolver` maps what the reader saw to a card id: an enrolled tag (the
store's tag table), a card id written into the tag's text (``trek:I07``, so a
tagged deck works on any companion), or, for the keyboard and the page in mock
mode, a card id, itinerary id or the start of a card's title.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Edition
from companion.engine.tokens import ANCESTOR

TEXT_PREFIX = "trek:"


@dataclass
class TagDebouncer:
    """Readings (a UID or None, with the time) in; a UID out once per tap."""

    window: float
    current: str | None = None
    last_seen: float = 0.0

    def feed(self, uid: str | None, now: float) -> str | None:
        if uid is None:
            if self.current is not None and now - self.last_seen >= self.window:
                self.current = None
            return None
        if uid == self.current:  # still there (however long between two polls)
            self.last_seen = now
            return None
        self.current, self.last_seen = uid, now
        return uid


@dataclass
class ReaderLoop:
    """Polls ``read`` on its own thread and calls ``on_tap`` once per tap."""

    read: Callable[[], str | None]
    on_tap: Callable[[str], None]
    poll_interval: float
    debouncer: TagDebouncer
    clock: Callable[[], float] = time.monotonic
    on_error: Callable[[Exception], None] | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    polls: int = 0

    def poll_once(self) -> str | None:
        try:
            uid = self.read()
        except Exception as exc:  # a glitch on the SPI bus must not stop the table
            if self.on_error is not None:
                self.on_error(exc)
            uid = None
        self.polls += 1
        tap = self.debouncer.feed(uid, self.clock())
        if tap is not None:
            self.on_tap(tap)
        return tap

    def run(self) -> None:
        while not self._stop.wait(self.poll_interval):
            self.poll_once()

    def stop(self) -> None:
        self._stop.set()


class TagResolver:
    """What a tag, or a typed reference, stands for."""

    def __init__(self, edition: Edition, tags: Mapping[str, str]) -> None:
        self.edition = edition
        self.tags = dict(tags)

    def resolve(self, seen: str) -> tuple[str | None, str]:
        """(card/itinerary id or "ancestor", "") or (None, why not)."""
        text = seen.strip()
        if text in self.tags:
            return self.tags[text], ""
        if text.lower().startswith(TEXT_PREFIX):
            text = text[len(TEXT_PREFIX) :].strip()
        ed = self.edition
        if text == ANCESTOR or text in ed.card_index or text in ed.itinerary_index:
            return text, ""
        lowered = text.lower()
        if len(lowered) >= 3:
            matches = [c for c in ed.cards if c.title.lower().startswith(lowered)]
            if len(matches) == 1:
                return matches[0].id, ""
            if len(matches) > 1:
                names = ", ".join(f"{c.id} ({c.title})" for c in matches[:5])
                return None, f"{seen!r} matches several cards: {names}. Type more of the title or the id."
        return None, (
            f"Unknown tag {seen!r}. Enrol it with `companion enroll` (tap it, then pick its card), "
            "or write trek:<card id> into the tag's text."
        )


#: BCM GPIO -> physical pin, for the mfrc522 package, which numbers pins the BOARD way.
BCM_TO_BOARD = {
    2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33, 14: 8,
    15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22,
    26: 37, 27: 13,
}  # fmt: skip


def open_pi_reader(rst_pin: int) -> tuple[Callable[[], str | None], Callable[[], str | None]]:
    """The MFRC522 on SPI0/CE0: (read the UID in the field, read the tag's text).

    Pi-only imports live here: ``mfrc522`` needs ``RPi.GPIO`` (``rpi-lgpio`` on a
    Pi 5) and ``spidev``, which fail to import on a PC. ``read_id_no_block``
    returns at once, so the loop can sleep between polls; reading the text needs
    an authenticated block read and is only tried for tags that are not enrolled.
    """
    try:
        from mfrc522 import MFRC522, SimpleMFRC522
    except (ImportError, RuntimeError) as exc:
        raise RuntimeError(
            f"the RFID reader needs the mfrc522 package and RPi.GPIO (rpi-lgpio on a Pi 5): {exc}"
        ) from None
    simple: Any = SimpleMFRC522()
    if rst_pin != 25:  # the package's default RST is physical pin 22 (BCM 25)
        simple.READER = MFRC522(pin_rst=BCM_TO_BOARD[rst_pin])

    def read_uid() -> str | None:
        uid = simple.read_id_no_block()
        return None if uid is None else str(uid)

    def read_text() -> str | None:
        # MIFARE Classic (SimpleMFRC522's blocks 8-10) or NTAG21x (NDEF text): both
        # kinds of sticker `companion stickers` writes; it retries the wake-up that a
        # tag which just answered anticollision ignores (ISO 14443-3: READY -> IDLE).
        from companion.stickers import read_text as read_sticker_text

        return read_sticker_text(simple.READER)

    return read_uid, read_text
