"""systemd/install-pi.sh run in a temporary root: what it refuses, what it writes to config.txt
for each board, the groups, the udev rules, the units, and how it gets lgpio on any Python.

The script reads the machine from TREKKING_ROOT, PI_MODEL, PI_ARCH, PI_USERLAND_ARCH and
BOOT_CONFIG, and runs only the steps given with --only, so no test touches this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "systemd" / "install-pi.sh"
UNITS = REPO / "systemd"

PI4 = "Raspberry Pi 4 Model B Rev 1.5"
#: config.txt as Raspberry Pi OS ships it (abridged): SPI commented out, and the file ends
#: inside a [cm5] section on some images, so a block appended after it must reset the filter.
STOCK_CONFIG = "".join(
    line + "\n"
    for line in ("# For more options", "#dtparam=spi=on", "dtparam=audio=on", "[cm4]", "otg_mode=1", "[cm5]",
                 "dtoverlay=dwc2,dr_mode=host")
)  # fmt: skip

#: Each supported board's model string, the config.txt filters its firmware applies
#: (Raspberry Pi's config.txt documentation, "Conditional Filters") and the core clock
#: settings it must end up with.
BOARDS = {
    "Raspberry Pi Zero 2 W Rev 1.0": ({"pi0", "pi0w", "pi02"}, {"core_freq": "250"}),
    "Raspberry Pi 3 Model B Rev 1.2": ({"pi3"}, {"core_freq": "250"}),
    "Raspberry Pi 3 Model B Plus Rev 1.3": ({"pi3", "pi3+"}, {"core_freq": "250"}),
    PI4: ({"pi4"}, {"core_freq": "500", "core_freq_min": "500"}),
    "Raspberry Pi 400 Rev 1.0": ({"pi4", "pi400"}, {"core_freq": "500", "core_freq_min": "500"}),
    "Raspberry Pi Compute Module 4 Rev 1.0": ({"pi4", "cm4"}, {"core_freq": "500", "core_freq_min": "500"}),
    "Raspberry Pi 5 Model B Rev 1.0": ({"pi5"}, {}),
}
MODEL_FILTERS = {"pi0", "pi0w", "pi02", "pi1", "pi2", "pi3", "pi3+", "pi4", "pi400", "cm4", "cm4s",
                 "pi5", "cm5"}  # fmt: skip


def effective(config: str, filters: set[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """What a board's firmware applies from ``config``: settings (the last wins), dtparams and
    dtoverlays in order. A model filter applies while it names this board; [all] resets."""
    settings: dict[str, str] = {}
    params: list[str] = []
    overlays: list[str] = []
    active = True
    for raw in config.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1]
            if name == "all":
                active = True
            elif name in MODEL_FILTERS:
                active = name in filters
            else:
                pytest.fail(f"a filter this model does not know: {line}")
            continue
        if not active:
            continue
        key, _, value = line.partition("=")
        if key == "dtparam":
            params.append(value)
        elif key == "dtoverlay":
            overlays.append(value)
        else:
            settings[key] = value
    return settings, params, overlays


def pi_root(tmp_path: Path, config: str | None = STOCK_CONFIG, where: str = "boot/firmware") -> Path:
    """A root file system with this machine's users and groups and a stock config.txt."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    for name in ("passwd", "group", "shadow", "gshadow"):  # without a service user this machine may have
        if Path("/etc", name).exists():
            lines = Path("/etc", name).read_text().splitlines(keepends=True)
            kept = (line for line in lines if not line.startswith("trekking:"))
            (root / "etc" / name).write_text("".join(kept))
    if config is not None:
        (root / where).mkdir(parents=True)
        (root / where / "config.txt").write_text(config)
    return root


def install(
    root: Path, *steps: str, model: str = PI4, arch: str = "aarch64", os_arch: str = "arm64",
    path: str | None = None, **env: str,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """install-pi.sh on ``root`` as the board ``model``, only ``steps`` (the checks always run)."""
    run_env = {
        "PATH": path or os.environ["PATH"], "LANG": "C.UTF-8", "TREKKING_ROOT": str(root),
        "PI_MODEL": model, "PI_ARCH": arch, "PI_USERLAND_ARCH": os_arch, **env,
    }  # fmt: skip
    return subprocess.run(
        ["bash", str(SCRIPT), "--only", ",".join(steps or ("boot",))],
        capture_output=True, text=True, env=run_env,
    )  # fmt: skip


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("arch", "os_arch", "says"),
    [
        ("armv7l", "armhf", "32-bit system (kernel armv7l)"),
        ("armv6l", "armhf", "32-bit system (kernel armv6l)"),
        # Raspberry Pi OS (32-bit) boots a 64-bit kernel on a Pi 4 and 5: the userland decides.
        ("aarch64", "armhf", "the 32-bit one (armhf), even if its kernel is 64-bit"),
        ("x86_64", "amd64", "not a Raspberry Pi"),
    ],
)
def test_a_32_bit_os_is_refused_before_anything_changes(
    tmp_path: Path, arch: str, os_arch: str, says: str
) -> None:
    root = pi_root(tmp_path)
    before = files(root)
    out = install(root, "boot", "user", "udev", "service", arch=arch, os_arch=os_arch)
    assert out.returncode == 1, out.stdout
    assert says in out.stderr, out.stderr
    if arch != "x86_64":
        assert "Raspberry Pi OS Lite (64-bit)" in out.stderr and "Raspberry Pi Imager" in out.stderr
    assert files(root) == before, "a refusal changes nothing"


@pytest.mark.parametrize(
    "model",
    ["Raspberry Pi 2 Model B Rev 1.1", "Raspberry Pi Model B Plus Rev 1.2", "Raspberry Pi Zero W Rev 1.1",
     "Raspberry Pi Zero Rev 1.3", "Pine64 RockPro64 v2.1"],
)  # fmt: skip
def test_an_unsupported_board_is_refused_with_the_boards_to_use(tmp_path: Path, model: str) -> None:
    root = pi_root(tmp_path)
    before = files(root)
    out = install(root, "boot", "user", "udev", model=model)
    assert out.returncode == 1
    assert f"does not support this board ({model})" in out.stderr, out.stderr
    assert "Raspberry Pi Zero 2 W, 3, 4 or 5" in out.stderr
    assert files(root) == before


def test_no_board_model_says_to_run_it_on_the_pi(tmp_path: Path) -> None:
    out = install(pi_root(tmp_path), model="")
    if Path("/proc/device-tree/model").exists():
        pytest.skip("this machine has a device tree model")
    assert out.returncode == 1 and "no board model" in out.stderr and "Zero 2 W, 3, 4 or 5" in out.stderr


def test_a_missing_config_txt_is_refused_before_anything_changes(tmp_path: Path) -> None:
    root = pi_root(tmp_path, config=None)
    out = install(root, "boot", "udev")
    assert out.returncode == 1 and "no config.txt" in out.stderr and "BOOT_CONFIG" in out.stderr
    assert not (root / "etc" / "udev").exists()


# ----------------------------------------------------------------------------- config.txt


@pytest.mark.parametrize("model", BOARDS)
def test_config_txt_turns_spi0_and_spi1_on_and_pins_the_core_clock_for_each_board(
    tmp_path: Path, model: str
) -> None:
    """One SD card for every board: each firmware applies the settings its SPI clock needs."""
    root = pi_root(tmp_path)
    out = install(root, "boot", model=model)
    assert out.returncode == 0, out.stderr
    config = (root / "boot/firmware/config.txt").read_text()
    assert config.startswith(STOCK_CONFIG), "the maker's own lines stay where they were"
    for board, (filters, clocks) in BOARDS.items():
        settings, params, overlays = effective(config, filters)
        assert "spi=on" in params and "spi1-1cs" in overlays, board
        assert {k: v for k, v in settings.items() if k.startswith("core_freq")} == clocks, board
        assert "otg_mode" not in settings or "cm4" in filters, "the stock [cm4] section still filters"
    assert config.rstrip().splitlines()[-2] == "[all]", "whatever is added after the block applies to all"


def test_config_txt_edits_are_idempotent_and_replace_an_older_block(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    config = root / "boot/firmware/config.txt"
    first = install(root)
    assert first.returncode == 0 and "changed" in first.stdout
    once = config.read_text()
    second = install(root)
    assert second.returncode == 0 and "already holds these settings" in second.stdout, second.stdout
    assert config.read_text() == once
    # An older installer's block (other settings) is replaced where it stands, once; a line
    # the maker added after it stays there, for every board.
    config.write_text(once.replace("core_freq_min=500", "core_freq_min=400") + "dtoverlay=w1-gpio\n")
    third = install(root)
    assert third.returncode == 0 and "changed" in third.stdout
    now = config.read_text()
    assert now == once + "dtoverlay=w1-gpio\n"
    assert all("w1-gpio" in effective(now, filters)[2] for filters, _ in BOARDS.values())


def test_config_txt_falls_back_to_boot_and_follows_boot_config(tmp_path: Path) -> None:
    root = pi_root(tmp_path, where="boot")  # an OS older than bookworm: /boot/config.txt
    assert install(root).returncode == 0
    assert "dtoverlay=spi1-1cs" in (root / "boot/config.txt").read_text()
    elsewhere = tmp_path / "mounted" / "config.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text(STOCK_CONFIG)
    assert install(root, BOOT_CONFIG=str(elsewhere)).returncode == 0
    assert "dtoverlay=spi1-1cs" in elsewhere.read_text()


def test_a_changed_config_txt_asks_for_a_reboot_and_arranges_the_doctor(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    out = install(root, "boot", "doctor")
    assert out.returncode == 0, out.stderr
    assert "A REBOOT IS NEEDED" in out.stdout and "sudo reboot" in out.stdout
    assert "journalctl -b -u trekking-companion-doctor" in out.stdout
    assert (root / "etc/trekking-companion/doctor-at-next-boot").exists()
    again = install(root, "boot", "doctor")
    assert "No reboot is needed" in again.stdout, again.stdout
    assert (root / "etc/trekking-companion/doctor-at-next-boot").exists(), "the unit removes it, once run"


# ------------------------------------------------------------------------- groups, udev


def test_the_udev_rules_are_written_with_no_device_present(tmp_path: Path) -> None:
    """Before the reboot that turns SPI on there is no /dev/spidev*: the rules must not wait for it."""
    root = pi_root(tmp_path)
    (root / "etc/udev/rules.d").mkdir(parents=True)
    stale = root / "etc/udev/rules.d/99-trekking-companion-pio.rules"
    stale.write_text('SUBSYSTEM=="*-pio", GROUP="gpio", MODE="0660"\n')
    out = install(root, "udev", model="Raspberry Pi 5 Model B Rev 1.0")
    assert out.returncode == 0, out.stderr
    rules = (root / "etc/udev/rules.d/60-trekking-companion.rules").read_text()
    lines = [line for line in rules.splitlines() if line and not line.startswith("#")]
    assert 'SUBSYSTEM=="spidev", KERNEL=="spidev*", GROUP="spi", MODE="0660"' in lines
    assert 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' in lines
    assert not stale.exists(), "the Pi 5's PIO ring is gone: its rule goes too"


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None,
    reason="useradd --prefix needs root and shadow's tools",
)


@needs_root
def test_the_service_user_is_made_and_put_in_spi_and_gpio_even_where_the_groups_are_missing(
    tmp_path: Path,
) -> None:
    root = pi_root(tmp_path)
    group_file = root / "etc/group"
    group_file.write_text(
        "".join(
            line + "\n"
            for line in group_file.read_text().splitlines()
            if not line.startswith(("spi:", "gpio:"))
        )
    )
    out = install(root, "user")
    assert out.returncode == 0, out.stderr
    groups = {
        fields[0]: fields[3].split(",")
        for fields in (line.split(":") for line in group_file.read_text().splitlines())
    }
    assert "trekking" in groups["spi"] and "trekking" in groups["gpio"]
    passwd = {line.split(":")[0]: line for line in (root / "etc/passwd").read_text().splitlines()}
    assert passwd["trekking"].endswith(":/var/lib/trekking-companion:/usr/sbin/nologin")
    before = group_file.read_text()
    assert install(root, "user").returncode == 0
    assert group_file.read_text() == before, "run again, nothing changes"


@needs_root
def test_the_units_are_installed_and_enabled_with_the_state_directory(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    out = install(root, "user", "config", "command", "service")
    assert out.returncode == 0, out.stderr
    wants = root / "etc/systemd/system/multi-user.target.wants"
    for unit in ("trekking-companion.service", "trekking-companion-doctor.service"):
        assert (root / "etc/systemd/system" / unit).read_text() == (UNITS / unit).read_text()
        assert (wants / unit).is_symlink(), unit
    state = root / "var/lib/trekking-companion"
    assert state.is_dir() and (state.stat().st_mode & 0o777) == 0o700
    assert (root / "usr/local/bin/trekking-companion").stat().st_mode & 0o111


# --------------------------------------------------------------------------------- lgpio


def stubs(tmp_path: Path, root: Path, *, wheel: bool, apt_lgpio: bool, build_ok: bool = True) -> str:
    """pip, python, apt-cache and apt-get stand-ins that log each call (with PYPI) to calls.log."""
    log = tmp_path / "calls.log"
    status = "done" if build_ok else "error"
    venv = root / "opt/trekking-companion/.venv/bin"
    wheel_answer = f"touch {venv}/lgpio; exit 0" if wheel else "echo ERROR: no matching distribution; exit 1"
    venv.mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    scripts = {
        venv / "pip": "\n".join([
            f'echo "pip PYPI=${{PYPI:-}} $*" >> {log}',
            f'case "$*" in *--only-binary*) {wheel_answer} ;; esac',
            'echo "  Building wheel for lgpio (setup.py): started"',
            f"echo \"  Building wheel for lgpio (setup.py): finished with status '{status}'\"",
            f"touch {venv}/lgpio; exit 0" if build_ok else "echo 'ld: cannot find -llgpio'; exit 1",
        ]),
        # "import lgpio" works once pip has installed it
        venv / "python": f'echo "python $*" >> {log}\n'
        f'case "$*" in *"import lgpio"*) test -e {venv}/lgpio ;; esac',
        bin_dir / "apt-cache": f'echo "  Candidate: {"2.2-1" if apt_lgpio else "(none)"}"',
        bin_dir / "apt-get": f'echo "apt-get $*" >> {log}',
    }  # fmt: skip
    for path, body in scripts.items():
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return f"{bin_dir}:{os.environ['PATH']}"


def test_lgpio_takes_a_wheel_where_one_fits(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    out = install(root, "lgpio", path=stubs(tmp_path, root, wheel=True, apt_lgpio=False))
    assert out.returncode == 0, out.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls[0] == "python -c import lgpio", "a second run would keep what is installed"
    assert calls[1].startswith("pip PYPI= install") and "--only-binary lgpio" in calls[1]
    assert not any("--no-binary" in c or c.startswith("apt-get") for c in calls), calls


def test_lgpio_on_a_python_without_its_wheel_builds_against_the_os_liblgpio(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    out = install(root, "lgpio", path=stubs(tmp_path, root, wheel=False, apt_lgpio=True))
    assert out.returncode == 0, out.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert "apt-get install -y -qq liblgpio-dev" in calls
    build = [c for c in calls if "--no-binary lgpio" in c]
    assert build and build[0].startswith("pip PYPI= "), calls
    assert "python -c import lgpio" in calls


def test_lgpio_with_neither_a_wheel_nor_liblgpio_dev_builds_self_contained(tmp_path: Path) -> None:
    """Debian trixie: Python 3.13, lgpio 0.2.2.0's wheels stop at 3.12, apt has no liblgpio-dev."""
    root = pi_root(tmp_path)
    out = install(root, "lgpio", path=stubs(tmp_path, root, wheel=False, apt_lgpio=False))
    assert out.returncode == 0, out.stderr
    assert "building lgpio self-contained (PYPI=1)" in out.stdout
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert any(c.startswith("pip PYPI=1 install") and "--no-binary lgpio" in c for c in calls), calls
    assert not any(c.startswith("apt-get") for c in calls)


def test_pips_error_lines_for_a_missing_wheel_come_after_the_sentence_that_explains_them(
    tmp_path: Path,
) -> None:
    """Issue 34: on trixie pip's two ERROR lines came first, then the sentence saying lgpio would be built."""
    root = pi_root(tmp_path)
    out = install(root, "lgpio", path=stubs(tmp_path, root, wheel=False, apt_lgpio=False))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    said = next(i for i, line in enumerate(lines) if "no lgpio wheel for this Python" in line)
    error = next(i for i, line in enumerate(lines) if "ERROR: no matching distribution" in line)
    assert said < error, lines
    assert "lgpio installed (" in out.stdout


def test_a_second_run_says_how_lgpio_was_obtained(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    out = install(root, "lgpio", path=stubs(tmp_path, root, wheel=False, apt_lgpio=False))
    assert out.returncode == 0, out.stderr
    info = root / "opt/trekking-companion/.venv/lib/python3.13/site-packages/lgpio-0.2.2.0.dist-info"
    info.mkdir(parents=True)
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nTag: cp313-cp313-linux_aarch64\n")
    again = install(root, "lgpio", path=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    assert again.returncode == 0, again.stderr
    assert "lgpio is installed already (built here from its source package); kept" in again.stdout
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nTag: cp312-cp312-manylinux_2_34_aarch64\n")
    third = install(root, "lgpio", path=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    assert "lgpio is installed already (as a wheel from the index); kept" in third.stdout


# ------------------------------------------------------------------------ the RFID driver


def pip_stub(tmp_path: Path, root: Path, *, old_rpi_gpio: bool) -> Path:
    """A pip that logs each call; ``pip show RPi.GPIO`` finds it only in an install from before."""
    log = tmp_path / "calls.log"
    pip = root / "opt/trekking-companion/.venv/bin/pip"
    pip.parent.mkdir(parents=True)
    found = 0 if old_rpi_gpio else 1
    pip.write_text(f'#!/bin/sh\necho "pip $*" >> {log}\ncase "$*" in "show RPi.GPIO") exit {found} ;; esac\n')
    pip.chmod(0o755)
    return log


def pinned_mfrc522() -> str:
    found = re.search(r"^MFRC522=(mfrc522==\S+)$", SCRIPT.read_text(), re.MULTILINE)
    assert found, "install-pi.sh pins the RFID driver it installs without its dependencies"
    return found[1]


def test_the_installer_never_asks_pip_for_the_original_rpi_gpio(tmp_path: Path) -> None:
    """Issue 34: mfrc522 declares RPi.GPIO, which has no wheel: pip compiled it (an hour under
    qemu at load 20) only for the installer to remove it again. mfrc522 now goes in after the
    pi extra, without its dependencies, and nothing asks for RPi.GPIO."""
    root = pi_root(tmp_path)
    log = pip_stub(tmp_path, root, old_rpi_gpio=False)
    out = install(root, "python")
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    extra = next(i for i, c in enumerate(calls) if c.endswith("/opt/trekking-companion[pi]"))
    driver = calls.index(f"pip install --progress-bar off --no-deps {pinned_mfrc522()}")
    assert extra < driver, "what mfrc522 imports (spidev, rpi-lgpio's RPi.GPIO) is in before it"
    assert [c for c in calls if "rpi.gpio" in c.lower()] == ["pip show RPi.GPIO"], calls
    assert not any(c.startswith("pip uninstall") for c in calls), calls


def test_a_second_install_removes_the_rpi_gpio_an_earlier_one_built(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    log = pip_stub(tmp_path, root, old_rpi_gpio=True)
    out = install(root, "python")
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    removed = calls.index("pip uninstall --quiet -y RPi.GPIO")
    back = calls.index("pip install --progress-bar off --force-reinstall --no-deps rpi-lgpio")
    assert removed < back, calls


def test_the_pinned_mfrc522_uses_only_what_the_pi_extra_installs() -> None:
    """--no-deps is honest only while the driver needs nothing more: the version the tests run
    (the dev extra's, with its real dependencies) is the pinned one, it declares RPi.GPIO and
    spidev, and its modules import only those (RPi.GPIO from rpi-lgpio) and the standard library."""
    import ast
    import sys
    import tomllib
    from importlib import metadata

    name, _, version = pinned_mfrc522().partition("==")
    assert metadata.version(name) == version, "the tests run the driver the installer pins"
    declared = {re.split(r"[ ;<>=!\[]", req, maxsplit=1)[0].lower() for req in metadata.requires(name) or []}
    assert declared == {"rpi.gpio", "spidev"}
    imported: set[str] = set()
    for file in metadata.files(name) or []:
        if file.suffix == ".py":
            tree = ast.parse(Path(str(file.locate())).read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"RPi", "spidev"}, imported
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pi"]
    names = {re.split(r"[ ;<>=!\[]", req, maxsplit=1)[0].lower() for req in extra}
    assert {"rpi-lgpio", "spidev"} <= names
    assert "mfrc522" not in names, "pip would resolve its RPi.GPIO"


def test_a_failed_step_is_named(tmp_path: Path) -> None:
    root = pi_root(tmp_path)
    out = install(root, "lgpio", path=stubs(tmp_path, root, wheel=False, apt_lgpio=False, build_ok=False))
    assert out.returncode == 1
    assert 'the installer stopped at step "lgpio"' in out.stderr, out.stderr
    assert "cannot find -llgpio" in out.stdout, "pip's own words stay on screen"


def test_an_unknown_step_or_option_is_refused(tmp_path: Path) -> None:
    out = install(pi_root(tmp_path), "firmware")
    assert out.returncode == 1 and "unknown step firmware" in out.stderr and "boot" in out.stderr


# --------------------------------------------------------------------------- the doctor unit


def directives(path: Path) -> dict[str, list[str]]:
    """A unit's directives (a line continued by a backslash joined), each key's values in order."""
    found: dict[str, list[str]] = {}
    for raw in path.read_text().replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key, []).append(value)
    return found


def test_the_doctor_unit_runs_once_before_the_service_with_the_services_access() -> None:
    doctor = directives(UNITS / "trekking-companion-doctor.service")
    service = directives(UNITS / "trekking-companion.service")
    script = SCRIPT.read_text()
    flag = re.search(r"^DOCTOR_FLAG=\$CONF_DIR/(\S+)$", script, flags=re.M)
    assert flag is not None
    assert doctor["ConditionPathExists"] == [f"/etc/trekking-companion/{flag.group(1)}"]
    assert doctor["ExecStopPost"] == [f"+/bin/rm -f /etc/trekking-companion/{flag.group(1)}"]
    assert doctor["Before"] == ["trekking-companion.service"] and doctor["Type"] == ["oneshot"]
    assert "companion doctor" in doctor["ExecStart"][0]
    for key in ("User", "Group", "SupplementaryGroups", "StateDirectory", "WorkingDirectory", "DeviceAllow"):
        assert doctor[key] == service[key], key
    assert "/dev/spidev0.0 rw" in service["DeviceAllow"], "the ring on SPI0"
    assert "/dev/spidev1.0 rw" in service["DeviceAllow"], "the reader on SPI1"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_doctor_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    unit = tmp_path / "trekking-companion-doctor.service"
    unit.write_text(
        "\n".join(
            "ExecStart=/bin/true" if line.startswith("ExecStart=") else line
            for line in (UNITS / unit.name).read_text().splitlines()
        )
    )
    out = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


# ------------------------------------------------------------------------------ rehearse-pi


def test_rehearse_pi_knows_its_suites() -> None:
    rehearse = REPO / "scripts" / "rehearse-pi"
    out = subprocess.run(["bash", str(rehearse), "--suite", "buster"], capture_output=True, text=True)
    assert out.returncode == 2 and "the suites are bookworm and trixie" in out.stderr
    out = subprocess.run(["bash", str(rehearse), "--bogus"], capture_output=True, text=True)
    assert out.returncode == 2 and "--suite bookworm|trixie" in out.stderr


def test_a_failed_rehearsal_says_which_step_and_shows_its_logs_tail(tmp_path: Path) -> None:
    """Today's failure on trixie ended with exit 1 and no line saying so."""
    text = (REPO / "scripts" / "rehearse-pi").read_text()
    functions = "\n".join(
        match.group(0) for name in ("step", "on_error")
        for match in [re.search(rf"^{name}\(\) \{{.*?^\}}$|^{name}\(\) \{{.*\}}$", text, flags=re.S | re.M)]
        if match
    )  # fmt: skip
    assert "on_error()" in functions and "step()" in functions
    log = tmp_path / "install.log"
    log.write_text("".join(f"line {i}\n" for i in range(40)) + "ld: cannot find -llgpio\n")
    program = (
        f"set -eE\nSUITE=trixie\nMODEL='Raspberry Pi 5'\n{functions}\ntrap on_error ERR\n"
        f"step install-pi.sh {log}\nfalse\necho not reached\n"
    )
    out = subprocess.run(["bash", "-c", program], capture_output=True, text=True)
    assert out.returncode == 1 and "not reached" not in out.stdout
    assert 'REHEARSAL FAILED at step "install-pi.sh"' in out.stdout and "suite trixie" in out.stdout
    assert "  | ld: cannot find -llgpio" in out.stdout and "line 10" not in out.stdout


def _bash_function(script: Path, name: str) -> str:
    """The text of one shell function of ``script`` (``name() {`` to its closing ``}``)."""
    match = re.search(rf"^{name}\(\) \{{.*?^\}}$", script.read_text(), flags=re.S | re.M)
    assert match, f"{script.name} has no function {name}"
    return match.group(0)


@pytest.mark.parametrize(
    ("model", "cpu"),
    [
        ("Raspberry Pi Zero 2 W Rev 1.0", "cortex-a53"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "cortex-a53"),
        (PI4, "cortex-a72"),
        ("Raspberry Pi 5 Model B Rev 1.0", "cortex-a76"),
    ],
)
def test_the_rehearsal_emulates_the_boards_own_core(model: str, cpu: str) -> None:
    """qemu's default CPU computes trixie's pointer authentication in software (start-up 37 s
    against bookworm's 8 s, issue 26); no Pi has it, so the rehearsal asks for the board's core."""
    rehearse = REPO / "scripts" / "rehearse-pi"
    program = f"{_bash_function(rehearse, 'qemu_cpu_of')}\nqemu_cpu_of '{model}'\n"
    out = subprocess.run(["bash", "-c", program], capture_output=True, text=True)
    assert out.stdout.strip() == cpu
    # and every arm64 program of the rehearsal gets it, inside its clean environment too
    text = rehearse.read_text()
    assert 'QEMU_CPU=$(qemu_cpu_of "$MODEL")' in text and "export QEMU_CPU" in text
    inside = re.search(r"^inside=\(env -i [^\n]*", text, flags=re.M)
    assert inside and 'QEMU_CPU="$QEMU_CPU"' in inside.group(0)


def test_the_emulated_benchmarks_emulate_a_zero_and_say_what_is_wrong() -> None:
    bench = REPO / "scripts" / "bench-emulated"
    text = bench.read_text()
    assert re.search(r"^CPU=cortex-a53$", text, flags=re.M), "a Zero 2 W's core by default"
    inside = re.search(r"^\s*inside=\(env -i [^\n]*", text, flags=re.M)
    assert inside and 'QEMU_CPU="$CPU"' in inside.group(0)
    out = subprocess.run(["bash", str(bench), "--suite", "buster"], capture_output=True, text=True)
    assert out.returncode == 2 and "the suites are bookworm and trixie" in out.stderr
    out = subprocess.run(["bash", str(bench), "--only", "soak"], capture_output=True, text=True)
    assert out.returncode == 2 and "the benchmarks are startup, step and coach" in out.stderr
    out = subprocess.run(["bash", str(bench), "--bogus"], capture_output=True, text=True)
    assert out.returncode == 2 and "usage" in out.stderr


def test_pips_lines_reach_the_timer_as_they_are_written() -> None:
    """Issue 34: through a pipe Python holds pip's lines in its buffer, so timed() stamped a build's
    "started" and "finished" lines together ("compiled spidev in 0 s"). The installer unbuffers pip."""
    script = (REPO / "systemd" / "install-pi.sh").read_text()
    steps = script.index("step_checks\nfor step in $ALL_STEPS")
    assert re.search(r"^export PYTHONUNBUFFERED=1$", script[:steps], flags=re.M)


def test_the_timer_runs_no_program_per_line(tmp_path: Path) -> None:
    """Issue 34: timed() ran date twice a line; under qemu at load 10-19 that took about a second
    a line, so behind pip's 80 lines of setuptools warnings the stamps fell minutes late and
    spidev, which pip said was "still running..." after a minute, was "compiled in 2 s"."""
    script = SCRIPT.read_text()
    found = re.search(r"^timed\(\) \{\n.*?^\}\n", script, flags=re.M | re.S)
    assert found, "install-pi.sh has its timed() function"
    calls = tmp_path / "calls.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("date", "sleep", "awk", "sed"):  # what a stamp could be made with
        (bin_dir / program).write_text(f'#!/bin/sh\necho "{program} $*" >> {calls}\necho 0\n')
        (bin_dir / program).chmod(0o755)
    lines = (
        "  Building wheel for spidev (pyproject.toml): started\n"
        "  Building wheel for spidev (pyproject.toml): still running...\n"
        "  Building wheel for spidev (pyproject.toml): finished with status 'done'\n"
    )
    program = "say() { printf '==> %s\\n' \"$*\"; }\n" + found[0] + "timed"
    out = subprocess.run(
        ["bash", "-c", program], input=lines, capture_output=True, text=True,
        env={"PATH": f"{bin_dir}:{os.environ['PATH']}", "LANG": "C.UTF-8", "TZ": "Europe/Paris"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert not calls.exists(), calls.read_text()
    stamps = re.findall(r"^    \[(\d\d:\d\d:\d\d)\] ", out.stdout, flags=re.M)
    assert len(stamps) == 3, out.stdout
    assert re.search(r"^==>   compiled spidev in \d+ s \(done\)$", out.stdout, flags=re.M), out.stdout
