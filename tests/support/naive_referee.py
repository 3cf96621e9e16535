"""A naive referee of ``trekking/1`` records: the yardstick the engine is measured against.

Not shipped code. It replays a record the simple way, straight from the contract
(/work/shared/contract/game-record.md, kept as ``tests/records/``): the state is dicts and
lists keyed by names and card ids, the edition is the record's own JSON object, and
everything derived is recomputed when it is needed: the player to move by scanning the
watches, a column's next space by counting its tokens, a row's completion by looking at
every column, the treks' points from their cards. An undo drops the last accepted event and
replays the others from the start. No tables compiled per edition, no memos, no caches,
no incremental bookkeeping; and nothing from ``companion`` is imported, so it cannot
share the engine's mistakes.

It is not deliberately slow either (a dict for the edition's cards, a fast bracket count
before walking a line for its nesting), so the ratio printed by ``benchmarks.bench_referee``
is what the engine's data structures and memos buy, not a strawman's losses.
``tests/engine/test_naive_referee.py`` checks that it gives the engine's output (standings,
winners and every rejection) on generated games with undos, corrections, reveals and
refused events, and on the contract's examples.

It assumes a readable record (a setup line the engine accepts: the contract's exit 2 cases
are the engine's business); events are refereed in full, rejections included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COLUMNS = ("person", "event", "innovation", "progress")
PLAYED = ("take", "itinerary", "reveal")
MAX_DEPTH = 100
MAX_LINE = 1024 * 1024
RULEBOOK_ANCESTORS = {2: 6, 3: 9, 4: 12}
TREK_BEYOND = 3
#: A row position waiting for the table's reveal (not a string: any string may be a card id).
HIDDEN: Any = ("hidden",)


def shipped_editions() -> dict[str, Any]:
    """The editions the companion ships, read as plain JSON from its package folder."""
    folder = Path(__file__).resolve().parents[2] / "companion" / "editions"
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in folder.glob("*.json")}


class Rejected(Exception):
    """An event the rules refuse: ``code`` is the contract's."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def depth(value: Any) -> int:
    """How deep arrays and objects nest in a decoded JSON value (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def read_line(raw: bytes) -> Any:
    """One record line decoded, or `Rejected` ``bad_event`` when the contract says it is not JSON."""
    if len(raw) > MAX_LINE:
        raise Rejected("bad_event")
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise Rejected("bad_event") from None
    # nesting deeper than 100 needs more than 100 opening brackets
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and depth(value) > MAX_DEPTH:
        raise Rejected("bad_event")
    return value


def record_lines(data: bytes) -> list[tuple[int, bytes]]:
    """The record's lines that mean something, with their 1-based numbers."""
    lines = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        line = line.strip(b" \t\r")
        if line and not line.startswith(b"#"):
            lines.append((number, line))
    return lines


class Game:
    """The game in play, replayed forward from the setup."""

    def __init__(self, setup: dict[str, Any], edition: dict[str, Any]) -> None:
        self.setup = setup
        self.edition = edition
        self.cards = {card["id"]: card for card in edition["cards"]}
        self.players: list[str] = list(setup["players"])
        self.itineraries = {it["id"]: it for it in edition.get("itineraries", [])}
        self.decks: dict[str, list[str]] | None = setup.get("decks")
        self.start()

    def start(self) -> None:
        """The state before the first event."""
        stack = self.setup.get("watch_stack", self.players)
        count = max(len(self.players), 2)
        copies = self.edition.get("ancestors", {}).get(str(count), RULEBOOK_ANCESTORS.get(count, 0))
        self.day = 1
        self.finished = False
        self.ancestors_left = copies if self.edition.get("ancestor") is not None else 0
        self.revealed: list[str] = []
        self.moves = len(self.players)  # watches stacked so far: later ones lie on top
        self.people: dict[str, dict[str, Any]] = {}
        for name in self.players:
            self.people[name] = {
                "hour": 0,
                "stacked": len(stack) - 1 - stack.index(name),
                "track": 0,
                "crystals": 1,
                "itinerary": None,
                "used": [],
                "tokens": {column: 0 for column in COLUMNS},
                "treks": [],  # each trek a list of cards taken (History cards and Ancestors)
            }
        self.deal()

    # --- the Day ------------------------------------------------------------------------

    def day_deck(self) -> list[Any]:
        """The ids of the current Day's deck, top first; without decks, `HIDDEN` for each card
        still to be revealed."""
        name = ("I", "II", "III")[self.day - 1]
        if self.decks is not None:
            return list(self.decks.get(name, []))
        return [HIDDEN for card in self.edition["cards"] if card["day"] == self.day]

    def deal(self) -> None:
        """Lay out the Day's row: five refills from the deck, then its top card."""
        self.deck: list[Any] = self.day_deck()
        self.row: list[Any] = [None] * 6
        for position in (5, 4, 3, 2, 1, 0):
            if self.deck:
                self.row[position] = self.deck.pop(0)
        if self.stalled():
            self.end_day()

    def to_move(self) -> str | None:
        """The watch furthest behind, the top of its stack among ties; None when all are at 12."""
        waiting = [name for name in self.players if self.people[name]["hour"] < 12]
        if not waiting:
            return None
        return min(waiting, key=lambda n: (self.people[n]["hour"], -self.people[n]["stacked"]))

    def stalled(self) -> bool:
        """Nothing left to take: an empty row and no Ancestor the player to move could take."""
        if any(card is not None for card in self.row):
            return False
        mover = self.to_move()
        if mover is None:
            return False
        return self.ancestors_left <= 0 or not self.people[mover]["treks"]

    def end_day(self) -> None:
        """Every watch back to 0 in the stack order it ended in, itineraries gone; after Day III,
        the game ends."""
        if self.day == 3:
            self.finished = True
            return
        self.day += 1
        for person in self.people.values():
            person["hour"] = 0
            person["itinerary"] = None
            person["tokens"] = {column: 0 for column in COLUMNS}
        self.deal()

    # --- events ------------------------------------------------------------------------

    def play(self, event: Any) -> None:
        """Apply one decoded event, or raise `Rejected` (the state is then unchanged)."""
        if not isinstance(event, dict):
            raise Rejected("bad_event")
        kind = event.get("type")
        if self.finished and kind in PLAYED:
            raise Rejected("game_over")
        if kind == "take":
            self.take(event)
        elif kind == "itinerary":
            self.choose(event)
        elif kind == "reveal":
            self.reveal(event)
        else:
            raise Rejected("bad_event")

    def take(self, event: dict[str, Any]) -> None:
        card_id, crystals, wild = self.take_shape(event)
        mover = self.to_move()
        assert mover is not None
        if "player" in event and event["player"] not in self.players:
            raise Rejected("bad_event")
        if "player" in event and event["player"] != mover:
            raise Rejected("not_your_turn")
        person = self.people[mover]
        if self.itineraries and person["itinerary"] is None:
            raise Rejected("itinerary_required")
        hours, gains, position = self.taken(card_id, person)
        if crystals > person["crystals"]:
            raise Rejected("too_many_crystals")
        if crystals and hours - crystals < 1:
            raise Rejected("cost_below_one")
        # the watch
        arrival = person["hour"] + hours - crystals
        if arrival == 12:
            person["track"] += 3
        person["hour"] = min(arrival, 12)
        person["stacked"] = self.moves
        self.moves += 1
        person["crystals"] -= crystals
        self.gain(person, gains, list(wild))
        self.file(person, card_id)
        if position is not None:
            self.refill(position)
        # the next turn, or the Day's end
        if self.to_move() is None or self.stalled():
            self.end_day()

    @staticmethod
    def take_shape(event: dict[str, Any]) -> tuple[str, int, list[str]]:
        """A take's card, crystals and Wild columns, or ``bad_event`` when one is not what it must be."""
        card_id = event.get("card")
        crystals = event.get("crystals", 0)
        wild = event.get("wild", [])
        if not isinstance(card_id, str):
            raise Rejected("bad_event")
        if "player" in event and not (isinstance(event["player"], str) and event["player"]):
            raise Rejected("bad_event")
        if isinstance(crystals, bool) or not isinstance(crystals, int) or crystals < 0:
            raise Rejected("bad_event")
        if not isinstance(wild, list) or not all(isinstance(w, str) and w in COLUMNS for w in wild):
            raise Rejected("bad_event")
        return card_id, crystals, wild

    def taken(self, card_id: str, person: dict[str, Any]) -> tuple[int, list[str], int | None]:
        """What taking ``card_id`` costs and gives: its hours, its benefits with the Row slot's, and
        its Row position (None for the Ancestor), or why it cannot be taken."""
        if card_id == "ancestor":
            ancestor = self.edition.get("ancestor")
            if ancestor is None or self.ancestors_left <= 0:
                raise Rejected("no_ancestor_left")
            if not person["treks"]:
                raise Rejected("ancestor_cannot_start_trek")
            return ancestor["hours"], list(ancestor.get("gains", [])), None
        if card_id not in self.cards:
            raise Rejected("unknown_card")
        if card_id not in self.row:
            raise Rejected("card_not_available")
        position = self.row.index(card_id)
        gains = list(self.cards[card_id].get("gains", [])) + list(self.edition["slots"][position])
        return self.cards[card_id]["hours"], gains, position

    def gain(self, person: dict[str, Any], gains: list[str], wilds: list[str]) -> None:
        """The benefits, in order: crystals always, tokens only with an Itinerary."""
        for gain in gains:
            if gain == "crystal":
                person["crystals"] += 1
            elif person["itinerary"] is None:
                continue
            elif gain == "wild":
                column = wilds.pop(0) if wilds else self.best_column(person)
                if column is not None:
                    self.place(person, column)
            else:
                self.place(person, gain)

    def file(self, person: dict[str, Any], card_id: str) -> None:
        """The card into a trek: the last one if it runs later, else a new one."""
        if card_id == "ancestor":
            person["treks"][-1].append("ancestor")
            self.ancestors_left -= 1
            return
        year = self.cards[card_id]["year"]
        if person["treks"] and year > self.trek_year(person["treks"][-1]):
            person["treks"][-1].append(card_id)
        else:
            person["treks"].append([card_id])

    def refill(self, position: int) -> None:
        """The cards left of the taken one slide right, the deck refills position 0."""
        refill = self.deck.pop(0) if self.deck else None
        if position == 0:
            self.row[0] = refill
        else:
            del self.row[position]
            self.row.insert(0, refill)

    def trek_year(self, trek: list[str]) -> int:
        """A trek's last year: its last History card's (an Ancestor keeps the year)."""
        years = [self.cards[c]["year"] for c in trek if c != "ancestor"]
        return int(years[-1])

    def itinerary_of(self, person: dict[str, Any]) -> dict[str, Any]:
        it: dict[str, Any] = self.itineraries[person["itinerary"]]
        return it

    def reward(self, space: Any) -> tuple[int, int]:
        """(points, crystals) of a printed space or row reward."""
        if space is None:
            return (0, 0)
        if space == "crystal":
            return (0, 1)
        return (int(space), 0)

    def row_done(self, person: dict[str, Any], tokens: dict[str, int], row: int) -> bool:
        """Whether every column with a space in ``row`` is covered there."""
        columns = self.itinerary_of(person)["columns"]
        deep = [c for c in COLUMNS if len(columns.get(c, [])) > row]
        return bool(deep) and all(tokens[c] > row for c in deep)

    def gain_of(self, person: dict[str, Any], column: str) -> tuple[int, int] | None:
        """What a token in ``column`` would gain now (space and completed row), None if full."""
        it = self.itinerary_of(person)
        spaces = it["columns"].get(column, [])
        covered = person["tokens"][column]
        if covered >= len(spaces):
            return None
        points, crystals = self.reward(spaces[covered])
        after = dict(person["tokens"])
        after[column] += 1
        rows = it.get("rows", [])
        if covered < len(rows) and self.row_done(person, after, covered):
            extra = self.reward(rows[covered])
            points, crystals = points + extra[0], crystals + extra[1]
        return points, crystals

    def place(self, person: dict[str, Any], column: str) -> None:
        """A token on the uppermost empty space of its column (lost if there is none)."""
        gained = self.gain_of(person, column)
        if gained is None:
            return
        person["tokens"][column] += 1
        person["track"] += gained[0]
        person["crystals"] += gained[1]

    def best_column(self, person: dict[str, Any]) -> str | None:
        """The engine's documented choice for an unnamed Wild: the column that scores most now
        (a crystal as 1 point), the first in column order among ties; None when all are full."""
        best, best_value = None, 0
        for column in COLUMNS:
            gained = self.gain_of(person, column)
            if gained is not None and (best is None or sum(gained) > best_value):
                best, best_value = column, sum(gained)
        return best

    def choose(self, event: dict[str, Any]) -> None:
        player, choice = event.get("player"), event.get("itinerary")
        if not (isinstance(player, str) and player) or not isinstance(choice, str):
            raise Rejected("bad_event")
        if player not in self.players:
            raise Rejected("bad_event")
        person = self.people[player]
        others = [self.people[n]["itinerary"] for n in self.players if n != player]
        if (
            choice not in self.itineraries
            or person["itinerary"] is not None
            or choice in person["used"]
            or choice in others
        ):
            raise Rejected("itinerary_unavailable")
        person["itinerary"] = choice
        person["used"].append(choice)

    def reveal(self, event: dict[str, Any]) -> None:
        card_id = event.get("card")
        if not isinstance(card_id, str):
            raise Rejected("bad_event")
        if self.decks is not None:
            raise Rejected("bad_event")
        if card_id not in self.cards:
            raise Rejected("unknown_card")
        waiting = [p for p in range(6) if self.row[p] is HIDDEN]
        if card_id in self.revealed or self.cards[card_id]["day"] != self.day or not waiting:
            raise Rejected("card_not_available")
        self.row[max(waiting)] = card_id
        self.revealed.append(card_id)

    # --- the outcome ---------------------------------------------------------------------

    def trek_points(self, length: int) -> int:
        table = self.edition["treks"]
        if length <= len(table):
            return int(table[length - 1])
        return int(table[-1]) + (length - len(table)) * int(self.edition.get("trek_beyond", TREK_BEYOND))

    def standings(self) -> list[dict[str, Any]]:
        rows = []
        for name in self.players:
            person = self.people[name]
            treks = [len(trek) for trek in person["treks"]]
            points = sum(self.trek_points(n) for n in treks)
            rows.append(
                {
                    "name": name,
                    "track": person["track"],
                    "crystals": person["crystals"],
                    "trek_points": points,
                    "total": person["track"] + person["crystals"] + points,
                    "treks": treks,
                    "hour": person["hour"],
                }
            )
        return rows


def winners(rows: list[dict[str, Any]]) -> list[str]:
    """Highest total; ties go to the longest trek, then the second longest, and so on."""
    best = max(r["total"] for r in rows)
    leaders = [r for r in rows if r["total"] == best]
    longest = max(sorted(r["treks"], reverse=True) for r in leaders)
    return [r["name"] for r in leaders if sorted(r["treks"], reverse=True) == longest]


def replay(data: bytes, editions: dict[str, Any]) -> dict[str, Any]:
    """The contract's output for a record (``editions``: the known editions' JSON by name)."""
    lines = record_lines(data)
    setup = read_line(lines[0][1])
    edition = setup["edition"]
    if isinstance(edition, str):
        edition = editions[edition]
    game = Game(setup, edition)
    accepted: list[Any] = []
    rejected = []
    for number, raw in lines[1:]:
        try:
            event = read_line(raw)
            if isinstance(event, dict) and event.get("type") == "undo":
                if not accepted:
                    raise Rejected("nothing_to_undo")
                accepted.pop()
                game.start()
                for earlier in accepted:
                    game.play(earlier)
            else:
                game.play(event)
                accepted.append(event)
        except Rejected as refused:
            rejected.append({"line": number, "code": refused.code})
    rows = game.standings()
    return {
        "finished": game.finished,
        "day": game.day,
        "players": rows,
        "winners": winners(rows) if game.finished else [],
        "rejected": rejected,
    }
