"""The one year formatter and the one plural helper write what the seven copies wrote."""

from __future__ import annotations

import pytest

from companion.editions import shipped_edition
from companion.engine.words import plural, year_text
from companion.hardware.stickers import label


@pytest.mark.parametrize(
    ("year", "text"), [(-490, "490 BCE"), (-1, "1 BCE"), (0, "0"), (1, "1"), (1492, "1492")]
)
def test_a_year_is_written_as_printed(year: int, text: str) -> None:
    assert year_text(year) == text


@pytest.mark.parametrize(
    ("n", "text"), [(0, "0 crystals"), (1, "1 crystal"), (2, "2 crystals"), (-1, "-1 crystals")]
)
def test_a_count_is_singular_only_for_one(n: int, text: str) -> None:
    assert plural(n, "crystal") == text


def test_the_sticker_writer_names_a_bce_card_as_before() -> None:
    edition = shipped_edition("reference")
    card = min(edition.cards, key=lambda c: c.year)
    assert card.year < 0
    assert label(edition, card.id) == f"{-card.year} BCE {card.title} ({card.id})"
