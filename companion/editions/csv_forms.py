"""An edition's cards and itineraries as CSV, the form a spreadsheet edits.

Cards: ``id,day,year,title,hours,gains,note``; itineraries: ``id,person,event,innovation,
progress,rows``, each cell the spaces from the top down (``.`` plain, ``c`` a crystal, a number
for points; an empty cell a column the card does not print). A text cell a spreadsheet would
run as a formula is exported behind a single quote (`defuse`, `restore`). Cells are read by the
same field parsers as the page and the CLI (`companion.editions.edit`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.editions.edit import MAX_TEXT, ROMAN, FieldError, card_errors, checked_card, make_itinerary
from companion.engine.tokens import COLUMNS, CRYSTAL

CARD_COLUMNS = ("id", "day", "year", "title", "hours", "gains", "note")
ITINERARY_COLUMNS = ("id", *COLUMNS, "rows")
#: The longest id a card may have.
MAX_ID = 100


@dataclass(frozen=True)
class CsvProblem:
    line: int
    column: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


class CsvError(ValueError):
    """Every problem of a CSV file, each with its line (the header is line 1) and column."""

    def __init__(self, problems: list[CsvProblem]) -> None:
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems


#: A text cell a spreadsheet would run as a formula: it starts with ``= + - @``, a tab or a
#: carriage return (OWASP's CSV injection list), perhaps after quotes this module added.
_FORMULA = re.compile(r"'*[=+\-@\t\r]")
#: The same cell as exported: one quote more in front (the spreadsheets' "this is text").
_DEFUSED = re.compile(r"'+[=+\-@\t\r]")


def defuse(text: str) -> str:
    """A text cell for a spreadsheet: a single quote in front of one that would start a
    formula (``=HYPERLINK(...)``, ``=cmd|...``, ``@SUM(...)``), so it shows as typed.

    Why also after quotes: a title that really starts with ``'=`` gets one more quote, so
    that `restore` (which drops one) gives back exactly what was exported. Only text
    cells (ids, titles, notes) go through here: a year such as ``-490`` stays a number."""
    return "'" + text if _FORMULA.match(text) else text


def restore(text: str) -> str:
    """A text cell as `defuse` wrote it, read back: one leading quote dropped, only before
    what would start a formula (a title like ``'Tis`` is kept as it is)."""
    return text[1:] if _DEFUSED.match(text) else text


def _csv_line(cells: list[Any]) -> str:
    """One CSV line (RFC 4180 quoting, "\n" line ends): a cell is quoted when it holds a
    comma, a quote, a line break or a carriage return, so any title or note survives."""
    out = []
    for cell in map(str, cells):
        if any(ch in cell for ch in ',"\r\n') or cell != cell.strip():
            cell = '"' + cell.replace('"', '""') + '"'
        out.append(cell)
    return ",".join(out) + "\n"


def cards_to_csv(obj: dict[str, Any]) -> str:
    lines = [_csv_line(list(CARD_COLUMNS))]
    for c in obj.get("cards", []):
        lines.append(
            _csv_line([defuse(c["id"]), ROMAN[c["day"]], c["year"], defuse(c.get("title", c["id"])),
                       c["hours"], " ".join(c["gains"]), defuse(c.get("note", ""))])
        )  # fmt: skip
    return "".join(lines)


def cards_from_csv(text: str) -> list[dict[str, Any]]:
    """The cards of a CSV file, in order; `CsvError` with every problem (line, column)."""
    problems: list[CsvProblem] = []
    cards: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line, fields in _fields(text, CARD_COLUMNS, problems):
        for text in ("id", "title", "note"):
            fields[text] = restore(fields[text])
        card_id = fields["id"]
        if not card_id.strip() or card_id == "ancestor" or len(card_id) > MAX_ID:
            problems.append(CsvProblem(line, "id", f'needs an id of 1-{MAX_ID} characters (not "ancestor")'))
        elif card_id in seen:
            problems.append(CsvProblem(line, "id", f"duplicate id {card_id!r}, also on line {seen[card_id]}"))
        else:
            seen[card_id] = line
        errors = card_errors(fields)
        problems += [CsvProblem(line, e.column, str(e)) for e in errors]
        if not errors and card_id.strip():
            cards.append(checked_card(fields, card_id))
    if problems:
        raise CsvError(problems)
    if not cards:
        raise CsvError([CsvProblem(2, "*", "the file has no cards")])
    return cards


#: The most records a CSV may hold after its header: a box has 108 cards (36 per Day) and 24
#: itineraries, so this leaves room for blank lines and more than one box, and no more.
MAX_CSV_ROWS = 1000
#: The longest cell read: five times the longest title or note (`MAX_TEXT`), so that a
#: cell too long to be a field is still reported with the others (its line and column),
#: and one row stays small.
MAX_CSV_FIELD = 5 * MAX_TEXT
#: The most characters one record may take in the file (seven cells at their longest, in
#: quotes). It bounds a record of a million commas, which is a million short cells.
MAX_CSV_RECORD = 7 * (MAX_CSV_FIELD + 3)


#: One line of the file with its end ("\n", "\r\n" or "\r", kept as `csv.reader` wants them).
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")


class _Lines:
    """The file's lines for `csv.reader`, one at a time, refusing a record too long to be a
    card's or an itinerary's before the reader builds it (``record`` is reset per record)."""

    def __init__(self, text: str) -> None:
        self.lines = (found.group() for found in _LINE.finditer(text))  # no copy of the text
        self.line = 0
        self.record = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self.lines)
        self.line += 1
        self.record += len(line)
        if self.record > MAX_CSV_RECORD:
            raise CsvError(
                [CsvProblem(self.line, "*", f"a record longer than {MAX_CSV_RECORD} characters; no card is")]
            )
        return line


def _records(text: str, columns: tuple[str, ...]) -> Iterator[tuple[int, list[str]]]:
    """The CSV's records, each with the file line it starts on (a quoted cell may span lines).

    Read one at a time and refused (a `CsvError` naming the line) as soon as the file holds
    more records than a box has (`MAX_CSV_ROWS`) or a cell or record longer than any card's,
    so a hostile file cannot take a Pi Zero 2 W's memory. ``columns`` names the cells in errors."""
    lines = _Lines(text[1:] if text.startswith("\ufeff") else text)
    reader = csv.reader(lines)
    start = 1
    try:
        for count, row in enumerate(reader):
            if count > MAX_CSV_ROWS:
                raise CsvError(
                    [CsvProblem(start, "*", f"more than {MAX_CSV_ROWS} rows; an edition has far fewer")]
                )
            for index, cell in enumerate(row):
                if len(cell) > MAX_CSV_FIELD:
                    name = columns[index] if index < len(columns) else f"#{index + 1}"
                    raise CsvError(
                        [CsvProblem(start, name, f"a cell longer than {MAX_CSV_FIELD} characters")]
                    )
            yield start, row
            start = reader.line_num + 1
            lines.record = 0
    except csv.Error as exc:
        raise CsvError([CsvProblem(reader.line_num, "*", f"not readable as CSV: {exc}")]) from None


def _fields(
    text: str, columns: tuple[str, ...], problems: list[CsvProblem]
) -> Iterator[tuple[int, dict[str, str]]]:
    """Each record after the header, not blank, with its line and its cells by column; a record
    with another number of cells goes to ``problems``. A header other than ``columns``: `CsvError`."""
    rows = _records(text, columns)
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header[1]] != list(columns):
        got = ",".join(header[1]) if header else "an empty file"
        raise CsvError([CsvProblem(1, "header", f"must be {','.join(columns)}, not {got[:60]!r}")])
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            problems.append(CsvProblem(line, "*", f"has {len(row)} columns, not {len(columns)}"))
            continue
        yield line, dict(zip(columns, row, strict=True))


def _space_text(space: Any) -> str:
    return "." if space is None else "c" if space == CRYSTAL else str(space)


def itineraries_to_csv(obj: dict[str, Any]) -> str:
    lines = [_csv_line(list(ITINERARY_COLUMNS))]
    for it in obj.get("itineraries", []):
        cols = [" ".join(map(_space_text, it["columns"].get(k, []))) for k in COLUMNS]
        lines.append(_csv_line([defuse(it["id"]), *cols, " ".join(map(_space_text, it.get("rows", [])))]))
    return "".join(lines)


def itineraries_from_csv(text: str) -> list[dict[str, Any]]:
    """The itineraries of a CSV file, in order; `CsvError` with every problem (line, column)."""
    problems: list[CsvProblem] = []
    items: list[dict[str, Any]] = []
    for line, fields in _fields(text, ITINERARY_COLUMNS, problems):
        try:
            item_id = restore(fields["id"].strip())
            items.append(make_itinerary(item_id, {k: fields[k] for k in COLUMNS}, fields["rows"]))
        except FieldError as exc:
            problems.append(CsvProblem(line, exc.column, str(exc)))
    if problems:
        raise CsvError(problems)
    return items
