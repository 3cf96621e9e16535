"""Issue 33 item 3: `companion backup DEST`, and putting a backup back as docs/operating.md says.

The backup is taken with SQLite's online backup while a real `companion run` takes taps, and
checked with the store's own checksums before it is named; the restore is the commands of
docs/operating.md, read from it and run as written, after which the companion goes on.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.records.trekking import TREKKING
from companion.run.cli import EXIT_USAGE, main
from companion.store.log import Store
from tests.support.daemon import acknowledged_step as step
from tests.support.daemon import call, free_port, start
from tests.support.tables import make_runtime

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "[buttons]\nbounce = 0.0\nundo_hold = 0.1\n[table]\ncontrols_per_minute = 100000\n"


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT
    )


def stored_events(database: Path, game: int = 1) -> list[str]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return [r[0] for r in db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game,))]


def opened(backup: Path, folder: Path) -> Store:
    """The backup as a store of its own (copied in as a data directory's database)."""
    folder.mkdir()
    shutil.copyfile(backup, folder / "companion.sqlite3")
    return Store(folder, TREKKING)


def test_a_backup_taken_while_the_companion_takes_taps_is_whole_and_checked(tmp_path: Path) -> None:
    live = tmp_path / "live"
    make_runtime(live, "Ann,Ben,Cy,Dee", seed=5).stop()
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    port = free_port()
    proc = start(live, config, port)
    taps: list[int] = []
    failed: list[BaseException] = []
    done = threading.Event()

    def play() -> None:
        rng = random.Random(7)
        try:
            while not done.is_set() and not call(port, "/api/state")["finished"]:
                taps.append(int(step(port, rng)["events"]))  # type: ignore[call-overload]
        except BaseException as exc:
            failed.append(exc)

    player = threading.Thread(target=play)
    player.start()
    backups = []
    try:
        for n in range(3):
            before = len(taps)
            made = companion("backup", str(tmp_path / f"b{n}.sqlite3"), "--data-dir", str(live))
            assert made.returncode == 0, made.stderr
            assert (
                "Backup written to" in made.stdout and "checked against the store's checksums" in made.stdout
            )
            backups.append((tmp_path / f"b{n}.sqlite3", before, len(taps)))
    finally:
        done.set()
        player.join(60)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert not failed, failed
    assert taps and taps == sorted(taps), "every tap acknowledged while the backups ran"
    final = stored_events(live / "companion.sqlite3")
    for n, (backup, _, _) in enumerate(backups):
        assert oct(backup.stat().st_mode & 0o777) == "0o600", "as private as the store"
        copied = stored_events(backup)
        assert copied == final[: len(copied)], "a snapshot of what was saved: the events up to a point"
        store = opened(backup, tmp_path / f"opened{n}")
        try:
            assert store.load(1).damage is None and store.damage == []
        finally:
            store.close()
    assert not [p.name for p in tmp_path.glob(".*partial*")], "nothing of a copy is left behind"
    store = Store(live, TREKKING)
    try:
        assert store.load(1).damage is None and store.damage == [], "the running store is untouched"
    finally:
        store.close()


def restore_commands() -> str:
    """The commands docs/operating.md gives for putting a backup back, as written there."""
    text = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    after = text.split("**Putting a backup back.**", 1)[1]
    block = re.search(r"```sh\n(.*?)```", after, re.S)
    assert block is not None, "operating.md shows the restore's commands"
    return block.group(1)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_the_restore_written_in_operating_md_puts_the_backup_back_and_the_game_goes_on(
    tmp_path: Path,
) -> None:
    """A backup, more taps, then a power cut (SIGKILL: the log stays beside the store); the
    owner restores the backup with the documented commands: the companion shows the game as
    backed up, keeps the later log aside (said), and the game goes on."""
    data = tmp_path / "data"
    make_runtime(data, "Ann,Ben", seed=8).stop()
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    rng = random.Random(3)
    port = free_port()
    proc = start(data, config, port)
    try:
        for _ in range(8):
            backed_up = step(port, rng)
        made = companion("backup", str(tmp_path / "kept.sqlite3"), "--data-dir", str(data))
        assert made.returncode == 0, made.stderr
        for _ in range(8):
            later = step(port, rng)
        assert later["events"] > backed_up["events"]  # type: ignore[operator]
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)

    env = {**os.environ, "BACKUP": str(tmp_path / "kept.sqlite3"), "DATA": str(data)}
    subprocess.run(["bash", "-euo", "pipefail", "-c", restore_commands()], env=env, check=True, cwd=tmp_path)

    port = free_port()
    proc = start(data, config, port)
    try:
        state = call(port, "/api/state")
        assert (state["game"], state["events"]) == (1, backed_up["events"]), "the game as backed up"
        assert state["row"] == backed_up["row"] and state["players"] == backed_up["players"]
        assert step(port, rng)["events"] > backed_up["events"], "and it goes on"  # type: ignore[operator]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    [journal] = data.glob("companion.sqlite3-wal.restored-*")
    assert journal.stat().st_size > 0, "the later log is kept aside, not applied"
    store = Store(data, TREKKING)
    try:
        assert [d.code for d in store.damage] == ["store_journal_restored"], "and said until Seen"
    finally:
        store.close()


def test_the_restore_works_into_a_new_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_runtime(data, "Ann,Ben", seed=2).stop()
    assert companion("backup", str(tmp_path / "kept.sqlite3"), "--data-dir", str(data)).returncode == 0
    fresh = tmp_path / "new card" / "data"
    env = {**os.environ, "BACKUP": str(tmp_path / "kept.sqlite3"), "DATA": str(fresh)}
    subprocess.run(["bash", "-euo", "pipefail", "-c", restore_commands()], env=env, check=True, cwd=tmp_path)
    store = Store(fresh, TREKKING)
    try:
        assert store.current_game() == 1 and store.damage == []
        assert oct((fresh / "companion.sqlite3").stat().st_mode & 0o777) == "0o600"
    finally:
        store.close()


def test_a_dest_that_exists_or_a_missing_folder_is_refused_and_nothing_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    make_runtime(data, "Ann,Ben").stop()
    there = tmp_path / "there.sqlite3"
    there.write_bytes(b"the owner's own file")
    assert main(["backup", str(there), "--data-dir", str(data)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"{there} already exists" in err and "never replaces" in err and "Traceback" not in err
    assert there.read_bytes() == b"the owner's own file"
    missing = tmp_path / "no such folder" / "b.sqlite3"
    assert main(["backup", str(missing), "--data-dir", str(data)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "cannot be written into" in err and "No such file or directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "there.sqlite3"]


def test_a_copy_that_fails_the_stores_checksums_is_deleted_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy is checked before it is named: a byte changed on its way (a failing USB stick,
    here a changed event) and the backup is refused, the store untouched."""
    data = tmp_path / "data"
    rt = make_runtime(data, "Ann,Ben")
    rt.tap(rt.table.expect()["choices"][0])  # type: ignore[index]
    rt.stop()
    copy_to = Store.copy_to

    def damaging(store: Store, target: sqlite3.Connection) -> None:
        copy_to(store, target)
        target.execute("UPDATE events SET event = event || ' ' WHERE seq = 1")
        target.commit()

    monkeypatch.setattr(Store, "copy_to", damaging)
    dest = tmp_path / "b.sqlite3"
    assert main(["backup", str(dest), "--data-dir", str(data)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "did not pass the store's own checks" in err and "store_event_damaged" in err
    assert not dest.exists() and not list(tmp_path.glob(".b.sqlite3*"))
    monkeypatch.setattr(Store, "copy_to", copy_to)
    assert main(["backup", str(dest), "--data-dir", str(data)]) == 0
    events = len(stored_events(data / "companion.sqlite3"))
    assert f"1 game (0 finished), {events} events," in capsys.readouterr().out
