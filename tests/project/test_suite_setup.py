"""The suite as a newcomer and CI run it (issue 33 item 6).

Hypothesis explores on a developer's machine and runs a fixed profile in CI (tests/conftest.py),
so that a red CI run is a change's fault, never a new draw's. The browser tests never skip: where
there is no Chromium at all, each fails with the sentence that says how to get one, and
``scripts/test`` stops at once with the same sentence.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.browser import NO_CHROMIUM

ROOT = Path(__file__).resolve().parents[2]
#: What the profile loaded by tests/conftest.py sets, and what a test's own ``@settings`` keeps of it.
SHOW = """
import tests.conftest
from hypothesis import settings
own = settings(max_examples=5)
print(settings.default.derandomize, settings.default.database is None, settings.default.deadline,
      own.derandomize, own.deadline)
"""


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment without CI's and Hypothesis's variables, then ``changes``."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE", "CHROMIUM")}
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def profile(**env: str | None) -> list[str]:
    shown = subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=ROOT, env=environment(**env), capture_output=True, text=True, check=True,
    )  # fmt: skip
    return shown.stdout.split()


def test_ci_runs_hypothesis_derandomised_and_a_developer_explores() -> None:
    assert profile(CI="true") == ["True", "True", "None", "True", "None"]
    assert profile() == ["False", "False", "None", "False", "None"]
    assert profile(CI="false") == ["False", "False", "None", "False", "None"]
    assert profile(HYPOTHESIS_PROFILE="ci")[0] == "True"


def browser_test(**env: str) -> str:
    """What pytest says running one browser test file in ``env`` (CI not set: a developer's run)."""
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--tb=line", "-rfEs",
         "tests/browser/test_browser_player_names.py"],
        cwd=ROOT, env=environment(**env), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    out = ran.stdout + ran.stderr
    assert ran.returncode == 1, out[-3000:]
    return out


def test_a_browser_test_without_chromium_fails_saying_how_to_get_one(tmp_path: Path) -> None:
    """A failure, not a skip: where ``CHROMIUM`` names nothing, and where there is no Chromium
    on the PATH and none of Playwright's."""
    out = browser_test(CHROMIUM=str(tmp_path / "chromium"))
    assert NO_CHROMIUM in out and "skipped" not in out, out[-3000:]
    out = browser_test(PATH=str(Path(sys.executable).parent), PLAYWRIGHT_BROWSERS_PATH=str(tmp_path / "none"))
    assert NO_CHROMIUM in out and "skipped" not in out, out[-3000:]


def test_scripts_test_stops_at_once_without_chromium_and_says_how() -> None:
    ran = subprocess.run(
        ["scripts/test", "--no-such-option"],
        cwd=ROOT,
        env=environment(CHROMIUM="/nonexistent/chromium"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert NO_CHROMIUM in ran.stderr and "== ruff" not in ran.stdout, ran.stdout[-2000:] + ran.stderr[-2000:]
