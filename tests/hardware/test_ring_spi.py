"""The ring over SPI1, proven on a PC: the bytes the real neopixel_spi writes, decoded by a WS2812B.

Each test builds the ring as `companion.hardware.ring_spi` does on a Pi (the real
``neopixel_spi.NeoPixel_SPI`` on our `SpidevBus`), lets it show a frame through
`companion.hardware.ring.show` (the brightness, its floor and the white channel), records
what reaches spidev, turns it into the MOSI waveform at the SPI clock and reads it back with
the datasheet's WS2812B (tests/support/ws2812b.py). What only a real board proves: docs/ring.md.
"""

from __future__ import annotations

import errno
import itertools
import sys
import types
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.health import HardwareFault
from companion.hardware.ring import MARKER, ClockView, RingDriver, RingLayout, pixels, render, show
from companion.hardware.ring_spi import (
    BIT0,
    BIT1,
    FREQUENCY,
    RESET_SECONDS,
    SpidevBus,
    frame_bytes,
    looked_up,
    open_spi_ring,
    ring_on,
)
from companion.util.config import RingSettings
from tests.support.ws2812b import RES_NS, OutOfTolerance, decode

RGB_ORDERS = ["".join(p) for p in itertools.permutations("RGB")]
RGBW_ORDERS = ["".join(p) for p in itertools.permutations("RGBW")]
#: Every order `[ring] order` accepts: the 6 orders of RGB and the 24 of RGBW.
ORDERS = RGB_ORDERS + RGBW_ORDERS
#: The SPI clocks a Pi really gives for 6.4 MHz: SPI1 divides a pinned core clock (250 MHz on a
#: Pi 3 / Zero 2 W, 500 MHz on a Pi 4) by an even number, RP1 on a Pi 5 its 200 MHz: 6.25 MHz.
CLOCKS = [FREQUENCY, 6_250_000]


class RecordingPort:
    """spidev's ``SpiDev`` as the bus uses it: its settings and every transfer written."""

    def __init__(self) -> None:
        self.max_speed_hz = 0
        self.mode = -1
        self.writes: list[bytes] = []

    def writebytes2(self, data: Any) -> None:
        self.writes.append(bytes(data))


def spi_ring(leds: int, order: str, bufsiz: int = 4096) -> tuple[Any, RecordingPort]:
    port = RecordingPort()
    return ring_on(SpidevBus(port, bufsiz), RingSettings(leds=leds, order=order)), port


def shown(port: RecordingPort, order: str, clock: float | None = None) -> list[dict[str, int]]:
    """The colours a ring in ``order`` latched from the last transfer."""
    frames = decode(port.writes[-1], clock or port.max_speed_hz, order)
    assert len(frames) == 1, "one write, one latched frame"
    return frames[0]


def as_sent(leds: list[dict[str, int]], order: str) -> list[tuple[int, ...]]:
    """Decoded LEDs as the tuples `pixels` gives: (r, g, b) or (r, g, b, w)."""
    names = "RGBW" if "W" in order else "RGB"
    return [tuple(led[c] for c in names) for led in leds]


colour = st.tuples(*[st.integers(0, 255)] * 3)


@settings(max_examples=60, deadline=None)
@given(
    order=st.sampled_from(ORDERS),
    size=st.sampled_from([12, 16, 24, 60]),
    data=st.data(),
    brightness=st.sampled_from([1.0, 0.3, 0.08, 0.01]) | st.floats(0.0, 1.0),
    clock=st.sampled_from(CLOCKS),
)
def test_every_order_and_brightness_decodes_to_the_frame_meant(
    order: str, size: int, data: st.DataObject, brightness: float, clock: int
) -> None:
    frame = data.draw(st.lists(colour, min_size=size, max_size=size))
    ring, port = spi_ring(size, order)
    show(ring, frame, brightness)
    assert port.max_speed_hz == FREQUENCY and port.mode == 0
    assert len(port.writes[-1]) == frame_bytes(size, len(order))
    white = "W" in order
    decoded = as_sent(shown(port, order, clock), order)
    assert decoded == pixels(frame, brightness, white)
    for meant, lit in zip(frame, decoded, strict=True):  # the floor: nothing meant to show goes dark
        if brightness > 0:
            assert (sum(meant) > 0) == (sum(lit) > 0), (meant, lit)
        else:
            assert sum(lit) == 0


@pytest.mark.parametrize("order", ORDERS)
def test_at_full_brightness_each_led_shows_exactly_its_colour(order: str) -> None:
    """Independent of `pixels`: the decoded colour is the frame's, the white LED taking the grey part."""
    frame = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 10, 10), (86, 180, 233), (230, 159, 0)] * 2
    ring, port = spi_ring(12, order)
    show(ring, frame, 1.0)
    for meant, led in zip(frame, shown(port, order), strict=True):
        w = led.get("W", 0)
        assert (led["R"] + w, led["G"] + w, led["B"] + w) == meant
        if "W" in order:
            assert w == min(meant), "the grey part of a colour goes to the white LED"


def test_at_night_the_hour_markers_stay_lit_where_the_library_would_blacken_them() -> None:
    layout, night = RingLayout(24), 0.08
    frame = render(ClockView(), layout, 0.0)
    ring, port = spi_ring(24, "GRB")
    show(ring, frame, night)
    decoded = as_sent(shown(port, "GRB"), "GRB")
    hours = {layout.led(h) for h in range(12)}
    assert all(decoded[i] == (1, 1, 1) for i in hours), "MARKER (10, 10, 10) at 0.08: at least 1 each"
    assert all(decoded[i] == (0, 0, 0) for i in set(range(24)) - hours)
    # the library's own brightness truncates: the markers would go black (the old ring's behaviour)
    ring.brightness = night
    ring[:] = [MARKER] * 24
    ring.show()
    assert set(as_sent(shown(port, "GRB"), "GRB")) == {(0, 0, 0)}


def test_the_ring_driver_sends_the_tables_clock_with_the_floor(tmp_path: Any) -> None:
    """The whole path of a game: the table's Clock drawn by `RingDriver` at a night brightness,
    as the ring decodes it: every hour lit, the watches in their players' colours (dimmed)."""
    from tests.support.tables import make_runtime

    rt = make_runtime(tmp_path)
    try:
        dim_all_day = RingSettings(leds=24, brightness=0.05, night_brightness=0.05)
        ring, port = spi_ring(24, "GRB")
        driver = RingDriver(rt.table, ring, RingLayout(24), dim_all_day, lambda: 0.0)
        frame = driver.draw()
        decoded = as_sent(shown(port, "GRB"), "GRB")
        assert decoded == pixels(frame, 0.05)
        assert all(sum(decoded[RingLayout(24).led(h)]) > 0 for h in range(12)), "every hour shows"
    finally:
        rt.stop()


@pytest.mark.parametrize("clock", CLOCKS)
def test_the_frame_latches_even_for_parts_that_need_a_long_reset(clock: int) -> None:
    """The WS2812B-V5 revision latches only after 280 us low; the gaps sent are 300 us."""
    ring, port = spi_ring(12, "GRB")
    show(ring, [(1, 2, 3)] * 12, 1.0)
    frames = decode(port.writes[-1], clock, "GRB", res_ns=280_000)
    assert len(frames) == 1 and frames[0][0] == {"G": 2, "R": 1, "B": 3}
    zeros = len(port.writes[-1]) - len(port.writes[-1].lstrip(b"\0"))
    assert zeros * 8 * 1e9 / clock >= 280_000


def test_the_libraries_default_one_bit_is_outside_the_datasheet() -> None:
    """neopixel_spi's default 1 (0b11110000: 625 ns high, 625 ns low at 6.4 MHz) misses T1H and
    T1L: the model refuses it, which is why the ring sends 0b11111000."""
    import neopixel_spi

    port = RecordingPort()
    ring = neopixel_spi.NeoPixel_SPI(SpidevBus(port), 12, pixel_order="GRB", auto_write=False)
    ring.fill((255, 255, 255))
    ring.show()
    with pytest.raises(OutOfTolerance, match="T1H"):
        decode(port.writes[-1], FREQUENCY, "GRB")
    assert (BIT0, BIT1) == (0b11000000, 0b11111000)


@pytest.mark.parametrize(
    ("clock", "why"),
    # The SPI clock is the core clock divided, the divisor worked out for the turbo core clock
    # (raspberrypi/linux#3381): unpinned, an idle Pi 4 (500 -> 200 MHz) sends 6.25 MHz as 2.5 MHz
    # and a Pi 3 (400 -> 250 MHz) as 3.9 MHz; then a slightly slow clock and a fast one.
    [(2_500_000, "T1L"), (3_906_250, "T0L"), (5_500_000, "T0L"), (9_000_000, "T0H")],
)
def test_a_clock_out_of_tolerance_is_refused(clock: int, why: str) -> None:
    ring, port = spi_ring(12, "GRB")
    show(ring, [(0, 0, 0), (255, 255, 255)] * 6, 1.0)
    with pytest.raises(OutOfTolerance, match=why):
        decode(port.writes[-1], clock, "GRB")


def test_a_gap_inside_a_frame_is_refused() -> None:
    """A pause mid-frame (a transfer split in two, a FIFO that ran dry) is neither a bit nor a reset."""
    ring, port = spi_ring(12, "GRB")
    show(ring, [(9, 9, 9)] * 12, 1.0)
    data = port.writes[-1]
    middle = len(data) // 2
    split = data[:middle] + b"\0" * 20 + data[middle:]  # 20 bytes: 25 us low
    with pytest.raises(OutOfTolerance, match="a low of 25"):
        decode(split, FREQUENCY, "GRB")


def test_a_frame_longer_than_spidev_sends_at_once_is_refused_with_the_fix() -> None:
    assert frame_bytes(60, 4) == 60 * 4 * 8 + 2 * 240
    with pytest.raises(HardwareFault) as refused:
        spi_ring(60, "GRBW", bufsiz=2048)
    assert refused.value.code == "ring_frame_too_long" and "spidev.bufsiz" in refused.value.fix
    ring, port = spi_ring(60, "GRBW")
    show(ring, [(255, 255, 255)] * 60, 1.0)
    assert len(port.writes) == 1 and len(port.writes[0]) == frame_bytes(60, 4), "one transfer"


def test_the_bus_is_locked_while_a_frame_goes_out() -> None:
    bus = SpidevBus(RecordingPort())
    assert bus.try_lock() and not bus.try_lock()
    bus.unlock()
    assert bus.try_lock()


# --- opening the ring on a Pi ---------------------------------------------------------------------


def test_no_spi1_device_names_the_overlay(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("spidev")

    class Missing:
        def open(self, bus: int, device: int) -> None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")

    fake.SpiDev = Missing  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", fake)
    with pytest.raises(HardwareFault) as caught:
        open_spi_ring(RingSettings())
    assert caught.value.code == "ring_spi1_missing"
    assert "/dev/spidev1.0" in str(caught.value) and "dtoverlay=spi1-1cs" in caught.value.fix


def test_a_refused_spi1_device_names_the_group(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("spidev")

    class Refused:
        def open(self, bus: int, device: int) -> None:
            raise PermissionError(errno.EACCES, "Permission denied")

    fake.SpiDev = Refused  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", fake)
    monkeypatch.setattr("companion.hardware.ring_spi.os.path.exists", lambda path: True)
    with pytest.raises(HardwareFault) as caught:
        open_spi_ring(RingSettings())
    assert caught.value.code == "ring_spi1_refused" and "usermod -aG spi" in caught.value.fix


def test_an_opened_bus_is_spi1_at_the_ring_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("spidev")
    opened: list[tuple[int, int]] = []

    class Port(RecordingPort):
        def open(self, bus: int, device: int) -> None:
            opened.append((bus, device))

    fake.SpiDev = Port  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", fake)
    ring = open_spi_ring(RingSettings(leds=16, order="RGB"))
    show(ring, [(5, 6, 7)] * 16, 1.0)
    port = ring._spi.spi.port  # neopixel_spi's SPIDevice holds our bus
    assert opened == [(1, 0)] and port.max_speed_hz == FREQUENCY
    assert as_sent(shown(port, "RGB"), "RGB") == [(5, 6, 7)] * 16


def test_a_missing_encoder_is_a_driver_fault_and_the_bus_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("spidev")
    closed: list[bool] = []

    class Port(RecordingPort):
        def open(self, bus: int, device: int) -> None:
            pass

        def close(self) -> None:
            closed.append(True)

    fake.SpiDev = Port  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", fake)
    monkeypatch.setitem(sys.modules, "neopixel_spi", None)  # import neopixel_spi raises ImportError
    with pytest.raises(HardwareFault) as caught:
        open_spi_ring(RingSettings())
    assert caught.value.code == "ring_driver_missing" and "install-pi.sh" in caught.value.fix
    assert closed == [True]


def test_a_ring_pin_the_adapter_cannot_drive_is_refused_before_the_bus_opens() -> None:
    with pytest.raises(HardwareFault) as caught:
        open_spi_ring(RingSettings(pin=18))
    assert caught.value.code == "ring_pin_unusable" and "GPIO20" in str(caught.value)
    assert "pin = 20" in caught.value.fix


def test_the_reset_is_long_enough_for_the_datasheet() -> None:
    ring, port = spi_ring(12, "GRB")
    show(ring, [(0, 0, 0)] * 12, 1.0)
    zeros = len(port.writes[-1]) - len(port.writes[-1].lstrip(b"\0"))
    assert zeros * 8 * 1e9 / FREQUENCY >= RES_NS


@settings(max_examples=80, deadline=None)
@given(
    order=st.sampled_from(ORDERS),
    size=st.sampled_from([1, 12, 24, 60]),
    data=st.data(),
    brightness=st.sampled_from([1.0, 0.08]) | st.floats(0.0, 1.0),
)
def test_the_ring_sends_the_bytes_the_librarys_own_encoder_sends(
    order: str, size: int, data: st.DataObject, brightness: float
) -> None:
    """`ring_on`'s ring encodes a frame from a table (`looked_up`): byte for byte what
    neopixel_spi's bit-by-bit encoder sends, frame after frame (whole frames and single LEDs)."""
    import neopixel_spi

    ring, port = spi_ring(size, order)
    assert type(ring) is not neopixel_spi.NeoPixel_SPI and isinstance(ring, neopixel_spi.NeoPixel_SPI)
    library_port = RecordingPort()
    library = neopixel_spi.NeoPixel_SPI(
        SpidevBus(library_port), size, pixel_order=order, brightness=1.0, auto_write=False,
        frequency=FREQUENCY, reset_time=RESET_SECONDS, bit0=BIT0, bit1=BIT1,
    )  # fmt: skip
    show(ring, data.draw(st.lists(colour, min_size=size, max_size=size)), brightness)
    show(library, [(0, 0, 0)] * size, 1.0)
    for led, value in data.draw(st.lists(st.tuples(st.integers(0, size - 1), colour), max_size=5)):
        ring[led] = library[led] = value
        ring.show()
        library[:] = ring[:]  # every LED as the table-encoded ring holds it
        library.show()
        assert port.writes[-1] == library_port.writes[-1]
    library[:] = ring[:]
    ring.show()
    library.show()
    assert port.writes[-1] == library_port.writes[-1]


def test_a_library_that_encodes_otherwise_keeps_its_own_encoder(caplog: pytest.LogCaptureFixture) -> None:
    """A neopixel_spi release whose bytes differ from `SPI_CODES` (here: a 1 sent as 4 high SPI
    bits, its default) is not overridden: the ring sends that release's own bytes, and says so."""
    import neopixel_spi

    class OtherRelease(neopixel_spi.NeoPixel_SPI):  # type: ignore[misc]
        def _transmogrify(self, buffer: bytearray) -> None:
            self._spibuf[:] = b"".join(
                bytes(0b11110000 if byte >> bit & 1 else BIT0 for bit in range(7, -1, -1)) for byte in buffer
            )

    def ring_of(kind: type) -> tuple[Any, RecordingPort]:
        port = RecordingPort()
        ring = kind(
            SpidevBus(port), 12, pixel_order="GRB", brightness=1.0, auto_write=False,
            frequency=FREQUENCY, reset_time=RESET_SECONDS, bit0=BIT0, bit1=BIT1,
        )  # fmt: skip
        return ring, port

    ours, ours_port = ring_of(looked_up(OtherRelease))
    theirs, theirs_port = ring_of(OtherRelease)
    for ring in (ours, theirs):
        ring.fill((200, 17, 3))
        ring.show()
        ring[5] = (1, 255, 128)
        ring.show()
    assert ours_port.writes == theirs_port.writes
    assert 0b11110000 in ours_port.writes[-1]
    assert "its own encoder is used" in caplog.text
    assert looked_up(neopixel_spi.NeoPixel_SPI) is not looked_up(OtherRelease)


def test_the_librarys_own_release_takes_the_table() -> None:
    """With the release the tests run, the first frame's check agrees and the table encodes."""
    ring, port = spi_ring(12, "GRB")
    show(ring, [(9, 99, 199)] * 12, 1.0)
    assert ring.agrees is True
    assert BIT1 in port.writes[-1]
