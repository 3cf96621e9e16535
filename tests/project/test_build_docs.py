"""The build files hold together: the systemd unit verifies, the install script parses."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.tables import require_tool

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "trekking-companion.service"


def test_unit_runs_the_companion_as_a_dedicated_user() -> None:
    text = UNIT.read_text()
    assert "User=trekking" in text and "SupplementaryGroups=spi gpio" in text
    assert "companion run" in text and "Restart=on-failure" in text
    assert "NoNewPrivileges=yes" in text


def unit_settings() -> dict[str, dict[str, list[str]]]:
    """The unit's directives by section, each with every value it is given (comments skipped)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def test_the_state_directory_is_private_as_docs_security_says() -> None:
    """systemd makes a StateDirectory 0755 unless told; docs/security.md promises 0700."""
    service = unit_settings()["Service"]
    assert service["StateDirectory"] == ["trekking-companion"]
    assert service["StateDirectoryMode"] == ["0700"]
    assert service["UMask"] == ["0077"]  # and every file the service makes is its own
    data = "/var/lib/" + service["StateDirectory"][0]
    assert f"--data-dir {data}" in service["ExecStart"][0], "the private directory is the one it uses"
    assert "`StateDirectoryMode=0700`" in (ROOT / "docs" / "security.md").read_text()


def test_the_service_keeps_glibc_to_two_malloc_arenas() -> None:
    """An arena per server thread grew the daemon by 30 MB after a burst of history pages
    (issue 26, benchmarks/bench_history_memory.py): the unit starts it with two."""
    environment = unit_settings()["Service"]["Environment"]
    assert "MALLOC_ARENA_MAX=2" in environment


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    # The real ExecStart exists only on an installed Pi; verify the rest of the unit as is.
    unit = tmp_path / UNIT.name
    unit.write_text(
        "\n".join(
            "ExecStart=/bin/true" if line.startswith("ExecStart=") else line
            for line in UNIT.read_text().splitlines()
        )
    )
    out = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_install_script_is_valid_bash() -> None:
    out = subprocess.run(
        ["bash", "-n", str(ROOT / "systemd" / "install-pi.sh")], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr


def test_wiring_names_every_default_pin() -> None:
    from companion.util.config import Config

    text = (ROOT / "wiring.md").read_text()
    c = Config()
    for pin in (c.buttons.crystal, c.buttons.confirm, c.buttons.undo, c.ring.pin, c.reader.rst_pin):
        assert f"GPIO{pin}" in text


def test_the_pi_extra_names_every_boards_drivers() -> None:
    """Every board drives the ring over SPI1 with neopixel_spi (docs/ring.md): the root-only
    rpi_ws281x, the Pi 5's PIO driver and Blinka's board module (with its gpiod) are gone."""
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pi"]
    names = {req.split(";")[0].split(">")[0].split("=")[0].strip().lower() for req in extra}
    assert {
        "spidev",
        "rpi-lgpio",
        "gpiozero",
        "lgpio",
        "adafruit-circuitpython-neopixel-spi",
    } <= names
    gone = {
        "rpi_ws281x",
        "adafruit-blinka-raspberry-pi5-neopixel",
        "adafruit-circuitpython-neopixel",
        "gpiod",
    }
    assert not names & gone
    # mfrc522 declares the original RPi.GPIO: install-pi.sh installs it without its dependencies
    assert "mfrc522" not in names


def test_the_install_script_has_a_chroot_mode_for_rehearsals() -> None:
    text = (ROOT / "systemd" / "install-pi.sh").read_text()
    assert "--chroot" in text and "PI_MODEL" in text
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "rehearse-pi"), "--bogus"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "usage" in out.stderr


def test_a_setting_error_does_not_restart_in_a_loop() -> None:
    assert "RestartPreventExitStatus=2" in UNIT.read_text()


def test_the_first_run_says_what_it_installs_while_it_installs(tmp_path: Path) -> None:
    """scripts/bootstrap with a stand-in Python whose pip prints what a real one does."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "bootstrap", tmp_path / "scripts" / "bootstrap")
    (tmp_path / "pyproject.toml").write_text("")
    fake_pip = "\n".join([
        "#!/bin/sh",
        'case "$*" in *"-e .[dev]"*) ;; *) echo "Successfully installed pip-25"; exit 0 ;; esac',
        'echo "Collecting flask>=3.0 (from trekking-companion==0.1.0)"',
        'echo "  Downloading flask-3.1.3-py3-none-any.whl (103 kB)"',
        'echo "Building wheels for collected packages: spidev"',
        'echo "Successfully installed flask-3.1.3 spidev-3.8"',
    ])  # fmt: skip
    python = tmp_path / "python"
    python.write_text(
        "#!/bin/sh\n"  # "python -m venv .venv": make .venv/bin/python the stand-in pip
        f'mkdir -p .venv/bin && cat > .venv/bin/python <<"EOS"\n{fake_pip}\nEOS\nchmod +x .venv/bin/python\n'
    )
    python.chmod(0o755)
    out = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "bootstrap")],
        capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHON": str(python)},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert "bootstrap: Collecting flask>=3.0" in lines, lines
    assert "bootstrap: Building wheels for collected packages: spidev" in lines
    assert lines[-1] == "bootstrap: done" and not any("Downloading" in line for line in lines)
    assert (tmp_path / ".venv" / ".installed-stamp").exists()


SCRIPTS = [
    ROOT / "systemd/install-pi.sh",
    ROOT / "systemd/trekking-companion",
    ROOT / "scripts/rehearse-pi",
    ROOT / "scripts/bench-emulated",
]


def test_the_pi_scripts_pass_shellcheck() -> None:
    require_tool(
        shutil.which("shellcheck") is not None,
        "shellcheck is not installed",
        "Debian's shellcheck; .ci/run installs it",
    )
    out = subprocess.run(["shellcheck", "-S", "warning", *map(str, SCRIPTS)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout


def pi_wrapper(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """systemd/trekking-companion with its paths moved into ``tmp_path``, this venv's companion,
    and a `systemctl` that names the current user as the service's (so it runs without runuser)."""
    import getpass
    import os
    import sys

    data, config = tmp_path / "var-lib", tmp_path / "config.toml"
    config.write_text('[table]\npin = ""\n')
    text = (ROOT / "systemd" / "trekking-companion").read_text()
    for line, value in (("COMPANION", Path(sys.executable).with_name("companion")), ("CONFIG", config),
                        ("DATA", data)):  # fmt: skip
        text, n = re.subn(rf"^{line}=.*$", f"{line}={value}", text, flags=re.M)
        assert n == 1, line
    wrapper = tmp_path / "trekking-companion"
    wrapper.write_text(text)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(f"#!/bin/sh\necho {getpass.getuser()}\n")
    (bin_dir / "systemctl").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("COMPANION_DATA_DIR", None)
    env.pop("COMPANION_CONFIG", None)
    return wrapper, data, env


def test_the_pi_wrapper_prints_the_tables_pin_from_the_service_data_directory(tmp_path: Path) -> None:
    """`sudo trekking-companion pin` on a Pi: the service's data directory and config, no options."""
    wrapper, data, env = pi_wrapper(tmp_path)
    out = subprocess.run(["bash", str(wrapper), "pin"], capture_output=True, text=True, env=env)
    assert out.returncode == 2 and "does not exist yet" in out.stderr and "systemctl start" in out.stderr
    data.mkdir(mode=0o700)
    out = subprocess.run(["bash", str(wrapper), "pin"], capture_output=True, text=True, env=env)
    assert out.returncode == 2 and f"no table PIN is kept in {data}" in out.stderr, out.stderr
    (data / "pin").write_text("246813\n")
    out = subprocess.run(["bash", str(wrapper), "pin"], capture_output=True, text=True, env=env)
    assert (out.returncode, out.stdout.strip()) == (0, "246813"), out.stderr
    before = set(data.iterdir())
    games = subprocess.run(["bash", str(wrapper), "games"], capture_output=True, text=True, env=env)
    assert games.returncode == 0, games.stderr
    assert set(data.iterdir()) > before, "any other command works on the service's data directory too"


def test_install_pi_times_each_package_that_compiles() -> None:
    """hardware/README.md's compile times come from these lines of the rehearsal's output."""
    script = (ROOT / "systemd" / "install-pi.sh").read_text()
    timed = re.search(r"^timed\(\) \{.*?^\}", script, flags=re.S | re.M)
    assert timed is not None and "| timed" in script
    pip = "\n".join([
        "Collecting spidev", "Building wheels for collected packages: spidev, rpi_ws281x",
        "  Building wheel for spidev (pyproject.toml): started",
        "  Building wheel for spidev (pyproject.toml): finished with status 'done'",
        "  Building wheel for rpi_ws281x (setup.py): started",
        "  Building wheel for rpi_ws281x (setup.py): finished with status 'error'",
    ])  # fmt: skip
    program = f"say() {{ printf '==> %s\\n' \"$*\"; }}\n{timed.group(0)}\nprintf '%s\\n' \"$1\" | timed\n"
    out = subprocess.run(["bash", "-c", program, "timed", pip], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^==>   compiled spidev in \d+ s \(done\)$", out.stdout, flags=re.M), out.stdout
    assert re.search(r"^==>   compiled rpi_ws281x in \d+ s \(error\)$", out.stdout, flags=re.M), out.stdout
    assert re.search(r"^    \[\d\d:\d\d:\d\d\] Collecting spidev$", out.stdout, flags=re.M), out.stdout
