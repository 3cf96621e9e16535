"""Soak: many simulated games through the whole mocked daemon with live pages attached.

Run: ``.venv/bin/python benchmarks/soak.py --games 10000 --clients 20 [--json]``

One mocked companion (store, engine, ring driver, waitress HTTP server) plays game
after game: each is started with ``POST /api/game/new`` and played by a random
player over ``POST /api/reader/tap`` and ``/api/buttons/confirm``, while N clients
hold ``/api/events`` open. It reports resident memory and thread count at the
start and the end, and checks that nothing is lost or doubled:

- every game's stored log replays (``companion.record``) with no rejection, and
  holds exactly the events the table acknowledged;
- every client saw strictly increasing event ids (no duplicate delivery) and ended
  on the latest snapshot.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import resource
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion.app import build_runtime, make_server, new_game
from companion.config import ButtonSettings, Config, TableSettings
from companion.record import replay_text
from companion.store import Store

PIN = "4242"


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Client(threading.Thread):
    """A live page: reads the event stream, remembers the ids it saw."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.latest: tuple[str, int] | None = None
        self.received = 0
        self.duplicates = 0
        self.last: dict[str, Any] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        buffer = b""
        while not self.stop.is_set():
            chunk = response.read1(1 << 16)
            if not chunk:
                break
            buffer += chunk
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                event_id, data = None, None
                for line in message.split(b"\n"):
                    if line.startswith(b"id: "):
                        event_id = line[4:].decode()
                    elif line.startswith(b"data: "):
                        data = line[6:]
                if event_id and data:
                    boot, version = event_id.rsplit("-", 1)
                    if self.latest is not None and (boot, int(version)) <= self.latest:
                        self.duplicates += 1
                    self.latest = (boot, int(version))
                    self.received += 1
                    self.last = {"version": int(version)}
        conn.close()


def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", "X-Table-Pin": PIN})
    result: dict[str, Any] = json.loads(conn.getresponse().read())
    conn.close()
    return result


def soak(games: int, clients: int, seed: int = 1) -> dict[str, Any]:

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(buttons=ButtonSettings(bounce=0.0), table=TableSettings(controls_per_minute=100000))
        store = Store(tmp)
        new_game(store, ["Ann", "Ben"], config, seed=seed, mock=True)
        store.close()
        rt = build_runtime(config, Path(tmp), mock=True, pin=PIN, say=lambda _: None)
        rt.start()
        server = make_server(rt, "127.0.0.1", 0, threads=clients + 8, heartbeat=5.0)
        port = server.socket.getsockname()[1]
        threading.Thread(target=server.run, daemon=True).start()
        pages = [Client(port) for _ in range(clients)]
        for page in pages:
            page.start()
        time.sleep(0.5)
        start_rss, start_threads = rss_mb(), threading.active_count()
        started = time.monotonic()
        problems: list[str] = []
        events = 0
        for g in range(games):
            players = ["Ann", "Ben", "Cy", "Dee"][: rng.randint(1, 4)]
            post(port, "/api/game/new", {"players": players, "seed": rng.randrange(1 << 30)})
            table = rt.table
            acknowledged = table.seq
            while not table.board.finished:
                expect = table.expect()
                assert expect is not None
                out = post(port, "/api/reader/tap", {"tag": rng.choice(expect["choices"])})
                if out["state"]["pending"] is not None:
                    out = post(port, "/api/buttons/confirm", {})
                acknowledged = out["state"]["events"]
            record = rt.store.export(table.game_id)
            replayed = replay_text(record)
            stored = len(record.splitlines()) - 1
            events += stored
            if replayed.rejected or stored != acknowledged or not replayed.board.finished:
                problems.append(
                    f"game {g}: {stored} stored, {acknowledged} acknowledged, {replayed.rejected[:2]}"
                )
        elapsed = time.monotonic() - started
        time.sleep(1.0)  # let the pages catch the last snapshot
        latest = rt.table.version
        behind = sum(1 for p in pages if p.last.get("version") != latest)
        duplicates = sum(p.duplicates for p in pages)
        end_rss, end_threads = rss_mb(), threading.active_count()
        for page in pages:
            page.stop.set()
        server.close()
        rt.stop()
    return {
        "games": games,
        "clients": clients,
        "events": events,
        "seconds": round(elapsed, 1),
        "rss_mb_start": round(start_rss, 1),
        "rss_mb_end": round(end_rss, 1),
        "threads_start": start_threads,
        "threads_end": end_threads,
        "lost_or_wrong_games": len(problems),
        "duplicate_deliveries": duplicates,
        "clients_not_on_latest": behind,
        "problems": problems[:10],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = soak(args.games, args.clients, args.seed)
    print(json.dumps(result) if args.json else "\n".join(f"{k:22} {v}" for k, v in result.items()))
    bad = result["lost_or_wrong_games"] or result["duplicate_deliveries"] or result["clients_not_on_latest"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
