"""Power-cut harness: SIGKILL `companion run` mid-game, maybe tear the WAL tail, restart, finish.

Run: ``.venv/bin/python -m tests.support.powercut --games 200 [--seed 1] [--json]``

For each scripted game: start ``companion run --mock`` on a fresh data directory,
play it over HTTP with random legal inputs, and after each acknowledged input
read back (with a separate SQLite reader) the events committed so far. At a
random moment the process is killed with SIGKILL — sometimes while a request is
in flight. In some runs the tail of the write-ahead log beyond the last
acknowledged commit is then cut or overwritten with garbage, as a torn write
would leave it. The companion is restarted, the game finished, and the harness
checks that:

- every event acknowledged before the kill is in the log, in order, none twice;
- the game resumed in the state the last acknowledged response showed;
- the final standings equal a clean ``companion replay`` of the exported record.

It prints how many kills, how many acknowledged events it checked, and failures.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.daemon import call, companion, new_and_start, start


@dataclass
class Stats:
    games: int = 0
    kills: int = 0
    kills_in_flight: int = 0
    wal_cut: int = 0
    wal_garbage: int = 0
    acknowledged_events: int = 0
    events_checked: int = 0
    failures: list[str] = field(default_factory=list)


def kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL, as a pulled plug; fine if it is already gone."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGKILL)


def committed(db: Path) -> list[str]:
    """The events committed so far, read by a separate connection (as another process would)."""
    # closed at once: a connection left open would keep this process's map of the WAL index
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as conn:
        return [row[0] for row in conn.execute("SELECT event FROM events WHERE game_id = 1 ORDER BY seq")]


def step(port: int, rng: random.Random) -> dict[str, Any]:
    """One input as a player would make it; returns the acknowledged state."""
    state = call(port, "/api/state")
    expect = state["expect"]
    if expect["kind"] == "confirm":
        return dict(call(port, "/api/buttons/" + rng.choice(["crystal", "confirm", "confirm"]), {})["state"])
    out = call(port, "/api/reader/tap", {"tag": rng.choice(expect["choices"])})
    return dict(out["state"])


def tear_wal(wal: Path, acked_size: int, rng: random.Random, stats: Stats) -> None:
    """Damage only what lies beyond the last acknowledged commit, as a torn write would.

    A power cut also loses the shared-memory WAL index (it lives in the page cache),
    so it goes too: SQLite then rebuilds it from the WAL, checking each frame's checksum.
    """
    shm = wal.with_name(wal.name.replace("-wal", "-shm"))
    shm.unlink(missing_ok=True)
    size = wal.stat().st_size if wal.exists() else 0
    if size <= acked_size or acked_size == 0:
        with wal.open("ab") as f:  # a frame that never finished: garbage after the last commit
            f.write(rng.randbytes(rng.randrange(1, 5000)))
        stats.wal_garbage += 1
        return
    with wal.open("r+b") as f:
        f.truncate(rng.randrange(acked_size, size))
    stats.wal_cut += 1


def play_one(n: int, seed: int, corrupt: bool, stats: Stats, workdir: Path) -> None:
    rng = random.Random(seed * 1000 + n)
    data = workdir / f"game{n}"
    config = workdir / "config.toml"
    if not config.exists():
        config.write_text("[buttons]\nbounce = 0.0\nundo_hold = 0.1\n[table]\ncontrols_per_minute = 100000\n")
    players = ["Ann", "Ben", "Cy", "Dee"][: rng.randint(1, 4)]
    db, wal = data / "companion.sqlite3", data / "companion.sqlite3-wal"
    port, proc = new_and_start(data, config, ",".join(players), seed=n)
    acked: list[str] = committed(db)
    acked_state: dict[str, Any] | None = None
    acked_wal = wal.stat().st_size if wal.exists() else 0
    kill_after = rng.randint(3, 60)
    in_flight = rng.random() < 0.4
    try:
        for i in range(kill_after):
            if in_flight and i == kill_after - 1:
                # kill while this request is being served
                threading.Timer(rng.uniform(0.0, 0.01), kill, (proc,)).start()
                with contextlib.suppress(
                    urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError, OSError
                ):
                    step(port, rng)
                stats.kills_in_flight += 1
                break
            state = step(port, rng)
            if state["finished"]:
                break
            acked = committed(db)[: state["events"]]
            if len(acked) != state["events"]:
                stats.failures.append(f"game {n}: acknowledged event {state['events']} not committed yet")
            acked_state, acked_wal = state, (wal.stat().st_size if wal.exists() else 0)
    finally:
        kill(proc)
        proc.wait(10)
    stats.kills += 1
    if corrupt:
        tear_wal(wal, acked_wal, rng, stats)
    proc = start(data, config, port)
    try:
        after = committed(db)
        stats.acknowledged_events += len(acked)
        if after[: len(acked)] != acked:
            stats.failures.append(f"game {n}: acknowledged events lost or changed after the kill")
        stats.events_checked += len(after)
        resumed = call(port, "/api/state")
        if acked_state is not None and resumed["events"] == acked_state["events"]:
            for key in ("players", "row", "turn", "ancestors_left", "day"):
                if resumed[key] != acked_state[key]:
                    stats.failures.append(f"game {n}: {key} differs after the restart")
        for _ in range(1000):
            if call(port, "/api/state")["finished"]:
                break
            step(port, rng)
        final = call(port, "/api/state")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    record = subprocess.run(companion("export", "--data-dir", str(data)), check=True, capture_output=True,
                            text=True).stdout  # fmt: skip
    replay = json.loads(subprocess.run(companion("replay", "-", "--json"), input=record, check=True,
                                       capture_output=True, text=True).stdout)  # fmt: skip
    lines = [line for line in record.splitlines()[1:] if line.strip()]
    if len(lines) != len(set(enumerate(lines))) or replay["rejected"]:
        stats.failures.append(f"game {n}: the log replays with rejections {replay['rejected'][:3]}")
    if not final["finished"] or replay["players"] != [
        {k: v for k, v in p.items() if k not in ("colour", "marker")}
        for p in final["players"]  # how a seat looks
    ]:
        stats.failures.append(f"game {n}: final standings differ from a clean replay")
    stats.games += 1


def run(games: int, seed: int = 1, corrupt_share: float = 0.3) -> Stats:
    stats = Stats()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(games):
            play_one(n, seed, rng.random() < corrupt_share, stats, Path(tmp))
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corrupt", type=float, default=0.3, help="share of runs whose WAL tail is torn")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    stats = run(args.games, args.seed, args.corrupt)
    result = {**stats.__dict__, "failures": stats.failures[:20], "failure_count": len(stats.failures),
              "seconds": round(time.monotonic() - started, 1)}  # fmt: skip
    print(json.dumps(result) if args.json else "\n".join(f"{k:22} {v}" for k, v in result.items()))
    return 1 if stats.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
