"""The two English forms every message needs, a year and a count, written in one place so the
engine, the table, the console and the edition checks say them alike (the page has its own).
"""

from __future__ import annotations


def year_text(year: int) -> str:
    """A card's year as printed: BCE years (stored negative) as "490 BCE", others as "1492"."""
    return f"{-year} BCE" if year < 0 else str(year)


def plural(n: int, word: str) -> str:
    """``n`` and ``word`` in English, plural unless ``n`` is 1 ("1 crystal", "0 crystals")."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
