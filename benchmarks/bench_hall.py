"""A hall that runs all season (issue 36 item 3). A benchmark, not a test.

Run: ``.venv/bin/python -m benchmarks.bench_hall [--games 5000] [--tables 50] [--data-dir DIR] [--json]``
and for the lag: ``... --lag [--pace 3] [--seconds 60]``.

1. **Season**: ``--games`` whole games (3 players, 64 events each, every one re-chained from one
   game the greedy bot played: `tests.support.hall_feed`) from ``--tables`` tables are handed
   to one hall as the broker hands them (`Hall.handle`), in rounds of one game per table.
   Each round the tables play at once (one move each in turn). After every 500 games: the
   most descriptors open under the hall's folder mid-game so far, the process's
   resident memory (VmRSS) and the events stored per second. Memory per finished game is the
   slope of VmRSS over the games. ``--data-dir`` on a tmpfs (/dev/shm) measures the hall, not
   the disk's fsyncs.
2. **Lag** (``--lag``): a real Mosquitto (started here) and a hall following it; ``--tables``
   tables publish their games' events, each table one event every ``--pace`` seconds (a real
   table: a move every few seconds), for ``--seconds``; then all at once (flat out, 20 events
   per table). Figures: the lag from a table's publish to the hall having stored the event,
   p50/p99, and events lost (published, never stored).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_venue import broker, percentile
from companion.util.config import VenueSettings
from companion.venue.hall import HOT_GAMES, Hall
from tests.support.hall_feed import GameTemplate, open_under


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def season(folder: Path, games: int, tables: int) -> dict[str, Any]:
    template = GameTemplate(folder / "template", ["Ann", "Ben", "Cy"], seed=7)
    hall = Hall(folder / "hall", log=lambda _: None)
    rows = []
    started = time.perf_counter()
    base = rss_mb()
    told = 0
    number = 0
    most_open = 0
    while told < games:
        number += 1
        playing = [template.messages(f"t{t}", number) for t in range(min(tables, games - told))]
        for step in range(max(map(len, playing))):  # the tables play at once, a move each in turn
            for messages in playing:
                if step < len(messages):
                    hall.handle(*messages[step])
            if step == len(template.events) // 2:  # mid-game: every table's game is open
                most_open = max(most_open, open_under(folder / "hall"))
        for _ in playing:
            told += 1
            if told % 500 == 0 or told == games:
                elapsed = time.perf_counter() - started
                row = {"games": told, "open_files": most_open, "rss_mb": round(rss_mb(), 1),
                       "events_per_s": round(hall.counts["stored"] / elapsed)}  # fmt: skip
                rows.append(row)
                print(
                    f"  {row['games']:>5} games: at most {row['open_files']:>3} files open under the hall's "
                    f"folder, VmRSS {row['rss_mb']:.1f} MB, {row['events_per_s']} events/s",
                    flush=True,
                )
    league_started = time.perf_counter()
    league = len(hall.league_games())
    league_s = time.perf_counter() - league_started
    first = rows[0]
    per_game_kb = (rows[-1]["rss_mb"] - first["rss_mb"]) * 1024 / max(1, rows[-1]["games"] - first["games"])
    result = {"games": told, "events": hall.counts["stored"], "refused": hall.counts["refused"],
              "rows": rows, "max_open_files": max(r["open_files"] for r in rows),
              "rss_before_mb": round(base, 1), "kb_per_finished_game": round(per_game_kb, 2),
              "league_games": league, "league_s": round(league_s, 2), "hot_games": HOT_GAMES,
              "open_after_league": open_under(folder / "hall")}  # fmt: skip
    hall.stop()
    return result


def lag(folder: Path, tables: int, pace: float, seconds: float) -> dict[str, Any]:
    import paho.mqtt.client as mqtt

    template = GameTemplate(folder / "template", ["Ann", "Ben", "Cy"], seed=7)
    proc, url = broker(folder / "broker")
    hall = Hall(folder / "hall", log=lambda _: None)
    sent: dict[tuple[str, int, int], float] = {}
    stored: dict[tuple[str, int, int], float] = {}
    hall.on_stored = lambda table, game, seq: stored.__setitem__((table, game, seq), time.monotonic())
    hall.connect(VenueSettings(broker=url), client_id="bench-hall")
    clients = []
    for t in range(tables):
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-t{t}")
        client.max_queued_messages_set(0)
        client.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
        client.loop_start()
        clients.append(client)
    lock = threading.Lock()

    def play(t: int, game: int, events: int, every: float) -> None:
        messages = template.messages(f"t{t}", game, events)
        begin = time.monotonic() + (every * t / tables)  # tables out of step, as at a venue
        for i, (topic, payload) in enumerate(messages):
            if every:
                time.sleep(max(0.0, begin + i * every - time.monotonic()))
            if "/events" in topic:
                seq = json.loads(payload)["seq"]
                with lock:
                    sent[(f"t{t}", game, seq)] = time.monotonic()
            clients[t].publish(topic, payload, qos=1, retain=topic.endswith("/setup"))

    def phase(game: int, events: int, every: float) -> dict[str, Any]:
        threads = [threading.Thread(target=play, args=(t, game, events, every)) for t in range(tables)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        keys = [k for k in sent if k[1] == game]
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not all(k in stored for k in keys):
            time.sleep(0.1)
        lags = [stored[k] - sent[k] for k in keys if k in stored]
        return {"events": len(keys), "stored": len(lags), "lost": len(keys) - len(lags),
                "lag_p50_ms": round(percentile(lags, 0.5) * 1000, 1),
                "lag_p99_ms": round(percentile(lags, 0.99) * 1000, 1)}  # fmt: skip

    try:
        paced = phase(1, max(2, min(len(template.events), int(seconds / pace))), pace)
        print(f"  real pace ({tables} tables, an event every {pace} s each): {paced}", flush=True)
        flat = phase(2, 20, 0.0)
        print(f"  flat out ({tables} tables x 20 events at once): {flat}", flush=True)
    finally:
        for client in clients:
            client.loop_stop()
        hall.stop()
        proc.terminate()
        proc.wait(20)
    return {"tables": tables, "pace_s": pace, "real_pace": paced, "flat_out": flat}


def main() -> int:
    from benchmarks.medians import options

    parser = options(__doc__)
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--data-dir", help="where the hall keeps its games (default: a temporary folder)")
    parser.add_argument("--lag", action="store_true", help="the lag through a real Mosquitto instead")
    parser.add_argument("--pace", type=float, default=3.0, help="seconds between a table's events (--lag)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the real pace lasts (--lag)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-hall-", dir=args.data_dir))
    try:
        if args.lag:
            result = lag(folder, args.tables, args.pace, args.seconds)
        else:
            print(f"{args.games} games from {args.tables} tables into one hall ({folder}):", flush=True)
            result = season(folder, args.games, args.tables)
            print(f"  at most {result['max_open_files']} files open (HOT_GAMES {HOT_GAMES}); "
                  f"{result['kb_per_finished_game']} KB of VmRSS per finished game; the league of "
                  f"{result['league_games']} games replayed in {result['league_s']} s, then "
                  f"{result['open_after_league']} files open", flush=True)  # fmt: skip
        if args.json:
            print(json.dumps(result))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
