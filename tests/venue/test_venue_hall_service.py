"""Issue 36 item 9: the hall as a service: a hardened systemd unit whose command line, run as
systemd would run it, follows a real Mosquitto and serves the hall's page."""

from __future__ import annotations

import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.project.test_install_pi import UNITS, directives
from tests.support.venue import Broker, free_port, page_text, wait_until

HALL = UNITS / "trekking-hall.service"


def test_the_hall_unit_is_hardened_like_the_table_s() -> None:
    hall, table = directives(HALL), directives(UNITS / "trekking-companion.service")
    shared = ["CapabilityBoundingSet", "NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp",
              "ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups",
              "ProtectClock", "ProtectHostname", "RestrictAddressFamilies", "IPAddressDeny", "IPAddressAllow",
              "SystemCallFilter", "RemoveIPC", "ProtectProc", "RestrictNamespaces", "RestrictSUIDSGID",
              "LockPersonality", "MemoryDenyWriteExecute", "RestrictRealtime", "SystemCallArchitectures",
              "DevicePolicy", "UMask", "StateDirectoryMode", "RestartPreventExitStatus"]  # fmt: skip
    for key in shared:
        assert hall.get(key) == table.get(key), key
    assert hall["DynamicUser"] == ["yes"] and "DeviceAllow" not in hall and hall["PrivateDevices"] == ["yes"]
    assert hall["LoadCredential"] == ["password:/etc/trekking-hall/password"]
    command = shlex.split(hall["ExecStart"][0])
    assert command[1:2] == ["hall"] and "--data-dir" in command
    assert command[command.index("--data-dir") + 1] == "/var/lib/" + hall["StateDirectory"][0]
    assert command[command.index("--password-file") + 1] == "%d/password", "the credential, not a file"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_hall_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    unit = tmp_path / HALL.name
    text = HALL.read_text().replace("\\\n", " ")
    unit.write_text("\n".join("ExecStart=/bin/true" if line.startswith("ExecStart=") else line
                              for line in text.splitlines()))  # fmt: skip
    out = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_the_unit_s_command_follows_a_real_broker_and_serves_the_page(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "password").write_text("unused on an anonymous broker\n")
    port = free_port()
    line = directives(HALL)["ExecStart"][0]
    for name, value in (("%d", str(credentials)), ("${BROKER}", broker.url), ("${PORT}", str(port)),
                        ("$TABLES", ""), ("/var/lib/trekking-hall", str(tmp_path / "hall"))):  # fmt: skip
        line = line.replace(name, value)
    command = shlex.split(line)
    assert command[0] == "/opt/trekking-companion/.venv/bin/companion"
    proc = subprocess.Popen([sys.executable, "-m", "companion", *command[1:], "--host", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert "The venue" in wait_until(lambda: page_text(port), 30, "the hall's page")
        assert (tmp_path / "hall" / "pin").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
        broker.stop()
    assert proc.returncode == 0 and b"Traceback" not in err, err
