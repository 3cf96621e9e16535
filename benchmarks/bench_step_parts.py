"""A step's parts in the process, without HTTP: the tap, the state's text, the page's text.

Run: ``.venv/bin/python -m benchmarks.bench_step_parts [--games 6] [--rounds 3] [--tree DIR ...]
[--json]``

Beside `benchmarks.bench_step` (the daemon's CPU per step from outside), this says what the
table's own work costs in a step, so that the rest is known to be the HTTP server's: whole
mocked games (4 players, ``--games`` seeds, random taps, Confirm when asked) are played
through `Runtime.tap`, and after each tap the state's JSON text (`Snapshots.state_text`,
what every answer carries) and the page's (`Snapshots.page_text`, once per change for all
live pages) are made, as the daemon makes them. The same games are played again through the
WSGI app waitress serves (``POST /api/reader/tap`` with the PIN, as `benchmarks.bench_step`
sends it, to `FastReads` over the daemon's Flask app, no socket): ``wsgi_tap_ms`` is that
request's CPU, the table's tap included, so ``wsgi_tap_ms - tap_ms`` is the web layer's share.
``page_json_encoded_ms``: the same version's snapshot built as a dict (`Snapshots.page_json`)
and encoded whole, its replay already continued by ``page_text``: about what ``page_text`` costs
without its kept texts. Three of a tap's parts are timed inside both (their CPU per step):
``store_write_ms`` (the store's transaction, `Store.write_events`), ``ring_notify_ms`` (the
ring's read of the table, `RingDriver.notify`) and ``asked_ms`` (the request read before Flask,
`FastControls.asked`); ``say_ms``: a step's sentences (`wording.say`, in the tap and its
Confirm), ``page_replay_ms``: the page's replay continued (`view.settled_past`, in
``page_text_ms``). Printed: the mean CPU time (this thread's, `time.thread_time`) of each,
per tree (``--tree``: another checkout's code, run in its own process), medians over
``--rounds`` with the trees alternated.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def mocked_runtime(tmp: str, seed: int) -> Any:
    """A mocked table in ``tmp`` with a new 4-player game of ``seed`` (what both measures play)."""
    from companion.records.trekking import TREKKING
    from companion.run.startup import build_runtime
    from companion.store.log import Store
    from companion.table.game_setup import new_game
    from companion.util.config import Config

    config, store = Config(), Store(Path(tmp), TREKKING)
    new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=seed, mock=True)
    store.close()
    return build_runtime(config, Path(tmp), mock=True, pin="0000", say=lambda _: None)


def timed(owner: Any, name: str, into: list[float]) -> None:
    """Count the CPU time of every call of ``owner.name`` (a class's method) into ``into``."""
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        t0 = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            into.append(time.thread_time() - t0)

    setattr(owner, name, counted)


def parts(games: int) -> dict[str, float]:
    """The mean CPU ms of a tap, the state's text and the page's text over ``games`` games;
    and of a tap's parts: the store's write, the ring's read of the table, the request's
    reading before Flask (each one's CPU per tap: a tap may call it more than once); of a
    step's sentences (`wording.say`, per step) and of the page's replay continued
    (`view.settled_past`, per page's text)."""
    import companion.util.wording as wording

    said: list[float] = []
    timed(wording, "say", said)  # before the modules that import it by name

    import companion.table.snapshot as snapshot
    import companion.table.view as view

    replayed: list[float] = []
    timed(view, "settled_past", replayed)
    if hasattr(snapshot, "settled_past"):  # imported by name (older trees import it at each call)
        snapshot.settled_past = view.settled_past

    from companion.hardware.ring import RingDriver
    from companion.store.log import Store
    from companion.table.page_text import COMPACT
    from companion.web.fast_controls import FastControls

    store: list[float] = []
    ring: list[float] = []
    asked: list[float] = []
    timed(Store, "write_events", store)
    timed(RingDriver, "notify", ring)
    timed(FastControls, "asked", asked)

    taps: list[float] = []
    states: list[float] = []
    pages: list[float] = []
    whole: list[float] = []
    said_in_games, replayed_in_pages = 0.0, 0.0
    for seed in range(1, games + 1):
        with tempfile.TemporaryDirectory() as tmp:
            rt = mocked_runtime(tmp, seed)
            rng = random.Random(seed)
            while not rt.table.board.finished:
                expect = rt.table.expect()
                assert expect is not None
                choice = rng.choice(expect["choices"])
                said_before = sum(said)
                t0 = time.thread_time()
                rt.tap(choice)
                t1 = time.thread_time()
                if rt.table.pending is not None:
                    rt.table.press("confirm")
                said_in_games += sum(said) - said_before
                t2 = time.thread_time()
                rt.table.state_text()
                t3 = time.thread_time()
                replayed_before = sum(replayed)
                rt.table.page_text()
                t4 = time.thread_time()
                replayed_in_pages += sum(replayed) - replayed_before
                COMPACT.encode(rt.table.page_json())  # the same version: its replay is continued already
                t5 = time.thread_time()
                taps.append(t1 - t0)
                states.append(t3 - t2)
                pages.append(t4 - t3)
                whole.append(t5 - t4)
            rt.stop()
    steps = len(taps)
    wsgi = wsgi_taps(games)  # the same games again: the store's and the ring's parts are both's
    store_ms, ring_ms = 1000 * sum(store) / (steps + len(wsgi)), 1000 * sum(ring) / (steps + len(wsgi))
    return {
        "steps": steps,
        "tap_ms": 1000 * statistics.fmean(taps),
        "state_text_ms": 1000 * statistics.fmean(states),
        "page_text_ms": 1000 * statistics.fmean(pages),
        "page_json_encoded_ms": 1000 * statistics.fmean(whole),
        "wsgi_tap_ms": 1000 * statistics.fmean(wsgi),
        "store_write_ms": store_ms,
        "ring_notify_ms": ring_ms,
        "asked_ms": 1000 * sum(asked) / len(wsgi),
        "say_ms": 1000 * said_in_games / steps,
        "page_replay_ms": 1000 * replayed_in_pages / steps,
    }


def wsgi_taps(games: int) -> list[float]:
    """The CPU time of each tap of ``games`` games asked of the WSGI app waitress serves."""
    import io

    from companion.web.app import create_app
    from companion.web.state_answers import FastReads

    def environ(body: bytes) -> dict[str, object]:
        return {
            "REQUEST_METHOD": "POST", "SCRIPT_NAME": "", "PATH_INFO": "/api/reader/tap",
            "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8080",
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1:8080",
            "HTTP_X_TABLE_PIN": "0000", "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
            "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": True,
            "wsgi.multiprocess": False, "wsgi.run_once": False, "wsgi.input_terminated": True,
        }  # fmt: skip

    def start_response(status: str, headers: object, exc_info: object = None) -> None:
        assert status.startswith("200"), status

    taps: list[float] = []
    for seed in range(1, games + 1):
        with tempfile.TemporaryDirectory() as tmp:
            rt = mocked_runtime(tmp, seed)
            app = FastReads(create_app(rt))
            rng = random.Random(seed)
            while not rt.table.board.finished:
                expect = rt.table.expect()
                assert expect is not None
                asked = environ(json.dumps({"tag": rng.choice(expect["choices"])}).encode())
                t0 = time.thread_time()
                b"".join(app(asked, start_response))
                taps.append(time.thread_time() - t0)
                if rt.table.pending is not None:
                    rt.table.press("confirm")
            rt.stop()
    return taps


def measure(tree: Path | None, games: int) -> dict[str, float]:
    """`parts` in a process of its own, with ``tree``'s code (this file run as a script: an
    older tree may not have it)."""
    from benchmarks.medians import in_tree  # here: the child runs in trees without it

    return in_tree(__file__, tree, "--child", "--games", str(games))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", action="append", help="a checkout to run from (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(parts(args.games)))
        return 0
    from benchmarks.medians import medians, print_rows  # here: the child runs in trees without it

    trees: list[Path | None] = [Path(t).resolve() for t in args.tree] if args.tree else [None]
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for tree in trees:
            runs.setdefault(str(tree or "installed"), []).append(measure(tree, args.games))
    rows = [{"tree": tree, **medians(results, 3)} for tree, results in runs.items()]
    print_rows(rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
