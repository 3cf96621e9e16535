"""The page's edition library and transcription mode: HTTP routes, every one a control.

Editions are named, never given as paths; every change goes through `companion.editions.edit`
and is saved by the library (validated by the engine, written atomically); a broken file is
answered 400 with its path and line. While the host transcribes, the reader's taps are captured
for the page (`Runtime.capture`) instead of reaching the game; Save binds the last one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.editions import (
    EditionLibrary,
    EditionNotFound,
    FieldError,
    LibraryError,
    card_checks,
    card_warnings,
    progress,
    put_card,
    put_itinerary,
    remove,
    set_ancestor,
    set_playmat,
    validate,
)
from companion.engine import EditionError
from companion.engine.tokens import ANCESTOR
from companion.store.log import DiskFull, StoreError
from companion.table.tags import TagRefused, check_tag
from companion.util.json_bounds import BadJson
from companion.util.json_bounds import check as check_json
from companion.web.route_support import (
    control,
    json_body,
    json_error,
    not_saved,
    page_file,
    store_refused,
    table_runtime,
)

library_api = Blueprint("library", __name__)


#: Seconds without a poll from the transcription page after which taps go to the game
#: again: a phone that went to sleep on that page must not keep the table deaf.
CAPTURE_LEASE = 5.0


@dataclass
class Capture:
    """The tag taps captured for the edition being transcribed (while the page polls)."""

    edition: str | None = None
    seq: int = 0
    tag: str | None = None
    seen: float = 0.0
    tapped: float = 0.0  # when the last tag was tapped (``clock``): keys typed after it are the next card's
    clock: Callable[[], float] = time.monotonic
    lock: threading.Lock = field(default_factory=threading.Lock)

    def renew(self) -> None:
        self.seen = self.clock()

    def __call__(self, tag: str) -> bool:
        with self.lock:
            if self.edition is None:
                return False
            if self.clock() - self.seen > CAPTURE_LEASE:
                self.edition = None  # the page is gone: back to the game
                return False
            self.seq, self.tag, self.tapped = self.seq + 1, tag, self.clock()
            return True


def _library() -> EditionLibrary:
    return EditionLibrary(table_runtime().data_dir)


def _capture() -> Capture:
    runtime = table_runtime()
    if not isinstance(runtime.capture, Capture):
        runtime.capture = Capture()
    return runtime.capture


def refusal(exc: Exception) -> tuple[str, dict[str, object]]:
    """The ``code`` and ``params`` of a refused change, for the page to say in its language.

    Library, field and edition-file errors carry theirs from where they are raised. An
    edition the engine finds invalid is one code with the count and the first problem's
    place; the problems themselves (the engine's English, naming ids and lines) go beside
    it in ``problems``. A store that refused to bind a tag says whether the disk is full.
    """
    if isinstance(exc, DiskFull):  # the page's own sentence: what to do about the disk
        return "disk_full", {}
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        params = getattr(exc, "params", None)
        return code, dict(params) if isinstance(params, dict) else {}
    if isinstance(exc, EditionError):
        errors = [p for p in exc.problems if not p.warning]
        code = "edition_problems"
        where = errors[0].location if errors else ""
        return code, {"source": exc.source, "count": len(errors), "where": where}
    code = "edition_refused"  # pragma: no cover - every refused error above has its code
    return code, {"detail": str(exc)}


def _refused(exc: Exception) -> Response:
    """A 400 (404 for an unknown edition) that says what is wrong and where, with its code."""
    code, params = refusal(exc)
    body: dict[str, object] = {"error": str(exc), "code": code, "params": params}
    if isinstance(exc, EditionError):
        body["problems"] = _problems(exc)
    response = jsonify(body)
    response.status_code = 404 if isinstance(exc, EditionNotFound) else 400
    return response


def _problems(exc: EditionError) -> list[str]:
    """An invalid edition's first 50 errors (not its warnings), each with where it is."""
    return [f"{exc.source}: {p}" for p in exc.problems if not p.warning][:50]


def _write(
    action: Callable[[], dict[str, Any] | None],
    refused: tuple[type[Exception], ...],
    done: dict[str, Any] | None = None,
) -> Response:
    """Run ``action`` (a change to the library) and answer what it returns (``done`` if given).

    ``refused`` are the errors that are the request's fault: answered by `_refused`,
    saying what is wrong. A disk that refuses the write is answered by `not_saved`.
    """
    try:
        answer = action()
    except refused as exc:
        return _refused(exc)
    except OSError as exc:
        return not_saved(exc)
    return jsonify(answer if done is None else done)


def _edit(name: str, change: Any, tag: Any = None) -> Response:
    """Load the owner's edition, apply ``change`` (returns extra answer fields), save it.

    ``tag`` is bound to what ``change`` names in its answer's ``bind_to`` only once the
    edition is saved: a save the engine or the disk refuses leaves every sticker as it was.
    The whole read-change-write-bind holds the library's lock, so the page's Save and a
    "next sticker saves" sent at once are done one after the other."""
    library = _library()

    def edited() -> dict[str, Any]:
        with library.editing():
            with library.changing(name) as obj:
                extra = change(obj) or {}
            bind_to = extra.pop("bind_to", None)
            if bind_to is not None:
                extra.update(_bind(tag, bind_to, name))
        return {"progress": progress(obj), **extra}

    return _write(edited, (EditionNotFound, EditionError, LibraryError, FieldError, StoreError))


def _raw(name: str) -> dict[str, Any] | Response:
    """The owner's edition ``name`` as its JSON object, or the refusal (unknown, or not JSON)."""
    try:
        return _library().raw(name)
    except (EditionNotFound, EditionError) as exc:
        return _refused(exc)


def _text(value: Any, limit: int = 300) -> str:
    return value if isinstance(value, str) and len(value) <= limit else ""


def _bind(tag: Any, card: str, edition: str) -> dict[str, Any]:
    """Bind ``tag`` to ``card`` (a tag bound elsewhere is moved): the answer's ``bound`` (the
    English sentence, or None) and ``binding`` (its facts, which the page words in its language)."""
    if not isinstance(tag, str) or not tag.strip() or len(tag) > 100:
        return {"bound": None, "binding": None}
    runtime = table_runtime()
    uid = tag.strip()
    before = runtime.tags().get(uid)
    binding: dict[str, Any] = {"tag": uid, "card": card, "was": before}
    if before == card:
        return {"bound": f"Tag {uid} was already {card}.", "binding": binding}
    saved = validate(_library().raw(edition), edition, edition)  # None: a draft without cards yet
    try:  # the table's edition resolves taps now; the one saved, once it is played
        check_tag(uid, card, [runtime.edition(), *([saved] if saved else [])])
        runtime.rebind_tag(uid, card, edition)  # taps resolve it at once
    except (TagRefused, StoreError) as exc:  # the edition is saved; the sticker is left as it was
        code, params = refusal(exc)
        binding.update(error=code, params=params)
        kept = f"it is still {before}" if before else "it is bound to nothing"
        again = " Tap it and Save again." if isinstance(exc, StoreError) else ""
        return {
            "bound": f"{card} is saved, but tag {uid} was not bound to it ({exc}); {kept}.{again}",
            "binding": binding,
        }
    said = f"Tag {uid} is now {card}" + (f" (it was {before})." if before else ".")
    return {"bound": said, "binding": binding}


# --- the library ------------------------------------------------------------------------------


@library_api.get("/edition")
def page() -> Any:
    return page_file("edition.html")


@library_api.get("/api/library")
@control()
def listing() -> Any:
    library = _library()
    return jsonify(
        {"editions": [library.info(n).to_json() for n in library.names()], "default": library.default()}
    )


@library_api.post("/api/library")
@control()
def create() -> Any:
    body = json_body()
    name, base = body.get("name"), body.get("base", "reference")
    if not isinstance(name, str) or not isinstance(base, str):
        return json_error(400, code="create_fields")

    def created() -> dict[str, Any]:
        obj = _library().create(name, base, with_cards=body.get("copy") is True)
        return {"name": name, "progress": progress(obj)}

    return _write(created, (EditionNotFound, EditionError, LibraryError))


@library_api.post("/api/library/import")
@control()
def import_edition() -> Any:
    body = json_body()
    text, name = body.get("text"), body.get("name")
    if not isinstance(text, str) or (name is not None and not isinstance(name, str)):
        return json_error(400, code="import_fields")
    try:  # the library's decoder has no bounds: a file nested deep or with a huge number is refused here
        check_json(text)
    except BadJson as exc:
        return json_error(400, code=exc.code, **exc.params)
    return _write(lambda: {"name": _library().import_text(text, name or None)}, (EditionError, LibraryError))


@library_api.get("/api/library/<name>")
@control()
def show(name: str) -> Any:
    obj = _raw(name)
    if isinstance(obj, Response):
        return obj
    library = _library()
    problems: list[str] = []
    try:  # a file edited by hand may not be valid: say where, and still show it
        validate(obj, name if library.is_shipped(name) else str(library.path(name)), name)
    except EditionError as exc:
        problems = _problems(exc)
    tags: dict[str, list[str]] = {}
    for uid, card in table_runtime().tags().items():
        tags.setdefault(card, []).append(uid)
    return jsonify({"edition": obj, "progress": progress(obj), "tags": tags, "problems": problems})


@library_api.delete("/api/library/<name>")
@control()
def delete(name: str) -> Any:
    return _write(lambda: _library().delete(name), (EditionNotFound, LibraryError), {"deleted": name})


@library_api.post("/api/library/<name>/default")
@control()
def make_default(name: str) -> Any:
    done = {"default": name}
    return _write(lambda: _library().set_default(name), (EditionNotFound, EditionError, LibraryError), done)


@library_api.get("/api/library/<name>/export")
@control()
def export(name: str) -> Any:
    import json

    from companion.editions import cards_to_csv, itineraries_to_csv  # (CSV loads when first asked)

    kind = request.args.get("format", "json")
    obj = _raw(name)
    if isinstance(obj, Response):
        return obj
    if kind == "csv":
        body, mime, suffix = cards_to_csv(obj), "text/csv", "-cards.csv"
    elif kind == "itineraries-csv":
        body, mime, suffix = itineraries_to_csv(obj), "text/csv", "-itineraries.csv"
    elif kind == "json":
        body, mime, suffix = json.dumps(obj, indent=1, ensure_ascii=False) + "\n", "application/json", ".json"
    else:
        return json_error(400, code="export_format")
    response = Response(body, mimetype=mime)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}{suffix}"'
    return response


# --- one value at a time ----------------------------------------------------------------------


@library_api.put("/api/library/<name>/cards")
@control()
def put_a_card(name: str) -> Any:
    body = json_body()
    card_id = body.get("id")
    if card_id is not None and not (isinstance(card_id, str) and 0 < len(card_id) <= 20):
        return json_error(
            400,
            code="card_id_field",
            max=20,
        )
    fields = {k: body.get(k, "") for k in ("day", "year", "hours", "gains")}
    fields["title"], fields["note"] = _text(body.get("title")).strip(), _text(body.get("note")).strip()
    if not isinstance(fields["gains"], list):
        return json_error(400, code="gains_list")

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        card = put_card(obj, fields, card_id)
        return {
            "card": card,
            "warnings": card_warnings(obj, card),
            "checks": card_checks(obj, card),
            "bind_to": card["id"],
        }

    return _edit(name, change, body.get("tag"))


@library_api.delete("/api/library/<name>/cards/<item>", defaults={"part": "cards"})
@library_api.delete("/api/library/<name>/itineraries/<item>", defaults={"part": "itineraries"})
@control()
def delete_a_part(name: str, part: str, item: str) -> Any:
    """Remove a History card or an Itinerary card."""
    return _edit(name, lambda obj: remove(obj, part, item))


@library_api.put("/api/library/<name>/itineraries")
@control()
def put_an_itinerary(name: str) -> Any:
    body = json_body()
    item_id, old_id = body.get("id"), body.get("old_id")
    columns, rows = body.get("columns", {}), body.get("rows", [])
    if not isinstance(item_id, str) or (old_id is not None and not isinstance(old_id, str)):
        return json_error(
            400,
            code="itinerary_shape",
        )

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        it = put_itinerary(obj, item_id, columns, rows, old_id)
        return {"itinerary": it, "bind_to": it["id"]}

    return _edit(name, change, body.get("tag"))


@library_api.put("/api/library/<name>/playmat")
@control()
def put_playmat(name: str) -> Any:
    body = json_body()
    return _edit(
        name, lambda obj: set_playmat(obj, body.get("slots"), body.get("treks"), body.get("trek_beyond", ""))
    )


@library_api.put("/api/library/<name>/ancestor")
@control()
def put_ancestor(name: str) -> Any:
    body = json_body()

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        set_ancestor(obj, body.get("hours", ""), body.get("gains", []), body.get("copies"))
        return {"bind_to": ANCESTOR}

    return _edit(name, change, body.get("tag"))


# --- tags ------------------------------------------------------------------------------------


@library_api.post("/api/library/transcribe")
@control()
def transcribe() -> Any:
    """Start (``{"edition": "my-box"}``) or stop (``{"edition": null}``) capturing taps."""
    edition = json_body().get("edition")
    if edition is not None and (not isinstance(edition, str) or not _library().exists(edition)):
        return json_error(
            400,
            code="transcribe_edition",
        )
    capture = _capture()
    with capture.lock:
        capture.edition = edition
        capture.renew()
    return jsonify({"edition": edition, "seq": capture.seq})


@library_api.get("/api/library/transcribe/tag")
@control()
def last_tag() -> Any:
    """The last tag tapped while transcribing, with the card it is bound to (if any)."""
    capture = _capture()
    with capture.lock:
        capture.renew()
        seq, tag, now = capture.seq, capture.tag, capture.clock()
        age = round((now - capture.tapped) * 1000) if tag else None
    bound = table_runtime().tags().get(tag) if tag else None
    # ``age_ms``: how long ago the tag was tapped (keys typed since go to the card the tap opens);
    # ``now_ms``: this server's monotonic clock, which the page maps onto its own (NTP's way)
    answer = {"seq": seq, "tag": tag, "bound_to": bound, "capturing": capture.edition, "age_ms": age}
    return jsonify({**answer, "now_ms": round(now * 1000, 1)})


@library_api.delete("/api/library/tags/<uid>")
@control()
def unbind(uid: str) -> Any:
    runtime = table_runtime()
    try:
        freed = runtime.unbind_tag(uid)
    except StoreError as exc:  # a full disk: the tag is still bound, and the page says why
        return store_refused(exc)
    if not freed:
        return json_error(404, code="tag_not_bound", tag=uid[:40])
    return jsonify({"unbound": uid})
