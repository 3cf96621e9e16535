import sys
from pathlib import Path

# Lets tests import the shared helpers (`builders`, `tests_support`) and the
# benchmark scripts whose short runs they check (`powercut`, `soak`) as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
