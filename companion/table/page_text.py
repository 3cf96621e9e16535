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
import json.encoder
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from companion.engine import Board, explain_tie_break
from companion.engine.edition import Edition
from companion.engine.scoring import Standing
from companion.engine.tokens import COLUMNS
from companion.table.view import (
    Past,
    edition_view,
    itinerary_column,
    itinerary_rows,
    row_card,
    stack_order,
    used_itineraries,
)

#: The snapshots' compact JSON: what ``json.dumps(value, separators=(",", ":"))`` gives,
#: without its check for containers that hold themselves (a fifth of the encoding: a
#: projection is built fresh from the table and never refers to itself). One encoder
#: for all threads: it keeps nothing between calls.
COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def _fast_dumps() -> Callable[[Any], str]:
    """`COMPACT`'s ``encode`` without its set-up per call: ``JSONEncoder.encode`` builds the
    C encoder afresh each time (2-3 us: more than encoding a small value), this one is built
    once, with `COMPACT`'s options, as ``json.encoder`` builds it. Where the C encoder is
    missing (another interpreter), `COMPACT.encode` itself."""
    make = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed: the C accelerator's
    if make is None:
        return COMPACT.encode
    escape = json.encoder.encode_basestring_ascii
    try:
        encoder = make(None, COMPACT.default, escape, None, ":", ",", False, False, True)
    except TypeError:  # another interpreter's accelerator, with other arguments
        return COMPACT.encode

    def dumps(value: Any) -> str:
        if isinstance(value, str):
            return str(escape(value))  # as `JSONEncoder.encode` does: the C encoder wants a container
        return "".join(encoder(value, 0))

    sample = {"a": [1, -2.5, None, True, "é\u2028\x00"], "b": {}}
    try:
        same = dumps(sample) == COMPACT.encode(sample)
    except Exception:  # an accelerator that takes these arguments but means others by them
        same = False
    return dumps if same else COMPACT.encode


#: ``json.dumps(value, separators=(",", ":"))``, the snapshots' many small parts encoded apart.
dumps = _fast_dumps()

#: The members the page's snapshot has besides the state's (and ``players``, its own): an
#: extra of the state (`companion.table.snapshot.Snapshots.annotations`) named as one of
#: them is encoded the plain way.
PAGE_KEYS = frozenset(
    (
        "players",
        "edition",
        "order",
        "stack",
        "row_cards",
        "log",
        "log_length",
        "chart",
        "ancestor",
        "tie_break",
    )
)

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
        #: Each seat's text in the state and in the page, with what it was made of (`state`, `page`).
        self.state_players: list[tuple[tuple[Any, ...], str]] = []
        self.page_players: list[tuple[tuple[Any, ...], str]] = []
        #: The edition the texts below are of; its row positions', Itineraries' (per card and
        #: tokens), used Itineraries' (per bits) and fixed blocks' texts.
        self.edition: Edition | None = None
        self.per_edition: dict[Any, Any] = {}
        #: `chart_of`'s `Past`, its pops and number of moves then, and the chart's text inside its brackets.
        self.chart_texts: tuple[Past, int, int, str] | None = None
        #: `log_of`'s `Past`, its edits and length then, where the texts begin, the texts.
        self.log_texts: tuple[Past, int, int, int, list[str]] | None = None
        #: Each seat's treks' texts and what they were made of (`trek_texts`).
        self.treks: dict[int, tuple[Any, ...]] = {}
        #: The state's members before its players (a copy) and their text: the game and its
        #: day, the same for a whole day (`state`).
        self.head: tuple[dict[str, Any], str] | None = None
        #: The players' names and each one's text, for the page's ``order`` and ``stack``.
        self.names: tuple[tuple[str, ...], list[str]] = ((), [])

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
                found = (copy, dumps(value))
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

    def state(self, head: dict[str, Any], tail: dict[str, Any], standings: Sequence[Standing],
              colours: list[str], markers: list[int]) -> tuple[str, str, str]:  # fmt: skip
        """The state's text (`companion.table.snapshot.Snapshots.project_state`'s: its members
        ``head``, then ``players`` of ``standings``, ``colours`` and ``markers``, then ``tail``),
        and the texts of ``head`` and ``tail`` without their braces (the page's snapshot is
        the state with its own players and more members). Each player's text is kept while
        their standing, colour and marker are the same (most players did not move)."""
        kept = self.head
        if kept is None or kept[0] != head:  # only its values: JSON's types (an int never a bool)
            kept = self.head = (dict(head), dumps(head)[1:-1])
        head_text, tail_text = kept[1], dumps(tail)[1:-1]
        return self.state_around(head_text, tail_text, standings, colours, markers), head_text, tail_text

    def state_around(self, head: str, tail: str, standings: Sequence[Standing], colours: list[str],
                     markers: list[int]) -> str:  # fmt: skip
        """The state's text with its members ``head`` and ``tail`` (texts) around its players."""
        kept, texts = self.state_players, []
        for seat, standing in enumerate(standings):
            key = (standing, colours[seat], markers[seat])
            found = kept[seat] if seat < len(kept) else None
            if found is None or found[0] != key:
                found = (key, dumps({**standing.to_json(), "colour": key[1], "marker": key[2]}))
                if seat < len(kept):
                    kept[seat] = found
                else:
                    kept.append(found)
            texts.append(found[1])
        del kept[len(standings) :]
        return f'{{{head}{"," if head else ""}"players":[{",".join(texts)}]{"," if tail else ""}{tail}}}'

    def page(self, board: Board, head: str, tail: str, past: Past, past_log: Past,
             standings: Sequence[Standing], colours: list[str], markers: list[int]) -> str:  # fmt: skip
        """The page's snapshot as text, without building it: what `encode` gives of
        `companion.table.snapshot.Snapshots.page_json` (the state's ``head`` and ``tail`` from
        `state`, ``past`` the replay the treks and the chart are drawn from, ``log`` the
        stored log's entries). Each part is kept with what it was made of and made again only
        when that changed: a player's text (their standing, colour, marker, treks, Itinerary
        and its tokens, used Itineraries), each row position's, the edition's."""
        edition = board.edition
        if self.edition is not edition:
            self.edition, self.per_edition = edition, edition_texts(edition)
            self.page_players = []  # their used Itineraries are named by the edition
        per_edition = self.per_edition
        treks_of = past.treks(len(board.names))
        log = past_log.log
        players, kept = [], self.page_players
        for seat, standing in enumerate(standings):
            treks = treks_of[seat]
            key = (
                standing, colours[seat], markers[seat], treks, len(treks), len(treks[-1]) if treks else 0,
                board.itinerary[seat], board.fills[seat], board.used[seat],
            )  # fmt: skip
            found = kept[seat] if seat < len(kept) else None
            if found is None or found[0] != key:
                found = (key, self.player_text(board, seat, standing, key[1], key[2], treks))
                if seat < len(kept):
                    kept[seat] = found
                else:
                    kept.append(found)
            players.append(found[1])
        del kept[len(standings) :]
        order = stack_order(board)
        names, hours = board.names, board.hour
        if self.names[0] != names:
            self.names = (names, [dumps(name) for name in names])
        named = self.names[1]
        row = []
        for position, index in enumerate(board.row):
            text = per_edition.get(("row", position, index))
            if text is None:  # `companion.table.view.row_entry`, of the card's and the bonus's texts
                card = per_edition.get(("card", index))
                if card is None:
                    card = per_edition["card", index] = dumps(row_card(edition, index))
                bonus = dumps(list(edition.slots[position]))
                hidden = "true" if index == -2 else "false"
                text = per_edition["row", position, index] = (
                    f'{{"position":{position},"card":{card},"hidden":{hidden},"bonus":{bonus}}}'
                )
            row.append(text)
        fixed = per_edition.get("fixed")
        if fixed is None:
            ancestor = edition.ancestor
            shown = None if ancestor is None else {"hours": ancestor.hours, "gains": list(ancestor.gains)}
            fixed = per_edition["fixed"] = (dumps(edition_view(edition)), dumps(shown))
        tie_break = f',"tie_break":{dumps(explain_tie_break(list(standings)))}' if board.finished else ""
        return (  # one text made at once: ~15 KB, copied once
            f'{{{head}{"," if head else ""}"players":[{",".join(players)}]{"," if tail else ""}{tail}'
            f',"edition":{fixed[0]}'
            f',"order":[{",".join([named[i] for i in order if hours[i] < 12])}]'
            f',"stack":[{",".join([named[i] for i in order])}]'
            f',"row_cards":[{",".join(row)}]'
            f',"log":{self.log_of(past_log, log)},"log_length":{len(log)}'
            f',"chart":{self.chart_of(past)},"ancestor":{fixed[1]}{tie_break}}}'
        )

    def player_text(self, board: Board, seat: int, standing: Standing, colour: str, marker: int,
                    treks: list[list[dict[str, Any]]]) -> str:  # fmt: skip
        """A player's text in the page's snapshot (`companion.table.view.page_state`'s player
        with its marker): their treks' texts continued (`trek_texts`), their Itinerary's and
        used Itineraries' made of texts kept per edition."""
        per_edition = self.per_edition
        used = ("used", board.used[seat])
        used_text = per_edition.get(used)
        if used_text is None:
            used_text = per_edition[used] = dumps(used_itineraries(board.edition, board.used[seat]))
        current, done = self.trek_texts(seat, treks)
        itinerary = self.itinerary_text(board, seat)
        state = self.state_player(seat, standing, colour, marker)
        cut = state.rfind(',"marker":')  # its last member: a name's or a colour's quote is escaped
        return (
            f"{state[:cut]}"
            f',"current_trek":{current},"completed_treks":{done}'
            f',"itinerary":{itinerary},"used_itineraries":{used_text}{state[cut:]}'
        )

    def state_player(self, seat: int, standing: Standing, colour: str, marker: int) -> str:
        """A player's text in the state (`state_around`'s: their standing, colour, then marker),
        the one the state's text of this change has when it is of the same player (`page`
        follows `state`), else made here. The page's player is the same text with its own
        members before the marker."""
        kept = self.state_players
        if seat < len(kept):
            found = kept[seat]
            if found[0] == (standing, colour, marker):
                return found[1]
        return dumps({**standing.to_json(), "colour": colour, "marker": marker})

    def trek_texts(self, seat: int, treks: list[list[dict[str, Any]]]) -> tuple[str, str]:
        """A player's current trek's and completed treks' texts. `companion.table.view.Past.treks`
        only adds to a player's lists (a card to the last trek, or a new trek) until it makes
        them afresh: while the lists are the same objects, the completed treks' text holds as
        long as there are as many, and the current trek's is continued with its new cards."""
        kept = self.treks.get(seat)
        current = treks[-1] if treks else None
        if kept is None or kept[0] is not treks or kept[1] != len(treks):
            done = dumps(treks[:-1])
            inner = dumps(current)[1:-1] if current else ""
        else:
            done, inner = kept[2], kept[5]
            if kept[3] is not current:
                inner = dumps(current)[1:-1] if current else ""
            elif current is not None and len(current) > kept[4]:
                more = dumps(current[kept[4] :])[1:-1]
                inner = f"{inner},{more}" if inner else more
        self.treks[seat] = (treks, len(treks), done, current, len(current) if current else 0, inner)
        return f"[{inner}]", done

    def itinerary_text(self, board: Board, seat: int) -> str:
        """A player's Itinerary's view as text (`companion.table.view.itinerary_view`), made of
        its columns' texts (per card, column and depth) and its rows' (per card and depths)."""
        index = board.itinerary[seat]
        if index < 0:
            return "null"
        per_edition = self.per_edition
        depths = board.column_depths(seat)
        whole = ("itinerary", index, depths)
        text = per_edition.get(whole)
        if text is None:
            it = board.edition.itineraries[index]
            columns = []
            for c, (kind, spaces, depth) in enumerate(zip(COLUMNS, it.columns, depths, strict=True)):
                column = ("column", index, c, depth)
                found = per_edition.get(column)
                if found is None:
                    found = per_edition[column] = dumps(itinerary_column(kind, spaces, depth))
                columns.append(found)
            rows = self.rows_text(index, depths)
            text = per_edition[whole] = (
                f'{{"id":{dumps(it.id)},"columns":[{",".join(columns)}],"rows":{rows}}}'
            )
        return text

    def rows_text(self, index: int, depths: tuple[int, ...]) -> str:
        """The rows of Itinerary ``index`` covered to ``depths`` (`companion.table.view.itinerary_rows`)
        as text, kept per card and which rows are complete: a row is complete when every column
        that reaches it (the card's shape, kept per card) is covered past it."""
        per_edition = self.per_edition
        shape = per_edition.get(("shape", index))
        if shape is None:
            it = self.edition_of().itineraries[index]
            shape = per_edition["shape", index] = tuple(
                tuple(c for c, spaces in enumerate(it.columns) if len(spaces) > i)
                for i in range(len(it.rows))
            )
        complete = 0
        for i, members in enumerate(shape):  # bit i: row i complete (plain loops: no generators)
            for column in members:
                if depths[column] <= i:
                    break
            else:
                complete |= 1 << i
        rows = ("rows", index, complete)
        text = per_edition.get(rows)
        if text is None:
            text = per_edition[rows] = dumps(itinerary_rows(self.edition_of().itineraries[index], depths))
        return str(text)

    def edition_of(self) -> Edition:
        """The edition the kept texts are of (`page` sets it before any player's text)."""
        assert self.edition is not None
        return self.edition

    def log_of(self, past: Past, log: list[dict[str, Any]]) -> str:
        """The text of ``log``'s last 60 entries (``past``'s log): while it is the same `Past`
        with the same `Past.edits`, its entries kept are unchanged and only the new ones are
        encoded; else `log_text` compares them one by one."""
        kept = self.log_texts
        window = log[-60:]
        if kept is None or kept[0] is not past or kept[1] != past.edits or kept[2] > len(log):
            text = self.log_text(window)
            start = len(log) - len(window)
            texts = self.log[1]
        else:
            _, _, count, start, texts = kept
            if count < len(log):
                texts = texts + [dumps(entry) for entry in log[count:]]
                self.log = ([], [])  # `log_text`'s copies are no longer kept up to date
            drop = len(log) - len(window) - start
            if drop > 0:
                texts, start = texts[drop:], start + drop
            text = f"[{','.join(texts)}]"
        self.log_texts = (past, past.edits, len(log), start, texts)
        return text

    def chart_of(self, past: Past) -> str:
        """The text of ``past``'s score chart (`companion.table.view.Past.totals`): while it is
        the same `Past` with the same `Past.pops`, its moves only grew, so the rows of the
        moves added are encoded after those kept (every move has its totals once the replay
        is settled, and they never change); otherwise `chart_text` compares the rows."""
        kept, moves = self.chart_texts, past.moves
        if kept is None or kept[0] is not past or kept[1] != past.pops or kept[2] > len(moves):
            self.chart_texts = None
            text = self.chart_text(past.totals)
            self.chart_texts = (past, past.pops, len(moves), text[1:-1])
            return text
        inner = kept[3]
        if kept[2] < len(moves):
            more = dumps([move.totals for move in moves[kept[2] :]])[1:-1]
            inner = f"{inner},{more}" if inner else more
            self.chart_texts = (past, past.pops, len(moves), inner)
            self.chart = ([], "")  # `chart_text`'s copies are no longer kept up to date
        return f"[{inner}]"

    def chart_text(self, chart: list[Any]) -> str:
        """The score chart's text: the rows kept that it still begins with, then the new ones."""
        rows, inner = self.chart
        if len(rows) > len(chart) or chart[: len(rows)] != rows:
            rows, inner = [], ""
        new = chart[len(rows) :]
        if new:
            more = dumps(new)[1:-1]
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
        texts += [dumps(entry) for entry in fresh]
        self.log = (entries + [dict(entry) for entry in fresh], texts)
        return f"[{','.join(texts)}]"


#: Texts that depend on an edition alone (row positions and cards, Itineraries' columns and
#: views, used Itineraries, the edition's block), by the edition's id (the edition held
#: beside them), shared by every table and game of it: a game's `PageText` starts with the
#: texts earlier games made. Bounded: emptied past `EDITION_TEXTS` texts or 8 editions.
_BY_EDITION: dict[int, tuple[Edition, dict[Any, Any]]] = {}
EDITION_TEXTS = 20_000


def edition_texts(edition: Edition) -> dict[Any, Any]:
    """The texts kept for ``edition`` (see `_BY_EDITION`). Two threads may make the same text
    at once: each is made from the edition alone, so either is the right one to keep."""
    found = _BY_EDITION.get(id(edition))
    if found is None or found[0] is not edition or len(found[1]) > EDITION_TEXTS:
        if len(_BY_EDITION) >= 8:
            _BY_EDITION.clear()
        found = _BY_EDITION[id(edition)] = (edition, {})
    return found[1]


def _start_of(entries: list[dict[str, Any]], log: list[Any]) -> int:
    """Where ``log``'s first entry is among the ``entries`` kept (by its number), or -1."""
    if not log or not isinstance(log[0], dict):
        return -1
    first = log[0].get("n")
    for at in range(len(entries)):  # the second kept, mostly: one entry more drops the first
        if entries[at].get("n") == first:
            return at
    return -1
