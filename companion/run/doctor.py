"""`companion doctor`: the self-test a maker runs after wiring.

One line per check, ✓ or ✗, and under each ✗ the fix (the wiring.md section, the boot
setting, the group to join); a check that needs a person and has none (the run at first
boot, with no terminal) is "not asked", neither ✓ nor ✗. The checks go from what needs
nothing (the settings, the data directory, the service holding the parts, the core clock,
the buses) to what needs hands (a tag, the ring's LEDs and colours, each button, the page).

The hardware is reached through the same openers `companion run` uses, passed in as
`Parts`, so the tests run the doctor against the emulated MFRC522 and gpiozero's mock pins.
Stop the service first: the doctor needs the reader, the ring and the buttons to itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.hardware.machine import board_model, user_name
from companion.util.config import Config, ConfigError, colour_rgb, load_config
from companion.util.wording import say

#: Below this, a long evening's event log and its SQLite journal may not fit.
MIN_FREE_BYTES = 50 * 1024 * 1024
#: The reader's bus (SPI1, companion/hardware/rc522.py).
SPI_DEVICE = Path("/dev/spidev1.0")
#: Where Raspberry Pi OS keeps the boot config: bookworm and later, then older releases.
BOOT_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
SERVICE = "trekking-companion"
#: The devices the table's parts are reached through (a prefix matches /dev/gpiochip0, 4...);
#: not /dev/mem, which other programs share without getting in the way.
PART_DEVICES = ("/dev/spidev0.", "/dev/spidev1.", "/dev/gpiochip")
#: What ``systemctl is-active`` says of a unit that holds its parts (or is about to).
RUNNING = ("active", "activating", "reloading")
#: The ring's bus (SPI0, companion/hardware/ring_spi.py).
RING_DEVICE = Path("/dev/spidev0.0")
#: The core clock a pinned board runs at (MHz), by model prefix: the SPI clock is divided from it.
PINNED_CORE_MHZ = {"Raspberry Pi Zero 2": 250, "Raspberry Pi 3": 250, "Raspberry Pi 4": 500,
                   "Raspberry Pi 400": 500, "Raspberry Pi Compute Module 4": 500}  # fmt: skip
#: config.txt's board filters, by the model string they apply to ([all] and no filter: every board).
BOOT_FILTERS = {"all": "", "pi02": "Raspberry Pi Zero 2", "pi3": "Raspberry Pi 3", "pi4": "Raspberry Pi 4",
                "pi5": "Raspberry Pi 5"}  # fmt: skip
OKABE_ITO = {"#0072B2": "blue", "#E69F00": "orange", "#009E73": "green", "#CC79A7": "pink"}
#: The buttons checked, in order; what to do with each is the catalogue's ``doctor_press.<name>``.
BUTTONS = ("crystal", "confirm", "undo")


@dataclass
class Check:
    """One line of the report: ``ok`` True (✓), False (✗, with its fix), or None: not asked
    or not measured (○), which is neither a pass nor a failure."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = {True: "✓", False: "✗", None: "○"}[self.ok]
        text = f"{mark} {self.name}: {self.detail}"
        return text if self.ok is True or not self.fix else f"{text}\n    fix: {self.fix}"


@dataclass(frozen=True)
class Holder:
    """Another process with one of the parts' devices open."""

    pid: int
    command: str
    device: str


def service_state(service: str = SERVICE) -> str:
    """What ``systemctl is-active`` says of the service ("inactive" also when it is not
    installed), or "absent" where there is no systemd."""
    try:
        done = subprocess.run(
            ["systemctl", "is-active", service], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "absent"
    return done.stdout.strip() or "absent"


def part_holders(devices: tuple[str, ...] = PART_DEVICES, proc: Path = Path("/proc")) -> list[Holder]:
    """Other processes holding one of ``devices`` open, among those whose open files this user
    may see (all of them for root; the service's own, run as another user, only through
    `service_state`)."""
    found = []
    for entry in sorted(proc.iterdir(), key=lambda p: p.name):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            targets = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
            command = (entry / "comm").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:  # not ours to see, or gone meanwhile
            continue
        held = next((t for t in targets if t.startswith(devices)), None)
        if held is not None:
            found.append(Holder(int(entry.name), command, held))
    return found


def spi_enabled(text: str) -> bool:
    """Whether a config.txt turns SPI0 on: the last ``dtparam`` naming ``spi`` decides (a
    boolean parameter with no value is on), or a ``dtoverlay=spi0-...``."""
    on = False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        key, _, value = line.partition("=")
        if key.strip() == "dtoverlay" and value.strip().startswith("spi0-"):
            on = True
        if key.strip() != "dtparam":
            continue
        for item in value.split(","):
            name, _, setting = item.strip().partition("=")
            if name.strip() == "spi":
                on = setting.strip().lower() in ("", "on", "true", "yes", "okay", "1")
    return on


def _default_reader(config: Config) -> Any:
    from companion.hardware.reader import open_mfrc522

    return open_mfrc522(config.reader.rst_pin, config.reader.gain_db)


def _default_old_reader(config: Config) -> int | None:
    from companion.hardware.reader import version_on_old_bus

    return version_on_old_bus(config.reader.rst_pin)


def measure_core_mhz() -> int | None:
    """The core clock now, from ``vcgencmd measure_clock core`` (MHz), or None if it cannot be read."""
    try:
        done = subprocess.run(
            ["vcgencmd", "measure_clock", "core"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"=(\d+)", done.stdout)
    return round(int(found.group(1)) / 1e6) if done.returncode == 0 and found else None


def core_clocks(seconds: float = 1.5) -> tuple[int | None, int | None]:
    """The core clock idle, then with every core busy (a child process per core, ended after
    ``seconds``): the firmware raises an unpinned clock under load and drops it at idle."""
    idle = measure_core_mhz()
    busy = _busy_children(os.cpu_count() or 1, seconds)
    try:
        time.sleep(seconds)  # the firmware's governor reacts within a few hundred ms
        loaded = measure_core_mhz()
    finally:
        for child in busy:
            child.kill()
            child.wait()
    return idle, loaded


def _default_ring(config: Config) -> Any:
    from companion.hardware.ring_spi import open_spi_ring

    return open_spi_ring(config.ring)


def _default_buttons(config: Config, press: Callable[[str], Any]) -> Any:
    from companion.hardware.buttons import Buttons

    return Buttons(config.buttons, press)


@dataclass
class Parts:
    """How the doctor reaches the hardware (the tests pass emulated parts)."""

    reader: Callable[[Config], Any] = _default_reader
    #: The reader's version register read on SPI0 (where earlier builds wired it), or None.
    old_reader: Callable[[Config], int | None] = _default_old_reader
    ring: Callable[[Config], Any] = _default_ring
    buttons: Callable[[Config, Callable[[str], Any]], Any] = _default_buttons
    spi_device: Path = SPI_DEVICE
    ring_device: Path = RING_DEVICE
    boot_configs: tuple[Path, ...] = BOOT_CONFIGS
    service: Callable[[], str] = service_state
    holders: Callable[[], list[Holder]] = part_holders
    model: Callable[[], str] = board_model
    core_clocks: Callable[[], tuple[int | None, int | None]] = core_clocks


@dataclass
class Doctor:
    config_path: str | None
    data_dir: Path
    say: Callable[[str], None] = print
    ask: Callable[[str], str] | None = input
    parts: Parts = field(default_factory=Parts)
    wait: float = 15.0
    led_step: float = 0.15
    checks: list[Check] = field(default_factory=list)

    def report(self, check: Check) -> Check:
        self.checks.append(check)
        self.say(check.line())
        return check

    def run(self) -> bool:
        """Every check in order; True when all passed."""
        self.say(say("doctor_stop"))
        self.say(say("doctor_alone") + "\n")
        config = self.check_config()
        self.check_data_dir()
        if config is not None:
            free = self.check_service()
            self.check_core_clock()
            self.check_spi()
            if free:
                reader = self.check_reader(config)
                if reader is not None:
                    self.check_tag(reader)
                self.check_ring_bus()
                self.check_ring(config)
                self.check_buttons(config)
            else:
                self.say("  " + say("doctor_skip_hardware"))
            self.check_page(config)
            if config.venue.broker:
                self.check_venue(config)
        failed = [c for c in self.checks if c.ok is False]
        asked = [c for c in self.checks if c.ok is not None]
        self.say("\n" + say("doctor_passed", passed=len(asked) - len(failed), n=len(asked)))
        if len(asked) < len(self.checks):
            self.say(say("doctor_not_asked_count", n=len(self.checks) - len(asked)))
        return not failed

    def failed(self, name: str, code: str, fix: str = "", **params: Any) -> None:
        """A ✗ line: the catalogue's ``code``, then ``fix`` (else the code's ``.fix``), with ``params``."""
        self.report(Check(name, False, say(code, **params), say(fix or f"{code}.fix", **params)))

    def broken(self, name: str, part: str, exc: Exception) -> None:
        """A ✗ line for a part that failed: `companion.hardware.health.diagnose`'s cause and fix."""
        from companion.hardware.health import diagnose

        self.report(Check(name, False, *diagnose(part, exc)[:2]))

    def not_asked(self, name: str) -> Check:
        """A check that needs a person at the table, in a run that has none (no terminal)."""
        return self.report(Check(name, None, say("doctor_not_asked")))

    # --- the checks ---------------------------------------------------------------------------

    def check_venue(self, config: Config) -> None:
        """Whether the venue's broker ([venue]) accepts this table (paho imported only then)."""
        from companion.venue.publisher import probe

        problem = probe(config.venue)
        if problem is None:
            self.report(Check("venue", True, say("doctor_venue_ok", broker=config.venue.broker)))
            return
        code, params = problem
        self.failed("venue", code, "doctor_venue.fix", **params)

    def check_config(self) -> Config | None:
        try:
            config = load_config(self.config_path)
        except ConfigError as exc:
            self.report(Check("config", False, str(exc), say("doctor_config.fix")))
            return None
        self.report(Check("config", True, say("doctor_config_ok", source=config.source)))
        return config

    def check_data_dir(self) -> None:
        where = self.data_dir
        try:
            where.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=where, prefix=".doctor-"):
                pass
            free = shutil.disk_usage(where).free
        except OSError as exc:
            self.failed("data directory", "doctor_data_unwritable", dir=where, error=exc.strerror)
            return
        if free < MIN_FREE_BYTES:
            self.failed("data directory", "doctor_data_low", dir=where, mb=free // 2**20)
            return
        self.report(Check("data directory", True, say("doctor_data_ok", dir=where, mb=free // 2**20)))

    def check_service(self) -> bool:
        """False when the service runs: it holds every part, so none is opened under it. Another
        program holding a part's device is named, and the checks go on (its part's may fail)."""
        state = self.parts.service()
        if state in RUNNING:
            self.failed("service", "doctor_service_running", service=SERVICE)
            return False
        held = self.parts.holders()
        if held:
            first = held[0]
            facts: dict[str, Any] = {"pid": first.pid, "command": first.command, "device": first.device}
            self.failed("service", "doctor_part_held", service=SERVICE, **facts)
            return True
        self.report(Check("service", True, say("doctor_service_stopped", service=SERVICE)))
        return True

    def check_core_clock(self) -> None:
        """On a Pi 3 / Zero 2 W / 4 the SPI clock is the core clock divided: pinned, it reads the
        same idle and under load; a Pi 5's RP1 has its own fixed clock (no line)."""
        model = self.parts.model()
        want = next((mhz for prefix, mhz in PINNED_CORE_MHZ.items() if model.startswith(prefix)), None)
        if want is None:
            return
        idle, loaded = self.parts.core_clocks()
        if idle is None or loaded is None:
            self.report(
                Check("core clock", None, say("doctor_core_unmeasured"), say("doctor_core.fix", mhz=want))
            )
            return
        facts: dict[str, Any] = {"idle": idle, "loaded": loaded, "mhz": want}
        if abs(idle - want) <= want // 100 and abs(loaded - want) <= want // 100:
            self.report(Check("core clock", True, say("doctor_core_ok", **facts)))
        else:
            self.failed("core clock", "doctor_core_unpinned", "doctor_core.fix", **facts)

    def check_spi(self) -> None:
        """The reader's bus, SPI1: one line from the boot configuration and the device together,
        so its fix never contradicts what the line says (reboot when the setting is there)."""
        boot = next((path for path in self.parts.boot_configs if path.is_file()), None)
        line = (
            None
            if boot is None
            else spi1_overlay(boot.read_text(encoding="utf-8", errors="replace"), self.parts.model())
        )
        self.check_bus(
            "SPI1", self.parts.spi_device, os.R_OK | os.W_OK, "doctor_spi", boot, line, "dtoverlay=spi1-1cs"
        )

    def check_bus(
        self,
        name: str,
        device: Path,
        mode: int,
        words: str,
        boot: Path | None,
        line: str | None,
        setting: str,
    ) -> None:
        """A bus's line: its device there and open to this user; when it is missing, a reboot if
        ``boot`` holds its ``line`` already, else ``setting`` to add."""
        if not device.exists() and boot is not None:
            if line is not None:
                self.failed(name, "doctor_spi_reboot", device=device, config=boot, line=line)
            else:
                self.failed(
                    name, f"{words}_off", f"{words}_missing.fix", device=device, config=boot, line=setting
                )
            return
        self.check_device(name, device, mode, words)

    def check_device(self, name: str, device: Path, mode: int, words: str) -> None:
        """A device a part is reached through: there, and open to this user with ``mode``.
        ``words`` is the catalogue's prefix: ``<words>_missing``, ``_refused`` (each with its
        ``.fix``) and ``_ok``."""
        user = user_name()
        if not device.exists():
            self.failed(name, f"{words}_missing", device=device)
        elif not os.access(device, mode):
            self.failed(name, f"{words}_refused", device=device, user=user)
        else:
            self.report(Check(name, True, say(f"{words}_ok", device=device, user=user)))

    def check_reader(self, config: Config) -> Any:
        from companion.hardware.health import HardwareFault
        from companion.hardware.reader import NO_ANSWER

        try:
            reader = self.parts.reader(config)
            version = reader.check()
        except Exception as exc:
            old = None
            if isinstance(exc, HardwareFault) and exc.code == "reader_no_answer":
                try:
                    old = self.parts.old_reader(config)
                except Exception:  # no SPI0, no driver: nothing answers there either
                    old = None
            if old is not None and old not in NO_ANSWER:
                self.failed(
                    "reader", "doctor_reader_old_wiring", "doctor_old_wiring.fix", version=f"0x{old:02x}"
                )
            else:
                self.broken("reader", "reader", exc)
            return None
        self.report(Check("reader", True, say("doctor_reader_ok", version=f"0x{version:02x}")))
        return reader

    def check_tag(self, reader: Any) -> None:
        if self.ask is None:
            self.not_asked("tag")
            return
        self.say("  " + say("doctor_hold_tag", seconds=f"{self.wait:.0f}"))
        deadline = time.monotonic() + self.wait
        while time.monotonic() < deadline:
            uid = reader.read_uid()
            if uid is not None:
                self.report(Check("tag", True, say("doctor_tag_ok", uid=uid, type=_tag_kind(reader))))
                return
            time.sleep(0.1)
        self.failed("tag", "doctor_tag_none", seconds=f"{self.wait:.0f}")

    def check_ring_bus(self) -> None:
        """The ring's bus, SPI0: ``dtparam=spi=on`` in the boot configuration and its device
        writable, in one line (a missing device with the setting there is a reboot)."""
        boot = next((path for path in self.parts.boot_configs if path.is_file()), None)
        if boot is None and not self.parts.ring_device.exists():
            files = ", ".join(str(path) for path in self.parts.boot_configs)
            self.failed("SPI0", "doctor_boot_none", files=files)
            return
        text = "" if boot is None else boot.read_text(encoding="utf-8", errors="replace")
        line = "dtparam=spi=on" if spi_enabled(text) else None
        self.check_bus(
            "SPI0", self.parts.ring_device, os.W_OK, "doctor_ring_device", boot, line, "dtparam=spi=on"
        )

    def check_ring(self, config: Config) -> None:
        from companion.hardware.ring import show

        settings = config.ring
        k = settings.brightness
        try:
            ring = self.parts.ring(config)
            self.say("  " + say("doctor_watch_ring", leds=settings.leds))
            for led in range(settings.leds):
                show(ring, [(255, 255, 255) if i == led else (0, 0, 0) for i in range(settings.leds)], k)
                time.sleep(self.led_step)
            for primary in ((255, 0, 0), (0, 255, 0), (0, 0, 255)):
                show(ring, [primary] * settings.leds, k)
                time.sleep(self.led_step * 4)
            show(ring, [(0, 0, 0)] * settings.leds, k)
        except Exception as exc:
            self.broken("ring", "ring", exc)
            return
        if self.ask is None:
            for name in ("ring order", "ring LEDs", "ring colours"):
                self.not_asked(name)
            return
        order = say("doctor_order_ok", order=settings.order)
        self.asked(
            "ring order", say("doctor_ask_order"), order, say("doctor_order.fix", order=settings.order)
        )
        led = settings.twelve_oclock_led
        first = say("doctor_first_led_top") if led == 0 else say("doctor_first_led", led=led)
        question = say("doctor_ask_leds", leds=settings.leds, direction=settings.direction)
        self.asked(
            "ring LEDs",
            question,
            say("doctor_leds_ok"),
            say("doctor_leds.fix", first=first, leds=settings.leds),
        )
        try:
            for colour in config.palette:
                show(ring, [colour_rgb(colour)] * settings.leds, k)
                time.sleep(self.led_step * 4)
            show(ring, [(0, 0, 0)] * settings.leds, k)
        except Exception as exc:
            self.broken("ring", "ring", exc)
            return
        names = ", ".join(OKABE_ITO.get(c.upper(), c) for c in config.palette)
        self.asked("ring colours", say("doctor_ask_colours", names=names), names, say("doctor_colours.fix"))

    def check_buttons(self, config: Config) -> None:
        if self.ask is None:  # nobody at the table to press them
            for name in BUTTONS:
                self.not_asked(f"{name} button")
            return
        seen = {name: threading.Event() for name in BUTTONS}
        try:
            buttons = self.parts.buttons(config, lambda name: seen[name].set())
        except Exception as exc:
            self.broken("buttons", "buttons", exc)
            return
        try:
            stuck = set(buttons.pressed())  # at rest, before any press is asked for
            for name in BUTTONS:
                pin = getattr(config.buttons, name)
                if name in stuck:
                    self.failed(f"{name} button", "doctor_button_stuck", pin=pin)
                    continue
                self.say("  " + say("doctor_press", kind=name, pin=pin, seconds=f"{self.wait:.0f}"))
                if seen[name].wait(self.wait):
                    self.report(Check(f"{name} button", True, say("doctor_button_ok", pin=pin)))
                else:
                    self.failed(f"{name} button", "doctor_button_none", pin=pin)
        finally:
            buttons.close()

    def check_page(self, config: Config) -> None:
        from companion.util.lan import addresses, lan_ip

        port = config.table.port
        url = addresses(port, config.table.host, lan_ip())[0]
        if _fetch(url):
            self.report(Check("page", True, say("doctor_page_running", url=url)))
            return
        # Nothing answers: serve the page for a moment, as companion run would (the
        # standard library's server: it stops cleanly between two requests).
        from wsgiref.simple_server import WSGIRequestHandler, make_server

        class Quiet(WSGIRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

        server, runtime, workdir = None, None, tempfile.mkdtemp(prefix="companion-doctor-")
        try:
            from companion.run.startup import build_runtime
            from companion.web.app import create_app

            runtime = build_runtime(config, Path(workdir), mock=True, say=lambda _: None)
            runtime.port, runtime.listen = port, config.table.host
            server = make_server(config.table.host, port, create_app(runtime), handler_class=Quiet)
            threading.Thread(target=server.serve_forever, name="doctor-http", daemon=True).start()
            ok = _fetch(url)
        except OSError as exc:
            self.failed("page", "doctor_page_port", port=port, error=exc.strerror)
            return
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()
            if runtime is not None:
                runtime.stop()
            shutil.rmtree(workdir, ignore_errors=True)
        self.report(
            Check(
                "page",
                ok,
                say("doctor_page_ok" if ok else "doctor_page_down", url=url),
                say("doctor_page.fix"),
            )
        )

    def soak(self, seconds: float, fps: int = 30) -> bool:
        """`companion doctor --soak`: the ring shows a moving frame ``fps`` times a second for
        ``seconds`` while every core but one is kept busy (a table in play, a phone's page, the
        coach), then asks how many wrong-colour flashes were seen; with no terminal the figures
        are recorded in the data directory's ``soak.jsonl`` for the tester to send. True when
        nobody saw a flash (or nobody was asked) and every frame went out."""
        import json

        from companion.hardware.ring import show

        config = self.check_config()
        if config is None:
            return False
        leds, k = config.ring.leds, config.ring.brightness
        try:
            ring = self.parts.ring(config)
        except Exception as exc:
            self.broken("soak", "ring", exc)
            return False
        self.say("  " + say("doctor_soak_watch", seconds=f"{seconds:.0f}", fps=fps))
        palette = [colour_rgb(c) for c in config.palette]
        busy = _busy_children(max((os.cpu_count() or 1) - 1, 1), seconds)
        frames, late, worst = 0, 0, 0.0
        start = time.monotonic()
        try:
            while (now := time.monotonic()) - start < seconds:
                turn = int((now - start) * fps)
                frame = [palette[(led + turn) % len(palette)] if (led + turn) % 3 else (255, 255, 255)
                         for led in range(leds)]  # fmt: skip
                show(ring, frame, k)
                frames += 1
                spent = time.monotonic() - now
                worst = max(worst, spent)
                late += spent > 1 / fps
                time.sleep(max(0.0, 1 / fps - spent))
            show(ring, [(0, 0, 0)] * leds, k)
        except Exception as exc:
            self.broken("soak", "ring", exc)
            return False
        finally:
            for child in busy:
                child.kill()
                child.wait()
        facts: dict[str, Any] = {
            "frames": frames,
            "seconds": f"{seconds:.0f}",
            "late": late,
            "worst_ms": f"{worst * 1000:.1f}",
        }
        flashes: int | None = None
        if self.ask is not None:
            try:
                answer = self.ask(say("doctor_soak_ask")).strip()
            except EOFError:
                answer = ""
            flashes = int(answer) if answer.isdigit() else None
        record = {"at": time.strftime("%Y-%m-%dT%H:%M:%S"), "model": self.parts.model(), **facts,
                  "flashes": flashes}  # fmt: skip
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            with (self.data_dir / "soak.jsonl").open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
        except OSError:
            pass  # the report below says everything the file would
        if flashes is None:
            self.report(
                Check("soak", None, say("doctor_soak_unasked", **facts, file=self.data_dir / "soak.jsonl"))
            )
            return True
        ok = flashes == 0
        detail = say("doctor_soak_seen", flashes=flashes, **facts)
        self.report(Check("soak", ok, detail, say("doctor_colours.fix")))
        return ok

    def asked(self, name: str, question: str, seen: str, fix: str) -> None:
        """A line the maker answers: ✓ ``seen`` when they confirm ``question``, else ✗ with ``fix``."""
        confirmed = self.confirm(question) is True
        self.report(Check(name, confirmed, seen if confirmed else say("doctor_not_confirmed"), fix))

    def confirm(self, question: str) -> bool | None:
        """The maker's answer (None when nobody can answer: no terminal)."""
        if self.ask is None:
            return None
        try:
            answer = self.ask(question)
        except EOFError:
            return None
        return answer.strip().lower() in ("y", "yes", "o", "oui")


def _busy_children(count: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """``count`` child processes spinning a core each for ``seconds`` (a busy table's load)."""
    spin = "import time\nend = time.monotonic() + %s\nwhile time.monotonic() < end: pass" % (seconds + 1)
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(count)]


def _tag_kind(reader: Any) -> str:
    """The kind of the tag the reader selected last, in words (its UID's length, and its SAK
    when it is neither a MIFARE Classic nor an NTAG21x)."""
    from companion.hardware.rc522 import CLASSIC, NTAG

    last = getattr(reader, "last", None)
    if last is None:
        return say("doctor_tag_kind.unknown")
    kind = {CLASSIC: "classic", NTAG: "ntag"}.get(last.kind, "other")
    return say("doctor_tag_kind", kind=kind, bytes=len(last.uid), sak=f"0x{last.sak:02x}")


def spi1_overlay(text: str, model: str = "") -> str | None:
    """The line of a boot configuration (config.txt) that enables SPI1 on the board ``model``:
    an ``spi1-Ncs`` overlay outside a comment and under a filter that applies to the board
    (none, ``[all]``, or the board's own such as ``[pi4]``), or None."""
    applies = True
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            prefix = BOOT_FILTERS.get(line[1:-1].strip().lower())
            applies = prefix is not None and model.startswith(prefix)
            continue
        key, _, value = line.partition("=")
        if (
            applies
            and key.strip() == "dtoverlay"
            and value.strip().split(",")[0] in ("spi1-1cs", "spi1-2cs", "spi1-3cs")
        ):
            return line
    return None


def _fetch(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return response.status == 200 and b"<html" in response.read(4096).lower()
    except (urllib.error.URLError, OSError):
        return False
