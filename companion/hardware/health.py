"""What each hardware part is doing, and why a broken one is broken.

A table with a dead ring is still a table: the page shows the Clock, the buttons
and the reader still play. So a part that fails to open, or fails later, is not
an exit (under systemd's ``Restart=on-failure`` that would be a restart loop and
no table at all); it is a `Health` entry: reported once on the console (and so in
the journal), shown on the page (``hardware`` in ``/api/state``), retried, and
reported again when it comes back.

`explain` turns what a driver raised into the likely cause and the fix a maker
can act on (the wiring.md section, the raspi-config option, the group to join).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass

PARTS = ("reader", "ring", "buttons")

#: How often a failed part is tried again, seconds.
RETRY_SECONDS = 5.0

REINSTALL = "reinstall the Pi drivers: sudo systemd/install-pi.sh (it installs the pi extra)"


class HardwareFault(RuntimeError):
    """A part cannot work, with the likely cause (the message) and what to do (``fix``)."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


@dataclass(frozen=True)
class PartStatus:
    part: str
    ok: bool
    message: str
    fix: str = ""


class Health:
    """The status of each part; every change is said once (console and journal)."""

    def __init__(self, say: Callable[[str], None], parts: tuple[str, ...] = PARTS) -> None:
        self.say = say
        self._lock = threading.Lock()
        self._parts: dict[str, PartStatus] = {p: PartStatus(p, False, "starting") for p in parts}

    def ok(self, part: str, message: str, quiet: bool = False) -> None:
        self._set(PartStatus(part, True, message), quiet)

    def fail(self, part: str, exc: BaseException) -> None:
        message, fix = explain(part, exc)
        self._set(PartStatus(part, False, message, fix))

    def _set(self, status: PartStatus, quiet: bool = False) -> None:
        with self._lock:
            before = self._parts.get(status.part)
            self._parts[status.part] = status
        if before == status or quiet:
            return
        if status.ok:
            again = before is not None and not before.ok and before.message != "starting"
            self.say(f"{status.part}: {'working again' if again else status.message}")
        else:
            self.say(f"{status.part}: NOT WORKING: {status.message}. Fix: {status.fix}. Retrying every "
                     f"{RETRY_SECONDS:.0f} s; the rest of the table works without it.")  # fmt: skip

    def status(self, part: str) -> PartStatus:
        with self._lock:
            return self._parts[part]

    def as_json(self) -> list[dict[str, object]]:
        """For ``/api/state``: one {part, ok, message, fix} per part."""
        with self._lock:
            return [asdict(s) for s in self._parts.values()]


def explain(part: str, exc: BaseException) -> tuple[str, str]:
    """(likely cause, fix) for what a part's driver raised."""
    if isinstance(exc, HardwareFault):
        return str(exc), exc.fix
    text = f"{type(exc).__name__}: {exc}"
    lowered = text.lower()
    if part == "buttons" and "pin factory" in lowered:  # gpiozero's BadPinFactory (an ImportError)
        return (
            f"gpiozero found no pin library that works here ({text})",
            "install lgpio (sudo systemd/install-pi.sh does) and give the service user /dev/gpiochip0 "
            "(group gpio: sudo usermod -aG gpio trekking)",
        )
    if isinstance(exc, ImportError) or "platform library" in lowered or "no module named" in lowered:
        return f"a driver is not installed ({text})", REINSTALL
    if part == "reader" and isinstance(exc, FileNotFoundError):  # spidev: no /dev/spidev0.0
        return (
            f"SPI is off: /dev/spidev0.0 does not exist ({text})",
            "sudo raspi-config nonint do_spi 0 (Interface Options > SPI), then reboot "
            "(wiring.md, section Enable SPI)",
        )
    if isinstance(exc, PermissionError) or "permission denied" in lowered:
        if part == "ring":
            return (
                f"the ring's driver may not open its device ({text})",
                "Pi 4 and older: add the root drop-in of the systemd unit (wiring.md, section Raspberry Pi "
                "4 and earlier vs Raspberry Pi 5); Pi 5: give the gpio group /dev/pio0 (install-pi.sh does)",
            )
        return (
            f"the service user may not open the {part}'s device ({text})",
            "add the user to the spi and gpio groups: sudo usermod -aG spi,gpio trekking, "
            "then sudo systemctl restart trekking-companion",
        )
    if part == "ring" and ("ws2811" in lowered or "mmap" in lowered or "/dev/mem" in lowered):
        return (
            f"rpi_ws281x cannot reach the PWM hardware ({text})",
            "it needs root: add the root drop-in of the systemd unit and dtparam=audio=off "
            "(wiring.md, section Raspberry Pi 4 and earlier vs Raspberry Pi 5)",
        )
    if part == "ring" and "pio" in lowered:
        return (
            f"the Pi 5's PIO block is not available ({text})",
            "sudo apt full-upgrade and reboot (PIO needs a recent kernel), then check ls -l /dev/pio0",
        )
    where = {
        "reader": "wiring.md, section Pin table (MFRC522) and Test checklist step 3",
        "ring": "wiring.md, sections Pin table and The level shifter, Test checklist step 4",
        "buttons": "wiring.md, section Pin table (buttons) and Test checklist step 5",
    }.get(part, "wiring.md")
    return f"the {part} failed ({text})", f"check the wiring ({where}); then run companion doctor"
