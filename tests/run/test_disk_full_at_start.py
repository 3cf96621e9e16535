"""Issue 16 item 7: a full disk at start is a full disk, not a damaged store.

`companion run` on a full disk used to exit 2 with "the game store is damaged ... move
companion.sqlite3 aside": wrong advice (the data is fine), and systemd does not restart
status 2. Now it says the disk is full, keeps the data, waits for space and exits 3.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from companion.records.trekking import TREKKING
from companion.run import startup
from companion.run.cli import EXIT_RETRY
from companion.run.cli import main as cli_main
from companion.store.log import DiskFull, Store
from tests.support.tables import make_runtime


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The start-up's wait for space, made instant (the waiting itself is tested below)."""
    monkeypatch.setattr(startup, "DISK_RETRY_SECONDS", 0.0)
    monkeypatch.setattr(startup, "DISK_RETRY_EVERY", 0.0)


def sqlite_says_full(*_: Any) -> None:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = 13  # type: ignore[attr-defined]
    raise error


def run(data: Path) -> int:
    return cli_main(["run", "--mock", "--data-dir", str(data), "--port", "0"])


def assert_says_disk_full(err: str) -> None:
    assert "full" in err and "Free some space" in err, err
    assert "damaged" not in err and "aside" not in err, "never the advice for a damaged store"
    assert f"status {EXIT_RETRY}" in err


def test_sqlite_full_at_open_exits_3_saying_the_disk_is_full_and_keeps_the_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_runtime(tmp_path).stop()
    before = (tmp_path / "companion.sqlite3").read_bytes()
    monkeypatch.setattr(Store, "_connect", sqlite_says_full)
    assert run(tmp_path) == EXIT_RETRY
    assert_says_disk_full(capsys.readouterr().err)
    assert (tmp_path / "companion.sqlite3").read_bytes() == before
    unit = (Path(__file__).resolve().parents[2] / "systemd" / "trekking-companion.service").read_text()
    prevented = next(line for line in unit.splitlines() if line.startswith("RestartPreventExitStatus="))
    assert str(EXIT_RETRY) not in prevented.split("=", 1)[1].split(), "systemd restarts it"


def test_sqlite_full_on_a_pragma_is_a_full_disk_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first write of an opening (the schema, journal_mode) is where a full disk shows."""
    make_runtime(tmp_path).stop()
    real = Store._connect

    def connect_then_full(self: Store) -> None:
        real(self)
        db = self._db

        class Full:
            def __getattr__(self, name: str) -> Any:
                return getattr(db, name)

            def executescript(self, script: str) -> Any:
                sqlite_says_full()

        self._db = Full()  # type: ignore[assignment]

    monkeypatch.setattr(Store, "_connect", connect_then_full)
    assert run(tmp_path) == EXIT_RETRY
    assert_says_disk_full(capsys.readouterr().err)


def test_enospc_on_the_data_directorys_writes_exits_3_saying_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_open = os.open
    data = tmp_path / "data"

    def no_space(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).startswith(str(data)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_space)
    assert run(data) == EXIT_RETRY  # a new data directory: the database cannot be created
    assert_says_disk_full(capsys.readouterr().err)

    monkeypatch.setattr(os, "open", real_open)
    make_runtime(data).stop()  # an existing store: the table PIN and the lock file are written at start
    (data / "pin").unlink(missing_ok=True)
    monkeypatch.setattr(os, "open", no_space)
    assert run(data) == EXIT_RETRY
    assert_says_disk_full(capsys.readouterr().err)
    monkeypatch.setattr(os, "open", real_open)
    assert len(list(Store(data, TREKKING).games())) == 1, "the game is still there"


def test_the_start_waits_for_space_and_goes_on_once_there_is_some(tmp_path: Path) -> None:
    said: list[str] = []
    tries = iter([DiskFull("store_full_start", folder="X"), None])

    def build() -> Any:
        failure = next(tries)
        if failure is not None:
            raise failure
        return "runtime"

    assert startup.build_when_space(build, said.append, retry_for=10.0, every=0.0) == "runtime"
    assert "Trying again every" in said[0] and said[-1].startswith("There is space")


def test_a_full_disk_while_setting_damage_aside_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The copy of a damaged store is written first: if the disk is full, nothing is moved,
    no half copy stays, and the start says the disk is full (exit 3), not more damage."""
    import sqlite3 as sql

    from companion.store import log as store_module

    rt = make_runtime(tmp_path)
    rt.tap(rt.table.expect()["choices"][0])  # type: ignore[index]
    rt.stop()
    with sql.connect(tmp_path / "companion.sqlite3") as db:
        db.execute("UPDATE events SET at = 'changed' WHERE seq = 1")
        before = db.execute("SELECT * FROM events ORDER BY seq").fetchall()

    real = store_module.make_private

    def no_space(path: Path) -> None:  # the copy's last step: as if its last page found no room
        if ".damaged-" in path.name:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path)

    monkeypatch.setattr(store_module, "make_private", no_space)
    assert run(tmp_path) == EXIT_RETRY
    err = capsys.readouterr().err
    assert "is full, so the damaged store cannot be copied aside" in err and "Free some space" in err
    assert "move companion.sqlite3" not in err and f"status {EXIT_RETRY}" in err
    with sql.connect(tmp_path / "companion.sqlite3") as db:
        assert db.execute("SELECT * FROM events ORDER BY seq").fetchall() == before
        assert db.execute("SELECT COUNT(*) FROM set_aside").fetchone()[0] == 0
    assert not list(tmp_path.glob("companion.sqlite3.damaged-*"))
