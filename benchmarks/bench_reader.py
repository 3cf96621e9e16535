"""The reader's idle cost: SPI exchanges and CPU per empty poll, the companion's wait against the driver's.

Run: ``.venv/bin/python -m benchmarks.bench_reader [--seconds S] [--json]``

Both paths run the real ``mfrc522`` driver (its register reads and writes, its reset)
against the emulated MFRC522 of ``tests/support/fake_mfrc522.py``, whose timer runs in real
time as the datasheet describes it:

- **companion**: `companion.hardware.rc522` (what `PiReader.read_uid` polls): the
  chip's timer armed, a wait that sleeps and stops on TimerIRq;
- **driver**: ``SimpleMFRC522.read_id_no_block`` (what the reader polled before): its
  wait reads ComIrqReg 2,000 times and ignores TimerIRq.

For each: the SPI exchanges of one poll of an empty reader (the chip counts them), and
the idle CPU: the process's CPU time per second of wall time while `ReaderLoop` polls
the empty reader at the configured ``[reader] poll_interval``. The emulated chip's own
Python runs in the same process, so the CPU figure counts it too: on a Pi each exchange
is a spidev ioctl instead. The figures are relative, for before/after.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable

from companion.hardware.reader import ReaderLoop, TagDebouncer, open_mfrc522
from companion.util.config import Config
from tests.support.fake_mfrc522 import Chip, install, simple_on, uninstall


def measure(path: str, seconds: float, config: Config) -> dict[str, float]:
    """SPI exchanges per idle poll (the mean of 20) and idle CPU % of one core for ``path``."""
    chip = Chip()
    install(chip)
    try:
        reader = open_mfrc522(config.reader.rst_pin, config.reader.gain_db)
        read: Callable[[], object] = (
            reader.read_uid if path == "companion" else simple_on(reader.driver).read_id_no_block
        )
        read()  # the first poll sets the timer up for REQA
        before = chip.spi_exchanges
        polls = 20
        for _ in range(polls):
            assert read() is None
        per_poll = (chip.spi_exchanges - before) / polls
        settings = config.reader
        loop = ReaderLoop(lambda: None if read() is None else "tag", lambda _: None,
                          settings.poll_interval, TagDebouncer(settings.debounce))  # fmt: skip
        thread = threading.Thread(target=loop.run, daemon=True)
        cpu0, wall0, polls0 = time.process_time(), time.perf_counter(), loop.polls
        thread.start()
        time.sleep(seconds)
        loop.stop()
        thread.join(5)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        return {
            "spi_exchanges_per_idle_poll": round(per_poll, 1),
            "idle_cpu_percent": round(100 * cpu / wall, 2),
            "polls": loop.polls - polls0,
            "poll_interval_s": settings.poll_interval,
        }
    finally:
        uninstall()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of idle polling per path")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    config = Config()
    results = {path: measure(path, args.seconds, config) for path in ("companion", "driver")}
    if args.json:
        print(json.dumps(results))
        return 0
    titles = {
        "companion": "companion (companion/hardware/rc522.py, after)",
        "driver": "driver's read_id_no_block (before)",
    }
    for path, figures in results.items():
        print(titles[path])
        exchanges = figures["spi_exchanges_per_idle_poll"]
        print(f"  SPI exchanges per idle poll: {exchanges:g}")
        print(
            f"  idle CPU: {figures['idle_cpu_percent']} % of one core "
            f"({figures['polls']:g} polls, one every {figures['poll_interval_s']} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
