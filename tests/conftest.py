import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

#: Hypothesis's two profiles, chosen here before any test module is imported (a test's own
#: ``@settings`` keeps its ``max_examples`` and takes the rest from the profile).
#:
#: ``explore`` (a developer's run, the default): new random examples every run, remembered in
#: ``.hypothesis/`` so that a failure found once is tried first the next time.
#: ``ci`` (where ``CI`` is set, as ``.ci/run`` sets it): the same examples every run
#: (derandomised, no example database), so a red CI run is a change's fault, never a draw's.
#: What a developer's run finds goes into the test as an ``@example`` (the failure prints
#: it), so that CI tries it from then on.
#: Neither has a deadline nor the "too slow" health check: both measure wall-clock time,
#: which a loaded machine stretches without anything being wrong (speed is the benchmarks').
#: ``HYPOTHESIS_PROFILE=ci`` (or ``explore``) picks one by name.
#: (Hypothesis loads its own "ci" profile wherever ``CI`` is set, whatever its value; these two
#: are registered from its defaults and one of them is always loaded, so the choice is ours.)
settings.register_profile(
    "explore", settings.get_profile("default"), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", settings.get_profile("explore"), derandomize=True, database=None, print_blob=True
)


def in_ci() -> bool:
    """``CI`` is set (CI services set ``CI=true``; "false", "0" or empty count as unset)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if in_ci() else "explore"))

#: The long tests, marked ``slow`` here rather than in each file: ``scripts/test -m "not slow"``
#: is the quick loop while working, and CI (``scripts/test``) still runs them all. A file name
#: marks the whole file, "file::test" one test. Measured one file at a time with
#: ``pytest tests/FILE.py --durations=5`` (wall seconds on a shared 2-core machine in the
#: comments); a file over about 20 s belongs here.
SLOW = {
    "test_fuzz.py",  # 28 s: atheris, coverage-guided, on three parsers
    "test_full_disk_ext4.py",  # 24 s: a daemon on a full ext4 loop disk, twice, waiting for space
    "test_powercut.py",  # 7 s: SIGKILLs a running daemon, tears the WAL, restarts
    "test_schemathesis.py",  # 10 s: fuzzes the whole API from its OpenAPI description
    "test_wheel.py",  # 8 s: builds the wheel and installs it into a fresh environment
    "test_soak.py",  # 5 s: whole games through a daemon with live pages attached
    "test_browser_edition.py",  # 132 s, 94 of them the whole box transcribed through the page
    "test_page_family.py",  # 130 s: whole games in a browser, axe in both languages
    "test_venue_hall.py",  # 60-80 s: ten tables play whole games into one hall through a real broker
    "test_venue_table.py::test_a_table_sigkilled_mid_game_sends_the_rest_after_its_restart",
    # 15 s: two `companion run` processes, one SIGKILLed, through a real broker
    "test_browser.py",  # 25 s: the page in a browser through whole games
    "test_fresh_clone.py::test_the_contract_tests_pass_in_a_copy_with_nothing_beside_it",
    # 30 s: a fresh environment, the runtime installed, the page answering
    "test_fresh_clone.py::test_scripts_companion_run_serves_the_page_from_a_fresh_clone_without_the_test_tools",
    "test_browser_coach.py",  # 37 s at load 8: three phones in two languages, then a teaching game
    "test_coach_service.py::test_a_switch_flipped_at_finger_speed_never_has_two_pools_and_off_leaves_nothing",
    # 25 s at load 8: 16 flips, each "on" starting real worker processes
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = item.path.name
        if name in SLOW or f"{name}::{getattr(item, 'originalname', item.name)}" in SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def chip() -> Iterator[Any]:
    """The emulated MFRC522 (seed 1) behind ``import mfrc522``, for the tests of the real driver."""
    from tests.support.fake_mfrc522 import Chip, install, uninstall

    emulated = Chip(seed=1)
    install(emulated)
    yield emulated
    uninstall()


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """A browser test's mock table served on a free port (`tests.support.browser.served`): its
    address and runtime. Its players are the test module's ``PLAYERS``, "Ann,Ben" unless
    it names others; a module needing another table defines its own ``server``."""
    from tests.support.browser import served

    with served(tmp_path, getattr(request.module, "PLAYERS", "Ann,Ben")) as table:
        yield table


@pytest.fixture
def browser() -> Iterator[Any]:
    """One headless Chromium for a browser test (`tests.support.browser.chromium`); where there is
    none the test fails saying how to get one (`tests.support.browser.NO_CHROMIUM`), never skips."""
    from tests.support.browser import ARGS, chromium

    with chromium(ARGS) as b:
        yield b


@pytest.fixture
def phone(server: Any, browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """The table's page on a 360 x 740 phone in the test's language (``lang`` param, English when
    not given), the host logged in (`tests.support.browser.host_phone`)."""
    from tests.support.browser import host_phone

    with host_phone(browser, server[0], getattr(request, "param", "en")) as page:
        yield page


@pytest.fixture
def host_app(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """The Flask app of a mock table named ``trekpi`` (heartbeats every 50 ms), and its runtime:
    the API's refusals and access rules, tried with `tests.support.tables.client_from`."""
    from tests.support.tables import api_app

    with api_app(tmp_path, heartbeat=0.05, hostname="trekpi") as pair:
        yield pair
