"""The codes the server's refusals and the hardware faults can carry, read from the modules that
raise them, and the catalogues' keys for them: what the error-code and wording tests compare."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVER = (
    "web/app.py",  # the app's own errors (an HTTP error, a bad body, a crash)
    "web/live.py",  # the table page's routes, one module per feature (the edition library's are
    "web/qr.py",  # LibraryError codes, described apart)
    "web/auth.py",
    "web/controls.py",
    "web/coach.py",
    "web/enrol.py",
    "web/mock.py",
    "web/route_support.py",
    "table/access.py",
    "table/game_setup.py",
    "table/enrol.py",
    "util/json_bounds.py",
    "web/history.py",
    "store/log.py",  # a store refusal reaches the page with its own code (`store_refused`)
    "store/runner.py",  # the same: a companion already running on the store
    "history/past.py",
    "coach/service.py",  # the coach's refusals of an ask (`CoachRefused`)
    "table/tags.py",  # a tag that may not stand for a card (`TagRefused`, enrolment and the edition page)
)
HARDWARE = (
    "hardware/health.py",
    "hardware/reader.py",
    "hardware/ring.py",
    "hardware/ring_spi.py",
    "hardware/buttons.py",
)
#: ``code="..."``, or the code an error that carries only its code is made with (`CodedError`).
CODE = (
    r"(?:\b(?:code|mock_code)(?:: str)?\s*=\s*"
    r"|\b(?:GameSetupError|EnrolRefused|HardwareFault|LibraryError|StoreError|GameDamaged"
    r'|FieldError|BadJson|RecordError|CoachRefused|TagRefused)\(\s*)"([a-z_0-9]+)"'
)


def _source(names: tuple[str, ...]) -> str:
    return "".join((ROOT / "companion" / n).read_text(encoding="utf-8") for n in names)


def server_codes() -> set[str]:
    """Every error code the table's HTTP routes can send (``code="..."`` in their modules)."""
    source = _source(SERVER)
    return set(re.findall(CODE, source)) | set(re.findall(r'"(pin_locked_[a-z]+)"', source))


def hardware_codes() -> set[str]:
    """Every fault code of the hardware parts (``code="..."`` and the per-part ``*_failed``)."""
    source = _source(HARDWARE)
    return set(re.findall(CODE, source)) | set(re.findall(r'"([a-z]+_failed)"', source))


def words(block: str) -> dict[str, set[str]]:
    """The keys of ``block`` ("msg" or "hw") of each language's catalogue (web/static/i18n/)."""
    return {
        name: set(json.loads((ROOT / "web" / "static" / "i18n" / f"{name}.json").read_text("utf-8"))[block])
        for name in ("en", "fr")
    }


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """The JSON refusal: its status, code, English ``error`` kept, and a sentence in both languages."""
    body: dict[str, Any] = response.get_json()
    assert response.status_code == status, body
    assert body["code"] == code and isinstance(body["error"], str) and body["error"], body
    keys = words("msg")
    assert code in keys["en"] and code in keys["fr"], code
    return body
