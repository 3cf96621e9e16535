"""The figures of a benchmark that runs each tree or setting for several rounds: the median of
each figure over the rounds, printed one row per run (``k=v`` pairs, or JSON), so that
`benchmarks.bench_step`, `benchmarks.bench_ring` and `benchmarks.bench_history_memory`
read alike; and the command line the benchmarks share (`options`)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def options(doc: str, **defaults: int | float | str) -> argparse.ArgumentParser:
    """A benchmark's command line: its docstring's first line, the ``--json`` every benchmark
    takes (one JSON object instead of the readable rows), and an option per keyword of
    ``defaults`` (``port_range=...`` is ``--port-range``), of its default's type."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    for name, default in defaults.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return parser


def in_tree(script: str, tree: Path | None, *args: str) -> dict[str, float]:
    """The figures (the last line of its output, JSON) of ``script`` run with ``args`` in a
    process of its own, with ``tree``'s code (the script is run as a file: an older tree may
    not have it); with the installed code when ``tree`` is None."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    out = subprocess.run(
        [sys.executable, str(Path(script).resolve()), *args],
        capture_output=True, text=True, check=True, env=env, cwd=tree or Path(__file__).parents[1],
    ).stdout  # fmt: skip
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def medians(results: Sequence[Mapping[str, float]], digits: int) -> dict[str, float]:
    """Each figure's median over the rounds ``results``, rounded to ``digits``."""
    return {k: round(statistics.median(r[k] for r in results), digits) for k in results[0]}


def print_rows(rows: Sequence[Mapping[str, Any]], as_json: bool, legend: Sequence[str] = ()) -> None:
    """The rows as one JSON list, or a ``k=v`` line each after the ``legend`` lines."""
    if as_json:
        print(json.dumps(rows))
        return
    for line in legend:
        print(line)
    for row in rows:
        print("  ".join(f"{k}={v}" for k, v in row.items()))
