"""Memory and time under the audit's hostile inputs (issue 12, items 9 and 1; issue 16, items 4 and 11c).

Run: ``.venv/bin/python -m benchmarks.bench_hostile_inputs [--tree PATH] [--cap-mb 1500] [--only TEXT]``

Each attack runs `companion` in a fresh process (``python -m companion ...`` from
``--tree``, this checkout by default, so an older checkout can be measured the
same way) with an address-space cap, and reports the process's peak resident
memory (``ru_maxrss`` from ``wait4``), its wall time and how it ended. The cap
keeps an unfixed checkout from taking the machine down: such a run ends with
"MemoryError" or a signal instead of growing forever; the timeout ends a hang.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _edition(itinerary_spaces: int = 2) -> dict[str, Any]:
    cards = [
        {
            "id": f"c{i}",
            "title": f"Card {i}",
            "year": 1000 + i,
            "day": 1 + i // 8,
            "hours": 2,
            "gains": ["wild"],
        }
        for i in range(24)
    ]
    columns = {k: [None] * itinerary_spaces for k in ("person", "event", "innovation", "progress")}
    return {
        "cards": cards,
        "ancestor": {"hours": 1, "gains": []},
        "slots": [[], [], [], [], [], []],
        "treks": [-1, 1, 3, 5, 8, 11, 15, 19, 24, 30],
        "trek_beyond": 3,
        "itineraries": [{"id": f"T{i}", "columns": columns, "rows": []} for i in range(3)],
    }


def _setup(edition: Any, players: tuple[str, ...] = ("Ann",)) -> str:
    decks = {name: [f"c{d * 8 + i}" for i in range(8)] for d, name in enumerate(("I", "II", "III"))}
    head = {"type": "setup", "players": list(players), "watch_stack": list(players), "edition": edition}
    if isinstance(edition, dict):
        head["decks"] = decks
    return json.dumps(head)


#: Attacks that are slow by nature (a big file read to its end) get this many times the timeout.
SLOW = 10


def attacks(folder: Path) -> list[tuple[str, list[str]]]:
    """(name, companion arguments) of each attack; files are written to ``folder``.

    A name starting with "big:" is a large file read to the end: its timeout is `SLOW` times longer."""

    def write(name: str, text: str) -> str:
        path = folder / name
        path.write_text(text)
        return str(path)

    def undos(name: str, count: int) -> str:
        """A record of ``count`` undo lines, each rejected (nothing to undo): 16 bytes a line."""
        path = folder / name
        with path.open("w") as out:
            out.write(_setup(_edition()) + "\n")
            block = '{"type":"undo"}\n' * 10_000
            for _ in range(count // 10_000):
                out.write(block)
        return str(path)

    fifo = folder / "pipe"
    os.mkfifo(fifo)
    take = '{"type": "itinerary", "player": "Ann", "itinerary": "T0"}\n{"type": "take", "card": "c3"}\n'
    return [
        ("baseline: a short record", ["replay", write("ok.jsonl", _setup(_edition()) + "\n" + take)]),
        ("replay /dev/zero", ["replay", "/dev/zero"]),
        ("replay a named pipe", ["replay", str(fifo)]),
        ("edition check /dev/zero", ["edition", "check", "/dev/zero"]),
        (
            'record whose edition is "/dev/zero"',
            ["replay", write("devzero.jsonl", _setup("/dev/zero") + "\n")],
        ),
        (
            "an event nested 1,000 deep",
            ["replay", write("deep.jsonl", _setup(_edition()) + "\n" + "[" * 1000 + "]" * 1000 + "\n")],
        ),
        (
            "an event nested 200,000 deep (unclosed)",
            ["replay", write("deeper.jsonl", _setup(_edition()) + "\n" + "[" * 200_000 + "\n")],
        ),
        (
            "crystals: a 5,000-digit integer",
            [
                "replay",
                write(
                    "digits.jsonl",
                    _setup(_edition())
                    + "\n"
                    + '{"type": "take", "card": "c3", "crystals": '
                    + "9" * 5000
                    + "}\n",
                ),
            ],
        ),
        (
            "itinerary columns of 70 spaces",
            ["replay", write("wide.jsonl", _setup(_edition(70)) + "\n" + take)],
        ),
        (
            "itinerary columns of 10 spaces (the new bound), played",
            ["replay", write("widest.jsonl", _setup(_edition(10)) + "\n" + take)],
        ),
        (  # issue 16, item 4: every row a problem to report, all of them kept before
            "edition import: a 12 MB CSV of 3 million rows",
            _csv_import(write("rows.csv", CARD_HEADER + "a,1\n" * 3_000_000), folder),
        ),
        (
            "edition import: a CSV with a 10 MB title",
            _csv_import(write("long.csv", CARD_HEADER + "A,I,1," + "t" * 10_000_000 + ",1,,\n"), folder),
        ),
        ("big: 2,000,000 undo lines (32 MB), --json", ["replay", undos("undos.jsonl", 2_000_000), "--json"]),
        ("big: 2,000,000 undo lines (32 MB), readable", ["replay", str(folder / "undos.jsonl")]),
    ]


CARD_HEADER = "id,day,year,title,hours,gains,note\n"


def _csv_import(path: str, folder: Path) -> list[str]:
    """`companion edition import` of a cards CSV into a new edition file in ``folder``."""
    return ["edition", "import", path, "--base", "reference", "--out", str(folder / "out.json")]


def run(tree: Path, args: list[str], cap: int, timeout: float) -> tuple[float, float, str]:
    """(peak RSS in MB, seconds, how it ended) of ``python -m companion ARGS`` in ``tree``."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", *args],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
    )
    assert proc.stderr is not None
    os.set_blocking(proc.stderr.fileno(), False)
    deadline = start + timeout
    tail = b""  # the end of stderr, drained as it comes: a full pipe would stop the child
    while True:
        tail = (tail + (proc.stderr.read() or b""))[-4096:]
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            return usage.ru_maxrss / 1024, time.perf_counter() - start, f"still running after {timeout:.0f} s"
        time.sleep(0.02)
    seconds = time.perf_counter() - start
    err = (tail + (proc.stderr.read() or b"")).decode(errors="replace").strip().splitlines()
    if os.WIFSIGNALED(status):
        ended = f"killed by signal {os.WTERMSIG(status)}"
    else:
        code = os.WEXITSTATUS(status)
        last = err[-1] if err else ""
        ended = f"exit {code}" + (f": {last[:90]}" if last else "")
    return usage.ru_maxrss / 1024, seconds, ended


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    parser.add_argument("--cap-mb", type=int, default=1500, help="address-space cap per attack (MB)")
    parser.add_argument(
        "--timeout", type=float, default=20.0, help="seconds before an attack counts as a hang"
    )
    parser.add_argument("--only", default="", help="run only the attacks whose name holds this text")
    options = parser.parse_args()
    print(
        f"checkout: {options.tree}; cap {options.cap_mb} MB of address space, timeout {options.timeout:.0f} s"
    )
    print(f"{'attack':<55} {'peak RSS':>9} {'time':>7}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name, args in attacks(Path(folder)):
            if options.only not in name:
                continue
            timeout = options.timeout * (SLOW if name.startswith("big:") else 1)
            rss, seconds, ended = run(options.tree, args, options.cap_mb * 1024 * 1024, timeout)
            print(f"{name:<55} {rss:>6.0f} MB {seconds:>6.2f}s  {ended}")


if __name__ == "__main__":
    main()
