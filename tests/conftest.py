import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Lets tests import the shared helpers (`builders`, `tests_support`) and the
# benchmark scripts whose short runs they check (`powercut`, `soak`) as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.fixture
def chip() -> Iterator[Any]:
    """The emulated MFRC522 (seed 1) behind ``import mfrc522``, for the tests of the real driver."""
    from fake_mfrc522 import Chip, install, uninstall

    emulated = Chip(seed=1)
    install(emulated)
    yield emulated
    uninstall()
