"""Issue 36 item 1: without the ``venue`` extra (paho-mqtt), every command says in a sentence
what to install, never a traceback, and ``run --check`` does not answer "OK".

Each command runs as a process whose ``paho`` package is hidden (a package of that name on
``PYTHONPATH`` that fails to import, as a missing one does), against a real Mosquitto.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.venue import Broker, free_port

REPO = Path(__file__).resolve().parents[2]
INSTALL = "pip install 'trekking-companion[venue]'"


@pytest.fixture
def no_paho(tmp_path: Path) -> dict[str, str]:
    """An environment in which ``import paho`` fails as it does without the venue extra."""
    hidden = tmp_path / "hidden"
    (hidden / "paho").mkdir(parents=True)
    (hidden / "paho" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'paho'\")\n")
    return {**os.environ, "PYTHONPATH": f"{hidden}{os.pathsep}{REPO}"}


@pytest.fixture
def broker(tmp_path: Path) -> Broker:
    broker = Broker(tmp_path / "broker").start()
    yield broker  # type: ignore[misc]
    broker.stop()


def companion(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip


def venue_config(tmp_path: Path, broker: Broker) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'[venue]\nbroker = "{broker.url}"\ntable = "t1"\n')
    return config


def said_what_to_install(ran: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in ran.stderr + ran.stdout, ran.stderr
    assert INSTALL in ran.stderr + ran.stdout and "install-pi.sh --venue" in ran.stderr + ran.stdout


def test_run_check_with_a_venue_and_no_paho_says_what_to_install(
    tmp_path: Path, no_paho: dict[str, str], broker: Broker
) -> None:
    ran = companion(no_paho, "run", "--check", "--config", str(venue_config(tmp_path, broker)))
    assert ran.returncode != 0 and "OK" not in ran.stdout
    said_what_to_install(ran)
    plain = tmp_path / "plain.toml"
    plain.write_text("[table]\nport = 8080\n")  # no venue: nothing is needed
    assert companion(no_paho, "run", "--check", "--config", str(plain)).returncode == 0


def test_the_hall_without_paho_says_what_to_install(
    tmp_path: Path, no_paho: dict[str, str], broker: Broker
) -> None:
    ran = companion(no_paho, "hall", "--broker", broker.url, "--data-dir", str(tmp_path / "hall"),
                    "--port", str(free_port()), "--host", "127.0.0.1", "--pin", "4821")  # fmt: skip
    assert ran.returncode != 0
    said_what_to_install(ran)


def test_the_doctor_without_paho_says_what_to_install(
    tmp_path: Path, no_paho: dict[str, str], broker: Broker
) -> None:
    ran = companion(no_paho, "doctor", "--config", str(venue_config(tmp_path, broker)), "--data-dir",
                    str(tmp_path / "data"), "--wait", "0")  # fmt: skip
    said_what_to_install(ran)


def test_a_table_without_paho_plays_on_and_its_venue_line_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broker: Broker
) -> None:
    from companion.util.config import Config, TableSettings, VenueSettings
    from tests.support.tables import FAST_BUTTONS, make_runtime

    for name in [m for m in sys.modules if m == "paho" or m.startswith("paho.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "paho", None)  # `import paho` fails as when it is absent
    lines: list[str] = []
    config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS,
                    venue=VenueSettings(broker=broker.url, table="t1"))  # fmt: skip
    rt = make_runtime(tmp_path / "t1", config=config)
    rt.venue.log = lines.append
    try:
        rt.venue.start()
        status = rt.venue_status()
        assert status["reachable"] is False and status["problem"] == "venue_library_missing"
        assert INSTALL in status["words"] and any(INSTALL in line for line in lines)
        rt.press_now("confirm")  # the game goes on
    finally:
        rt.stop()


def test_the_installer_adds_the_venue_extra_when_asked_or_when_the_config_has_a_venue(tmp_path: Path) -> None:
    from tests.project.test_install_pi import PI4, SCRIPT, pi_root, stubs

    def python_step(root: Path, *options: str) -> list[str]:
        env = {
            "PATH": stubs(root.parent, root, wheel=True, apt_lgpio=False),
            "LANG": "C.UTF-8",
            "TREKKING_ROOT": str(root),
            "PI_MODEL": PI4,
            "PI_ARCH": "aarch64",
            "PI_USERLAND_ARCH": "arm64",
        }
        ran = subprocess.run(["bash", str(SCRIPT), *options, "--only", "python"], capture_output=True,
                             text=True, env=env)  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        calls = (root.parent / "calls.log").read_text().splitlines()
        return [c for c in calls if "/opt/trekking-companion[" in c]

    for name in ("plain", "flag", "configured"):
        (tmp_path / name).mkdir()
    plain = pi_root(tmp_path / "plain")
    calls = python_step(plain)
    assert calls and all("[pi]" in c for c in calls)
    flag = pi_root(tmp_path / "flag")
    assert any("[pi,venue]" in c for c in python_step(flag, "--venue"))
    configured = pi_root(tmp_path / "configured")
    (configured / "etc/trekking-companion").mkdir(parents=True)
    (configured / "etc/trekking-companion/config.toml").write_text('[venue]\nbroker = "mqtt://hall.lan"\n')
    assert any("[pi,venue]" in c for c in python_step(configured))
