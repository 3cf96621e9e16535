"""What a tag stands for: domain code, not hardware.

The reader loop, the keyboard and the page's virtual reader all hand what they saw to one
`TagResolver`. A tag is, in this order: an enrolled tag, a card id written into the tag's text
(``trek:I07``, so a tagged deck works on any companion), or, typed in mock mode, a card id,
itinerary id or the start of a title. A tag that shows nothing or reads as another card is
refused (`check_tag`): enrolled tags come first, so it would take that reading over for good.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from companion.engine import Edition
from companion.engine.tokens import ANCESTOR
from companion.util.wording import CodedError

#: What a sticker's text starts with (``companion edition stickers`` writes it).
TEXT_PREFIX = "trek:"
_SEVEN = re.compile(r"\A[0-9A-F]{2}(?::[0-9A-F]{2}){6}\Z")


def uid_text(uid: Sequence[int]) -> str:
    """What the table calls a tag with this UID: a 4-byte one (MIFARE Classic) the number
    ``SimpleMFRC522`` reports (so tags enrolled before keep working), a longer one (NTAG21x)
    in hexadecimal as a phone's NFC app shows it, ``04:5A:6B:7C:11:22:33``."""
    if len(uid) == 4:
        return _number_with_bcc(uid)
    return ":".join(f"{byte:02X}" for byte in uid)


def legacy_uid_text(seen: str) -> str | None:
    """The number an older companion reported for a 7-byte UID (its first cascade level: the
    cascade tag 0x88, the UID's first three bytes and their check byte), or None."""
    if not _SEVEN.match(seen):
        return None
    return _number_with_bcc([0x88, *(int(part, 16) for part in seen.split(":")[:3])])


def _number_with_bcc(part: Sequence[int]) -> str:
    """Four bytes and their BCC (XOR) as one decimal number: ``SimpleMFRC522.uid_to_num``."""
    number = 0
    for byte in [*part, part[0] ^ part[1] ^ part[2] ^ part[3]]:
        number = number * 256 + byte
    return str(number)


class TagResolver:
    """What a tag, or a typed reference, stands for."""

    def __init__(self, edition: Edition, tags: Mapping[str, str]) -> None:
        self.edition = edition
        self.tags = dict(tags)

    def resolve(self, seen: str) -> tuple[str | None, dict[str, str]]:
        """(card/itinerary id or "ancestor", {}) or (None, why not): the params of the
        ``unknown_tag`` outcome (``tag``, ``why`` "unknown" or "ambiguous", and the ``matches``
        of an ambiguous title), which the catalogues word; the resolver writes no sentence."""
        text = seen.strip()
        if text in self.tags:
            return self.tags[text], {}
        legacy = legacy_uid_text(text)
        if legacy is not None and legacy in self.tags:  # an NTAG enrolled under its old, short number
            return self.tags[legacy], {}
        if text.lower().startswith(TEXT_PREFIX):
            text = text[len(TEXT_PREFIX) :].strip()
        ed = self.edition
        if text == ANCESTOR or text in ed.card_index or text in ed.itinerary_index:
            return text, {}
        lowered = text.lower()
        if len(lowered) >= 3:
            matches = [c for c in ed.cards if c.title.lower().startswith(lowered)]
            if len(matches) == 1:
                return matches[0].id, {}
            if len(matches) > 1:
                names = ", ".join(f"{c.id} ({c.title})" for c in matches[:5])
                return None, {"tag": seen.strip(), "why": "ambiguous", "matches": names}
        return None, {"tag": seen.strip(), "why": "unknown"}


class TagRefused(CodedError, ValueError):
    """A tag that may not stand for a card (`check_tag`): ``tag_invisible`` or ``tag_shadows``."""


def shows_something(text: str) -> bool:
    """Whether ``text`` has a character that draws (not a control, format or blank character)."""
    return any(unicodedata.category(char)[0] not in "CZ" for char in text)


def check_tag(tag: str, card: str, editions: Iterable[Edition]) -> None:
    """Refuse ``tag`` for ``card`` (raises `TagRefused`): a tag that shows nothing
    (``tag_invisible``), or one that reads, in any of ``editions``, as another card, itinerary or
    the Ancestor: an id, a ``trek:`` text, or a title typed whole or by its unique start
    (``tag_shadows``). Such a tag would take that reading over for good, enrolled tags coming
    first (`TagResolver.resolve`)."""
    text = tag.strip()
    if not shows_something(text):
        raise TagRefused("tag_invisible")
    for edition in editions:
        other, _ = TagResolver(edition, {}).resolve(text)
        if other is not None and other != card:
            named = f"{other} ({edition.card(other).title})" if other in edition.card_index else other
            raise TagRefused("tag_shadows", tag=text[:40], card=card, other=named)
