"""The NeoPixel ring of a Raspberry Pi, driven over SPI1 (docs/ring.md says why SPI).

`adafruit-circuitpython-neopixel-spi` turns each bit of a frame into one SPI byte
(`BIT0`/`BIT1`) clocked out at `FREQUENCY`; the data line is SPI1's MOSI, GPIO20
(physical pin 38). It writes through `SpidevBus`, a small bus of ours over
``/dev/spidev1.0``: no root, no /dev/mem, no audio change, no Blinka ``board``
import. Pi-only modules (``spidev``, ``neopixel_spi``) are imported here, lazily.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from companion.hardware.health import HardwareFault
from companion.hardware.machine import board_model
from companion.util.config import RingSettings, ring_pins

log = logging.getLogger("companion.hardware.ring_spi")

#: SPI1, chip select 0: ``dtoverlay=spi1-1cs`` makes it; its MOSI is GPIO20.
SPI_BUS, SPI_DEVICE = 1, 0
DEVICE = f"/dev/spidev{SPI_BUS}.{SPI_DEVICE}"
#: The SPI clock asked for: 8 SPI bits per NeoPixel bit, so one NeoPixel bit lasts 1.25 us at
#: 6.4 MHz (the WS2812B's nominal 800 kHz). The Pi's dividers give 6.25 MHz (core clock pinned
#: at 250/500 MHz on SPI1 of a Pi 3/Zero 2 W/4, 200 MHz on a Pi 5): both decode
#: (tests/hardware/test_ring_spi.py).
FREQUENCY = 6_400_000
#: A NeoPixel 0: 2 SPI bits high, 6 low (~312/938 ns at 6.4 MHz); neopixel_spi's own default.
BIT0 = 0b11000000
#: A NeoPixel 1: 5 SPI bits high, 3 low (~781/469 ns). neopixel_spi's default (0b11110000, 4 high:
#: 625/625 ns) is outside the WS2812B datasheet's T1H 0.8 us +/- 150 ns and T1L 0.45 us +/- 150 ns;
#: tests/hardware/test_ring_spi.py shows the model refusing it.
BIT1 = 0b11111000
#: Low time before and after each frame, seconds: the WS2812B latches after 50 us low, the
#: WS2812B-V5 after 280 us; the leading one also pulls down a MOSI that rests high.
RESET_SECONDS = 300e-6
#: spidev's default transfer limit, bytes (its ``bufsiz`` module parameter).
SPIDEV_BUFSIZ = 4096
BUFSIZ_FILE = Path("/sys/module/spidev/parameters/bufsiz")


def frame_bytes(leds: int, channels: int, frequency: int = FREQUENCY) -> int:
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
        self.frequency = FREQUENCY

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def configure(
        self, *, baudrate: int = FREQUENCY, polarity: int = 0, phase: int = 0, bits: int = 8
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


#: The eight SPI bytes of each byte of a frame, MSB first: `BIT1` for a 1, `BIT0` for a 0.
SPI_CODES = tuple(bytes(BIT1 if byte >> bit & 1 else BIT0 for bit in range(7, -1, -1)) for byte in range(256))


@functools.cache
def looked_up(library: type) -> type:
    """neopixel_spi's ring (``library``) encoding each frame byte by byte from `SPI_CODES`.

    The library builds the SPI bytes bit by bit in Python: 576 steps for a 24-LED frame, about
    0.1 ms on a PC (issue 26 puts a Zero 2 W core at roughly 12 times slower), 30 frames a
    second while the mover's watch pulses; a lookup takes about 6 us here. The bytes are the
    same (tests/hardware/test_ring_spi.py compares them with the library's own encoder, for
    the `BIT0` and `BIT1` `ring_on` gives); the rest of the class is the library's."""

    class LookedUp(library):  # type: ignore[misc]
        #: Whether the table gives this library's own bytes: asked once, on the first frame,
        #: since `_transmogrify` and `_spibuf` are the library's private parts and a Pi may
        #: hold another release than the tests ran (False: the library's own loop from then on).
        agrees: bool | None = None

        def _transmogrify(self, buffer: bytearray) -> None:
            if self.agrees is None:
                self.agrees = _same_bytes(self, len(buffer), super()._transmogrify)
            if self.agrees:
                self._spibuf[:] = b"".join(map(SPI_CODES.__getitem__, buffer))
            else:
                super()._transmogrify(buffer)

    return LookedUp


def _same_bytes(ring: Any, size: int, library: Any) -> bool:
    """Whether `SPI_CODES` encode a frame of ``size`` bytes as the ``library``'s own encoder
    does on ``ring``: frames that hold every byte value between them, so every code is compared."""
    for start in range(0, 256, max(size, 1)):
        probe = bytearray((start + at) % 256 for at in range(size))
        library(probe)
        if bytes(ring._spibuf) != b"".join(map(SPI_CODES.__getitem__, probe)):
            break
    else:
        return True
    log.warning(
        "ring: neopixel_spi encodes frames differently from this release's table; its own encoder is used"
    )
    return False


def spidev_bufsiz(path: Path = BUFSIZ_FILE) -> int:
    """The running kernel's spidev transfer limit (the default when it cannot be read)."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return SPIDEV_BUFSIZ


def ring_on(bus: SpidevBus, settings: RingSettings) -> Any:
    """neopixel_spi's ring of ``settings.leds`` in ``settings.order`` on ``bus``, at full scale:
    `companion.hardware.ring.pixels` does the brightness (with its floor) and the white channel."""
    import neopixel_spi

    needed = frame_bytes(settings.leds, len(settings.order))
    if needed > bus.bufsiz:
        raise HardwareFault("ring_frame_too_long", size=needed, bufsiz=bus.bufsiz)
    return looked_up(neopixel_spi.NeoPixel_SPI)(
        bus,
        settings.leds,
        pixel_order=settings.order,
        brightness=1.0,
        auto_write=False,
        frequency=FREQUENCY,
        reset_time=RESET_SECONDS,
        bit0=BIT0,
        bit1=BIT1,
    )


def open_spi_ring(settings: RingSettings) -> Any:
    """The real ring on ``/dev/spidev1.0``; a missing device or a refused one is a `HardwareFault`
    naming its cause (the SPI1 overlay not enabled, the user not in group spi)."""
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
            raise HardwareFault("ring_spi1_missing", device=DEVICE) from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise HardwareFault("ring_spi1_refused", device=DEVICE, user=_user()) from None
        raise
    try:  # missing, or Blinka's busio (which it imports) refusing the board: said before the bus is used
        import neopixel_spi  # noqa: F401
    except (ImportError, RuntimeError, NotImplementedError) as exc:
        port.close()
        raise HardwareFault("ring_driver_missing", detail=str(exc)) from None
    return ring_on(SpidevBus(port, spidev_bufsiz()), settings)


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name
