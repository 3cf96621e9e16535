"""A hardware fault never stops the table: each part's failure is reported, retried, and survived.

The Pi side of `build_runtime` runs here with its drivers replaced at the
boundary: the real ``mfrc522`` driver against the emulated chip (whose SPI
device can be made to vanish, or whose chip can stop answering), ring openers
that raise what the real drivers raise, and buttons on gpiozero's mock pins
that fail to open first. Each test checks the three things a maker relies on:
the console says what is wrong and how to fix it, ``/api/state`` carries it for
the page, and the rest of the table keeps playing; then the part comes back.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory, MockPin

import companion.run.startup as app_module
from companion.hardware.buttons import Buttons
from companion.hardware.health import HardwareFault, Health, diagnose
from companion.hardware.ring import SimulatedRing
from companion.records.trekking import TREKKING
from companion.run.runtime import Runtime
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config, RingSettings
from tests.support import fake_mfrc522 as fake_mfrc522
from tests.support.daemon import free_port
from tests.support.fake_mfrc522 import Chip, Tag, install
from tests.support.tables import FAST_BUTTONS
from tests.support.wire import wait_for

A = Tag([0x04, 0xA1, 0xB2, 0xC3])


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Console(list[str]):
    def __call__(self, line: str) -> None:
        self.append(line)

    def about(self, part: str) -> list[str]:
        return [line for line in self if line.startswith(f"{part}:")]


def pi_runtime(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: Clock,
    console: Console,
    ring_opener: Any = None,
    buttons: Any = None,
) -> Runtime:
    """`build_runtime` as on a Pi, with the ring and buttons given (a working fake by default)."""
    config = Config(buttons=FAST_BUTTONS, ring=RingSettings(leds=12))
    store = Store(tmp_path, TREKKING)
    new_game(store, ["Ann", "Ben"], config, seed=3, mock=False)
    store.close()
    monkeypatch.setattr(app_module, "open_spi_ring", ring_opener or (lambda s: SimulatedRing(s.leds)))
    factory = MockFactory()
    monkeypatch.setattr(
        app_module, "Buttons", buttons or (lambda settings, press: Buttons(settings, press, factory))
    )
    return build_runtime(config, tmp_path, mock=False, pin="2468", say=console, clock=clock)


def status(rt: Runtime, part: str) -> dict[str, Any]:
    (found,) = [s for s in rt.health.as_json() if s["part"] == part]
    return found


def lit(frame: list[tuple[int, int, int]]) -> bool:
    return any(colour != (0, 0, 0) for colour in frame)


def plays(rt: Runtime) -> bool:
    """The rest of the table still works: a take by typed card id is accepted."""
    expect = rt.table.expect()
    assert expect is not None
    return rt.tap(expect["choices"][0]).accepted


# --- the reader ------------------------------------------------------------------------------


def test_a_reader_whose_spi_device_is_missing_is_reported_with_the_fix_and_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    def no_spi(self: Any, bus: int, device: int) -> None:
        raise FileNotFoundError(2, "No such file or directory")  # what spidev raises without SPI

    monkeypatch.setattr(fake_mfrc522._SpiDev, "open", no_spi)
    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console)
    reader = status(rt, "reader")
    assert not reader["ok"] and "SPI is off" in reader["message"]
    assert "dtoverlay=spi1-1cs" in reader["fix"]
    assert len(console.about("reader")) == 1 and "NOT WORKING" in console.about("reader")[0]
    assert plays(rt), "the table goes on without its reader"

    assert rt.reader is not None
    rt.reader.poll()  # within the retry window: not retried, not repeated
    assert len(console.about("reader")) == 1

    monkeypatch.undo()  # SPI enabled (and the rest of the monkeypatching gone, harmlessly)
    install(chip)
    chip.put(A)
    clock.now += 6
    taps: list[str] = []
    rt.reader.on_tap = taps.append
    rt.reader.poll()
    assert status(rt, "reader")["ok"], rt.health.as_json()
    assert console.about("reader")[-1] == "reader: working again"
    assert taps == [A.uid_text]


def test_a_reader_that_stops_answering_later_is_reported_and_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console)
    assert status(rt, "reader") == {
        "part": "reader", "ok": True, "message": "MFRC522 answering (version 0x92)", "fix": "",
    }  # fmt: skip
    assert rt.reader is not None
    chip.regs[fake_mfrc522.VERSION] = 0x00  # unplugged: SPI reads zeros, polls only see "no tag"
    clock.now += 6
    rt.reader.poll()
    reader = status(rt, "reader")
    assert not reader["ok"] and "does not answer" in reader["message"] and "0x00" in reader["message"]
    assert "wiring.md" in reader["fix"]
    assert plays(rt)

    chip.regs[fake_mfrc522.VERSION] = 0x92  # plugged back in
    clock.now += 6
    rt.reader.poll()
    assert status(rt, "reader")["ok"]
    assert [line.split(":")[1].strip()[:11] for line in console.about("reader")] == [
        "MFRC522 ans", "NOT WORKING", "working aga",
    ]  # fmt: skip


def test_a_reader_whose_driver_raises_mid_poll_is_closed_and_reopened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console)
    assert rt.reader is not None
    calls = {"n": 0}
    real = fake_mfrc522._SpiDev.xfer2

    def flaky(self: Any, data: list[int]) -> list[int]:
        calls["n"] += 1
        raise OSError(121, "Remote I/O error")

    monkeypatch.setattr(fake_mfrc522._SpiDev, "xfer2", flaky)
    rt.reader.poll()  # must not raise
    assert not status(rt, "reader")["ok"] and "OSError" in status(rt, "reader")["message"]
    monkeypatch.setattr(fake_mfrc522._SpiDev, "xfer2", real)
    clock.now += 6
    rt.reader.poll()
    assert status(rt, "reader")["ok"]


@pytest.mark.parametrize(
    ("provider", "cause", "fix", "not_fix"),
    [
        # rpi-lgpio without a device tree (a PC, the rehearsal's chroot): no swap can help
        ("rpi-lgpio", "finds no Raspberry Pi GPIO chip", "chroot or container", "swaps them"),
        # the original RPi.GPIO on a Pi 5 or a 64-bit OS: the swap is the fix
        ("RPi.GPIO", "RPi.GPIO cannot reach", "must come from rpi-lgpio", "chroot"),
    ],
)
def test_a_reader_whose_gpio_module_refuses_the_board_names_the_fix_of_the_module_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, cause: str, fix: str, not_fix: str
) -> None:
    """Both RPi.GPIO and rpi-lgpio raise "This module can only be run on a Raspberry Pi!"."""
    from importlib import metadata

    import companion.hardware.reader as reader_module

    refusal = 'raise RuntimeError("This module can only be run on a Raspberry Pi!")\n'
    (tmp_path / "mfrc522.py").write_text(refusal)  # what `import mfrc522` does then
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mfrc522", raising=False)
    real_version = metadata.version

    def version(name: str) -> str:
        if name in ("rpi-lgpio", "RPi.GPIO"):
            if name == provider:
                return "0.6"
            raise metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(metadata, "version", version)
    with pytest.raises(HardwareFault) as caught:
        reader_module.open_mfrc522(25)
    message, how, *_ = diagnose("reader", caught.value)
    assert cause in message and "only be run on a Raspberry Pi" in message
    assert fix in how and not_fix not in how


# --- the ring --------------------------------------------------------------------------------


def test_a_ring_that_fails_to_open_is_reported_the_page_keeps_the_clock_and_it_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    attempts: list[int] = []
    real = SimulatedRing(12)

    def opener(settings: RingSettings) -> Any:
        attempts.append(1)
        if len(attempts) < 3:
            raise FileNotFoundError(2, "No such file or directory", "/dev/spidev0.0")
        return real

    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console, ring_opener=opener)
    ring = status(rt, "ring")
    assert not ring["ok"] and "SPI0" in ring["message"] and "dtparam=spi=on" in ring["fix"]
    rt.driver.step()
    assert lit(rt.ring_frame()), "the page still gets the Clock while the ring is down"
    assert plays(rt)
    clock.now += 6
    rt.driver.step()  # the second attempt fails too: said once only
    assert len(attempts) == 2 and len(console.about("ring")) == 1
    clock.now += 6
    rt.driver.step()
    assert status(rt, "ring")["ok"] and rt.driver.ring is real and real.shows == 1
    assert console.about("ring")[-1] == "ring: working again"


def test_a_ring_that_fails_while_showing_frames_is_reported_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    class Dying(SimulatedRing):
        def _transmit(self, buffer: bytearray) -> None:
            raise OSError(5, "Input/output error")

    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console, ring_opener=lambda s: Dying(s.leds))
    rt.driver.step()  # must not raise
    assert not status(rt, "ring")["ok"] and "OSError" in status(rt, "ring")["message"]
    rt.driver.step()
    assert lit(rt.ring_frame())
    for _ in range(5):  # it opens again each retry and fails at the first frame: said once, no flapping
        clock.now += 6
        rt.driver.step()
    assert len(console.about("ring")) == 1, console.about("ring")


def test_a_working_ring_is_reported_once_its_first_frame_is_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    clock, console = Clock(), Console()
    import adafruit_pixelbuf

    class NeoPixelLike(adafruit_pixelbuf.PixelBuf):  # type: ignore[misc]
        def _transmit(self, buffer: bytearray) -> None:
            pass

    real: list[Any] = []

    def opener(settings: RingSettings) -> Any:
        real.append(NeoPixelLike(settings.leds, byteorder="GRB", auto_write=False))
        return real[-1]

    rt = pi_runtime(tmp_path, monkeypatch, clock, console, ring_opener=opener)
    assert status(rt, "ring")["message"] == "starting"
    rt.driver.step()
    assert status(rt, "ring") == {"part": "ring", "ok": True, "message": "12 LEDs on GPIO10", "fix": ""}
    assert rt.driver.ring is real[0] and lit(rt.ring_frame()), "the page shows what the real ring shows"


def test_in_mock_mode_every_part_is_simulated_and_fine(tmp_path: Path) -> None:
    from tests.support.tables import make_runtime

    rt = make_runtime(tmp_path)
    assert [(s["part"], s["ok"], s["message"]) for s in rt.health.as_json()] == [
        (part, True, "simulated (mock mode)") for part in ("reader", "ring", "buttons")
    ]
    rt.stop()


# --- the buttons -----------------------------------------------------------------------------


def test_buttons_that_fail_to_open_are_reported_retried_and_then_pressed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    factory = MockFactory()
    attempts: list[int] = []

    def opener(settings: Any, press: Any, **options: Any) -> Buttons:
        attempts.append(1)
        if len(attempts) == 1:
            raise PermissionError(13, "Permission denied", "/dev/gpiochip0")
        return Buttons(settings, press, factory, **options)

    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console, buttons=opener)
    buttons = status(rt, "buttons")
    assert not buttons["ok"] and "gpiochip0" in buttons["message"]
    assert "usermod -aG spi,gpio trekking" in buttons["fix"]
    assert plays(rt)
    assert rt.button_keeper is not None
    rt.button_keeper.retry = 0.01
    rt.start()
    try:
        rt.button_keeper._stop.wait(0.5)
        assert status(rt, "buttons")["ok"], rt.health.as_json()
        before = rt.table.last
        pin = factory.pin(FAST_BUTTONS.confirm)
        pin.drive_low()
        pin.drive_high()
        assert rt.table.last is not before, "the reopened Confirm button reaches the table"
    finally:
        rt.stop()


class BreakablePin(MockPin):
    """A mock pin whose reads raise while ``broken`` is set, as a pin on a GPIO chip that went
    away (or whose line another program took) does after the buttons opened."""

    broken: ClassVar[dict[str, bool]] = {"now": False}

    def _get_state(self) -> Any:
        if self.broken["now"]:
            raise OSError(19, "No such device")
        return super()._get_state()


def test_buttons_that_fail_after_opening_are_reported_closed_reopened_and_pressed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    factory = MockFactory(pin_class=BreakablePin)
    monkeypatch.setattr(BreakablePin, "broken", {"now": False})
    opened: list[Buttons] = []

    def opener(settings: Any, press: Any, **options: Any) -> Buttons:
        opened.append(Buttons(settings, press, factory, **options))
        return opened[-1]

    clock, console = Clock(), Console()
    rt = pi_runtime(tmp_path, monkeypatch, clock, console, buttons=opener)
    assert status(rt, "buttons")["ok"] and len(opened) == 1
    keeper = rt.button_keeper
    assert keeper is not None
    keeper.retry = keeper.check_every = 0.01
    rt.start()
    try:
        BreakablePin.broken["now"] = True  # the chip goes away under open buttons
        assert wait_for(lambda: not status(rt, "buttons")["ok"]), rt.health.as_json()
        buttons = status(rt, "buttons")
        assert "GPIO" in buttons["message"] and "can no longer be read" in buttons["message"], buttons
        assert "lsof /dev/gpiochip0" in buttons["fix"] and "wiring.md" in buttons["fix"]
        assert buttons["code"] == "button_unreadable" and buttons["params"]["pin"].startswith("GPIO")
        assert "NOT WORKING" in console.about("buttons")[-1]
        assert all(button.closed for button in opened[0].buttons.values()), "the broken buttons are closed"
        assert plays(rt), "the table goes on without its buttons"

        BreakablePin.broken["now"] = False  # back: the keeper reopens them on its own
        assert wait_for(lambda: status(rt, "buttons")["ok"]), rt.health.as_json()
        assert len(opened) >= 2 and console.about("buttons")[-1] == "buttons: working again"
        before = rt.table.last
        pin = factory.pin(FAST_BUTTONS.confirm)
        pin.drive_low()
        pin.drive_high()
        assert rt.table.last is not before, "the reopened Confirm button reaches the table"
        # each cause said once, however many retries failed (the reopenings while the chip was away
        # fail to open, a second cause)
        faults = [line for line in console.about("buttons") if "NOT WORKING" in line]
        assert 1 <= len(faults) == len(set(faults)) <= 2, faults
    finally:
        rt.stop()


# --- the messages ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "exc", "cause", "fix"),
    [
        ("reader", ModuleNotFoundError("No module named 'spidev'"), "not installed", "install-pi.sh"),
        ("ring", ModuleNotFoundError("No module named 'neopixel_spi'"), "not installed", "pi.sh"),
        ("ring", PermissionError(13, "Permission denied", "/dev/spidev0.0"), "device", "group spi"),
        ("ring", FileNotFoundError(2, "No such file", "/dev/spidev0.0"), "SPI0", "dtparam=spi=on"),
        ("buttons", OSError("weird"), "buttons failed", "wiring.md"),
        ("buttons", BadPinFactory("Unable to load any default pin factory!"), "no pin library", "gpiochip0"),
    ],
)
def test_each_fault_names_its_likely_cause_and_fix(part: str, exc: Exception, cause: str, fix: str) -> None:
    message, how, *_ = diagnose(part, exc)
    assert cause in message and fix in how


def test_health_says_each_change_once() -> None:
    said: list[str] = []
    health = Health(said.append)
    health.fail("ring", OSError("x"))
    health.fail("ring", OSError("x"))
    health.ok("ring", "24 LEDs")
    health.ok("ring", "24 LEDs")
    assert len(said) == 2 and said[1] == "ring: working again"


# --- the whole process -----------------------------------------------------------------------


def test_companion_run_on_a_pi_without_its_hardware_serves_the_table_and_says_why(tmp_path: Path) -> None:
    """The rehearsal's situation: a Pi whose drivers cannot reach anything. No exit, no traceback."""
    from tests.support.daemon import first_state

    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text('[table]\nhost = "127.0.0.1"\n')
    env = {**os.environ, "COMPANION_BOARD_MODEL": "Raspberry Pi 4 Model B Rev 1.5"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--data-dir", str(tmp_path / "data"), "--port", str(port),
         "--pin", "2468", "--config", str(config)],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        import time
        import urllib.request

        state = first_state(port, proc)
        parts = {s["part"]: s for s in state["hardware"]}
        assert set(parts) == {"reader", "ring", "buttons"}
        assert not any(s["ok"] for s in parts.values()), parts
        assert all(s["message"] and s["fix"] for s in parts.values())
        assert state["expect"]["kind"] in ("reveal", "itinerary", "take")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
            assert page.status == 200
        time.sleep(1)
        assert proc.poll() is None, "the companion keeps running"
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    text = out.decode() + err.decode()
    assert "Traceback" not in text, text[-3000:]
    assert "PinFactoryFallback" not in text, text[-3000:]  # our fault line says it, once
    for part in ("reader", "ring", "buttons"):
        assert f"{part}: NOT WORKING" in text, text[-3000:]


def test_the_composition_root_imports_no_hardware_driver_until_it_needs_one() -> None:
    """gpiozero alone was a third of the composition root's import (start-up, serving, console)
    under emulation: the drivers are imported when a ring, reader or buttons are opened, so
    `companion pin`, `doctor --help` and a mock table start without them."""
    drivers = ["gpiozero", "neopixel_spi", "busio", "board", "mfrc522", "RPi", "spidev"]
    root = "companion.run.startup, companion.run.serving, companion.run.console"
    code = f"import json, sys, {root}; print(json.dumps(sorted(set(sys.modules) & set(sys.argv[1:]))))"
    out = subprocess.run([sys.executable, "-c", code, *drivers], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[]", f"imported at start: {out.stdout.strip()}"
