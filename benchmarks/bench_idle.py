"""The idle daemon's CPU and wake-ups per second, per thread (issue 26: a table where nothing happens).

Run: ``.venv/bin/python -m benchmarks.bench_idle [--seconds 5] [--rounds 3] [--steps 200]
[--pages N] [--port-range 18700-18799] [--tree DIR ...] [--json]``

``companion run --mock`` runs in its own process with nothing asked, in three situations:

- ``start``: the daemon as it starts, a new game waiting for the itineraries (the nearest the
  daemon comes to "no game": the table always holds one; the ring breathes in the first
  player's colour and the mover's watch pulses);
- ``game``: a game in progress, between two turns (the mover's watch pulses);
- ``cue``: a cue playing: a rejected tap (the ring's red flash, 0.8 s), measured from the tap's
  answer for 0.7 s, again and again until ``--seconds`` of flashes are measured;
- ``steps``: not idle: ``--steps`` steps of `benchmarks.bench_step` (a tap and the page's GET,
  no live page) as fast as they go, each thread's CPU per step beside (``cpu_ms_per_step``):
  what the ring and the buttons cost inside a step, which bench_step's whole-process figure
  cannot separate from the server's;
- ``steps-pagesN`` (with ``--pages N``): the same steps with N live pages held by bench_step's
  pages process, each step waiting until every page has its change, as bench_step's: a step
  then lasts the live pages' pacing (about 40 ms at 20 pages), and the ring's 30 frames a
  second count in it as issue 26's profile counts them.

Per thread, from ``/proc/PID/task/TID/schedstat``: CPU time (to the nanosecond) and the times
the thread was put on a CPU (its wake-ups), each per second of the window. Thread names come
from ``py-spy dump`` (Python's names; /proc's ``comm`` says "python" for every thread): same
names with different numbers are one row (``waitress-N``: its 80 threads; ``Thread-N (held)``:
gpiozero's hold threads, one per button). ``all`` is the whole process. ``--tree`` runs the
daemon from another checkout (``PYTHONPATH``), rounds alternate between trees, and the
medians over rounds are printed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.medians import medians, print_rows
from tests.support.daemon import PIN, port_from, request, start_daemon, stop_daemon

PY_SPY = os.environ.get("PY_SPY", "/tmp/spy/bin/py-spy")
#: How long a rejected tap's flash is measured for: inside its 0.8 s (`CUE_SECONDS["reject"]`).
FLASH = 0.7

Sample = dict[int, tuple[int, int]]


def thread_names(pid: int) -> dict[int, str]:
    """Each thread id's Python name, read by ``py-spy dump`` (``comm`` when py-spy is missing)."""
    spy = shutil.which(PY_SPY) or shutil.which("py-spy")
    names: dict[int, str] = {}
    if spy is not None:
        out = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True).stdout
        for tid, name in re.findall(r'^Thread (\d+) \([^)]*\): "(.*)"$', out, re.MULTILINE):
            names[int(tid)] = name
    for task in os.listdir(f"/proc/{pid}/task"):
        if int(task) not in names:
            names[int(task)] = "comm:" + Path(f"/proc/{pid}/task/{task}/comm").read_text().strip()
    return names


def sample(pid: int) -> Sample:
    """Each live thread's CPU time (ns) and times run (schedstat's first and third fields)."""
    out: Sample = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()
            out[int(task)] = (int(fields[0]), int(fields[2]))
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            continue
    return out


def group(name: str) -> str:
    """The row of a thread: its name with numbers as N (``waitress-12`` -> ``waitress-N``)."""
    return re.sub(r"\d+", "N", name)


class Window:
    """CPU and wake-ups per thread group, summed over one or more stretches of wall time."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names
        self.cpu: dict[str, int] = defaultdict(int)
        self.runs: dict[str, int] = defaultdict(int)
        self.seconds = 0.0
        self.steps = 0

    def add(self, before: Sample, after: Sample, seconds: float) -> None:
        self.seconds += seconds
        for tid, (cpu, runs) in after.items():
            cpu0, runs0 = before.get(tid, (0, 0))
            for key in (group(self.names.get(tid, "new thread")), "all"):
                self.cpu[key] += cpu - cpu0
                self.runs[key] += runs - runs0

    def rates(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for key in sorted(self.cpu, key=lambda k: -self.cpu[k]):
            out[f"{key}|cpu_ms_per_s"] = self.cpu[key] / 1e6 / self.seconds
            out[f"{key}|wakeups_per_s"] = self.runs[key] / self.seconds
            if self.steps:
                out[f"{key}|cpu_ms_per_step"] = self.cpu[key] / 1e6 / self.steps
        return out


def quiet(pid: int, names: dict[int, str], seconds: float) -> dict[str, float]:
    window = Window(names)
    before, start = sample(pid), time.perf_counter()
    time.sleep(seconds)
    window.add(before, sample(pid), time.perf_counter() - start)
    return window.rates()


def post(port: int, path: str, body: Any) -> int:
    """A POST whose answer may be a refusal (a rejected tap): its status only."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, json.dumps(body), {"X-Table-Pin": PIN, "Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def flashes(port: int, pid: int, names: dict[int, str], seconds: float) -> dict[str, float]:
    """The daemon while a rejected tap's red flash plays, measured in `FLASH`-second stretches."""
    window = Window(names)
    while window.seconds < seconds:
        post(port, "/api/reader/tap", {"tag": "not-a-card"})
        before, start = sample(pid), time.perf_counter()
        time.sleep(FLASH)
        window.add(before, sample(pid), time.perf_counter() - start)
    return window.rates()


def into_a_game(port: int) -> str:
    """A new game, played until the mover is to take a card (no itinerary, no reveal pending)."""
    request(port, "POST", "/api/game/new", {"players": ["Ann", "Ben", "Cy", "Dee"], "seed": 7})
    state = request(port, "GET", "/api/state")
    taps = 0
    while True:
        expect = state["expect"]
        if taps >= 8 and expect["kind"] not in ("itinerary", "reveal") and state["pending"] is None:
            return str(expect["kind"])
        if state["pending"] is not None:
            state = request(port, "POST", "/api/buttons/confirm", {})["state"]
        else:
            state = request(port, "POST", "/api/reader/tap", {"tag": str(expect["choices"][0])})["state"]
        taps += 1


def stepping(port: int, pid: int, names: dict[int, str], steps: int, pages: int = 0) -> dict[str, float]:
    """The daemon through ``steps`` steps (a PIN-header tap, a Confirm when asked, a new game
    when one ended, the page's read), with ``pages`` live pages each given every change before
    the next step (`benchmarks.bench_step.live_pages`)."""
    from benchmarks import bench_step

    pages_have = bench_step.live_pages(port, pages)
    try:
        window = Window(names | thread_names(pid))  # the pages' writer may start with the first page
        seed, state = 1, request(port, "GET", "/api/state")
        before, start = sample(pid), time.perf_counter()
        for _ in range(steps):
            expect = state["expect"]
            if expect is None:  # the game ended: a new one
                seed += 1
                body = {"players": ["Ann", "Ben", "Cy", "Dee"], "seed": seed}
                state = request(port, "POST", "/api/game/new", body)["state"]
            else:
                seed = (seed * 1103515245 + 12345) % 2**31
                tag = str(expect["choices"][seed % len(expect["choices"])])
                state = request(port, "POST", "/api/reader/tap", {"tag": tag})["state"]
                if state["pending"] is not None:
                    state = request(port, "POST", "/api/buttons/confirm", {})["state"]
            request(port, "GET", "/api/state?page=1")
            pages_have(state["version"])
        window.add(before, sample(pid), time.perf_counter() - start)
    finally:
        while bench_step.CLOSING:
            bench_step.CLOSING.pop().close()
    window.steps = steps
    return window.rates()


def measure(
    tree: Path | None, seconds: float, port_range: str, steps: int, pages: int = 0
) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        port = port_from(port_range)
        daemon = start_daemon(tree, port, Path(tmp) / "data")
        try:
            time.sleep(1.0)  # past the start's own work (the finished games' check, imports)
            names = thread_names(daemon.pid)
            out = {"start": quiet(daemon.pid, names, seconds)}
            into_a_game(port)
            time.sleep(2.5)  # past the last tap's cue
            names = thread_names(daemon.pid)
            out["game"] = quiet(daemon.pid, names, seconds)
            out["cue"] = flashes(port, daemon.pid, names, seconds)
            if steps:
                out["steps"] = stepping(port, daemon.pid, names, steps)
            if steps and pages:
                out[f"steps-pages{pages}"] = stepping(port, daemon.pid, names, steps, pages)
        finally:
            stop_daemon(daemon)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds measured per situation")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every tree")
    parser.add_argument("--steps", type=int, default=200, help="steps of the 'steps' situation (0: none)")
    parser.add_argument("--pages", type=int, default=0, help="live pages of a 2nd steps situation (0: none)")
    parser.add_argument("--port-range", default="18700-18799", help="ports to choose from, lo-hi")
    parser.add_argument("--tree", action="append", help="a checkout to run the daemon from (repeatable)")
    parser.add_argument("--threads", default="all,ring,Thread-N (held),waitress-N,MainThread",
                        help="thread rows to print, comma separated ('' for every one)")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            measured = measure(tree, args.seconds, args.port_range, args.steps, args.pages)
            for situation, rates in measured.items():
                runs.setdefault((str(tree or "installed"), situation), []).append(rates)
    wanted = [t for t in args.threads.split(",") if t]
    rows: list[dict[str, Any]] = []
    for (label, situation), results in runs.items():
        keys = set.intersection(*(set(r) for r in results))  # a thread seen in every round
        figures = medians([{k: r[k] for k in keys} for r in results], 4)
        threads = sorted({k.split("|")[0] for k in keys}, key=lambda t: -figures[f"{t}|cpu_ms_per_s"])
        for thread in threads:
            if wanted and thread not in wanted:
                continue
            row = {
                "tree": label, "situation": situation, "thread": thread.replace(" ", "_"),
                "cpu_ms_per_s": round(figures[f"{thread}|cpu_ms_per_s"], 2),
                "wakeups_per_s": round(figures[f"{thread}|wakeups_per_s"], 2),
            }  # fmt: skip
            if f"{thread}|cpu_ms_per_step" in figures:
                row["cpu_ms_per_step"] = round(figures[f"{thread}|cpu_ms_per_step"], 3)
            rows.append(row)
    print_rows(rows, args.json, legend=(
        f"per thread, medians over {args.rounds} rounds of {args.seconds} s; 'Thread-N_(held)': gpiozero's"
        " hold threads together; 'waitress-N': the server's threads together; 'all': the process",
    ))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
