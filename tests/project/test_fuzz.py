"""A short coverage-guided fuzzing run (atheris) of each parser a user can feed.

The full runs are ``benchmarks/fuzz.py TARGET --seconds N``; see its docstring for
what each target accepts. A crashing input is saved under ``test-artifacts/fuzz``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tables import require_tool

ROOT = Path(__file__).resolve().parents[2]

require_tool(
    importlib.util.find_spec("atheris") is not None, "atheris is not installed", "pip install -e '.[dev]'"
)


@pytest.mark.parametrize(("target", "runs"), [("record", 4000), ("edition", 30000), ("config", 30000)])
def test_parser_survives_coverage_guided_fuzzing(target: str, runs: int) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fuzz.py"), target, f"--runs={runs}",
         f"--artifacts={ROOT / 'test-artifacts' / 'fuzz'}"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"Done {runs} runs" in done.stderr, done.stderr[-1000:]
