"""`companion doctor` against the emulated MFRC522, a recording ring and gpiozero's mock pins.

The maker's hands are played by the ``say`` hook: when the doctor asks for a
press, the test drives that button's mock pin, as a finger would; when it asks
what the ring showed, the test answers from the frames the ring really received.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from companion.hardware.buttons import Buttons
from companion.hardware.reader import open_mfrc522
from companion.hardware.ring import SimulatedRing
from companion.run.doctor import Doctor, Holder, Parts, part_holders, spi_enabled
from companion.util.config import Config, colour_rgb, load_config
from tests.support import fake_mfrc522 as fake_mfrc522
from tests.support.daemon import free_port
from tests.support.fake_mfrc522 import Chip, Tag

A = Tag([0x04, 0xA1, 0xB2, 0xC3])
OFF = (0, 0, 0)


class RecordingRing(SimulatedRing):
    def __init__(self, leds: int) -> None:
        super().__init__(leds)
        self.frames: list[list[tuple[int, int, int]]] = []

    def _transmit(self, buffer: bytearray) -> None:
        super()._transmit(buffer)
        self.frames.append(self.shown)


def tmp_missing(beside: Path) -> Path:
    """A boot configuration that does not exist (the newer path on an older system)."""
    return beside.with_name("firmware-config.txt")


class Bench:
    """The maker at the bench: the wiring, the hands and the eyes."""

    def __init__(self, tmp_path: Path, presses: tuple[str, ...] = ("crystal", "confirm", "undo")) -> None:
        self.config_path = tmp_path / "config.toml"
        self.config_path.write_text(
            f'[table]\nhost = "127.0.0.1"\nport = {free_port()}\n'
            "[ring]\nleds = 12\nbrightness = 1.0\n"
            "[buttons]\nundo_hold = 0.1\nbounce = 0.0\n"
        )
        self.config = load_config(str(self.config_path))
        self.spi = tmp_path / "spidev1.0"  # the reader's bus
        self.spi.write_bytes(b"")
        self.ring_device = tmp_path / "spidev0.0"  # the ring's
        self.ring_device.write_bytes(b"")
        self.boot = tmp_path / "config.txt"
        self.boot.write_text("dtparam=spi=on\n[all]\ndtoverlay=spi1-1cs\n")
        self.service = "inactive"
        self.model = ""  # a PC: no core clock to pin
        self.clocks: tuple[int | None, int | None] = (None, None)
        self.old_version: int | None = None
        self.holders: list[Holder] = []
        self.stuck: tuple[str, ...] = ()
        self.factory = MockFactory()
        self.ring: RecordingRing | None = None
        self.presses = presses
        self.lines: list[str] = []
        self.answers: list[str] = []

    def parts(self) -> Parts:
        def ring(config: Config) -> RecordingRing:
            self.ring = RecordingRing(config.ring.leds)
            return self.ring

        def buttons(config: Config, press: Any) -> Buttons:
            opened = Buttons(config.buttons, press, self.factory)
            for name in self.stuck:  # a switch wired across its joined legs: low from the start
                self.factory.pin(getattr(config.buttons, name)).drive_low()
            return opened

        return Parts(
            reader=lambda config: open_mfrc522(config.reader.rst_pin),
            ring=ring,
            buttons=buttons,
            spi_device=self.spi,
            ring_device=self.ring_device,
            boot_configs=(tmp_missing(self.boot), self.boot),
            service=lambda: self.service,
            holders=lambda: self.holders,
            model=lambda: self.model,
            core_clocks=lambda: self.clocks,
            old_reader=lambda config: self.old_version,
        )

    def say(self, line: str) -> None:
        self.lines.append(line)
        for name, cue in (("crystal", "Press Crystal"), ("confirm", "Press Confirm"), ("undo", "Hold Undo")):
            if cue in line and name in self.presses:
                pin = self.factory.pin(getattr(self.config.buttons, name))
                pin.drive_low()
                time.sleep(0.3 if name == "undo" else 0.01)
                pin.drive_high()

    def ask(self, question: str) -> str:
        self.answers.append(question)
        return "y"

    def doctor(self, data_dir: Path, **kw: Any) -> Doctor:
        return Doctor(str(self.config_path), data_dir, say=self.say, ask=self.ask, parts=self.parts(),
                      wait=kw.pop("wait", 2.0), led_step=0.0, **kw)  # fmt: skip


def test_every_check_passes_on_a_well_wired_table(tmp_path: Path, chip: Chip) -> None:
    chip.put(A)
    bench = Bench(tmp_path)
    doctor = bench.doctor(tmp_path / "data")
    assert doctor.run(), "\n".join(bench.lines)
    names = [c.name for c in doctor.checks]
    assert names == ["config", "data directory", "service", "SPI1", "reader", "tag", "SPI0",
                     "ring order", "ring LEDs", "ring colours", "crystal button", "confirm button",
                     "undo button", "page"]  # fmt: skip
    assert all(line.startswith("✓") for line in bench.lines if line[:1] in "✓✗○")
    assert "version register 0x92" in doctor.checks[4].detail and A.uid_text in doctor.checks[5].detail
    assert "(MIFARE Classic, 4-byte UID)" in doctor.checks[5].detail
    # the ring really lit each LED alone, in order, then red, green and blue, then each
    # player's colour on the whole ring
    assert bench.ring is not None
    frames = bench.ring.frames
    for led in range(12):
        assert [i for i, c in enumerate(frames[led]) if c != OFF] == [led]
    assert [f[0] for f in frames[12:15]] == [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    assert [f[0] for f in frames[16:20]] == [colour_rgb(c) for c in bench.config.palette]
    assert all(c == OFF for c in frames[-1])
    assert "red, then green, then blue" in bench.answers[0] and "all 12 LEDs" in bench.answers[1]
    assert "blue, orange, green, pink" in bench.answers[2]


def test_each_failure_is_a_cross_with_its_fix(tmp_path: Path, chip: Chip) -> None:
    bench = Bench(tmp_path, presses=("crystal", "undo"))
    bench.spi.unlink()  # SPI1 off
    bench.ring_device.unlink()  # SPI0 off
    bench.boot.write_text("#dtparam=spi=on\n#dtoverlay=spi1-1cs\n[pi5]\ndtoverlay=spi1-1cs\n")
    bench.ask = lambda question: "n"  # type: ignore[method-assign]
    doctor = bench.doctor(tmp_path / "data", wait=0.3)  # no tag on the reader; Confirm never pressed
    assert not doctor.run()
    by_name = {c.name: c for c in doctor.checks}
    assert not by_name["SPI1"].ok and "add the line dtoverlay=spi1-1cs" in by_name["SPI1"].fix
    assert "has no dtoverlay=spi1-1cs" in by_name["SPI1"].detail and str(bench.boot) in by_name["SPI1"].detail
    assert not by_name["tag"].ok and "Which tags to buy" in by_name["tag"].fix
    assert not by_name["SPI0"].ok and "has no dtparam=spi=on" in by_name["SPI0"].detail
    assert "add the line dtparam=spi=on" in by_name["SPI0"].fix
    assert not by_name["ring order"].ok and "order in [ring]" in by_name["ring order"].fix
    assert not by_name["ring LEDs"].ok and "twelve_oclock_led" in by_name["ring LEDs"].fix
    assert "leds in [ring]" in by_name["ring LEDs"].fix and "(12 now)" in by_name["ring LEDs"].fix
    assert not by_name["ring colours"].ok
    assert by_name["crystal button"].ok and by_name["undo button"].ok
    assert not by_name["confirm button"].ok and "GPIO6" in by_name["confirm button"].fix
    assert "never to 3.3 V" in by_name["confirm button"].fix and "diagonally" in by_name["confirm button"].fix
    text = "\n".join(bench.lines)
    assert "✗ SPI1: " in text and "\n    fix: add the line dtoverlay=spi1-1cs" in text


def test_a_reader_that_does_not_answer_and_a_bad_config(
    tmp_path: Path, chip: Chip, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no chip on the bus: MISO pulled high, every byte reads 0xFF
    monkeypatch.setattr(fake_mfrc522._SpiDev, "xfer2", lambda self, data: [0xFF] * len(data))
    bench = Bench(tmp_path)
    doctor = bench.doctor(tmp_path / "data")
    doctor.run()
    reader = next(c for c in doctor.checks if c.name == "reader")
    assert not reader.ok and "0xff" in reader.detail and "wiring.md" in reader.fix
    assert "tag" not in [c.name for c in doctor.checks], "no tag is asked for when the chip is silent"

    bench.config_path.write_text("[ring]\nleds = 13\n")
    doctor = bench.doctor(tmp_path / "data")
    assert not doctor.run()
    assert doctor.checks[0].name == "config" and "line 2" in doctor.checks[0].detail


def test_a_data_directory_that_cannot_be_written(tmp_path: Path, chip: Chip) -> None:
    bench = Bench(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    doctor = bench.doctor(blocker / "data")
    doctor.run()
    data = next(c for c in doctor.checks if c.name == "data directory")
    assert not data.ok and "chown" in data.fix


def test_the_command_runs_off_a_pi_and_says_what_is_missing(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "companion", "doctor", "--config", str(bench.config_path),
         "--data-dir", str(tmp_path / "data"), "--wait", "0.2"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    assert "✓ config" in out.stdout and "✓ page" in out.stdout
    assert "✗ reader" in out.stdout and "fix: " in out.stdout


def test_a_stuck_button_is_found_at_rest_with_the_4_pin_switch_fix(tmp_path: Path, chip: Chip) -> None:
    """Pressed at rest: a 4-pin switch across its joined legs. The old doctor waited for an edge
    that never comes and sent the maker looking for a 3.3 V leg."""
    chip.put(A)
    bench = Bench(tmp_path, presses=("confirm", "undo"))
    bench.stuck = ("crystal",)
    doctor = bench.doctor(tmp_path / "data")
    assert not doctor.run()
    by_name = {c.name: c for c in doctor.checks}
    crystal = by_name["crystal button"]
    assert not crystal.ok and "GPIO5 reads pressed while nobody touches" in crystal.detail
    assert "diagonally opposite" in crystal.fix and "3.3 V" not in crystal.fix
    assert not any("Press Crystal" in line for line in bench.lines), "no press is asked of a stuck button"
    assert by_name["confirm button"].ok and by_name["undo button"].ok
    assert [c.name for c in doctor.checks if not c.ok] == ["crystal button"]


def test_each_bus_is_read_from_the_boot_config_and_the_device_and_its_fix_never_contradicts_it(
    tmp_path: Path, chip: Chip
) -> None:
    """Issue 34: "add dtoverlay=spi1-1cs" came right after a line confirming it was there. Now each
    bus is one line: the setting there and no device is a reboot, never "add the line"."""
    bench = Bench(tmp_path)
    bench.spi.unlink()
    bench.ring_device.unlink()
    bench.boot.write_text("[all]\ndtparam=i2c_arm=on,spi=on\ndtoverlay=spi1-1cs\n")
    doctor = bench.doctor(tmp_path / "data", wait=0.1)
    doctor.check_spi()
    doctor.check_ring_bus()
    for spi, line in zip(doctor.checks[-2:], ("dtoverlay=spi1-1cs", "dtparam=spi=on"), strict=True):
        assert not spi.ok and f"has {line} but" in spi.detail and spi.fix.startswith("sudo reboot"), spi
        assert "add" not in spi.fix
    bench.boot.write_text("#dtparam=spi=on\n")
    doctor.check_spi()
    doctor.check_ring_bus()
    for spi, line in zip(doctor.checks[-2:], ("dtoverlay=spi1-1cs", "dtparam=spi=on"), strict=True):
        assert f"has no {line}" in spi.detail and f"add the line {line}" in spi.fix, spi
    bench.spi.write_bytes(b"")
    bench.ring_device.write_bytes(b"")
    doctor.check_spi()
    doctor.check_ring_bus()
    assert doctor.checks[-1].ok and doctor.checks[-2].ok


@pytest.mark.parametrize(
    ("text", "on"),
    [
        ("dtparam=spi=on\n", True),
        ("dtparam=spi\n", True),
        ("dtparam=audio=on,spi=on  # both\n", True),
        ("dtoverlay=spi0-1cs\n", True),
        ("# dtparam=spi=on\n", False),
        ("dtparam=spi=on\ndtparam=spi=off\n", False),
        ("dtparam=spidev=on\n", False),
        ("", False),
    ],
)
def test_what_turns_spi_on_in_a_boot_config(text: str, on: bool) -> None:
    assert spi_enabled(text) is on


def test_the_running_service_is_named_and_the_parts_are_left_to_it(tmp_path: Path, chip: Chip) -> None:
    bench = Bench(tmp_path)
    bench.service = "active"
    doctor = bench.doctor(tmp_path / "data")
    assert not doctor.run()
    service = next(c for c in doctor.checks if c.name == "service")
    assert not service.ok and "sudo systemctl stop trekking-companion" in service.fix
    names = [c.name for c in doctor.checks]
    assert names == ["config", "data directory", "service", "SPI1", "page"], "no part is opened under it"
    assert any("not checked while another program holds them" in line for line in bench.lines)

    bench.service = "inactive"
    bench.holders = [Holder(4321, "python3", "/dev/spidev1.0")]
    doctor = bench.doctor(tmp_path / "data", wait=0.2)  # no tag on the reader: no need to wait
    assert not doctor.run()
    service = next(c for c in doctor.checks if c.name == "service")
    assert "process 4321 (python3) holds /dev/spidev1.0" in service.detail and "Ctrl+C" in service.fix
    assert "reader" in [c.name for c in doctor.checks], "another program is named; the checks go on"


def test_the_holders_of_the_parts_devices_are_found_in_proc(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    processes = [
        (10, "python3", ["/dev/null", "/dev/spidev0.0"]),
        (11, "bash", ["/dev/tty1"]),
        (12, "lgd", ["/dev/gpiochip4"]),
    ]
    for pid, command, targets in processes:
        (proc / str(pid) / "fd").mkdir(parents=True)
        (proc / str(pid) / "comm").write_text(f"{command}\n")
        for n, target in enumerate(targets):
            (proc / str(pid) / "fd" / str(n)).symlink_to(target)
    (proc / "self").mkdir()
    found = part_holders(proc=proc)
    assert found == [Holder(10, "python3", "/dev/spidev0.0"), Holder(12, "lgd", "/dev/gpiochip4")]


def test_the_tag_kind_is_said_for_an_ntag(tmp_path: Path, chip: Chip) -> None:
    chip.put(Tag([0x04, 0x5A, 0x6B, 0x7C, 0x11, 0x22, 0x33]))
    bench = Bench(tmp_path)
    doctor = bench.doctor(tmp_path / "data")
    doctor.run()
    tag = next(c for c in doctor.checks if c.name == "tag")
    assert tag.ok and tag.detail == "read tag 04:5A:6B:7C:11:22:33 (NTAG21x, 7-byte UID)"


@pytest.mark.parametrize(
    ("text", "model", "found"),
    [
        ("dtoverlay=spi1-1cs\n", "Raspberry Pi 4 Model B Rev 1.5", "dtoverlay=spi1-1cs"),
        ("[all]\ndtoverlay=spi1-1cs,cs0_pin=16  # ring\n", "", "dtoverlay=spi1-1cs,cs0_pin=16"),
        ("# dtoverlay=spi1-1cs\ndtparam=spi=on\n", "Raspberry Pi 4 Model B", None),
        ("[pi5]\ndtoverlay=spi1-1cs\n[all]\n", "Raspberry Pi 4 Model B", None),
        ("[pi5]\ndtoverlay=spi1-1cs\n[all]\n", "Raspberry Pi 5 Model B Rev 1.0", "dtoverlay=spi1-1cs"),
        ("[none]\ndtoverlay=spi1-1cs\n", "Raspberry Pi 3 Model B", None),
        ("dtoverlay=spi0-1cs\n", "Raspberry Pi 3 Model B", None),
    ],
)
def test_the_ring_bus_is_found_in_the_boot_configuration_only_where_it_applies(
    text: str, model: str, found: str | None
) -> None:
    from companion.run.doctor import spi1_overlay

    assert spi1_overlay(text, model) == found


def test_a_ring_device_the_user_may_not_write_is_named_with_the_group(
    tmp_path: Path, chip: Chip, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.run.doctor

    bench = Bench(tmp_path)
    doctor = bench.doctor(tmp_path / "data")
    # the tests may run as root, who writes anything: the device's answer is played here
    monkeypatch.setattr(companion.run.doctor.os, "access", lambda path, mode: Path(path) != bench.ring_device)
    doctor.check_ring_bus()
    spi0 = doctor.checks[-1]
    assert spi0.name == "SPI0" and not spi0.ok and "usermod -aG spi" in spi0.fix


def test_a_reader_still_on_spi0_is_told_which_wires_move(tmp_path: Path, chip: Chip) -> None:
    """Issue 34: a build wired before the buses swapped: silent on SPI1, answering on SPI0."""
    chip.wired = (0, 0)
    bench = Bench(tmp_path)
    bench.old_version = 0x92
    doctor = bench.doctor(tmp_path / "data", wait=0.1)
    doctor.run()
    reader = next(c for c in doctor.checks if c.name == "reader")
    assert not reader.ok and "answers on SPI0" not in reader.detail
    assert "does on SPI0 (version register 0x92)" in reader.detail
    assert (
        reader.fix.startswith("Move the ring's data wire from pin 38 to pin 19")
        and "pin 24 to pin 12" in reader.fix
    )


def test_at_first_boot_with_nobody_at_the_table_the_hands_on_checks_are_not_asked(
    tmp_path: Path, chip: Chip
) -> None:
    """Issue 34: the doctor's run at first boot has no terminal; a perfect build reported about
    7 crosses. The checks that need a person are neither passed nor failed."""
    bench = Bench(tmp_path)
    doctor = Doctor(str(bench.config_path), tmp_path / "data", say=bench.say, ask=None, parts=bench.parts(),
                    wait=0.1, led_step=0.0)  # fmt: skip
    assert doctor.run(), "\n".join(bench.lines)
    asked = {c.name: c.ok for c in doctor.checks if c.ok is None}
    hands_on = {
        "tag",
        "ring order",
        "ring LEDs",
        "ring colours",
        "crystal button",
        "confirm button",
        "undo button",
    }
    assert set(asked) == hands_on
    assert "○ tag: not asked (run `sudo trekking-companion doctor`)" in bench.lines
    assert not any(line.startswith("✗") for line in bench.lines)
    assert "7 checks need someone at the table" in "\n".join(bench.lines)


@pytest.mark.parametrize(
    ("model", "clocks", "ok"),
    [
        ("Raspberry Pi 4 Model B Rev 1.5", (500, 500), True),
        ("Raspberry Pi 4 Model B Rev 1.5", (200, 500), False),  # not pinned: the firmware drops it at idle
        ("Raspberry Pi 3 Model B Rev 1.2", (250, 250), True),
        ("Raspberry Pi Zero 2 W Rev 1.0", (250, 400), False),
        ("Raspberry Pi 4 Model B Rev 1.5", (None, None), None),  # vcgencmd not there: not measured
    ],
)
def test_the_core_clock_is_read_idle_and_under_load_on_a_pi_3_zero_and_4(
    tmp_path: Path, model: str, clocks: tuple[int | None, int | None], ok: bool | None
) -> None:
    bench = Bench(tmp_path)
    bench.model, bench.clocks = model, clocks
    doctor = bench.doctor(tmp_path / "data")
    doctor.check_core_clock()
    core = doctor.checks[-1]
    assert core.name == "core clock" and core.ok is ok, core
    if ok is False:
        assert "not pinned" in core.detail and "core_freq=" in core.fix


def test_a_pi_5_has_no_core_clock_line(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    bench.model = "Raspberry Pi 5 Model B Rev 1.0"
    doctor = bench.doctor(tmp_path / "data")
    doctor.check_core_clock()
    assert doctor.checks == []


def test_the_dark_ring_and_flicker_fixes_name_the_pins_and_the_timing_before_the_capacitors() -> None:
    from companion.util.wording import say

    dark = say("doctor_leds.fix", first="at 12 o'clock", leds=24)
    assert "pin 19" in dark and "pin 38" in dark and "pin 12" in dark
    flicker = say("doctor_colours.fix")
    assert flicker.index("core clock") < flicker.index("1000 µF") and "pin 19" in flicker


def test_the_soak_shows_a_moving_frame_at_30_fps_and_asks_for_flashes(tmp_path: Path) -> None:
    """Issue 34: `doctor --soak` for a tester: frames at 30 fps while the Pi is busy, then the
    flashes seen; a flash is a cross whose fix names the timing first."""
    bench = Bench(tmp_path)
    answers = iter(["0", "2"])
    doctor = Doctor(str(bench.config_path), tmp_path / "data", say=bench.say, ask=lambda q: next(answers),
                    parts=bench.parts())  # fmt: skip
    assert doctor.soak(0.5)
    assert bench.ring is not None and len(bench.ring.frames) >= 5
    assert len({tuple(f) for f in bench.ring.frames}) > 2, "the frame moves"
    assert not doctor.soak(0.2)
    soak = doctor.checks[-1]
    assert soak.ok is False and "2 wrong-colour flashes seen" in soak.detail
    assert soak.fix.index("core clock") < soak.fix.index("1000 µF")
    records = (tmp_path / "data" / "soak.jsonl").read_text().splitlines()
    assert len(records) == 2 and '"flashes": 2' in records[1]


def test_the_soak_with_no_terminal_records_its_figures_and_is_not_a_cross(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    doctor = Doctor(str(bench.config_path), tmp_path / "data", say=bench.say, ask=None, parts=bench.parts())
    assert doctor.soak(0.2)
    assert doctor.checks[-1].ok is None and "recorded in" in doctor.checks[-1].detail
    assert '"flashes": null' in (tmp_path / "data" / "soak.jsonl").read_text()
