"""Editions the companion ships, and loading an edition file by name or path.

A name resolves to ``<name>.json`` in this package; only the command line reads a file the
user names (a regular file of sane size). The table and the page choose editions by name
through `companion.editions.library`.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from companion.editions.memos import offer_memos
from companion.engine.edition import Edition, EditionError, Problem, parse_edition

#: The package's folder, where the shipped editions are: a plain path, not `importlib.resources`,
#: whose first use a process's first replay would pay for a package that is always installed as files.
FOLDER = Path(__file__).resolve().parent


class EditionNotFound(LookupError):
    """No shipped edition has that name and no file has that path.

    ``code`` and ``params`` (when the raise site gives them) name the refusal for a page,
    which words it in its language; the message stays the English for the CLI and scripts."""

    def __init__(self, message: str, /, code: str | None = None, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class EditionFileError(EditionError):
    """An owner's file that is no edition file at all (unreadable, not UTF-8, not JSON, not an
    object): an `EditionError` with its one problem, plus the ``code`` and ``params`` a page
    words in its language (a validation problem inside an edition has no code of its own)."""

    def __init__(self, problem: Problem, source: str, /, *, code: str, **params: object) -> None:
        super().__init__([problem], source)
        self.code = code
        self.params = {"source": source, **params}


def shipped_names() -> list[str]:
    """Names of the editions inside the package."""
    return list(_shipped_names())


@functools.cache
def _shipped_names() -> tuple[str, ...]:
    """The package's edition files, listed once per process: they are part of the installed
    package, which does not change while it runs."""
    return tuple(sorted(p.name[:-5] for p in FOLDER.iterdir() if p.name.endswith(".json")))


def read_edition_text(text: str, source: str, default_name: str) -> Edition:
    """Parse an edition file's text (`json_value`); its itineraries are offered the shipped
    memos of the same cards (`offer_memos`)."""
    obj = json_value(text, source)
    try:
        return offer_memos(parse_edition(obj, default_name=default_name))
    except EditionError as exc:
        raise EditionError([_with_line(text, p) for p in exc.problems], source) from None


def json_value(text: str, source: str) -> Any:
    """An edition text's JSON value: `EditionFileError` naming the line and column when it is
    not JSON, an `EditionError` when Python's decoder cannot take it."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EditionFileError(
            Problem(f"line {exc.lineno}, column {exc.colno}", f"not valid JSON: {exc.msg}"),
            source,
            code="edition_not_json",
            line=exc.lineno,
            column=exc.colno,
            detail=exc.msg,
        ) from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, nesting thousands deep
        raise EditionError([Problem("file", f"not usable JSON: {exc}")], source) from None


def _with_line(text: str, problem: Problem) -> Problem:
    """Add the file line to a problem about a card or itinerary (found by its id).

    JSON parsing keeps no positions, but every card and itinerary names its id,
    and an owner fixing a file wants the line their editor shows.
    """
    found = re.search(r"\((?P<id>[^()]+)\)", problem.location)
    if found is not None:
        needle = re.compile(r'"id"\s*:\s*' + re.escape(json.dumps(found.group("id"))))
    else:  # a top-level setting: the line where its key is written
        key = re.match(r"[A-Za-z_]+", problem.location)
        if key is None:
            return problem
        needle = re.compile(re.escape(json.dumps(key.group(0))) + r"\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if needle.search(line):
            return Problem(f"line {number}: {problem.location}", problem.message, problem.warning)
    return problem


def read_edition_file(path: Path) -> str:
    """The text of an edition file the user named: a regular file of sane size, UTF-8.

    ``/dev/zero`` or a pipe would otherwise be read forever (`companion.util.files`); errors name the path.
    """
    from companion.util.files import EDITION_LIMIT, read_text_file

    try:
        return read_text_file(path, EDITION_LIMIT)
    except OSError as exc:
        raise EditionNotFound(f"cannot read edition file {path}: {exc.strerror}") from None


def is_path(name_or_path: str) -> bool:
    """Whether the command line named an edition file rather than an edition: only there is
    a path taken (the table and the page choose by name)."""
    return "/" in name_or_path or name_or_path.endswith(".json")


def load_edition(name_or_path: str) -> Edition:
    """Load a shipped edition by name, or an edition file by path (command line only)."""
    if is_path(name_or_path):
        path = Path(name_or_path)
        return read_edition_text(read_edition_file(path), str(path), path.stem)
    return shipped_edition(name_or_path)


def shipped_edition(name: str) -> Edition:
    """A shipped edition by name; never a file from outside the package."""
    if name not in _shipped_names():
        raise unknown_edition(name, ", ".join(_shipped_names()), "the companion ships")
    return _shipped(name)


def unknown_edition(name: str, known: str, choose: str, hint: str = "") -> EditionNotFound:
    """The refusal of an edition name that names none: shipped ones only, or the library's
    (``choose`` says which ``known`` lists); the page words it from ``edition`` and ``known``."""
    return EditionNotFound(
        f"unknown edition {str(name)[:40]!r}; {choose}: {known}{hint}",
        code="unknown_edition",
        edition=str(name)[:40],
        known=known,
    )


@functools.cache
def _shipped(name: str) -> Edition:
    """A shipped edition, parsed once per process: the files are part of the package,
    and the edition's compiled tables (with their memoized itinerary steps) are shared."""
    text = (FOLDER / f"{name}.json").read_text(encoding="utf-8")
    return read_edition_text(text, f"{name}.json", name)
