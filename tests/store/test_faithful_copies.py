"""Issue 33 item 1: any faithful copy of a data directory continues exactly.

The audit: a copy of an idle store made with `cp -r` (new modification times) came back at
game 1 with 6 events and no finished games, and a crashed store copied with `cp -r`, or whose
database was only touched, set 66 acknowledged events aside: the seal compared the database's
size and time. The log is now tied to its database by content (`companion.store.wal_owner`).

Here a real `companion run` is idle, or SIGKILLed after acknowledged taps, its directory is
copied with the real commands (`cp -r`, `cp -a`, `rsync` without ``-t``, `tar`, and a `touch`
after), and `companion run` on each copy must show the same game, the same events and the same
finished games, with nothing set aside.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.daemon import acknowledged_step as step
from tests.support.daemon import call, free_port, start
from tests.support.tables import make_runtime, play_turn, require_tool

require_tool(shutil.which("rsync") is not None, "rsync", "apt-get install rsync")

SET_ASIDE = ("*.foreign-*", "*.restored-*", "*before-*", "*.damaged-*", "*.empty-*")


def copy_with(tool: str) -> Callable[[Path, Path], None]:
    """How each tool copies a directory as people type it: only ``cp -a`` keeps the times."""

    def run(*command: str) -> None:
        subprocess.run(command, check=True, capture_output=True)

    def tar(source: Path, target: Path) -> None:
        target.mkdir()
        packed = subprocess.run(["tar", "-C", str(source), "-cf", "-", "."], check=True, capture_output=True)
        subprocess.run(["tar", "-C", str(target), "-xf", "-"], input=packed.stdout, check=True)

    def touched(source: Path, target: Path) -> None:
        run("cp", "-a", str(source), str(target))
        run("touch", str(target / "companion.sqlite3"))

    return {
        "cp -r": lambda source, target: run("cp", "-r", str(source), str(target)),
        "cp -a": lambda source, target: run("cp", "-a", str(source), str(target)),
        "rsync -r": lambda source, target: run("rsync", "-r", f"{source}/", f"{target}/"),
        "tar": tar,
        "cp -a, then touch": touched,
    }[tool]


#: The finished games of `played`'s directory, as `companion games` lists them.
FINISHED: dict[Path, list[str]] = {}

TOOLS = ("cp -r", "cp -a", "rsync -r", "tar", "cp -a, then touch")


def games(data: Path) -> list[str]:
    """`companion games`: every game, finished or not, with its event count."""
    out = subprocess.run(
        [sys.executable, "-m", "companion", "games", "--data-dir", str(data)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [" ".join(line.split()[:1] + line.split()[2:]) for line in out.stdout.splitlines()]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with two finished games and a third begun, its log checkpointed."""
    data = tmp_path_factory.mktemp("played") / "data"
    rng = random.Random(4)
    for seed in (1, 2, 3):
        rt = make_runtime(data, "Ann,Ben", seed=seed)
        while seed < 3 and rt.table.expect() is not None:
            play_turn(rt, rng)
        rt.stop()
    FINISHED[data] = games(data)[1:]
    assert len(FINISHED[data]) == 2 and all(" finished " in line for line in FINISHED[data])
    return data


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("left", ["idle", "killed"])
def test_a_faithful_copy_of_a_running_or_killed_store_continues_exactly(
    played: Path, tmp_path: Path, left: str
) -> None:
    live = tmp_path / "live"
    shutil.copytree(played, live)
    config = tmp_path / "config.toml"
    config.write_text("[buttons]\nbounce = 0.0\nundo_hold = 0.1\n[table]\ncontrols_per_minute = 100000\n")
    port = free_port()
    proc = start(live, config, port)
    try:
        rng = random.Random(9)
        for _ in range(14):  # acknowledged taps, in the log since the companion started
            shown = step(port, rng)
        assert (live / "companion.sqlite3-wal").stat().st_size > 0
        if left == "killed":
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        copies = {}
        for n, tool in enumerate(TOOLS):  # the idle companion still runs while it is copied
            copies[tool] = tmp_path / f"copy{n}"
            copy_with(tool)(live, copies[tool])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    for tool, copy in copies.items():
        port = free_port()
        proc = start(copy, config, port)
        try:
            state = call(port, "/api/state")
            assert (state["game"], state["events"]) == (3, shown["events"]), tool
            assert state["players"] == shown["players"] and state["row"] == shown["row"], tool
            after = step(port, rng)  # and it goes on
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
        assert games(copy) == [f"3 in play {after['events']} events", *FINISHED[played]], tool
        kept = [p.name for pattern in SET_ASIDE for p in copy.glob(pattern)]
        assert kept == [], (tool, kept)
