"""The ring over SPI0, proven on a PC: the bytes the real neopixel_spi writes, on the line each
board's controller makes of them, read back by the parts a ring may carry.

Each test builds the ring as `companion.hardware.ring_spi` does on a Pi (the real
``neopixel_spi.NeoPixel_SPI`` on our `SpidevBus`, with the board's `Timing`), lets it show a
frame through `companion.hardware.ring.show` (the brightness, its floor and the white channel),
records what reaches spidev, turns it into the MOSI waveform at the clock the board really gives,
with its controller's idle clocks (and, for the auxiliary SPI1 without DMA, its late refills),
and reads it back with the WS2812B, WS2812B-V5 and SK6812 of tests/support/ws2812b.py. What only
a real board proves: docs/ring.md.
"""

from __future__ import annotations

import errno
import itertools
import random
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
    DEFAULT_TIMING,
    RESET_SECONDS,
    TIMINGS,
    SpidevBus,
    Timing,
    frame_bytes,
    looked_up,
    open_spi_ring,
    ring_on,
    timing_for,
)
from companion.util.config import RingSettings
from tests.support.ws2812b import (
    AUX,
    AUX_ON_TIME,
    DATASHEETS,
    PARTS,
    RP1,
    RP1_IDLING,
    SK6812,
    SPI0,
    WS2812B,
    Controller,
    OutOfTolerance,
    Part,
    aux_clock,
    decode,
    mosi_waveform,
    rp1_clock,
    spi0_clock,
    violations,
)

RGB_ORDERS = ["".join(p) for p in itertools.permutations("RGB")]
RGBW_ORDERS = ["".join(p) for p in itertools.permutations("RGBW")]
#: Every order `[ring] order` accepts: the 6 orders of RGB and the 24 of RGBW.
ORDERS = RGB_ORDERS + RGBW_ORDERS
#: The boards and the core clock their SPI0 divides: pinned by the installer on a Pi 3 / Zero 2 W
#: (250 MHz) and a Pi 4 (500 MHz); a Pi 5's RP1 has its own fixed 200 MHz.
PI3, ZERO, PI4, PI5 = (
    "Raspberry Pi 3 Model B Rev 1.2",
    "Raspberry Pi Zero 2 W Rev 1.0",
    "Raspberry Pi 4 Model B Rev 1.5",
    "Raspberry Pi 5 Model B Rev 1.0",
)
CORE = {PI3: 250e6, ZERO: 250e6, PI4: 500e6}
BOARDS = [ZERO, PI3, PI4, PI5]


def lines(model: str) -> list[tuple[float, Controller]]:
    """(the SPI clock, the controller) of the ring's line on ``model``: SPI0 of a Pi 3 / Zero 2 W /
    4 with its idle clock per byte; a Pi 5's RP1 without one, and with one (in case it idles)."""
    asked = timing_for(model).frequency
    if model == PI5:
        return [(rp1_clock(asked), RP1), (rp1_clock(asked), RP1_IDLING)]
    return [(spi0_clock(CORE[model], asked), SPI0)]


#: Every (board, clock, controller) the ring's line runs on.
LINES = [(model, clock, controller) for model in BOARDS for clock, controller in lines(model)]


class RecordingPort:
    """spidev's ``SpiDev`` as the bus uses it: its settings and every transfer written."""

    def __init__(self) -> None:
        self.max_speed_hz = 0
        self.mode = -1
        self.writes: list[bytes] = []

    def writebytes2(self, data: Any) -> None:
        self.writes.append(bytes(data))


def spi_ring(
    leds: int, order: str, bufsiz: int = 4096, timing: Timing = DEFAULT_TIMING
) -> tuple[Any, RecordingPort]:
    port = RecordingPort()
    return ring_on(SpidevBus(port, bufsiz), RingSettings(leds=leds, order=order), timing), port


def latched(data: bytes, clock: float, controller: Controller, part: Part, order: str, seed: int = 0) -> Any:
    """What ``part`` latches from ``data`` sent at ``clock`` by ``controller``."""
    return part.latches(mosi_waveform(data, clock, controller, random.Random(seed)), order)


def shown(port: RecordingPort, order: str, model: str = PI4) -> list[dict[str, int]]:
    """The colours every part latched from the last transfer on ``model``'s line (the same for all)."""
    seen = []
    for clock, controller in lines(model):
        for part in PARTS:
            frames = latched(port.writes[-1], clock, controller, part, order)
            assert len(frames) == 1, f"one write, one latch ({part.sheet.name}, {controller.name})"
            seen.append(frames[0])
    assert all(frame == seen[0] for frame in seen)
    return seen[0]


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
    line=st.sampled_from(LINES),
)
def test_every_order_and_brightness_is_latched_right_by_every_part_on_every_board(
    order: str, size: int, data: st.DataObject, brightness: float, line: tuple[str, float, Controller]
) -> None:
    """At the clock each board really gives, with its controller's idle clocks: one latch per
    frame, every LED the colour meant, for the WS2812B, the WS2812B-V5 and the SK6812 alike."""
    model, clock, controller = line
    frame = data.draw(st.lists(colour, min_size=size, max_size=size))
    timing = timing_for(model)
    ring, port = spi_ring(size, order, timing=timing)
    show(ring, frame, brightness)
    assert port.max_speed_hz == timing.frequency and port.mode == 0
    assert len(port.writes[-1]) == frame_bytes(size, len(order), timing.frequency)
    white = "W" in order
    for part in PARTS:
        frames = latched(port.writes[-1], clock, controller, part, order)
        assert len(frames) == 1, (model, part.sheet.name)
        decoded = as_sent(frames[0], order)
        assert decoded == pixels(frame, brightness, white), (model, part.sheet.name)
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


#: Today's SPI1 frame (before issue 34): 6.4 MHz asked, a 1 as 0b11111000, on the auxiliary SPI.
SPI1_TIMING = Timing(6_400_000, BIT0, 0b11111000, 6.25e6)


@pytest.mark.parametrize("model", [ZERO, PI3, PI4])
def test_the_old_spi1_frame_flickers_on_the_auxiliary_spi_and_the_spi0_frame_never_does(model: str) -> None:
    """Issue 34. The auxiliary SPI1 of a Pi 3 / Zero 2 W / 4 has no DMA: its 12-byte FIFO is
    refilled by interrupt about 116 times a frame, and a refill late by ~3 us on average leaves
    the line low long enough for a part to latch mid-frame and start again at LED 0. With every
    refill on time its idle clocks alone are harmless: the refills are what breaks it."""
    frame = [(200, 40, 10), (0, 120, 255), (255, 255, 255), (3, 3, 3)] * 6
    meant = pixels(frame, 1.0)
    old, old_port = spi_ring(24, "GRB", timing=SPI1_TIMING)
    show(old, frame, 1.0)
    old_clock = aux_clock(CORE[model], SPI1_TIMING.frequency)
    assert old_clock == 6.25e6
    for part in PARTS:
        on_time = latched(old_port.writes[-1], old_clock, AUX_ON_TIME, part, "GRB")
        assert [as_sent(f, "GRB") for f in on_time] == [meant]
        wrong = sum(
            [as_sent(f, "GRB") for f in latched(old_port.writes[-1], old_clock, AUX, part, "GRB", seed)]
            != [meant]
            for seed in range(40)
        )
        assert wrong >= 38, f"{part.sheet.name}: {wrong} of 40 frames wrong"
    new, new_port = spi_ring(24, "GRB", timing=timing_for(model))
    show(new, frame, 1.0)
    for clock, controller in lines(model):
        for part in PARTS:
            assert [
                as_sent(f, "GRB") for f in latched(new_port.writes[-1], clock, controller, part, "GRB")
            ] == [meant]


#: The windows each board's waveform misses, by datasheet (docs/ring.md, "The timing sent"):
#: no 8-SPI-bit waveform is inside all three datasheets (tests/support/ws2812b.py says why).
MISSES = {
    ZERO: {"WS2812B": {"T0L"}, "WS2812B-V5": {"T0L", "T1L"}, "SK6812": set()},
    PI3: {"WS2812B": {"T0L"}, "WS2812B-V5": {"T0L", "T1L"}, "SK6812": set()},
    PI4: {"WS2812B": {"T0L"}, "WS2812B-V5": {"T0L"}, "SK6812": set()},
    PI5: {"WS2812B": {"T1H", "T1L"}, "WS2812B-V5": set(), "SK6812": set()},
}


@pytest.mark.parametrize("model", BOARDS)
def test_each_boards_waveform_against_each_datasheet(model: str) -> None:
    """What each board sends, with its idle clocks, against each datasheet's windows: every part
    can tell a 0 from a 1 by its high time; the windows missed are the ones docs/ring.md lists."""
    timing = timing_for(model)
    ring, port = spi_ring(12, "GRB", timing=timing)
    show(ring, [(0, 255, 0), (170, 85, 0)] * 6, 1.0)  # every pair of bits: 00, 01, 10, 11
    clock, controller = lines(model)[0]
    assert timing.clock == pytest.approx(clock), "the clock the board gives, as ring_spi.py says"
    line = mosi_waveform(port.writes[-1], clock, controller)
    missed = {sheet.name: set(violations(line, sheet)) for sheet in DATASHEETS}
    assert missed == MISSES[model]
    highs = {high for high, _ in [(s.ns, 0) for s in line if s.high]}
    for part in PARTS:  # the 0 and the 1 fall well either side of every part's threshold
        assert max(h for h in highs if h < part.threshold_ns) <= part.sheet.t0h[1]
        assert min(h for h in highs if h > part.threshold_ns) >= part.sheet.t1h[0] - 10


@pytest.mark.parametrize("model", BOARDS)
def test_the_frame_latches_even_for_parts_that_need_a_long_reset(model: str) -> None:
    """The WS2812B-V5 latches only after 280 us low; the gaps sent are 300 us at least."""
    ring, port = spi_ring(12, "GRB", timing=timing_for(model))
    show(ring, [(1, 2, 3)] * 12, 1.0)
    clock, _ = lines(model)[0]
    zeros = len(port.writes[-1]) - len(port.writes[-1].lstrip(b"\0"))
    assert zeros * 8 * 1e9 / clock >= max(sheet.reset_ns for sheet in DATASHEETS)


def test_the_libraries_default_one_bit_is_outside_the_datasheet() -> None:
    """neopixel_spi's default 1 (0b11110000) on a Pi 4's SPI0 (148 ns a clock) is 592 ns high:
    neither the WS2812B's T0H nor its T1H, which is why the Pi 3 and 4 send 0b11111000."""
    import neopixel_spi

    port = RecordingPort()
    ring = neopixel_spi.NeoPixel_SPI(SpidevBus(port), 12, pixel_order="GRB", auto_write=False,
                                     frequency=DEFAULT_TIMING.frequency)  # fmt: skip
    ring.fill((255, 255, 255))
    ring.show()
    with pytest.raises(OutOfTolerance, match="T1H"):
        decode(port.writes[-1], DEFAULT_TIMING.clock, "GRB", WS2812B, SPI0)
    assert TIMINGS["Raspberry Pi 4"].bit1 == 0b11111000


@pytest.mark.parametrize(
    ("model", "clock"),
    # The SPI clock is the core clock divided, the divider worked out for the core clock the
    # kernel read (raspberrypi/linux#3381): unpinned, an idle Pi 4 (500 -> 200 MHz) divides 200 MHz
    # by 74, and a Pi 3 whose divider was worked out at 400 MHz divides an idle 250 MHz by 58.
    [(PI4, 200e6 / 74), (PI3, 250e6 / 58)],
)
def test_an_unpinned_core_clock_shows_wrong_colours(model: str, clock: float) -> None:
    frame = [(0, 0, 0), (255, 255, 255), (1, 2, 4)] * 4
    ring, port = spi_ring(12, "GRB", timing=timing_for(model))
    show(ring, frame, 1.0)
    wrong = [
        part.sheet.name
        for part in PARTS
        if [as_sent(f, "GRB") for f in latched(port.writes[-1], clock, SPI0, part, "GRB")]
        != [pixels(frame, 1.0)]
    ]
    assert wrong, "a part reads another colour"
    decode(
        port.writes[-1], timing_for(model).clock, "GRB", SK6812, SPI0
    )  # pinned: inside the SK6812's windows
    with pytest.raises(OutOfTolerance):
        decode(port.writes[-1], clock, "GRB", SK6812, SPI0)


def test_a_gap_inside_a_frame_latches_a_real_part_half_way() -> None:
    """A pause mid-frame (a transfer split in two, a FIFO that ran dry): the datasheet's part
    refuses it, a real one latches what it has and starts again at LED 0."""
    ring, port = spi_ring(12, "GRB")
    show(ring, [(9, 9, 9)] * 12, 1.0)
    data = port.writes[-1]
    middle = len(data) // 2
    split = data[:middle] + b"\0" * 20 + data[middle:]  # 20 bytes: about 27 us low
    with pytest.raises(OutOfTolerance, match="a low of 2"):  # the SK6812's windows hold the rest
        decode(split, DEFAULT_TIMING.clock, "GRB", SK6812, SPI0)
    for part in PARTS:
        assert len(latched(split, DEFAULT_TIMING.clock, SPI0, part, "GRB")) == 2


def test_a_frame_longer_than_spidev_sends_at_once_is_refused_with_the_fix() -> None:
    assert frame_bytes(60, 4) == 60 * 4 * 8 + 2 * round(DEFAULT_TIMING.frequency * RESET_SECONDS / 8)
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


@pytest.mark.parametrize(
    ("error", "code", "fix"),
    [
        (FileNotFoundError(errno.ENOENT, "No such file or directory"), "ring_spi_missing", "dtparam=spi=on"),
        (PermissionError(errno.EACCES, "Permission denied"), "ring_spi_refused", "usermod -aG spi"),
    ],
)
def test_a_missing_or_refused_spi0_device_names_its_fix(
    monkeypatch: pytest.MonkeyPatch, error: OSError, code: str, fix: str
) -> None:
    """No SPI0 device names the boot setting; a device refused to this user names the group."""
    fake = types.ModuleType("spidev")

    class Failing:
        def open(self, bus: int, device: int) -> None:
            raise error

    fake.SpiDev = Failing  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", fake)
    monkeypatch.setattr("companion.hardware.ring_spi.os.path.exists", lambda path: code != "ring_spi_missing")
    with pytest.raises(HardwareFault) as caught:
        open_spi_ring(RingSettings())
    assert caught.value.code == code and fix in caught.value.fix
    assert "/dev/spidev0.0" in str(caught.value)


def test_an_opened_bus_is_spi0_at_the_boards_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("spidev")
    opened: list[tuple[int, int]] = []

    class Port(RecordingPort):
        def open(self, bus: int, device: int) -> None:
            opened.append((bus, device))

    fake.SpiDev = Port  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spidev", fake)
    for model in BOARDS:
        monkeypatch.setattr("companion.hardware.ring_spi.board_model", lambda model=model: model)
        ring = open_spi_ring(RingSettings(leds=16, order="RGB"))
        show(ring, [(5, 6, 7)] * 16, 1.0)
        port = ring._spi.spi.port  # neopixel_spi's SPIDevice holds our bus
        assert opened[-1] == (0, 0) and port.max_speed_hz == timing_for(model).frequency
        assert as_sent(shown(port, "RGB", model), "RGB") == [(5, 6, 7)] * 16


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
        open_spi_ring(RingSettings(pin=20))
    assert caught.value.code == "ring_pin_unusable" and "GPIO10" in str(caught.value)
    assert "pin = 10" in caught.value.fix and "pin 19" in caught.value.fix


@settings(max_examples=80, deadline=None)
@given(
    order=st.sampled_from(ORDERS),
    size=st.sampled_from([1, 12, 24, 60]),
    data=st.data(),
    brightness=st.sampled_from([1.0, 0.08]) | st.floats(0.0, 1.0),
    timing=st.sampled_from(sorted(set(TIMINGS.values()), key=repr)),
)
def test_the_ring_sends_the_bytes_the_librarys_own_encoder_sends(
    order: str, size: int, data: st.DataObject, brightness: float, timing: Timing
) -> None:
    """`ring_on`'s ring encodes a frame from a table (`looked_up`): byte for byte what
    neopixel_spi's bit-by-bit encoder sends, frame after frame (whole frames and single LEDs)."""
    import neopixel_spi

    ring, port = spi_ring(size, order, timing=timing)
    assert type(ring) is not neopixel_spi.NeoPixel_SPI and isinstance(ring, neopixel_spi.NeoPixel_SPI)
    library_port = RecordingPort()
    library = neopixel_spi.NeoPixel_SPI(
        SpidevBus(library_port), size, pixel_order=order, brightness=1.0, auto_write=False,
        frequency=timing.frequency, reset_time=RESET_SECONDS, bit0=timing.bit0, bit1=timing.bit1,
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
            frequency=DEFAULT_TIMING.frequency, reset_time=RESET_SECONDS, bit0=BIT0,
            bit1=DEFAULT_TIMING.bit1,
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
    assert DEFAULT_TIMING.bit1 in port.writes[-1]
