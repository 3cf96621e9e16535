"""What a tag stands for: domain code, not hardware.

The reader only reports what it saw (a UID, or the text a sticker carries); which card
that is depends on the game's edition and the table's enrolments, so `TagResolver`
lives here, beside neither the reader nor the web: the reader loop, the keyboard and
the page's virtual reader all hand what they saw to the same resolver.

A tag is, in this order: an enrolled tag (the store's tag table), a card id written
into the tag's text (``trek:I07``, so a tagged deck works on any companion), or, for
the keyboard and the page in mock mode, a card id, itinerary id or the start of a
card's title.
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.engine import Edition
from companion.engine.tokens import ANCESTOR

#: What a sticker's text starts with (``companion edition stickers`` writes it).
TEXT_PREFIX = "trek:"


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
