"""Soak: many simulated games through the whole mocked daemon with live pages attached.

Run: ``.venv/bin/python -m tests.support.soak --games 10000 --clients 20 [--json]``

The daemon is the real thing: ``companion run --mock`` in its own process (store,
engine, ring driver, waitress HTTP server), so the memory and threads reported are
the daemon's own, read from ``/proc/<pid>/status``. A driver plays game after game
over one keep-alive HTTP connection: ``POST /api/game/new``, then random legal
inputs on ``/api/reader/tap`` and ``/api/buttons/crystal|confirm``. Meanwhile N
live pages, in a third process, hold ``/api/events`` open.

It reports the daemon's resident memory and thread count at the start, every
``--sample`` games and at the end, and checks that nothing is lost or doubled:

- after a clean stop, every game's stored log (``companion.store.log``) replays with no
  rejection to a finished game, and holds exactly the events the table acknowledged;
- every page saw strictly increasing event ids (no duplicate delivery), was never
  cut off, and ended on the latest snapshot.

Pages read as fast as they can but the driver moves much faster than a table does,
so a page may skip intermediate versions (the server sends the latest one when the
page is ready); it must never see one twice or an old one after a newer one.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from companion.records.trekking import TREKKING, replay_text
from companion.store.log import Store
from tests.support.daemon import PIN, new_and_start

CONFIG = "[buttons]\nbounce = 0.0\nundo_hold = 0.1\n[table]\ncontrols_per_minute = 100000\n"


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time that process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_status(pid: int) -> tuple[float, int]:
    """Resident memory (MB) and thread count of process ``pid``."""
    rss, threads = 0.0, 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return round(rss, 1), threads


def settled_status(pid: int) -> tuple[float, int]:
    """`proc_status` with the fewest threads seen over a quarter second: the rate
    limiter's expiry timer is a short-lived thread, not a leak."""
    readings = []
    for _ in range(6):
        readings.append(proc_status(pid))
        time.sleep(0.05)
    return min(readings, key=lambda r: r[1])


# --- the live pages (a separate process, one asyncio loop) ---------------------------


class Page:
    """One live page: reads the event stream and remembers the ids it saw."""

    def __init__(self) -> None:
        self.latest: tuple[str, int] | None = None
        self.received = 0
        self.duplicates = 0
        self.inconsistent = 0
        self.ended = False
        self.game: tuple[int, int] = (0, 0)  # (game, events) of the last snapshot

    def seen(self, event_id: str, snapshot: dict[str, Any]) -> None:
        """Ids only go forward; the snapshot is the one its id names, and within one
        game a page never sees fewer events than before (nothing goes back in time)."""
        boot, _, version = event_id.rpartition("-")
        seen = (boot, int(version))
        if self.latest is not None and seen <= self.latest:
            self.duplicates += 1
        game = (snapshot["game"], snapshot["events"])
        if snapshot["version"] != seen[1] or (game[0] == self.game[0] and game[1] < self.game[1]):
            self.inconsistent += 1
        self.latest, self.game = seen, game
        self.received += 1

    async def read(self, port: int, address: str = "127.0.0.1") -> None:
        # each page from its own loopback address, as phones are (the server caps pages per address)
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, limit=1 << 22, local_addr=(address, 0)
        )
        # HTTP/1.0: the stream comes unchunked and ends when the server closes it
        writer.write(b"GET /api/events HTTP/1.0\r\nHost: soak\r\nAccept: text/event-stream\r\n\r\n")
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        try:
            while True:
                message = await reader.readuntil(b"\n\n")
                fields = dict(line.split(b": ", 1) for line in message.split(b"\n") if b": " in line)
                if b"id" in fields:
                    self.seen(fields[b"id"].decode(), json.loads(fields[b"data"]))
        except (asyncio.IncompleteReadError, ConnectionError):
            self.ended = True
        finally:
            writer.close()


async def _pages(port: int, count: int, control: Connection) -> dict[str, Any]:
    pages = [Page() for _ in range(count)]
    tasks = [asyncio.create_task(page.read(port, f"127.0.8.{k + 1}")) for k, page in enumerate(pages)]
    loop = asyncio.get_running_loop()
    control.send("ready")
    # wait (without blocking the loop) for the driver to name the last version
    latest: int = await loop.run_in_executor(None, control.recv)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(p.latest is None or p.latest[1] != latest for p in pages):
        await asyncio.sleep(0.05)
    for task in tasks:
        task.cancel()
    return {
        "received": sum(p.received for p in pages),
        "duplicates": sum(p.duplicates for p in pages),
        "inconsistent": sum(p.inconsistent for p in pages),
        "cut_off": sum(p.ended for p in pages),
        "not_on_latest": sum(1 for p in pages if p.latest is None or p.latest[1] != latest),
    }


def pages_process(port: int, count: int, control: Connection) -> None:
    control.send(asyncio.run(_pages(port, count, control)))


# --- the driver -------------------------------------------------------------------------


class Driver:
    """Plays over one keep-alive connection, as the page's virtual reader and buttons do."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "X-Table-Pin": PIN}
        self.conn.request("POST", path, json.dumps(body), headers)
        response = self.conn.getresponse()
        result: dict[str, Any] = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{path} answered {response.status}: {result}")
        return result

    def play(self, players: list[str], seed: int, rng: random.Random) -> tuple[int, int]:
        """A whole game; returns its id and the number of events the table acknowledged."""
        state = self.post("/api/game/new", {"players": players, "seed": seed})["state"]
        while not state["finished"]:
            expect = state["expect"]
            if expect["kind"] == "confirm":
                button = "crystal" if rng.random() < 0.2 else "confirm"
                out = self.post(f"/api/buttons/{button}", {})
            else:
                out = self.post("/api/reader/tap", {"tag": rng.choice(expect["choices"])})
            state = out["state"]
        return int(state["game"]), int(state["events"])


def soak(
    games: int, clients: int, seed: int = 1, sample: int = 1000, progress: bool = False
) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        data, config = Path(tmp) / "data", Path(tmp) / "config.toml"
        config.write_text(CONFIG)
        port, daemon = new_and_start(data, config, "Ann,Ben")
        context = multiprocessing.get_context("spawn")
        control, child_end = context.Pipe()
        pages = context.Process(target=pages_process, args=(port, clients, child_end), daemon=True)
        try:
            pages.start()
            if not control.poll(60) or control.recv() != "ready":
                raise RuntimeError("the live pages did not start")
            time.sleep(0.5)
            rss_start, threads_start = settled_status(daemon.pid)
            cpu_start = cpu_seconds(daemon.pid)
            samples = [{"games": 0, "rss_mb": rss_start, "threads": threads_start}]
            driver = Driver(port)
            acknowledged: dict[int, int] = {}
            started = time.monotonic()
            for g in range(1, games + 1):
                players = ["Ann", "Ben", "Cy", "Dee"][: rng.randint(1, 4)]
                game, events = driver.play(players, rng.randrange(1 << 30), rng)
                acknowledged[game] = events
                if g % sample == 0 or g == games:
                    rss, threads = settled_status(daemon.pid)
                    samples.append({"games": g, "rss_mb": rss, "threads": threads})
                    if progress:
                        rate = g / (time.monotonic() - started)
                        line = f"{g} games, {rate:.1f} games/s, rss {rss} MB, {threads} threads"
                        print(line, file=sys.stderr, flush=True)
            elapsed = time.monotonic() - started
            driver.conn.request("GET", "/api/state")
            final = json.loads(driver.conn.getresponse().read())
            control.send(int(final["version"]))
            seen = control.recv() if control.poll(60) else {"not_on_latest": clients, "received": 0,
                                                             "duplicates": 0, "inconsistent": 0,
                                                             "cut_off": 0}  # fmt: skip
            rss_end, threads_end = settled_status(daemon.pid)
            daemon_cpu = cpu_seconds(daemon.pid) - cpu_start
            pages_cpu = cpu_seconds(pages.pid) if pages.pid else 0.0
        finally:
            pages.kill()
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(30)
        problems = check_store(data, acknowledged)
    return {
        "games": games,
        "clients": clients,
        "events": sum(acknowledged.values()),
        "seconds": round(elapsed, 1),
        "games_per_second": round(games / elapsed, 2),
        "daemon_cpu_seconds": round(daemon_cpu, 1),
        "pages_cpu_seconds": round(pages_cpu, 1),
        "rss_mb_start": rss_start,
        "rss_mb_end": rss_end,
        "threads_start": threads_start,
        "threads_end": threads_end,
        "samples": samples,
        "deliveries": seen["received"],
        "duplicate_deliveries": seen["duplicates"],
        "snapshots_out_of_step": seen["inconsistent"],
        "streams_cut_off": seen["cut_off"],
        "clients_not_on_latest": seen["not_on_latest"],
        "lost_or_wrong_games": len(problems),
        "problems": problems[:10],
    }


def check_store(data: Path, acknowledged: dict[int, int]) -> list[str]:
    """Every game the driver played, as stored: replays cleanly, holds what was acknowledged."""
    problems = []
    store = Store(data, TREKKING)
    try:
        for game, events in acknowledged.items():
            record = store.export(game)
            stored = sum(1 for line in record.splitlines()[1:] if line.strip())
            replayed = replay_text(record)
            if replayed.rejected or stored != events or not replayed.board.finished:
                rejected = list(replayed.rejected)[:2]
                problems.append(f"game {game}: {stored} stored, {events} acknowledged, {rejected}")
    finally:
        store.close()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=int, default=1000, help="record memory and threads every N games")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = soak(args.games, args.clients, args.seed, args.sample, progress=True)
    print(json.dumps(result) if args.json else "\n".join(f"{k:22} {v}" for k, v in result.items()))
    bad = (
        result["lost_or_wrong_games"]
        or result["duplicate_deliveries"]
        or result["snapshots_out_of_step"]
        or result["clients_not_on_latest"]
        or result["streams_cut_off"]
    )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
