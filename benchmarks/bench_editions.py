"""The editions package's costs: its import, and the CSV forms of a whole box.

Run: ``.venv/bin/python -m benchmarks.bench_editions [--repeat R]``

Prints the import time of `companion.editions`, of `companion.records.trekking` (which every
replay and the table import; the package's ``__init__`` brings the library, the changes
and the CSV forms along with the shipped editions) and of `companion.run.cli` (every
command's start), the median of R fresh interpreters
with the interpreter's own start subtracted; then how long the reference edition's 108
cards and 24 itineraries take to write as CSV and to read back. To compare with another
checkout, run it with ``PYTHONPATH=<that checkout>`` (the import figures only, where that
checkout has no ``companion.editions.cards_to_csv``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def import_ms(module: str, repeat: int) -> float:
    """Median milliseconds to import ``module`` in a fresh interpreter, its start subtracted."""

    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start

    bare = statistics.median(run("pass") for _ in range(repeat))
    return 1000 * (statistics.median(run(f"import {module}") for _ in range(repeat)) - bare)


def per_call_ms(call: object, number: int = 200) -> float:
    assert callable(call)
    start = time.perf_counter()
    for _ in range(number):
        call()
    return 1000 * (time.perf_counter() - start) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="fresh interpreters per import figure")
    args = parser.parse_args()
    for module in ("companion.editions", "companion.records.trekking", "companion.run.cli"):
        print(f"import {module}: {import_ms(module, args.repeat):.1f} ms (median of {args.repeat})")
    try:
        from companion.editions import (
            cards_from_csv,
            cards_to_csv,
            itineraries_from_csv,
            itineraries_to_csv,
            shipped_edition,
        )
    except ImportError:
        print("CSV: this checkout has no companion.editions CSV forms")
        return
    from companion.engine.edition import edition_to_json

    obj = edition_to_json(shipped_edition("reference"))
    cards, itineraries = cards_to_csv(obj), itineraries_to_csv(obj)
    print(f"cards to CSV (108): {per_call_ms(lambda: cards_to_csv(obj)):.2f} ms")
    print(f"cards from CSV (108): {per_call_ms(lambda: cards_from_csv(cards)):.2f} ms")
    print(f"itineraries to CSV (24): {per_call_ms(lambda: itineraries_to_csv(obj)):.2f} ms")
    print(f"itineraries from CSV (24): {per_call_ms(lambda: itineraries_from_csv(itineraries)):.2f} ms")


if __name__ == "__main__":
    main()
