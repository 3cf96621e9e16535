"""The NeoPixel ring of a Raspberry Pi, driven over SPI0, the bus with DMA (docs/ring.md says why).

`adafruit-circuitpython-neopixel-spi` turns each bit of a frame into one SPI byte (the board's
`Timing`) and writes it through `SpidevBus`, ours, over ``/dev/spidev0.0`` (MOSI: GPIO10, pin 19):
no root, no /dev/mem, no audio change, no Blinka ``board`` import; ``spidev`` and ``neopixel_spi``
are imported lazily. SPI0's DMA feeds any transfer of 96 bytes or more (a frame is 750 or more);
the auxiliary SPI1 of a Pi 3 / Zero 2 W / 4 has none, and a refill that comes late leaves the line
low mid-frame, where a real part latches (tests/hardware/test_ring_spi.py models both controllers).
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.hardware.health import HardwareFault
from companion.hardware.machine import board_model, user_name
from companion.util.config import RingSettings, ring_pins

log = logging.getLogger("companion.hardware.ring_spi")

#: SPI0, chip select 0: ``dtparam=spi=on`` makes it; its MOSI is GPIO10 (pin 19). Nothing is
#: wired to the chip select: the ring only listens to MOSI.
SPI_BUS, SPI_DEVICE = 0, 0
DEVICE = f"/dev/spidev{SPI_BUS}.{SPI_DEVICE}"


@dataclass(frozen=True)
class Timing:
    """How a board's SPI0 sends one NeoPixel bit: one SPI byte, ``bit0`` or ``bit1`` (MSB first),
    at the clock ``frequency`` asks for; ``clock`` is the one the board gives (the core clock the
    installer pins, or RP1's, over an even divider rounded up: `TIMINGS`). SPI0 of a Pi 3 / Zero 2 W
    / 4 idles one clock, line low, after every byte (a bit lasts 9 clocks; 8 on a Pi 5).
    docs/ring.md has each board's high and low times against the datasheets."""

    frequency: int
    bit0: int
    bit1: int
    clock: float


#: A NeoPixel 0 on every board: 2 SPI bits high (288-320 ns), inside every datasheet's T0H.
BIT0 = 0b11000000
#: Each board's timing (model string prefix, as the firmware's model names it).
TIMINGS: dict[str, Timing] = {
    # 250 MHz / 36 = 6.94 MHz, 144 ns a clock: 1 = 720 ns high + 576 low (4 + idle clock)
    "Raspberry Pi Zero 2": Timing(6_950_000, BIT0, 0b11111000, 250e6 / 36),
    "Raspberry Pi 3": Timing(6_950_000, BIT0, 0b11111000, 250e6 / 36),
    # 500 MHz / 74 = 6.76 MHz, 148 ns a clock: 1 = 740 ns high + 592 low, 0 = 296 + 1036
    "Raspberry Pi 4": Timing(6_760_000, BIT0, 0b11111000, 500e6 / 74),
    "Raspberry Pi 400": Timing(6_760_000, BIT0, 0b11111000, 500e6 / 74),
    "Raspberry Pi Compute Module 4": Timing(6_760_000, BIT0, 0b11111000, 500e6 / 74),
    # 200 MHz / 32 = 6.25 MHz, 160 ns a clock, no idle clock: 1 = 640 + 640, 0 = 320 + 960
    "Raspberry Pi 5": Timing(6_250_000, BIT0, 0b11110000, 200e6 / 32),
    "Raspberry Pi 500": Timing(6_250_000, BIT0, 0b11110000, 200e6 / 32),
    "Raspberry Pi Compute Module 5": Timing(6_250_000, BIT0, 0b11110000, 200e6 / 32),
}
#: Where the board is not known (a PC, a test): the Pi 4's.
DEFAULT_TIMING = TIMINGS["Raspberry Pi 4"]


def timing_for(model: str) -> Timing:
    """The `Timing` of the board ``model`` (`DEFAULT_TIMING` for any other)."""
    for prefix in sorted(TIMINGS, key=len, reverse=True):
        if model.startswith(prefix):
            return TIMINGS[prefix]
    return DEFAULT_TIMING


#: Low time before and after each frame, seconds: the WS2812B latches after 50 us low, the
#: SK6812 after 80 us, the WS2812B-V5 after 280 us; the leading one also pulls down a MOSI
#: that rests high.
RESET_SECONDS = 300e-6
#: spidev's default transfer limit, bytes (its ``bufsiz`` module parameter).
SPIDEV_BUFSIZ = 4096
BUFSIZ_FILE = Path("/sys/module/spidev/parameters/bufsiz")


def frame_bytes(leds: int, channels: int, frequency: int = DEFAULT_TIMING.frequency) -> int:
    """Bytes one frame takes on the bus: 8 per colour bit, and the two reset gaps."""
    return 8 * leds * channels + 2 * round(frequency * RESET_SECONDS / 8)


class SpiPort(Protocol):
    """What `SpidevBus` uses of ``spidev.SpiDev`` (the tests give a recorder)."""

    max_speed_hz: int
    mode: int

    def writebytes2(self, data: Any) -> None: ...


class SpidevBus:
    """The SPI bus neopixel_spi writes to, over spidev.

    adafruit_bus_device's ``SPIDevice`` (which neopixel_spi wraps it in) calls ``try_lock``,
    ``configure(baudrate=, polarity=, phase=)``, ``write`` and ``unlock``, and reads
    ``frequency`` for the reset gap's length. A frame goes out as one transfer: spidev would
    split a longer one at ``bufsiz``, and the gap between the pieces could latch the ring half-way.
    """

    def __init__(self, port: SpiPort, bufsiz: int = SPIDEV_BUFSIZ) -> None:
        self.port = port
        self.bufsiz = bufsiz
        self._lock = threading.Lock()
        self.frequency = DEFAULT_TIMING.frequency

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def configure(
        self, *, baudrate: int = DEFAULT_TIMING.frequency, polarity: int = 0, phase: int = 0, bits: int = 8
    ) -> None:
        """Clock and mode of the next transfers (spidev only sends 8-bit words here)."""
        self.port.max_speed_hz = baudrate
        self.port.mode = (polarity << 1) | phase
        self.frequency = baudrate

    def write(self, buffer: bytes | bytearray, *, start: int = 0, end: int | None = None) -> None:
        data = bytes(buffer[start:end])
        if len(data) > self.bufsiz:
            raise HardwareFault("ring_frame_too_long", size=len(data), bufsiz=self.bufsiz)
        self.port.writebytes2(data)


@functools.cache
def spi_codes(bit0: int, bit1: int) -> tuple[bytes, ...]:
    """The eight SPI bytes of each byte of a frame, MSB first: ``bit1`` for a 1, ``bit0`` for a 0."""
    return tuple(bytes(bit1 if byte >> bit & 1 else bit0 for bit in range(7, -1, -1)) for byte in range(256))


@functools.cache
def looked_up(library: type) -> type:
    """neopixel_spi's ring (``library``) encoding each frame byte by byte from `spi_codes`, not bit
    by bit as the library does (docs/benchmarks.md). The bytes are the same (tests/hardware/
    test_ring_spi.py compares them with the library's encoder for every board's `Timing`); the
    rest of the class is the library's, its patterns the ``bit0`` and ``bit1`` it was given."""

    class LookedUp(library):  # type: ignore[misc]
        #: Whether the table gives this library's own bytes: asked once, on the first frame,
        #: since `_transmogrify` and `_spibuf` are the library's private parts and a Pi may
        #: hold another release than the tests ran (False: the library's own loop from then on).
        agrees: bool | None = None

        def __init__(self, *args: Any, bit0: int = BIT0, bit1: int = 0b11110000, **kwargs: Any) -> None:
            super().__init__(*args, bit0=bit0, bit1=bit1, **kwargs)
            self.codes = spi_codes(bit0, bit1)

        def _transmogrify(self, buffer: bytearray) -> None:
            if self.agrees is None:
                self.agrees = _same_bytes(self, len(buffer), super()._transmogrify)
            if self.agrees:
                self._spibuf[:] = b"".join(map(self.codes.__getitem__, buffer))
            else:
                super()._transmogrify(buffer)

    return LookedUp


def _same_bytes(ring: Any, size: int, library: Any) -> bool:
    """Whether ``ring.codes`` encode a frame of ``size`` bytes as the ``library``'s own encoder
    does on ``ring``: frames that hold every byte value between them, so every code is compared."""
    for start in range(0, 256, max(size, 1)):
        probe = bytearray((start + at) % 256 for at in range(size))
        library(probe)
        if bytes(ring._spibuf) != b"".join(map(ring.codes.__getitem__, probe)):
            break
    else:
        return True
    log.warning(
        "ring: neopixel_spi encodes frames differently from this release's table; its own encoder is used"
    )
    return False


def ring_on(bus: SpidevBus, settings: RingSettings, timing: Timing = DEFAULT_TIMING) -> Any:
    """neopixel_spi's ring of ``settings.leds`` in ``settings.order`` on ``bus`` with the board's
    ``timing``, at full scale: `companion.hardware.ring.pixels` does the brightness (with its
    floor) and the white channel."""
    import neopixel_spi

    needed = frame_bytes(settings.leds, len(settings.order), timing.frequency)
    if needed > bus.bufsiz:
        raise HardwareFault("ring_frame_too_long", size=needed, bufsiz=bus.bufsiz)
    return looked_up(neopixel_spi.NeoPixel_SPI)(
        bus,
        settings.leds,
        pixel_order=settings.order,
        brightness=1.0,
        auto_write=False,
        frequency=timing.frequency,
        reset_time=RESET_SECONDS,
        bit0=timing.bit0,
        bit1=timing.bit1,
    )


def open_spi_ring(settings: RingSettings) -> Any:
    """The real ring on ``/dev/spidev0.0``, with the board's `Timing`; a missing device or a
    refused one is a `HardwareFault` naming its cause (SPI0 not enabled, the user not in group spi)."""
    model = board_model()
    usable = ring_pins(model)
    if settings.pin not in usable:
        raise HardwareFault(
            "ring_pin_unusable", pin=f"GPIO{settings.pin}", pins=", ".join(f"GPIO{p}" for p in usable)
        )
    try:
        import spidev
    except ImportError as exc:
        raise HardwareFault("ring_driver_missing", detail=str(exc)) from None
    port = spidev.SpiDev()
    try:
        port.open(SPI_BUS, SPI_DEVICE)
    except OSError as exc:
        if exc.errno == errno.ENOENT or not os.path.exists(DEVICE):
            raise HardwareFault("ring_spi_missing", device=DEVICE) from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise HardwareFault("ring_spi_refused", device=DEVICE, user=user_name()) from None
        raise
    try:  # missing, or Blinka's busio (which it imports) refusing the board: said before the bus is used
        import neopixel_spi  # noqa: F401
    except (ImportError, RuntimeError, NotImplementedError) as exc:
        port.close()
        raise HardwareFault("ring_driver_missing", detail=str(exc)) from None
    try:  # the running kernel's spidev transfer limit
        bufsiz = int(BUFSIZ_FILE.read_text().strip())
    except (OSError, ValueError):
        bufsiz = SPIDEV_BUFSIZ
    return ring_on(SpidevBus(port, bufsiz), settings, timing_for(model))
