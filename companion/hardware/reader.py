"""The RFID reader: a polling loop with debounce, and the MFRC522 it polls.

The loop asks the reader for the tag in its field every ``poll_interval`` seconds and sleeps in
between; the Pi's reader exchanges frames through `companion.hardware.rc522`, whose wait sleeps
(``SimpleMFRC522`` spins a core). `TagDebouncer` turns readings into taps: a tag held on the
reader counts once, a reading that flickers out for less than the window is the same tag still
there, and the same tag counts again only after it has been away for the whole window. What a
tag stands for is `companion.table.tags.TagResolver`'s; a sticker's text, `companion.hardware.stickers`'.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.hardware.rc522 import DEFAULT_GAIN_DB, READER_BUS, READER_DEVICE, Rc522, Selected

#: BCM GPIO -> physical pin, for the mfrc522 package, which numbers pins the BOARD way.
BCM_TO_BOARD = {
    2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33, 14: 8,
    15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22,
    26: 37, 27: 13,
}  # fmt: skip


@dataclass
class TagDebouncer:
    """Readings (a UID or None, with the time) in; a UID out once per tap."""

    window: float
    current: str | None = None
    last_seen: float = 0.0

    def feed(self, uid: str | None, now: float) -> str | None:
        if uid is None:
            if self.current is not None and now - self.last_seen >= self.window:
                self.current = None
            return None
        if uid == self.current:  # still there (however long between two polls)
            self.last_seen = now
            return None
        self.current, self.last_seen = uid, now
        return uid


@dataclass
class ReaderLoop:
    """Polls ``read`` on its own thread and calls ``on_tap`` once per tap (`Runtime.tap_now`:
    the one route of every tap, on a Pi and in mock mode alike)."""

    read: Callable[[], str | None]
    on_tap: Callable[[str], object]
    poll_interval: float
    debouncer: TagDebouncer
    clock: Callable[[], float] = time.monotonic
    on_error: Callable[[Exception], None] | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    polls: int = 0

    def poll(self) -> tuple[str | None, object]:
        """One poll: (the tag tapped, what ``on_tap`` answered), or (None, None)."""
        try:
            uid = self.read()
        except Exception as exc:  # a glitch on the SPI bus must not stop the table
            if self.on_error is not None:
                self.on_error(exc)
            uid = None
        self.polls += 1
        tap = self.debouncer.feed(uid, self.clock())
        return (None, None) if tap is None else (tap, self.on_tap(tap))

    def run(self) -> None:
        while not self._stop.wait(self.poll_interval):
            self.poll()

    def stop(self) -> None:
        self._stop.set()


class MockReader:
    """Mock mode's RFID reader: the chip its `ReaderLoop` polls, and a hand that taps tags on it.

    As gpiozero's mock pins call a button's callbacks in the thread that drives them, `tap` puts
    the tag (a UID, or a card id or title typed for it) in the field, has the loop poll it once
    in the tapper's thread (the Pi reader thread's path) and lifts it: the loop needs no thread.
    One hand at a time: two pages tapping at once take turns."""

    def __init__(self) -> None:
        self.field: str | None = None
        self.loop: ReaderLoop | None = None
        self._hand = threading.Lock()

    def read_uid(self) -> str | None:
        return self.field

    def read_text(self) -> str | None:
        return None  # a typed tag is its own text

    def tap(self, tag: str) -> object:
        """Tap ``tag`` on the reader: what the loop's ``on_tap`` answered."""
        loop = self.loop
        assert loop is not None, "attach the mock reader to a ReaderLoop first"
        with self._hand:
            self.field = tag
            try:
                return loop.poll()[1]
            finally:
                self.field = None
                loop.debouncer.current = None  # lifted for good (a real reader sees it by the window)


#: What the MFRC522's VersionReg (0x37) holds: 0x91/0x92 genuine NXP chips, 0x88 and
#: 0x12 common clones. 0x00 or 0xFF is no chip at all (a floating or shorted MISO).
VERSION_REG = 0x37
NO_ANSWER = (0x00, 0xFF)


class PiReader:
    """The MFRC522 on SPI1/CE0 through the ``mfrc522`` package's register access. `check` reads
    its version register (an unplugged or miswired chip reads 0x00 or 0xFF, where polls would
    only see "no tag") and sets up again a chip that reset itself (back at 33 dB, antenna off)."""

    def __init__(self, driver: Any, gain_db: int = DEFAULT_GAIN_DB) -> None:
        #: The ``mfrc522.MFRC522`` object: SPI, the reset line, register reads and writes.
        self.driver = driver
        self.chip = Rc522(driver, gain_db)
        #: The last tag selected (its UID, SAK and so its kind), for the doctor.
        self.last: Selected | None = None

    def check(self) -> int:
        """The chip's version; a `HardwareFault` when no chip answers."""
        from companion.hardware.health import HardwareFault

        version = int(self.driver.Read_MFRC522(VERSION_REG))
        if version in NO_ANSWER:
            raise HardwareFault("reader_no_answer", version=f"0x{version:02x}")
        if not self.chip.configured():
            self.chip.restore()
        return version

    def read_uid(self) -> str | None:
        self.last = self.chip.select()
        return None if self.last is None else self.last.uid_text

    def read_text(self) -> str | None:
        # a Classic's or an NTAG's text (`companion edition stickers` writes both); imported
        # here: only an unknown tag needs it, and the start is quicker without
        from companion.hardware.stickers import read_text as read_sticker_text

        return read_sticker_text(self.driver, self.chip)

    def close(self) -> None:
        # closing a reader that already failed: there may be nothing left to free
        with contextlib.suppress(Exception):
            self.driver.Close_MFRC522()


def gpio_unreachable(exc: BaseException) -> Exception:
    """Why ``RPi.GPIO`` refused to load ("can only be run on a Raspberry Pi"), by who provides it:
    the original RPi.GPIO says so on a Pi 5 or a 64-bit OS, where rpi-lgpio must replace it;
    rpi-lgpio where it finds no Raspberry Pi GPIO chip (a PC, a chroot), which no swap fixes."""
    from importlib import metadata

    from companion.hardware.health import HardwareFault

    try:
        metadata.version("rpi-lgpio")
    except metadata.PackageNotFoundError:
        return HardwareFault("reader_gpio_unreachable", detail=str(exc))
    return HardwareFault("reader_no_gpio_chip", detail=str(exc))


def open_mfrc522(rst_pin: int, gain_db: int = DEFAULT_GAIN_DB) -> PiReader:
    """Open the MFRC522 on SPI1/CE0 (reset, then `Rc522.setup`: the timer and the receiver gain).

    The driver object is made once, on the reader's bus and its RST pin: ``SimpleMFRC522()``
    would first open /dev/spidev0.0 (the ring's bus now) and drive physical pin 22 high, and
    keep that handle. Pi-only imports live here: ``mfrc522`` needs ``RPi.GPIO`` (``rpi-lgpio``)
    and ``spidev``, which fail to import on a PC."""
    from companion.hardware.health import HardwareFault

    try:
        from mfrc522 import MFRC522
    except ImportError as exc:
        raise HardwareFault("reader_driver_missing", detail=str(exc)) from None
    except RuntimeError as exc:  # "This module can only be run on a Raspberry Pi!"
        raise gpio_unreachable(exc) from None
    # pin_mode 10 is RPi.GPIO's BOARD numbering, the driver's own default (pin_rst a physical pin)
    driver = MFRC522(bus=READER_BUS, device=READER_DEVICE, pin_mode=10, pin_rst=BCM_TO_BOARD[rst_pin])
    reader = PiReader(driver, gain_db)
    reader.chip.setup()
    return reader


def version_on_old_bus(rst_pin: int) -> int | None:
    """The MFRC522's version register read on SPI0 CE0, where builds before issue 34 wired the
    reader (the doctor's question when the chip is silent on SPI1), or None when it cannot be
    asked; the handle is closed again."""
    try:
        from mfrc522 import MFRC522
    except (ImportError, RuntimeError):
        return None
    driver = MFRC522(bus=0, device=0, pin_mode=10, pin_rst=BCM_TO_BOARD[rst_pin])
    try:
        return int(driver.Read_MFRC522(VERSION_REG))
    finally:
        with contextlib.suppress(Exception):
            driver.spi.close()
