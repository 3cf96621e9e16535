"""The page's snapshot as compact JSON, its parts that did not change taken from their last text.

Encoding the snapshot (up to ~18 KB at a game's end) cost more CPU than projecting it, and
most of it is the same from one change to the next: the log's entries, the score chart's
rows, players' completed treks, the edition's Itinerary layout (issue 26). `PageText` keeps
each such part's text with a copy of what it was made of, and uses the text again while the
part is equal to that copy; the rest is encoded in one call with a placeholder where each
kept part goes. The text is the one ``json.dumps(snapshot, separators=(",", ":"))`` gives:
the parts are JSON values whose equality means the same text (their numbers are ints, their
flags bools: never a 1 where a True was).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

#: The snapshots' compact JSON: what ``json.dumps(value, separators=(",", ":"))`` gives,
#: without its check for containers that hold themselves (a fifth of the encoding: a
#: projection is built fresh from the table and never refers to itself). One encoder
#: for all threads: it keeps nothing between calls.
COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)

#: A placeholder no snapshot's text can hold: a NUL (which JSON writes ``\u0000``) and a
#: random token, then the part's number.
_TOKEN = f"\x00{secrets.token_hex(8)}:"
_SPLIT = COMPACT.encode(_TOKEN)[:-1]  # the placeholder's text up to its number


class PageText:
    """One table's snapshots as text, each kept part's text made again only when it changed.

    The parts are few and large, each checked in one comparison (C's, not a Python loop: a
    check per log entry cost as much as encoding it): the edition's block, each player's
    completed treks, the score chart (rows are only added or taken off at its end: the rows
    kept that are still there are one text, the new ones encoded), and the log (the last
    entries: those kept that are still there and unchanged keep their text)."""

    def __init__(self) -> None:
        #: A part's place -> (a copy of its value, its text).
        self.kept: dict[Any, tuple[Any, str]] = {}
        #: The chart's rows as last encoded (copies) and their text, without the brackets.
        self.chart: tuple[list[list[int]], str] = ([], "")
        #: The log's entries as last encoded (copies) and each one's text.
        self.log: tuple[list[dict[str, Any]], list[str]] = ([], [])

    def encode(self, page: dict[str, Any]) -> str:
        """``page`` (`companion.table.snapshot.Snapshots.page_json`) as compact JSON text."""
        texts: list[str] = []
        kept, seen = self.kept, {}

        def placeholder(text: str) -> str:
            texts.append(text)
            return f"{_TOKEN}{len(texts) - 1}"

        def part(place: Any, value: Any, copy: Any) -> str:
            """The placeholder of ``value``, whose text is kept at ``place`` (``copy``: a copy,
            which later changes to ``value`` in place leave as it is; ``value`` itself for a
            shared value never changed, whose text is kept while it is the same object)."""
            found = kept.get(place)
            if found is None or (found[0] is not value if copy is value else found[0] != value):
                found = (copy, COMPACT.encode(value))
            seen[place] = found
            return placeholder(found[1])

        rest = dict(page)
        edition = page.get("edition")
        if isinstance(edition, dict):
            rest["edition"] = part("edition", edition, edition)  # shared, never changed (`view.edition_view`)
        players = page.get("players")
        if isinstance(players, list):
            rest["players"] = shown = []
            for seat, player in enumerate(players):
                if isinstance(player, dict):
                    player = dict(player)
                    done = player.get("completed_treks")
                    if isinstance(done, list):  # only added to, or made afresh after an undo
                        player["completed_treks"] = part(("treks", seat), done, [list(t) for t in done])
                    if "itinerary" in player:  # shared, never changed (`view._itinerary_view`)
                        itinerary = player["itinerary"]
                        player["itinerary"] = part(("itinerary", seat), itinerary, itinerary)
                shown.append(player)
        chart = page.get("chart")
        if isinstance(chart, list):
            rest["chart"] = placeholder(self.chart_text(chart))
        log = page.get("log")
        if isinstance(log, list):
            rest["log"] = placeholder(self.log_text(log))
        self.kept = seen  # only what this snapshot had: a part gone is not kept
        pieces = COMPACT.encode(rest).split(_SPLIT)
        out = [pieces[0]]
        for piece in pieces[1:]:
            number, after = piece.split('"', 1)
            out.append(texts[int(number)])
            out.append(after)
        return "".join(out)

    def chart_text(self, chart: list[Any]) -> str:
        """The score chart's text: the rows kept that it still begins with, then the new ones."""
        rows, inner = self.chart
        if len(rows) > len(chart) or chart[: len(rows)] != rows:
            rows, inner = [], ""
        new = chart[len(rows) :]
        if new:
            more = COMPACT.encode(new)[1:-1]
            inner = f"{inner},{more}" if inner else more
            rows = rows + [list(row) for row in new]
        self.chart = (rows, inner)
        return f"[{inner}]"

    def log_text(self, log: list[Any]) -> str:
        """The log's text: the entries kept that are still shown, unchanged, keep their text."""
        entries, texts = self.log
        shift = _start_of(entries, log)
        same = len(entries) - shift if shift >= 0 else 0
        if same and log[:same] != entries[shift:]:
            same = 0
        entries, texts = (entries[shift:], texts[shift:]) if same else ([], [])
        fresh = log[same:]
        texts += [COMPACT.encode(entry) for entry in fresh]
        self.log = (entries + [dict(entry) for entry in fresh], texts)
        return f"[{','.join(texts)}]"


def _start_of(entries: list[dict[str, Any]], log: list[Any]) -> int:
    """Where ``log``'s first entry is among the ``entries`` kept (by its number), or -1."""
    if not log or not isinstance(log[0], dict):
        return -1
    first = log[0].get("n")
    for at in range(len(entries)):  # the second kept, mostly: one entry more drops the first
        if entries[at].get("n") == first:
            return at
    return -1
