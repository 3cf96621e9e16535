"""Server CPU per step of a mocked game, per thread of the daemon (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_step_threads --tree BASE --tree HEAD [--pages 20]
[--steps 300] [--rounds 3] [--port-range 18600-18699] [--py-spy py-spy]``

`benchmarks.bench_step`'s steps (a tap, the page's ``GET /api/state?page=1``, the live pages
reading the change; the new games counted in, unlike its ``tap_get_cpu_ms``), with each
thread's CPU time from ``schedstat`` over the steps, grouped by the thread's Python name
(``http``: waitress's event loop; ``waitress-N``: its pool; ``live-pages``: the pages' writer;
``ring``), which py-spy (not a dependency of the project: pass its path) reads from the
running daemon. The trees are alternated in each round; the medians (and the least) over
rounds are printed, in ms per step: on a shared machine the least is the run the others
disturbed least.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from benchmarks.bench_step import LivePages, step
from tests.support.daemon import port_from, request, start_daemon, stop_daemon


def thread_names(py_spy: str, pid: int) -> dict[int, str]:
    """The daemon's threads by id: their Python names, "N" for each number in them."""
    out = subprocess.run(
        [py_spy, "dump", "--pid", str(pid)], capture_output=True, text=True, check=True
    ).stdout
    return {
        int(tid): re.sub(r"\d+", "N", name)
        for tid, name in re.findall(r'^Thread (\d+) \([^)]*\): "(.*)"$', out, re.M)
    }


def cpu_by_name(pid: int, names: dict[int, str]) -> collections.Counter[str]:
    """Each named thread's CPU time so far, in nanoseconds (a thread py-spy did not name: "?")."""
    spent: collections.Counter[str] = collections.Counter()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            spent[names.get(int(task), "?")] += int(
                Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0]
            )
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            continue
    return spent


def measure(tree: Path, pages: int, steps: int, port_range: str, py_spy: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        port = port_from(port_range)
        daemon = start_daemon(tree, port, Path(tmp) / "data")
        try:
            with LivePages(port, pages, "bench_step_threads") as live:
                seed, state = [1], request(port, "GET", "/api/state")
                for _ in range(10):  # warm, then name the threads (the pool's are all started)
                    state = step(port, seed, state, lambda call: call())
                names = thread_names(py_spy, daemon.pid)
                before = cpu_by_name(daemon.pid, names)
                for _ in range(steps):
                    state = step(port, seed, state, lambda call: call())
                    live.have(state["version"])
                after = cpu_by_name(daemon.pid, names)
        finally:
            stop_daemon(daemon)
    spent = {name: (after[name] - before.get(name, 0)) / 1e6 / steps for name in after}
    spent["TOTAL"] = sum(spent.values())
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, help="a checkout to run (repeatable)")
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port-range", default="18600-18699")
    parser.add_argument("--py-spy", default="py-spy", help="py-spy's path (names the threads)")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    trees = [Path(t).resolve() for t in args.tree]
    runs: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    for _ in range(args.rounds):
        for tree in trees:
            runs[tree].append(measure(tree, args.pages, args.steps, args.port_range, args.py_spy))
    for tree, results in runs.items():
        names = sorted({name for result in results for name in result})
        figures = {name: [result.get(name, 0.0) for result in results] for name in names}
        shown = "  ".join(
            f"{name}={statistics.median(ms):.3f} (min {min(ms):.3f})"
            for name, ms in figures.items()
            if statistics.median(ms) >= 0.01
        )
        print(
            f"tree={tree}  pages={args.pages}  steps={args.steps}  rounds={args.rounds}  "
            f"ms/step, median (min): {shown}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
