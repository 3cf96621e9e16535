"""The edition library: the shipped editions and the owner's, chosen by name only.

The table, the page and the CLI never open an edition by a path they were sent: a name is a
shipped edition or ``<data-dir>/editions/<name>.json``, a slug the companion checked, which
closes ``/dev/zero``, pipes and ``../../x`` and lets every error name the file and line. Every
write is validated by the engine's `parse_edition` and written atomically. An owner's edition
with no History cards yet (a *draft*) is saved and listed, but a game cannot use it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.editions.edit import BASE_PARTS, base_counts, from_base, mark_from_base
from companion.editions.shipped import (
    EditionFileError,
    EditionNotFound,
    is_path,
    json_value,
    load_edition,
    read_edition_text,
    shipped_edition,
    shipped_names,
    unknown_edition,
)
from companion.editions.writes import atomic_write, folder_lock, remove_orphans
from companion.engine import Edition, EditionError
from companion.engine.edition import Problem, edition_to_json
from companion.engine.tokens import DAYS
from companion.util.files import NotUtf8, read_text_file
from companion.util.wording import CodedError

#: Owner's edition names: lower-case letters, digits and inner dashes; never a path.
SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
#: No edition file is larger (the reference edition with notes is ~32 KB).
MAX_EDITION_BYTES = 1 << 20
#: A complete box (the published counts): 36 cards per Day deck and 24 itineraries.
BOX_CARDS_PER_DAY = 36
BOX_ITINERARIES = 24
DEFAULT_FILE = "default-edition"
_STUB_CARD = {"id": "__draft__", "year": 0, "day": 1, "hours": 1, "gains": []}


class LibraryError(CodedError, ValueError):
    """A request the library refuses: only its ``code`` and ``params``. The edition page words
    it in its language and ``str(exc)`` (the CLI's English) is the English catalogue's
    sentence (``msg`` in web/static/i18n/*.json: one per code in English and French)."""


@dataclass(frozen=True)
class EditionInfo:
    """One line of the library's list."""

    name: str
    shipped: bool
    cards: dict[int, int]
    itineraries: int
    complete: bool
    problem: str = ""
    #: What still holds the base edition's values (`companion.editions.edit.from_base`).
    from_base: list[str] = dataclasses.field(default_factory=list)
    #: Why it cannot be used (``problem`` is its message): raised again when it is asked for.
    error: EditionNotFound | EditionError | None = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "shipped": self.shipped,
            "cards": {str(d): n for d, n in self.cards.items()},
            "itineraries": self.itineraries,
            "complete": self.complete,
            "problem": self.problem,
            "from_base": self.from_base,
        }


def write_refused(exc: OSError) -> LibraryError:
    """The refusal of a write the disk refused (full, read-only): `atomic_write` left the
    old file as it was, so the sentence says nothing changed and what to do."""
    return LibraryError("edition_not_saved", detail=str(exc.strerror))


def shipped_read_only(name: str) -> LibraryError:
    """The refusal to change a shipped edition (saving it, or opening it to change)."""
    return LibraryError("shipped_read_only", edition=name)


def name_taken(name: str) -> LibraryError:
    """The refusal of a new edition (created or imported) under a name already in use."""
    return LibraryError("edition_name_taken", edition=name)


def json_object(text: str, source: str) -> dict[str, Any]:
    """An owner's edition text as its JSON object (a file in the library, or one imported):
    `json_value`'s refusals, and `EditionFileError` when it is no JSON object."""
    obj = json_value(text, source)
    if not isinstance(obj, dict):
        raise EditionFileError(Problem("line 1", "must be a JSON object"), source, code="edition_not_object")
    return obj


def check_slug(name: str) -> str:
    """``name`` if it can name an owner's edition file; LibraryError otherwise."""
    if not isinstance(name, str) or SLUG.fullmatch(name) is None:
        raise LibraryError("bad_edition_name", name=str(name)[:40])
    return name


def validate(obj: Any, source: str, name: str) -> Edition | None:
    """Check an edition object as `companion edition check` would; None for a draft without cards.

    Raises `EditionError` (every problem, with ``source``) when it cannot be saved.
    """
    if isinstance(obj, dict) and obj.get("cards") == []:
        read_edition_text(json.dumps({**obj, "cards": [_STUB_CARD]}, indent=1), source, name)
        return None
    return read_edition_text(json.dumps(obj, indent=1, ensure_ascii=False), source, name)


def is_complete(edition: Edition | None) -> bool:
    """A whole box: 36 cards in each Day deck, 24 itineraries and the Ancestor."""
    return (
        edition is not None
        and all(len(edition.day_cards(d)) == BOX_CARDS_PER_DAY for d in range(1, DAYS + 1))
        and len(edition.itineraries) == BOX_ITINERARIES
        and edition.ancestor is not None
    )


class EditionLibrary:
    """Shipped editions plus the owner's in ``<data-dir>/editions/``."""

    def __init__(self, data_dir: str | Path) -> None:
        self.folder = Path(data_dir) / "editions"

    def editing(self) -> AbstractContextManager[None]:
        """Hold while reading, changing and writing back an owner's edition (or creating one):
        every request and command builds its own `EditionLibrary`, so the lock is kept per
        folder. Without it, two changes at once (the page's Save and its "next sticker saves")
        each read the file and the second write loses the first one's card."""
        return folder_lock(self.folder)

    @contextmanager
    def changing(self, name: str) -> Iterator[dict[str, Any]]:
        """An owner's edition to change in the ``with`` block, saved (validated) when the block
        ends, the whole read-change-save under `editing`: the one step behind every change.

        A block that raises saves nothing; a refused save raises here and leaves the file as it
        was. The lock is re-entrant, so a caller with more to do once the edition is saved
        holds `editing` around its block."""
        with self.editing():
            obj = self.editable(name)
            yield obj
            self.save(name, obj)

    # --- reading ---------------------------------------------------------------------

    def path(self, name: str) -> Path:
        return self.folder / f"{check_slug(name)}.json"

    def owned_names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(
            p.name[:-5]
            for p in self.folder.iterdir()
            if p.name.endswith(".json") and SLUG.fullmatch(p.name[:-5]) and p.name[:-5] not in shipped_names()
        )

    def names(self) -> list[str]:
        return [*shipped_names(), *self.owned_names()]

    @staticmethod
    def is_shipped(name: str) -> bool:
        return name in shipped_names()

    def exists(self, name: str) -> bool:
        return name in shipped_names() or (SLUG.fullmatch(name) is not None and self.path(name).is_file())

    def raw(self, name: str) -> dict[str, Any]:
        """The JSON object of an edition (to edit it); EditionNotFound or EditionError."""
        if name in shipped_names():
            return edition_to_json(shipped_edition(name))
        path = self._owned_path(name)
        return json_object(self._read(path), str(path))

    def editable(self, name: str) -> dict[str, Any]:
        """The JSON object of an owner's edition to change: refused (path and line) when the
        file is not a valid edition now, since a change could not be saved anyway."""
        if name in shipped_names():
            raise shipped_read_only(name)
        obj = self.raw(name)
        validate(obj, str(self.path(name)), name)
        return obj

    def load(self, name: str) -> Edition:
        """A playable edition by name: shipped, or the owner's (which must have cards)."""
        if name in shipped_names():
            return shipped_edition(name)
        path = self._owned_path(name)
        text = self._read(path)
        edition = read_edition_text(text, str(path), name)
        # The file's name is the edition's name: a name written inside the file is not
        # trusted (it could be "../../x" and later name a file the companion writes).
        return edition if edition.name == name else dataclasses.replace(edition, name=name)

    def info(self, name: str) -> EditionInfo:
        try:
            obj = self.raw(name)
            edition = validate(obj, str(self.path(name)) if name not in shipped_names() else name, name)
        except (EditionNotFound, EditionError) as exc:
            return EditionInfo(name, name in shipped_names(), {}, 0, False, str(exc), error=exc)
        cards = [c for c in obj["cards"] if isinstance(c, dict)]
        counts = {d: sum(1 for c in cards if c.get("day") == d) for d in range(1, DAYS + 1)}
        left = from_base(obj) if name not in shipped_names() else []
        return EditionInfo(
            name,
            name in shipped_names(),
            counts,
            len(obj.get("itineraries", [])),
            is_complete(edition) and not left,
            from_base=left,
        )

    def _owned_path(self, name: str) -> Path:
        try:
            path = self.path(name)
        except LibraryError:
            raise self._unknown(name) from None
        if not path.exists():
            raise self._unknown(name)
        return path

    def _unknown(self, name: str) -> EditionNotFound:
        hint = " (an edition file is imported first: companion edition import FILE)" if "/" in name else ""
        return unknown_edition(name, ", ".join(self.names()), "choose one of", hint)

    @staticmethod
    def _read(path: Path) -> str:
        """Read an owner's file: a regular file (not a link) of sane size, UTF-8; errors name the path."""
        try:
            return read_text_file(path, MAX_EDITION_BYTES, follow_links=False)
        except NotUtf8 as exc:
            raise EditionFileError(
                Problem(f"line {exc.line}", "is not UTF-8 text"),
                str(path),
                code="edition_not_utf8",
                line=exc.line,
            ) from None
        except OSError as exc:
            raise EditionFileError(
                Problem("file", f"cannot be read: {exc.strerror}"),
                str(path),
                code="edition_unreadable",
                detail=str(exc.strerror),
            ) from None

    # --- writing ---------------------------------------------------------------------

    def clean_orphans(self, now: float | None = None) -> list[str]:
        """Remove the temporary files of saves that never finished (``kill -9``, a pulled plug);
        return their names. Only the library's own, older than `writes.ORPHAN_AGE`, under the
        library's lock: a save under way in another process is young and keeps its file."""
        if not self.folder.is_dir():
            return []
        with self.editing():
            return remove_orphans(self.folder, time.time() if now is None else now)

    def save(self, name: str, obj: dict[str, Any]) -> Edition | None:
        """Validate and write an owner's edition (the companion names the file)."""
        if name in shipped_names():
            raise shipped_read_only(name)
        path = self.path(name)
        obj = {**obj, "name": name}
        edition = validate(obj, str(path), name)
        text = json.dumps(obj, indent=1, ensure_ascii=False) + "\n"
        if len(text.encode("utf-8")) > MAX_EDITION_BYTES:  # it could not be read back
            raise LibraryError("edition_too_large", max=MAX_EDITION_BYTES)
        atomic_write(path, text)
        return edition

    def create(self, name: str, base: str = "reference", with_cards: bool = False) -> dict[str, Any]:
        """A new owner's edition: the base's Ancestor, playmat and trek table; no cards or
        itineraries yet unless ``with_cards`` (then a full copy to correct)."""
        with self.editing():  # the name is free when it is written, not only when checked
            check_slug(name)
            if self.exists(name):
                raise name_taken(name)
            base_obj = self.raw(base)
            obj = dict(base_obj)
            obj["name"] = name
            obj["title"] = f"{name}: the owner's own box"
            if not with_cards:
                obj["cards"], obj["itineraries"] = [], []
            copied = (*BASE_PARTS, "cards", "itineraries") if with_cards else BASE_PARTS
            mark_from_base(obj, base, base_obj, copied, shipped=base in shipped_names())
            self.save(name, obj)
            return obj

    def delete(self, name: str) -> None:
        with self.editing():
            self._owned_path(name).unlink()
            if self.default() == name:
                (self.folder / DEFAULT_FILE).unlink(missing_ok=True)

    def import_text(self, text: str, name: str | None = None) -> str:
        """Import a shared edition file (its text); returns the name it is kept under."""
        obj = json_object(text, "import")
        chosen = name or obj.get("name")
        if not isinstance(chosen, str) or SLUG.fullmatch(chosen) is None:
            chosen = "imported"
        with self.editing():  # the name is free when it is written, not only when checked
            if self.exists(chosen) and name is None:
                n = 2
                while self.exists(copy_name(chosen, n)):
                    n += 1
                chosen = copy_name(chosen, n)
            elif self.exists(chosen):
                raise name_taken(chosen)
            self.save(chosen, obj)
        return chosen

    # --- the table's default ---------------------------------------------------------

    def default(self) -> str:
        """The edition a new game uses unless told otherwise (a setting kept here)."""
        try:
            name = (self.folder / DEFAULT_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return "reference"
        return name if self.exists(name) else "reference"

    def set_default(self, name: str) -> None:
        """Make an edition the default; an owner's edition must be a complete box."""
        if name not in shipped_names():
            info = self.info(check_slug(name))
            if info.error is not None:  # unknown, or not a valid edition: the same refusal as opening it
                raise info.error
            if not info.complete:
                raise draft_refused(info)
        atomic_write(self.folder / DEFAULT_FILE, name + "\n")

    def drafts(self) -> list[str]:
        """The owner's editions not yet a whole box (the new-game form leaves them out, and a
        new game from the page is refused one with `draft_refused`)."""
        return [name for name in self.owned_names() if not self.info(name).complete]

    def require_finished(self, name: str) -> None:
        """Refuse (`draft_refused`) an owner's edition that is a draft: a game on 10 of 36 cards
        is no game of the box. Unknown or broken editions are left to the loader's own refusal."""
        if name in shipped_names() or SLUG.fullmatch(name) is None:
            return
        info = self.info(name)
        if info.error is None and not info.complete:
            raise draft_refused(info)


def draft_refused(info: EditionInfo) -> LibraryError:
    """The refusal of an unfinished owner's edition (as a default or for a new game): what is
    missing, in the page's language and the CLI's English: the counts, and what is still the
    base's as `progress()` counts it (worded by `wording.base_words`)."""
    facts: dict[str, object] = {
        "edition": info.name,
        **{f"day{d}": info.cards.get(d, 0) for d in range(1, DAYS + 1)},
        "per_day": BOX_CARDS_PER_DAY,
        "itineraries": info.itineraries,
        "of": BOX_ITINERARIES,
        "from_base": base_counts(info.from_base),
    }
    if info.from_base:
        return LibraryError("edition_incomplete_base", **facts)
    return LibraryError("edition_incomplete", **facts)


def copy_name(stem: str, n: int) -> str:
    """The name of the ``n``-th copy of an imported edition named ``stem``: ``<stem>-<n>``,
    the stem cut so that the whole stays a slug (at most 40 characters).

    Why one function: the check that a name is free and the save must use the same name.
    When the check tried the whole stem and the save the cut one, a third import of an
    edition with a long name found ``<whole stem>-2`` free and overwrote the second copy."""
    return f"{stem[:30].rstrip('-')}-{n}"


def mine_name(edition_name: str) -> str:
    """The owner's edition that enrolment corrections go to: the edition itself when it is
    already the owner's (a slug), else ``<slug>-mine``, a name the companion makes (never a path)."""
    slug = re.sub(r"[^a-z0-9]+", "-", edition_name.lower()).strip("-")[:30] or "edition"
    if SLUG.fullmatch(edition_name) and edition_name not in shipped_names():
        return edition_name
    return f"{slug}-mine"


def edition_setup_value(library: EditionLibrary | None, name: str) -> tuple[Edition, str | dict[str, Any]]:
    """The edition a new game uses and what its setup line keeps: a shipped edition's
    name, or a full copy of an owner's edition (so the game resumes even if the file goes)."""
    if library is None or name in shipped_names():  # without a library, only a shipped one
        return shipped_edition(name), name
    edition = library.load(name)
    return edition, edition_to_json(edition)


def load_named(data_dir: Path, name: str) -> Edition:
    """A playable edition for a command: by name from the library (shipped and the owner's in
    ``data_dir``), or, the command line only, an edition file by path."""
    if is_path(name):
        return load_edition(name)
    return EditionLibrary(data_dir).load(name)
