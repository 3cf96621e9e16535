"""The ring's CPU per frame in a game, on the simulated ring and on the Pi's SPI ring, per tree.

Run: ``.venv/bin/python -m benchmarks.bench_ring [--frames 3000] [--games 3] [--rounds 3]
[--tree DIR ...] [--json]``

`benchmarks.bench_idle` measures the daemon's ring thread from outside, but the daemon on a PC
runs the simulated ring (``--mock``). This measures `RingDriver.draw` in the process (this
thread's CPU, `time.thread_time`, warm: no thread wake-up, which costs about as much again on
this PC) on both rings a table has:

- ``sim``: `SimulatedRing`, what ``companion run --mock`` draws on;
- ``spi``: the Pi's ring as `companion.hardware.ring_spi.ring_on` makes it (neopixel_spi's
  encoder on our `SpidevBus`), writing to a port that keeps nothing: all of a Pi's frame but
  the kernel's SPI transfer.

Two situations, each a mocked 4-player game (``--games`` seeds) with a clock that moves a
frame (1/30 s) per draw:

- ``game``: between two turns, the mover's watch pulsing: the same picture frame after frame;
- ``change``: a random tap (Confirm when asked) before every frame, the frame after a change
  of the table: its scene prepared and the whole frame compared (the tap itself not counted);
- ``between``: ``game`` as the thread draws it between two steps: by `RingDriver.frames` (the
  pulse's colour and its bytes only, round six) in a tree that has it, by ``draw`` in one that
  does not; the sleep replaced by the clock's move (this thread's CPU, warm, as above).

Printed: microseconds of CPU per frame, medians over ``--rounds`` with the trees alternated
(``--tree``: another checkout's code, run in its own process).
Then what the wake-up alone costs on this machine (``--wake-seconds``, 0 for none): a thread that
only sleeps 1/30 s in a loop, by ``threading.Event.wait`` and by ``time.sleep``, its CPU per
second from ``/proc/self/task/TID/schedstat`` (which counts the kernel's part too).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

FRAME = 1 / 30


class Clock:
    """The driver's clock: moved a frame per draw by the benchmark."""

    now = 1000.0

    def __call__(self) -> float:
        return self.now


class Discard:
    """spidev's ``SpiDev`` as `SpidevBus` uses it, keeping nothing."""

    max_speed_hz = 0
    mode = 0

    def writebytes2(self, data: Any) -> None:
        pass


def ring_of(kind: str, rt: Any) -> Any:
    from companion.hardware.ring import SimulatedRing
    from companion.hardware.ring_spi import SpidevBus, ring_on

    settings = rt.driver.settings
    return SimulatedRing(settings.leds) if kind == "sim" else ring_on(SpidevBus(Discard()), settings)


def between_turns(rt: Any, rng: random.Random) -> None:
    """Random taps until the mover is to take a card (no itinerary, no reveal, nothing pending)."""
    for taps in range(200):
        expect = rt.table.expect()
        if taps >= 8 and expect["kind"] not in ("itinerary", "reveal") and rt.table.pending is None:
            return
        if rt.table.pending is not None:
            rt.table.press("confirm")
        else:
            rt.tap(rng.choice(expect["choices"]))


def mocked_runtime(tmp: str, seed: int) -> Any:
    """A mocked table in ``tmp`` with a new 4-player game of ``seed``."""
    from companion.records.trekking import TREKKING
    from companion.run.startup import build_runtime
    from companion.store.log import Store
    from companion.table.game_setup import new_game
    from companion.util.config import Config

    config, store = Config(), Store(Path(tmp), TREKKING)
    new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=seed, mock=True)
    store.close()
    return build_runtime(config, Path(tmp), mock=True, pin="0000", say=lambda _: None)


def per_frame(kind: str, situation: str, frames: int, games: int) -> float:
    """Mean CPU microseconds of one `RingDriver.draw` on ring ``kind`` in ``situation``."""
    spent: list[float] = []
    for seed in range(1, games + 1):
        with tempfile.TemporaryDirectory() as tmp:
            rt = mocked_runtime(tmp, seed)
            rng = random.Random(seed)
            between_turns(rt, rng)
            clock = Clock()
            driver = rt.driver
            driver.ring, driver.clock = ring_of(kind, rt), clock
            driver.draw()
            for _ in range(frames // games):
                if situation == "change":
                    if rt.table.board.finished:
                        break
                    if rt.table.pending is not None:
                        rt.table.press("confirm")
                    else:
                        rt.tap(rng.choice(rt.table.expect()["choices"]))
                clock.now += FRAME
                start = time.thread_time()
                driver.draw()
                spent.append(time.thread_time() - start)
            rt.stop()
    return 1e6 * statistics.fmean(spent)


def between_frames(kind: str, frames: int, games: int) -> float:
    """Mean CPU microseconds of one frame between two steps (``between``) on ring ``kind``."""
    spent: list[float] = []
    for seed in range(1, games + 1):
        with tempfile.TemporaryDirectory() as tmp:
            rt = mocked_runtime(tmp, seed)
            between_turns(rt, random.Random(seed))
            clock = Clock()
            driver = rt.driver
            driver.ring, driver.clock = ring_of(kind, rt), clock
            driver.step()
            driver.step()
            count = frames // games
            if not hasattr(driver, "frames"):  # a tree before round six: a draw per frame
                for _ in range(count):
                    clock.now += FRAME
                    start = time.thread_time()
                    driver.draw()
                    spent.append(time.thread_time() - start)
            else:
                left = [count]

                def rest(wait: float, period: float, clock: Clock = clock, left: list[int] = left) -> None:
                    clock.now += FRAME
                    left[0] -= 1
                    if left[0] < 0:
                        raise StopIteration  # out of `frames`, as `stop` would end it

                driver.rest = rest
                start = time.thread_time()
                with contextlib.suppress(StopIteration):
                    driver.frames(FRAME)
                spent.append((time.thread_time() - start) / count)
            rt.stop()
    return 1e6 * statistics.fmean(spent)


def wake_cost(how: str, seconds: float) -> float:
    """CPU ms per second of a thread that only sleeps a frame at a time, ``how``: event or sleep."""
    event, stop = threading.Event(), threading.Event()

    def run() -> None:
        while not stop.is_set():
            if how == "event":
                event.wait(FRAME)
            else:
                time.sleep(FRAME)

    thread = threading.Thread(target=run, name=f"wake-{how}")
    thread.start()
    time.sleep(0.5)
    stat = Path(f"/proc/self/task/{thread.native_id}/schedstat")
    before = int(stat.read_text().split()[0])
    time.sleep(seconds)
    spent = int(stat.read_text().split()[0]) - before
    stop.set()
    thread.join()
    return spent / 1e6 / seconds


def child(frames: int, games: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for kind in ("sim", "spi"):
        for situation in ("game", "change"):
            out[f"{kind}_{situation}_us"] = per_frame(kind, situation, frames, games)
        out[f"{kind}_between_us"] = between_frames(kind, frames, games)
    return out


def measure(tree: Path | None, frames: int, games: int) -> dict[str, float]:
    """`child` in a process of its own, with ``tree``'s code (this file run as a script: an
    older tree may not have it)."""
    from benchmarks.medians import in_tree  # here: the child runs in trees without it

    return in_tree(__file__, tree, "--child", "--frames", str(frames), "--games", str(games))


def main() -> int:
    from benchmarks.medians import options

    parser = options(__doc__, games=3, rounds=3)
    parser.add_argument("--frames", type=int, default=3000, help="frames measured per ring and situation")
    parser.add_argument("--tree", action="append", help="a checkout to run from (repeatable)")
    parser.add_argument("--wake-seconds", type=float, default=3.0, help="seconds a wake-up measure (0: none)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.frames, args.games)))
        return 0
    from benchmarks.medians import medians, print_rows

    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            runs.setdefault(str(tree or "installed"), []).append(measure(tree, args.frames, args.games))
    rows: list[dict[str, Any]] = [{"tree": tree, **medians(results, 1)} for tree, results in runs.items()]
    if args.wake_seconds > 0:
        for how in ("event", "sleep"):
            costs = [wake_cost(how, args.wake_seconds) for _ in range(args.rounds)]
            rows.append({"wait": how, "per_s": 30, "cpu_ms_per_s": round(statistics.median(costs), 2)})
    legend = ("CPU microseconds per RingDriver.draw (this thread's, warm), medians over the rounds",)
    print_rows(rows, args.json, legend=legend)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
