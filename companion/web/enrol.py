"""Enrolment from the page: the host binds a sticker's tag to a card of the table's edition.

``POST /api/enroll`` (a control) writes the binding, and any values typed for a card the
edition lacks, into the owner's copy of the edition (`companion.table.enrol`); a refusal
says what is wrong in the page's language, and nothing is half written.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from companion.engine.tokens import BENEFITS
from companion.web.route_support import (
    control,
    json_body,
    json_error,
    not_saved,
    store_refused,
    table_runtime,
)

enrol_api = Blueprint("enrol", __name__)


@enrol_api.post("/api/enroll")
@control()
def enroll() -> Any:
    from companion.editions import EditionNotFound
    from companion.store.log import DiskFull, StoreError
    from companion.table.enrol import EnrolRefused
    from companion.table.tags import TagRefused

    body = json_body()
    tag, card = body.get("tag"), body.get("card")
    if not isinstance(tag, str) or not tag.strip() or not isinstance(card, str):
        return json_error(
            400,
            code="enrol_fields",
        )
    values = None
    if "hours" in body or "gains" in body:
        hours, gains = body.get("hours"), body.get("gains", [])
        if (
            not isinstance(hours, int)
            or isinstance(hours, bool)
            or not 1 <= hours <= 12
            or not isinstance(gains, list)
            or not all(g in BENEFITS for g in gains)
        ):
            return json_error(
                400,
                code="enrol_values",
                benefits=", ".join(BENEFITS),
            )
        values = (hours, list(gains))
    runtime = table_runtime()
    edition = runtime.edition()
    from companion.editions import EditionLibrary, mine_name

    library = EditionLibrary(runtime.data_dir)
    own = library.path(mine_name(edition.name))
    try:
        # enroll_tag reads, changes and writes the owner's file under the library's lock
        message, params = runtime.enroll(own, tag.strip(), card, values)
    except (EnrolRefused, TagRefused) as exc:
        return json_error(400, code=exc.code, **exc.params)
    except DiskFull as exc:
        return store_refused(exc)
    except OSError as exc:  # the owner's edition file (the values typed) was not written
        return not_saved(exc)
    except StoreError as exc:  # the store's own code: the page words it in its language
        return json_error(400, code=exc.code, **exc.params)
    except (ValueError, EditionNotFound) as exc:
        # the English detail stays beside the code: the page words the refusal without it
        return json_error(400, code="enrol_refused", detail=str(exc))
    if runtime.unknown_tag == tag.strip():
        runtime.unknown_tag = None
    return jsonify({"message": message, "code": "enrolled", "params": params})
