"""Stickers that carry their card: write ``trek:<card id>`` onto blank tags.

A tag that holds its card's id is recognised by any companion with no enrolment
(`companion.table.tags.TagResolver` reads ``trek:`` texts). Frames go through
`companion.hardware.rc522` and authentication through the ``mfrc522`` driver's ``MFRC522_Auth``:
the driver's own write returns no status and knows neither 7-byte UIDs nor NTAG memory.

- **MIFARE Classic 1K** (SAK 0x08, a 4- or 7-byte UID): the text in blocks 8-10 of sector 2,
  padded with spaces, after authenticating with the transport key and the UID (a 7-byte UID's
  last four bytes), as ``SimpleMFRC522.write`` stores it (so older companions read it too).
- **NTAG21x** (7-byte UID, SAK 0x00): an NDEF Text record from page 4, which phones read as well.

Each write is read back and compared before the next card is asked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from companion.engine import Edition
from companion.engine.tokens import ANCESTOR
from companion.engine.words import year_text
from companion.hardware.rc522 import CLASSIC, DEFAULT_GAIN_DB, Frame, Rc522, Selected, crc_a
from companion.table.tags import TEXT_PREFIX
from companion.util.wording import say as words

KEY_A = [0xFF] * 6  # the transport key of blank Classic stickers
CLASSIC_BLOCKS = (8, 9, 10)
CLASSIC_TRAILER = 11
TEXT_BYTES = 16 * len(CLASSIC_BLOCKS)
NTAG_FIRST_PAGE = 4
READ, CLASSIC_WRITE, NTAG_WRITE = 0x30, 0xA0, 0xA2
ACK = 0x0A


class StickerError(RuntimeError):
    """A sticker could not be written or verified; the message says what to do."""


class Link:
    """The ISO 14443-A exchanges the writer needs: frames through `Rc522` (whose wait sleeps),
    Crypto1 authentication through the driver's ``MFRC522_Auth``."""

    def __init__(self, chip: Any, gain_db: int = DEFAULT_GAIN_DB, rc522: Rc522 | None = None) -> None:
        self.chip = chip
        self.rc522 = rc522 if rc522 is not None else Rc522(chip, gain_db)

    def detect(self) -> Selected | None:
        """Wake the tag in the field and select it (both cascade levels for a 7-byte UID)."""
        selected = self.rc522.select()
        if selected is not None and selected.kind is None:
            raise StickerError(
                f"this tag (SAK {selected.sak:#04x}) is neither a MIFARE Classic 1K nor an NTAG21x"
            )
        return selected

    def exchange(self, frame: list[int]) -> Frame | None:
        """The tag's answer to ``frame`` sent with its CRC_A, or None."""
        return self.rc522.transceive([*frame, *crc_a(frame)])

    def acked(self, frame: list[int]) -> bool:
        answer = self.exchange(frame)
        return answer is not None and answer.bits == 4 and (answer.data[0] & 0x0F) == ACK

    def read16(self, address: int) -> list[int] | None:
        answer = self.exchange([READ, address])
        return answer.data[:16] if answer is not None and len(answer.data) >= 16 else None

    def authenticate(self, sticker: Selected, block: int) -> bool:
        """Crypto1 with the transport key and four UID bytes (a 7-byte UID's last four)."""
        uid = sticker.uid[3:7] if len(sticker.uid) == 7 else sticker.cl1[:4]
        chip = self.chip
        return bool(chip.MFRC522_Auth(chip.PICC_AUTHENT1A, block, KEY_A, list(uid)) == chip.MI_OK)

    def stop(self) -> None:
        self.chip.MFRC522_StopCrypto1()


def ndef_text(text: str) -> list[int]:
    """An NDEF message TLV holding one Text record (UTF-8, language "en"), padded to pages."""
    payload = [0x02, *b"en", *text.encode("utf-8")]
    record = [0xD1, 0x01, len(payload), 0x54, *payload]
    tlv = [0x03, len(record), *record, 0xFE]
    return tlv + [0] * (-len(tlv) % 4)


def parse_ndef_text(memory: Sequence[int]) -> str | None:
    """The first Text record of an NDEF TLV (from page 4 on), or None."""
    i = 0
    while i < len(memory):
        kind = memory[i]
        if kind == 0x00:  # NULL TLV
            i += 1
            continue
        if kind != 0x03 or i + 1 >= len(memory):
            return None
        length = memory[i + 1]
        record = list(memory[i + 2 : i + 2 + length])
        if len(record) < 4 or record[1] != 0x01 or record[3] != 0x54 or not 0 < record[2] <= len(record) - 4:
            return None  # not a Text record, or one without its status byte
        payload = record[4 : 4 + record[2]]
        lang = payload[0] & 0x3F
        return bytes(payload[1 + lang :]).decode("utf-8", "replace")
    return None


def read_sticker(link: Link, sticker: Selected) -> str | None:
    """The text a sticker carries (Classic blocks 8-10, or NTAG's NDEF text)."""
    if sticker.kind == CLASSIC:
        if not link.authenticate(sticker, CLASSIC_TRAILER):
            return None
        data: list[int] = []
        for block in CLASSIC_BLOCKS:
            chunk = link.read16(block)
            if chunk is None:
                return None
            data += chunk
        link.stop()
        return bytes(data).decode("ascii", "replace").strip()
    memory: list[int] = []
    for page in range(NTAG_FIRST_PAGE, NTAG_FIRST_PAGE + 16, 4):  # 64 bytes: room for any card id
        chunk = link.read16(page)
        if chunk is None:
            return None
        memory += chunk
    text = parse_ndef_text(memory)
    return text.strip() if text is not None else None


def write_sticker(link: Link, sticker: Selected, text: str) -> None:
    """Write ``text`` and read it back; StickerError if it did not take."""
    if sticker.kind == CLASSIC:
        if len(text) > TEXT_BYTES or not text.isascii():
            raise StickerError(f"{text!r} does not fit a Classic sticker's {TEXT_BYTES} ASCII characters")
        if not link.authenticate(sticker, CLASSIC_TRAILER):
            raise StickerError("the sticker refused the transport key: it is not blank (or is locked)")
        data = list(text.ljust(TEXT_BYTES).encode("ascii"))
        for n, block in enumerate(CLASSIC_BLOCKS):
            if not (link.acked([CLASSIC_WRITE, block]) and link.acked(data[16 * n : 16 * n + 16])):
                link.stop()
                raise StickerError(f"the sticker did not accept block {block}; hold it still and try again")
        link.stop()
    else:
        memory = ndef_text(text)
        for n in range(0, len(memory), 4):
            if not link.acked([NTAG_WRITE, NTAG_FIRST_PAGE + n // 4, *memory[n : n + 4]]):
                raise StickerError(
                    f"the sticker did not accept page {NTAG_FIRST_PAGE + n // 4}; it may be locked"
                )
    back = read_sticker(link, wake(link, sticker))  # as a new tap reads it
    if back != text:
        raise StickerError(f"read back {back!r} instead of {text!r}; put the sticker back on the reader")


def wake(link: Link, sticker: Selected) -> Selected:
    """Select the same tag again, as a new tap would (after a read or a write)."""
    for _ in range(3):  # a tag that was just active ignores the first wake-up and goes idle
        again = link.detect()
        if again is not None:
            if again.uid != sticker.uid:
                raise StickerError("another tag came onto the reader; write one sticker at a time")
            return again
    raise StickerError("the sticker left the reader; put it back")


def date_index(edition: Edition) -> list[str]:
    """The cards in the order of the box's Date Index: by year (BCE first), then Day."""
    order = {c.id: n for n, c in enumerate(edition.cards)}
    return [c.id for c in sorted(edition.cards, key=lambda c: (c.year, c.day, order[c.id]))]


def label(edition: Edition, item: str) -> str:
    """How the writer names what goes on the next sticker."""
    if item in edition.card_index:
        card = edition.card(item)
        return f"{year_text(card.year)} {card.title} ({card.id})"
    return "an Ancestor card" if item == ANCESTOR else f"Itinerary {item}"


def whole_box(edition: Edition, players: int = 4) -> list[str]:
    """Every tagged card of a box: the History cards in Date Index order, then the
    Itineraries, then one sticker per Ancestor copy (all copies carry "ancestor")."""
    return [
        *date_index(edition),
        *(it.id for it in edition.itineraries),
        *([ANCESTOR] * edition.ancestor_copies(players)),
    ]


def write_deck(
    link: Link,
    edition: Edition,
    cards: Iterable[str],
    say: Callable[[str], None],
    poll: float = 0.1,
    timeout: float | None = None,
    overwrite: bool = False,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> list[str]:
    """Write each card's id onto the next blank sticker put on the reader; the ids written.

    A sticker that already carries this card is counted as done; one that carries
    another card is refused unless ``overwrite``. After each sticker the writer
    waits for the field to be empty, so one sticker is never written twice.
    """
    done: list[str] = []
    for card_id in cards:
        say(words("sticker_next", card=label(edition, card_id)))
        text = f"{TEXT_PREFIX}{card_id}"
        while True:
            sticker = _wait_for(link, poll, timeout, clock, sleep)
            if sticker is None:
                say(words("sticker_none"))
                return done
            try:
                carried = read_sticker(link, sticker)
                if carried == text:
                    say("  " + words("sticker_same", card=card_id))
                    break
                if carried and carried.startswith(TEXT_PREFIX) and not overwrite:
                    say("  " + words("sticker_other", text=carried))
                    _wait_gone(link, poll, sleep)
                    continue
                write_sticker(link, wake(link, sticker), text)
            except StickerError as exc:
                say(f"  {exc}")
                _wait_gone(link, poll, sleep)
                continue
            say("  " + words("sticker_written", kind=sticker.kind, uid=sticker.uid_text, text=text))
            break
        done.append(card_id)
        _wait_gone(link, poll, sleep)
    return done


def _wait_for(
    link: Link, poll: float, timeout: float | None, clock: Callable[[], float], sleep: Callable[[float], None]
) -> Selected | None:
    start = clock()
    while timeout is None or clock() - start < timeout:
        sticker = link.detect()
        if sticker is not None:
            return sticker
        sleep(poll)
    return None


def _wait_gone(link: Link, poll: float, sleep: Callable[[float], None]) -> None:
    """Until the sticker has left the field (two empty polls in a row: a READY tag skips one)."""
    misses = 0
    while misses < 2:
        misses = misses + 1 if link.detect() is None else 0
        if misses < 2:
            sleep(poll)


def read_text(chip: Any, rc522: Rc522 | None = None) -> str | None:
    """The text of the tag in the field, Classic or NTAG (for the table's reader, whose `Rc522`
    is already set up: ``rc522``)."""
    link = Link(chip, rc522=rc522)
    for _ in range(3):  # a tag that just answered anticollision ignores one wake-up
        try:
            sticker = link.detect()
            if sticker is not None:
                return read_sticker(link, sticker)
        except StickerError:
            return None
    return None
