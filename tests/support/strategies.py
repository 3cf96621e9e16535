"""Hypothesis strategies the engine's and the coach's property tests share: small random editions."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from companion.engine.tokens import BENEFITS, COLUMNS

SPACE = st.one_of(st.none(), st.integers(0, 6), st.just("crystal"))


@st.composite
def editions(draw: st.DrawFn) -> dict[str, Any]:
    cards = []
    for day in (1, 2, 3):
        for i in range(draw(st.integers(3, 12))):
            cards.append({
                "id": f"d{day}-{i}",
                "title": f"card {day}-{i}",
                "year": draw(st.integers(-3000, 2000)),
                "day": day,
                "hours": draw(st.integers(1, 6)),
                "gains": draw(st.lists(st.sampled_from(BENEFITS), max_size=4)),
            })  # fmt: skip
    itineraries = [
        {
            "id": f"T{i}",
            "columns": {k: draw(st.lists(SPACE, max_size=5)) for k in COLUMNS},
            "rows": draw(st.lists(SPACE, max_size=2)),
        }
        for i in range(draw(st.sampled_from([0, 12, 12, 14])))
    ]
    for it in itineraries:  # a row reward needs a column reaching that deep
        depth = max(len(c) for c in it["columns"].values())
        it["rows"] = it["rows"][:depth]
    return {
        "cards": cards,
        "ancestor": {
            "hours": draw(st.integers(1, 3)),
            "gains": draw(st.lists(st.sampled_from(BENEFITS), max_size=2)),
        },
        "ancestors": {"2": draw(st.integers(0, 6)), "3": 9, "4": 12},
        "slots": [draw(st.lists(st.sampled_from(BENEFITS), max_size=2)) for _ in range(6)],
        "treks": draw(st.lists(st.integers(-3, 30), min_size=10, max_size=10)),
        "trek_beyond": draw(st.integers(0, 4)),
        "itineraries": itineraries,
    }
