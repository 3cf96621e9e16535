"""What each hardware part is doing, and why a broken one is broken.

A table with a dead ring is still a table: the page shows the Clock, the buttons and the reader
still play. So a part that fails is not an exit (under systemd's ``Restart=on-failure``, a restart
loop and no table) but a `Health` entry: said once on the console (and so in the journal), shown
on the page (``hardware`` in ``/api/state``), retried, and said again when it comes back.
`diagnose` turns what a driver raised into the likely cause and the fix a maker can act on, with a
stable code and params that the page words in its own language (``hw`` in web/static/i18n/*.json).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from companion.util.wording import CodedError, say

PARTS = ("reader", "ring", "buttons")

#: How often a failed part is tried again, seconds.
RETRY_SECONDS = 5.0


class HardwareFault(CodedError, RuntimeError):
    """A part cannot work: its ``code`` and ``params`` only. The likely cause (``str(exc)``) and
    what to do (`fix`) are the catalogue's ``hw`` sentences, the same the page shows."""

    @property
    def fix(self) -> str:
        """What to do, in English: the ``hw`` block's ``<code>.fix`` sentence."""
        return say(f"{self.code}.fix", "en", **self.params)


class Diagnosis(NamedTuple):
    """What is wrong with a part: the English cause and fix, and the code the page words."""

    message: str
    fix: str
    code: str
    params: dict[str, object]


@dataclass(frozen=True)
class PartStatus:
    part: str
    ok: bool
    message: str
    fix: str = ""
    #: The fault's code for the page ("" while the part works or starts); ``params`` fill its sentence.
    code: str = ""
    params: dict[str, object] = field(default_factory=dict, compare=True)


class Health:
    """The status of each part; every change is said once (console and journal)."""

    def __init__(self, say: Callable[[str], None], parts: tuple[str, ...] = PARTS) -> None:
        self.say = say
        self._lock = threading.RLock()
        self._parts: dict[str, PartStatus] = {p: PartStatus(p, False, "starting") for p in parts}
        #: `as_json` as JSON text, made again only after a part's status changed (every
        #: ``GET /api/state`` carries it).
        self._text: str | None = None

    def ok(self, part: str, message: str, quiet: bool = False) -> None:
        self._set(PartStatus(part, True, message), quiet)

    def fail(self, part: str, exc: BaseException) -> None:
        message, fix, code, params = diagnose(part, exc)
        self._set(PartStatus(part, False, message, fix, code, params))

    def _set(self, status: PartStatus, quiet: bool = False) -> None:
        with self._lock:
            before = self._parts.get(status.part)
            self._parts[status.part] = status
            if before != status:
                self._text = None
        if before == status or quiet:
            return
        if status.ok:
            again = before is not None and not before.ok and before.message != "starting"
            self.say(say("part_again", part=status.part) if again else f"{status.part}: {status.message}")
        else:
            self.say(
                say(
                    "part_down",
                    part=status.part,
                    message=status.message,
                    fix=status.fix,
                    every=f"{RETRY_SECONDS:.0f}",
                )
            )

    def as_json(self) -> list[dict[str, object]]:
        """For ``/api/state``: one {part, ok, message, fix} per part; a part that is down
        also has its fault's {code, params}, for the page to word in its language."""
        with self._lock:
            parts = [asdict(s) for s in self._parts.values()]
        for part in parts:
            if part["ok"] or not part["code"]:
                del part["code"], part["params"]
        return parts

    def as_json_text(self) -> str:
        """`as_json` as compact JSON text, encoded once per change of a part's status."""
        with self._lock:
            if self._text is None:
                self._text = json.dumps(self.as_json(), separators=(",", ":"))
            return self._text


def diagnose(part: str, exc: BaseException) -> Diagnosis:
    """The likely cause, the fix, and their code and params, for what a part's driver raised."""
    if isinstance(exc, HardwareFault):
        params: dict[str, Any] = {"part": part, **exc.params}
        code = exc.code
    else:
        text = f"{type(exc).__name__}: {exc}"
        code, found = _fault_of(part, exc, text.lower())
        params = {"part": part, "detail": text, **found}
    return Diagnosis(say(code, **params), say(f"{code}.fix", **params), code, params)


def _fault_of(part: str, exc: BaseException, lowered: str) -> tuple[str, dict[str, str]]:
    """The code (and its own params) of an exception that is not a `HardwareFault`, from its
    type and words (``lowered``)."""
    if part == "buttons" and "pin factory" in lowered:  # gpiozero's BadPinFactory (an ImportError)
        return _found(code="buttons_no_pin_library")
    if isinstance(exc, ImportError) or "platform library" in lowered or "no module named" in lowered:
        return _found(code="driver_missing")
    if part == "reader" and isinstance(exc, FileNotFoundError):  # spidev: no /dev/spidev1.0 (the reader)
        return _found(code="spi_off", device="/dev/spidev1.0")
    if part == "ring" and isinstance(exc, FileNotFoundError):  # spidev: no /dev/spidev0.0 (the ring)
        return _found(code="ring_spi_missing", device=str(exc.filename or "/dev/spidev0.0"))
    if isinstance(exc, PermissionError) or "permission denied" in lowered:
        device = str(getattr(exc, "filename", None) or "")
        if part == "ring":
            return _found(code="ring_device_refused", device=device)
        return _found(code="device_refused", device=device)
    failed = {"reader": "reader_failed", "ring": "ring_failed", "buttons": "buttons_failed"}
    return failed.get(part, "part_failed"), {}


def _found(code: str, **params: str) -> tuple[str, dict[str, str]]:
    """A fault's code and params (``code=`` named: tests/support/codes.py finds the codes so)."""
    return code, params
