"""Issue 21 item 1: a full disk at start on a real ext4 file system, the daemon as an ordinary user.

The audit's reproduction, for real: a small ext4 image on a loop device, the store's data
directory owned by a system user (as the service runs: ``User=trekking``), the disk filled by
that user (root keeps 5 % of an ext4 disk for itself, so root never sees what the service sees).
There SQLite cannot grow its shared-memory index and says only "disk I/O error": the companion
called the store *damaged*, told the owner to move it away and exited 2, which the unit does not
restart. And a retry tripped over the lock file its own first attempt held ("a companion is
running"). Now it says the disk is full, waits for space, and serves once there is some.

Needs root (mount, a system user) and a loop device; anywhere else the module skips, saying why.
The interpreter lives wherever the test's does (often under a private /root): the daemon keeps
one capability, CAP_DAC_READ_SEARCH (read any file), to reach it, and nothing else of root's:
not CAP_SYS_RESOURCE, the one that would let it use root's reserved blocks.
"""

from __future__ import annotations

import http.client
import os
import pwd
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.daemon import free_port
from tests.support.stores import mounted

ROOT = Path(__file__).resolve().parents[2]
USER = "trekking"  # the service's user (systemd/trekking-companion.service)
PIN = "2468"

if os.geteuid() != 0:
    pytest.skip(
        "SKIPPED: needs root to mount an ext4 image and run as a system user", allow_module_level=True
    )
if not all(shutil.which(tool) for tool in ("mkfs.ext4", "mount", "umount", "setpriv", "useradd")):
    pytest.skip("SKIPPED: needs mkfs.ext4, mount, setpriv and useradd", allow_module_level=True)


def service_user() -> pwd.struct_passwd:
    """The service's system user, created like install-pi.sh does when it is missing."""
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        done = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0 and "already exists" not in done.stderr:
            pytest.skip(f"SKIPPED: cannot create the system user {USER} ({done.stderr.strip()})")
        return pwd.getpwnam(USER)


def as_user(user: pwd.struct_passwd, *command: str) -> list[str]:
    """``command`` as the service's user: its uid, gid and no other group; one capability kept
    (reading files on the way to the interpreter), see the module's docstring."""
    return [
        "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
        "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
        "env", "HOME=/nonexistent", f"PYTHONPATH={ROOT}", *command,
    ]  # fmt: skip


@contextmanager
def mounted_ext4(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB ext4 file system on a loop device, mounted; unmounted when done.

    With 4 KiB blocks, as on a Pi's SD card: mkfs gives a disk this small 1 KiB blocks, and there
    SQLite's shared-memory index stays sparse (it writes one byte per 4 KiB page to allocate it),
    so a full disk can kill the daemon with SIGBUS, which no Raspberry Pi OS file system does."""
    image, mount = tmp_path / "disk.img", tmp_path / "disk"
    with image.open("wb") as out:
        out.truncate(8 * 1024 * 1024)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", str(image)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"SKIPPED: mkfs.ext4 failed ({made.stderr.strip()})")
    mount.mkdir()
    with mounted(["-o", "loop", str(image)], mount, "a loop device"):
        yield mount


@pytest.fixture
def ext4(tmp_path: Path) -> Iterator[Path]:
    """`mounted_ext4`, for a test."""
    with mounted_ext4(tmp_path) as mount:
        yield mount


class Daemon:
    """``companion run`` as the service's user, its output collected line by line."""

    def __init__(self, user: pwd.struct_passwd, data: Path, config: Path) -> None:
        self.port = free_port()
        command = [sys.executable, "-m", "companion", "run", "--mock", "--data-dir", str(data),
                   "--config", str(config), "--port", str(self.port), "--pin", PIN]  # fmt: skip
        self.proc = subprocess.Popen(
            as_user(user, *command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def said(self) -> str:
        return "\n".join(self.lines)

    def answers(self) -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
            conn.request("GET", "/api/state")
            return conn.getresponse().status == 200
        except OSError:
            return False

    def wait_for(self, condition: object, what: str, seconds: float = 60) -> None:
        """Wait until ``condition()`` holds (polled), or fail saying what was awaited and what was said."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():  # type: ignore[operator]
                return
            if self.proc.poll() is not None and not self.answers():
                break
            time.sleep(0.05)
        pytest.fail(f"waited for {what}; exit {self.proc.poll()}; said:\n{self.said}")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=30)


def fill_as(user: pwd.struct_passwd, folder: Path) -> Path:
    """Fill the disk as the user does: up to the last block the user may have."""
    filler = folder / "filler"
    subprocess.run(
        as_user(user, "dd", "if=/dev/zero", f"of={filler}", "bs=4096"), capture_output=True, check=False
    )
    last = as_user(user, "dd", "if=/dev/zero", f"of={filler}", "bs=1", "oflag=append", "conv=notrunc")
    subprocess.run(last, capture_output=True, check=False)
    return filler


@pytest.mark.parametrize("before", ["stopped", "killed"])
def test_a_full_ext4_disk_at_start_is_said_as_full_retried_and_served_once_freed(
    ext4: Path, tmp_path: Path, before: str
) -> None:
    """``stopped``: the last run ended cleanly (SQLite must create its index: "disk I/O error").
    ``killed``: it was SIGKILLed, leaving its index and log, and a first attempt on the full disk
    left the lock file empty (created, its process id not written): the store opens, and the lock
    file's write is the first to find no space; the retry then found the lock held by its own
    first attempt ("a companion is running", exit 2)."""
    user = service_user()
    data = ext4 / "data"
    data.mkdir(mode=0o700)
    os.chown(data, user.pw_uid, user.pw_gid)
    config = tmp_path / "config.toml"
    config.write_text('[table]\nhost = "127.0.0.1"\n')
    config.chmod(0o644)
    first = Daemon(user, data, config)  # the first attempt: it creates the store and its lock file
    first.wait_for(first.answers, "the first run to answer")
    first.stop(signal.SIGKILL if before == "killed" else signal.SIGTERM)
    assert (data / "companion.lock").exists(), "the lock file of the first attempt is there"
    if before == "killed":
        (data / "companion.lock").write_bytes(b"")
        # no seal of the log (companion.store.wal) either, as an older companion leaves it: removing
        # a stale seal on a full disk would free the one block the lock file then takes
        (data / "companion.sqlite3-seal").unlink(missing_ok=True)
    filler = fill_as(user, data)
    assert os.statvfs(data).f_bavail * os.statvfs(data).f_frsize < 64 * 1024, "full for the user"

    daemon = Daemon(user, data, config)
    try:
        daemon.wait_for(lambda: "Trying again every" in daemon.said, "the start to say it waits for space")
        said = daemon.said
        assert "is full" in said and "Free some space" in said, said
        assert "damaged" not in said and "move companion.sqlite3" not in said, "never the advice for damage"
        assert "is running" not in said, "never its own lock file taken for another companion"
        assert daemon.proc.poll() is None, "it waits (exit 2 is not restarted by the unit)"
        filler.unlink()  # the owner frees space
        daemon.wait_for(daemon.answers, "the companion to serve once there is space")
        assert "There is space" in daemon.said
        state = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=5)
        state.request("GET", "/api/state")
        assert b'"game":1,' in state.getresponse().read(), "the game of the first run, resumed"
    finally:
        code = daemon.stop()
    assert code == 0, daemon.said
