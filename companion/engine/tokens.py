"""The benefit vocabulary shared by cards, the playmat and itineraries.

The four Experience kinds double as the four columns of an Itinerary card, so a
token's kind *is* the column it goes to. Internally the engine works with the
column's index (0-3) rather than its name: the hot path of a take compares small
integers instead of strings.
"""

from __future__ import annotations

from typing import Final

PERSON: Final = "person"
EVENT: Final = "event"
INNOVATION: Final = "innovation"
PROGRESS: Final = "progress"
WILD: Final = "wild"
CRYSTAL: Final = "crystal"

#: The Itinerary columns, in the order used for tie-breaks and internal tuples.
COLUMNS: Final[tuple[str, ...]] = (PERSON, EVENT, INNOVATION, PROGRESS)
#: Everything a card or a playmat position may give.
BENEFITS: Final[tuple[str, ...]] = (*COLUMNS, WILD, CRYSTAL)

#: Internal codes: 0-3 are the columns, then the Wild token and the crystal.
WILD_CODE: Final = 4
CRYSTAL_CODE: Final = 5
BENEFIT_CODE: Final[dict[str, int]] = {name: i for i, name in enumerate(BENEFITS)}
COLUMN_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(COLUMNS)}

#: The id a `take` uses for an Ancestor card; no History card may use it.
ANCESTOR: Final = "ancestor"

#: Days are written with Roman numerals in records and on the cards.
DAY_NAMES: Final[tuple[str, ...]] = ("I", "II", "III")
DAYS: Final = 3
HOURS_PER_DAY: Final = 12
PUNCTUALITY_BONUS: Final = 3
ROW_SIZE: Final = 6
MAX_PLAYERS: Final = 4
STARTING_CRYSTALS: Final = 1
