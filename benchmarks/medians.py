"""The figures of a benchmark that runs each tree or setting for several rounds: the median of
each figure over the rounds, printed one row per run (``k=v`` pairs, or JSON), so that
`benchmarks.bench_step`, `benchmarks.bench_step_parts` and `benchmarks.bench_history_memory`
read alike."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from typing import Any


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
