"""Issue 33 item 3: `companion backup` as the service's user, into a folder it may not write
and onto a full ext4 disk: each said in a sentence, nothing of the copy left, the games unchanged.

Needs root (a system user, a loop-mounted ext4 image), as `test_full_disk_ext4` does; root
itself may write anywhere and keeps 5 % of an ext4 disk, so only the service's user sees these.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.store.test_full_disk_ext4 import ROOT, as_user, fill_as, mounted_ext4, service_user
from tests.support.tables import make_runtime


def test_an_unwritable_folder_and_a_full_disk_are_said_and_nothing_is_left(tmp_path: Path) -> None:
    user = service_user()
    data = tmp_path / "data"
    make_runtime(data, "Ann,Ben").stop()
    for path in (data, *data.iterdir()):
        os.chown(path, user.pw_uid, user.pw_gid)
    before = events(data)

    def backup(dest: Path) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "companion", "backup", str(dest), "--data-dir", str(data)]
        return subprocess.run(as_user(user, *command), capture_output=True, text=True, cwd=ROOT)

    theirs = tmp_path / "root's"
    theirs.mkdir(mode=0o755)
    refused = backup(theirs / "b.sqlite3")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert f"cannot be written into {theirs} (Permission denied)" in refused.stderr
    assert list(theirs.iterdir()) == []

    with mounted_ext4(tmp_path) as disk:
        folder = disk / "backups"
        folder.mkdir()
        os.chown(folder, user.pw_uid, user.pw_gid)
        fill_as(user, folder)
        full = backup(folder / "b.sqlite3")
        assert full.returncode == 2 and "Traceback" not in full.stderr, full.stderr
        assert f"the disk holding {folder} is full" in full.stderr and "nothing of it is left" in full.stderr
        assert sorted(p.name for p in folder.iterdir()) == ["filler"], "no partial copy"
        (folder / "filler").unlink()
        done = backup(folder / "b.sqlite3")
        assert done.returncode == 0 and "Backup written to" in done.stdout, done.stderr
    assert events(data) == before, "the games unchanged"


def events(data: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(f"file:{data / 'companion.sqlite3'}?mode=ro", uri=True) as db:
        return db.execute("SELECT game_id, seq, event FROM events ORDER BY game_id, seq").fetchall()
