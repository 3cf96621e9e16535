"""The two English forms every message needs: a year and a count.

The engine's rejections, the table's messages, the console, the enrolment prompts,
the sticker writer and the edition checks all write years and counts in English (the
page writes its own from a code and params, through ``i18n.js``). Each used to carry
its own copy; one copy here keeps them identical and lets the wording layer of a
later change find them in one place.
"""

from __future__ import annotations


def year_text(year: int) -> str:
    """A card's year as printed: BCE years (stored negative) as "490 BCE", others as "1492"."""
    return f"{-year} BCE" if year < 0 else str(year)


def plural(n: int, word: str) -> str:
    """``n`` and ``word`` in English, plural unless ``n`` is 1 ("1 crystal", "0 crystals")."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
