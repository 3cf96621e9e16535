"""The audit's attacks on a running companion, on loopback: what still answers, and what it costs.

Starts ``companion run --mock`` (its own process, so its memory is its own) and
attacks it from many loopback addresses (Linux answers on all of 127/8), as the
audit of issue 12 did:

1. **pages**: ``--pages`` live pages (each from its own address) plus ``--slow``
   connections that send their headers a byte at a time, then times ``/`` and
   ``/api/state`` from yet another address while they are open: how many pages
   were streamed, how many were told to poll, and how fast the page still answers;
2. **bodies**: ``--bodies`` POSTs announcing 400 MB each (and one chunked body that
   never ends): how fast each is refused, and how much was read;
3. **edition paths**: ``POST /api/game/new`` with the PIN and ``"edition"`` set to
   ``/dev/zero``, ``/proc/self/fd/0`` and a path out of the data directory (the audit
   saw memory grow at 190 MB/s and a pipe hang the request): each answer, its time,
   and the memory after;
4. **slow reads** (issue 16): ``--readers`` connections from 5 addresses, each pipelining
   ``--pipelined`` ``GET /api/openapi.json`` and never reading an answer, held for
   ``--read-seconds``; meanwhile ``/`` and ``/api/state`` are timed from another address
   (5 s timeout each): how many answered and how fast, and the daemon's memory;
5. **coach flip** (issue 21 item 2): on a daemon of its own, the host's coach switch (for
   everyone: a teaching game, where the coach answers unasked, its most work) flipped
   ``--flips`` times at finger speed (``--flip-every`` seconds apart), its process tree sampled
   from /proc throughout: the most processes below the daemon and the most memory of the whole
   tree (RSS and PSS from /proc/PID/smaps_rollup); what is left a few seconds after the last
   "off"; then the coach on again, the daemon SIGKILLed, and how many of its workers outlive it;
6. **history flood** (issue 21): the store holds ``--history-games`` finished games (filled
   before the daemon starts), ``--history-readers`` connections (each from its own address,
   no PIN) read ``/api/history`` over and over, and meanwhile ``--history-taps`` moves are
   played as the table would (a tap or a button, with the PIN): each move's latency (p50,
   max) with and without the flood, and how the readers were answered (200 or 503);
7. **PIN guessing** (last: it locks PIN checks for the table): wrong PINs from
   ``--addresses`` addresses for ``--seconds``: how many were checked (403) and how
   many refused unchecked (429), and what that makes per hour.

The daemon's resident memory is printed before and after each attack. Every
figure is printed; nothing is asserted (the tests in tests/web/test_http_limits.py and
tests/web/test_access.py hold the behaviour).

    .venv/bin/python -m benchmarks.bench_attacks --pages 100 --slow 100

``--only slowread`` (or any attack's name, repeated) runs only those; ``--tree DIR`` runs
the daemon on another checkout's code (with this environment's packages; the checkout
needs a ``companion/page`` link to ``../web``), to measure it before a fix:

    git archive main | tar -x -C /tmp/main && ln -s ../web /tmp/main/companion/page
    .venv/bin/python -m benchmarks.bench_attacks --only slowread --tree /tmp/main
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.daemon import PIN, call, new_and_start
from tests.support.processes import Memory, descendants, tree_memory
from tests.support.soak import proc_status

CONFIG = '[table]\nhost = "127.0.0.1"\n'
#: The attacks, in the order they run.
ATTACKS = ("pages", "bodies", "editions", "slowread", "coach", "history", "pin")


def address(block: int, k: int) -> str:
    return f"127.{block}.{k // 250}.{k % 250 + 1}"


def timed_get(port: int, path: str, source: str, timeout: float = 30.0) -> tuple[int, float]:
    start_at = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, (time.perf_counter() - start_at) * 1000
    except OSError:
        return 0, (time.perf_counter() - start_at) * 1000
    finally:
        conn.close()


def attack_pages(port: int, pid: int, pages: int, slow: int, samples: int) -> dict[str, Any]:
    held: list[Any] = []
    streamed = polled = refused = 0
    rss_before = proc_status(pid)[0]
    try:
        for k in range(pages):
            conn = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=30, source_address=(address(20, k), 0)
            )
            try:
                conn.request("GET", "/api/events")
                response = conn.getresponse()
            except OSError:
                refused += 1
                continue
            if response.status == 200:
                streamed += 1
                held.append((conn, response))
            else:
                polled += 1
                response.read()
                conn.close()
        for k in range(slow):
            sock = socket.create_connection(
                ("127.0.0.1", port), timeout=30, source_address=(address(21, k), 0)
            )
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(sock)
        times: dict[str, list[float]] = {"/": [], "/api/state": []}
        failures = 0
        for n in range(samples):
            for path in times:
                status, ms = timed_get(port, path, address(22, n))
                if status == 200:
                    times[path].append(ms)
                else:
                    failures += 1
        rss_during = proc_status(pid)[0]
    finally:
        for item in held:
            if isinstance(item, tuple):
                item[1].close()
                item[0].close()
            else:
                item.close()
    # the audit: pages closed, yet the server stayed full for 25-40 s
    closed_at = time.perf_counter()
    recovered_s = None
    for n in range(300):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address(25, n), 0))
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        status = response.status
        response.close()
        conn.close()
        if status == 200:
            recovered_s = round(time.perf_counter() - closed_at, 2)
            break
        time.sleep(0.1)
    return {
        "pages_asked": pages,
        "pages_streamed": streamed,
        "pages_told_to_poll": polled,
        "pages_refused_connection": refused,
        "slow_connections": slow,
        "page_p50_ms": round(statistics.median(times["/"]), 1) if times["/"] else None,
        "page_max_ms": round(max(times["/"]), 1) if times["/"] else None,
        "state_p50_ms": round(statistics.median(times["/api/state"]), 1) if times["/api/state"] else None,
        "state_max_ms": round(max(times["/api/state"]), 1) if times["/api/state"] else None,
        "answers_failed": failures,
        "new_page_streams_after_close_s": recovered_s,
        "rss_before_mb": rss_before,
        "rss_during_mb": rss_during,
    }


def attack_bodies(port: int, pid: int, bodies: int) -> dict[str, Any]:
    rss_before = proc_status(pid)[0]
    answers: list[float] = []
    statuses: list[int] = []
    for k in range(bodies):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(address(23, k), 0))
        start_at = time.perf_counter()
        sock.sendall(
            b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 400000000\r\n\r\n" + b" " * 65536
        )
        head = sock.recv(4096)
        answers.append((time.perf_counter() - start_at) * 1000)
        statuses.append(int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0)
        sock.close()
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(address(23, 999), 0))
    sock.sendall(b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    sent = 0
    try:
        while sent < 400_000_000:
            sock.sendall(b"10000\r\n" + b" " * 0x10000 + b"\r\n")
            sent += 0x10000
    except OSError:
        pass
    sock.settimeout(5)
    try:
        chunked_head = sock.recv(4096)
    except OSError:
        chunked_head = b""
    sock.close()
    return {
        "bodies": bodies,
        "statuses": sorted(set(statuses)),
        "refused_p50_ms": round(statistics.median(answers), 1),
        "chunked_bytes_the_client_pushed": sent,  # into socket buffers; the server reads 64 KiB
        "chunked_status": int(chunked_head.split(b" ", 2)[1]) if chunked_head.startswith(b"HTTP/") else None,
        "rss_before_mb": rss_before,
        "rss_after_mb": proc_status(pid)[0],
    }


EDITION_PATHS = ("/dev/zero", "/proc/self/fd/0", "../../../../etc/passwd")


def attack_editions(port: int, pid: int) -> dict[str, Any]:
    rss_before = proc_status(pid)[0]
    answers: dict[str, Any] = {}
    for k, edition in enumerate(EDITION_PATHS):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(address(26, k), 0))
        body = json.dumps({"players": ["Ann", "Ben"], "edition": edition})
        start_at = time.perf_counter()
        try:
            conn.request(
                "POST", "/api/game/new", body, {"Content-Type": "application/json", "X-Table-Pin": PIN}
            )
            response = conn.getresponse()
            answer = json.loads(response.read() or b"{}")
            status: Any = response.status
        except (OSError, ValueError) as exc:
            answer, status = {}, f"no answer ({exc})"
        finally:
            conn.close()
        answers[edition] = (
            f"{status} {answer.get('code')} in {(time.perf_counter() - start_at) * 1000:.1f} ms, "
            f"daemon {proc_status(pid)[0]} MB"
        )
    return {**answers, "rss_before_mb": rss_before, "rss_after_mb": proc_status(pid)[0]}


def attack_slow_reads(port: int, pid: int, readers: int, pipelined: int, seconds: float) -> dict[str, Any]:
    """Connections that pipeline many requests and never read: do the others still get answers?"""
    rss_before = proc_status(pid)[0]
    request = b"GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    held: list[socket.socket] = []
    unsent = 0
    try:
        for k in range(readers):
            try:
                sock = socket.create_connection(
                    ("127.0.0.1", port), timeout=5, source_address=(f"127.27.0.{k % 5 + 1}", 0)
                )
            except OSError:
                continue
            sock.setblocking(False)
            payload = request * pipelined
            try:
                sent = sock.send(payload)
            except OSError:
                sent = 0
            unsent += len(payload) - sent
            held.append(sock)
        times: dict[str, list[float]] = {"/": [], "/api/state": []}
        failures = {"/": 0, "/api/state": 0}
        rss_peak = proc_status(pid)[0]
        start_at = time.monotonic()
        n = 0
        while time.monotonic() - start_at < seconds:
            for path in times:
                status, ms = timed_get(port, path, address(28, n % 250), timeout=5.0)
                if status == 200:
                    times[path].append(ms)
                else:
                    failures[path] += 1
            n += 1
            rss_peak = max(rss_peak, proc_status(pid)[0])
            time.sleep(0.2)
        closed = 0
        for sock in held:  # a connection the server closed reads as the end (or a reset)
            try:
                while sock.recv(1 << 20):
                    pass
                closed += 1
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
    finally:
        for sock in held:
            sock.close()
    time.sleep(1.0)

    def summary(path: str) -> str:
        ok = times[path]
        if not ok:
            return f"0 answered, {failures[path]} failed"
        return (
            f"{len(ok)} answered, {failures[path]} failed; p50 {statistics.median(ok):.1f} ms, "
            f"max {max(ok):.1f} ms"
        )

    return {
        "connections": len(held),
        "addresses": 5,
        "pipelined_each": pipelined,
        "request_bytes_left_unsent": unsent,
        "held_seconds": seconds,
        "/ during": summary("/"),
        "/api/state during": summary("/api/state"),
        "closed_by_server_by_the_end": closed,
        "rss_before_mb": rss_before,
        "rss_peak_mb": rss_peak,
        "rss_after_close_mb": proc_status(pid)[0],
    }


def attack_coach(data: Path, config: Path, tree: Path | None, flips: int, every: float) -> dict[str, Any]:
    """The coach switch flipped at finger speed on a daemon of its own (SIGKILLed at the end)."""
    data = data.with_name("coach-data")
    port, daemon = new_and_start(data, config, "Ann,Ben,Cy", tree)
    pid = daemon.pid
    peak = {"processes": 0, "rss": 0, "pss": 0}
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.is_set():
            total, count = tree_memory(pid)
            peak["processes"] = max(peak["processes"], count)
            peak["rss"], peak["pss"] = max(peak["rss"], total.rss), max(peak["pss"], total.pss)
            sampling.wait(0.02)

    def settle(check: Callable[[int], bool], seconds: float) -> int:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not check(len(descendants(pid))):
            time.sleep(0.05)
        return len(descendants(pid))

    results: dict[str, Any] = {}
    try:
        time.sleep(0.5)
        idle, _ = tree_memory(pid)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        for _ in range(flips):
            call(port, "/api/coach", {"on": True, "everyone": True})  # answers unasked: the most work
            time.sleep(every)
            call(port, "/api/coach", {"on": False})
            time.sleep(every)
        left = settle(lambda n: n == 0, 10.0)
        after, _ = tree_memory(pid)
        sampling.set()
        sampler.join()
        call(port, "/api/coach", {"on": True, "everyone": True})
        settle(lambda n: n > 0, 30.0)
        time.sleep(2.0)  # the pool's processes all started
        workers = descendants(pid)
        os.kill(pid, signal.SIGKILL)
        daemon.wait(timeout=10)
        end = time.monotonic() + 5
        orphans = workers
        while orphans and time.monotonic() < end:
            orphans = [w for w in workers if Path(f"/proc/{w}").exists()]
            time.sleep(0.05)
        orphan_kb = sum((tree_memory(w)[0] for w in orphans), Memory()).rss
        for w in orphans:  # the benchmark's own mess: not left on the machine
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGKILL)
        mb = lambda kb: round(kb / 1024, 1)  # noqa: E731
        results = {
            "flips (on+off)": f"{flips} x {every} s",
            "idle tree RSS / PSS MB": f"{mb(idle.rss)} / {mb(idle.pss)}",
            "peak processes below daemon": peak["processes"],
            "peak tree RSS / PSS MB": f"{mb(peak['rss'])} / {mb(peak['pss'])}",
            "processes left 10 s after off": left,
            "tree RSS / PSS MB after off": f"{mb(after.rss)} / {mb(after.pss)}",
            "workers when SIGKILLed": len(workers),
            "orphans 5 s after SIGKILL": f"{len(orphans)} ({mb(orphan_kb)} MB RSS)",
        }
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait(timeout=30)
    return results


def timed_move(port: int, rng: random.Random, source: str) -> float | None:
    """One move as the table makes it (a tap on a card it expects, or a button), with the PIN:
    its latency in ms, or None when it was not answered 200."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", "/api/state")
        expect = json.loads(conn.getresponse().read()).get("expect") or {}
    finally:
        conn.close()
    if expect.get("kind") == "confirm":
        path, body = "/api/buttons/" + rng.choice(["crystal", "confirm", "confirm"]), {}
    elif expect.get("choices"):
        path, body = "/api/reader/tap", {"tag": rng.choice(expect["choices"])}
    else:  # the game is over: a new one, as the host would start
        path, body = "/api/game/new", {"players": ["Ann", "Ben"]}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    start_at = time.perf_counter()
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", "X-Table-Pin": PIN})
        response = conn.getresponse()
        response.read()
        ok = response.status == 200
    except OSError:
        ok = False
    finally:
        conn.close()
    return (time.perf_counter() - start_at) * 1000 if ok else None


def attack_history(port: int, pid: int, readers: int, taps: int, patient: bool) -> dict[str, Any]:
    """Guests reading the history over and over: do the table's moves still answer at once?
    ``patient``: a reader told to try again later (503, Retry-After) waits that long first."""
    rng = random.Random(21)
    rss_before = proc_status(pid)[0]

    def moves(block: int) -> list[float]:
        found = [timed_move(port, rng, address(block, n % 250)) for n in range(taps)]
        return [ms for ms in found if ms is not None]

    quiet = moves(30)
    stop = threading.Event()
    answers: dict[int, int] = {}
    lock = threading.Lock()

    sizes: list[int] = []

    def read(k: int) -> None:
        while not stop.is_set():
            conn = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=60, source_address=(address(31, k), 0)
            )
            try:
                conn.request("GET", "/api/history", headers={"Accept-Encoding": "gzip"})  # as browsers do
                response = conn.getresponse()
                body, status = response.read(), response.status
                wait = float(response.headers.get("Retry-After") or 0) if patient else 0.0
            except OSError:
                body, status, wait = b"", 0, 0.0
            finally:
                conn.close()
            with lock:
                answers[status] = answers.get(status, 0) + 1
                if status == 200:
                    sizes.append(len(body))
            stop.wait(wait)  # a phone told to try again later does; a hostile one would not

    flood = [threading.Thread(target=read, args=(k,), daemon=True) for k in range(readers)]
    for thread in flood:
        thread.start()
    time.sleep(1.0)  # the flood under way before the first move
    during = moves(32)
    deadline = time.monotonic() + 300  # then once the history was answered (a cache would be warm)
    while answers.get(200, 0) < readers and time.monotonic() < deadline:
        time.sleep(0.1)
    later = moves(33)
    rss_peak = proc_status(pid)[0]
    stop.set()
    for thread in flood:
        thread.join(timeout=120)

    def summary(found: list[float]) -> str:
        if not found:
            return "none answered"
        return (
            f"{len(found)} of {taps} answered; p50 {statistics.median(found):.1f} ms, max {max(found):.1f} ms"
        )

    return {
        "readers": readers,
        "moves before the flood": summary(quiet),
        "moves during the flood": summary(during),
        "moves once every reader was answered": summary(later),
        "readers honour Retry-After": patient,
        "history answers (status: count)": dict(sorted(answers.items())),
        "history answer bytes (as sent)": max(sizes, default=0),
        "rss_before_mb": rss_before,
        "rss_during_mb": rss_peak,
    }


def fill_history(data: Path, games: int) -> None:
    """``games`` finished games in the store (bench_history's greedy-bot games), before the daemon."""
    from benchmarks.bench_history import fill
    from companion.records.trekking import TREKKING
    from companion.store.log import Store

    store = Store(data, TREKKING)
    try:
        fill(store, games, seed=21)
    finally:
        store.close()


def attack_pin(port: int, pid: int, addresses: int, seconds: float) -> dict[str, Any]:
    rss_before = proc_status(pid)[0]
    checked = refused = other = 0
    start_at = time.monotonic()
    n = 0
    while time.monotonic() - start_at < seconds:
        guess = f"{n % 10000:04d}"
        n += 1
        if guess == PIN:
            continue
        conn = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=10, source_address=(address(24, n % addresses), 0)
        )
        try:
            conn.request(
                "POST", "/api/login", json.dumps({"pin": guess}), {"Content-Type": "application/json"}
            )
            status = conn.getresponse().status
        finally:
            conn.close()
        if status == 403:
            checked += 1
        elif status == 429:
            refused += 1
        else:
            other += 1
    elapsed = time.monotonic() - start_at
    return {
        "addresses": addresses,
        "seconds": round(elapsed, 1),
        "guesses_sent": checked + refused + other,
        "guesses_checked": checked,
        "guesses_refused_unchecked": refused,
        "checked_per_hour_at_most": checked if elapsed <= 3600 else round(checked * 3600 / elapsed),
        "hours_to_try_half_of_4_digits": round(5000 / max(1, checked)),
        "rss_before_mb": rss_before,
        "rss_after_mb": proc_status(pid)[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--slow", type=int, default=100)
    parser.add_argument("--samples", type=int, default=20, help="timed requests per path during the flood")
    parser.add_argument("--bodies", type=int, default=3)
    parser.add_argument("--addresses", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to guess PINs")
    parser.add_argument("--readers", type=int, default=90, help="slow-read connections (5 addresses)")
    parser.add_argument("--pipelined", type=int, default=150, help="requests each slow reader pipelines")
    parser.add_argument("--read-seconds", type=float, default=30.0, help="how long the slow readers hold")
    parser.add_argument("--flips", type=int, default=20, help="coach switch on+off pairs")
    parser.add_argument("--flip-every", type=float, default=0.15, help="seconds between two flips")
    parser.add_argument("--history-games", type=int, default=500, help="finished games in the store")
    parser.add_argument("--history-readers", type=int, default=24, help="connections reading the history")
    parser.add_argument("--history-taps", type=int, default=40, help="moves timed before and during")
    parser.add_argument("--history-hostile", action="store_true", help="readers ignore Retry-After")
    parser.add_argument("--only", action="append", choices=ATTACKS, help="run only this attack (repeatable)")
    parser.add_argument("--tree", type=Path, default=None, help="run the daemon on this checkout's code")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = args.only or list(ATTACKS)
    with tempfile.TemporaryDirectory() as tmp:
        data, config = Path(tmp) / "data", Path(tmp) / "config.toml"
        config.write_text(CONFIG)
        if "history" in chosen:  # before the table's game: each stored game becomes the current one
            fill_history(data, args.history_games)
        port, daemon = new_and_start(data, config, "Ann,Ben", args.tree)
        try:
            time.sleep(0.5)
            pid = daemon.pid
            results: dict[str, Any] = {"idle_rss_mb": proc_status(pid)[0]}
            attacks: dict[str, Callable[[], dict[str, Any]]] = {
                "pages": lambda: attack_pages(port, pid, args.pages, args.slow, args.samples),
                "bodies": lambda: attack_bodies(port, pid, args.bodies),
                "editions": lambda: attack_editions(port, pid),
                "slowread": lambda: attack_slow_reads(
                    port, pid, args.readers, args.pipelined, args.read_seconds
                ),
                "coach": lambda: attack_coach(data, config, args.tree, args.flips, args.flip_every),
                "history": lambda: attack_history(
                    port, pid, args.history_readers, args.history_taps, not args.history_hostile
                ),
                "pin": lambda: attack_pin(port, pid, args.addresses, args.seconds),
            }
            for name in ATTACKS:  # in this order: PIN guessing locks the table's logins
                if name in chosen:
                    results[name] = attacks[name]()
        finally:
            daemon.terminate()
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()  # still stuck after the attack: the figures above say why
                results["daemon_stopped"] = "no: killed 30 s after SIGTERM"
                daemon.wait(timeout=30)
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"daemon idle: {results['idle_rss_mb']} MB")
    if "daemon_stopped" in results:
        print(f"daemon stopped on SIGTERM: {results['daemon_stopped']}")
    for name in (n for n in ATTACKS if n in results):
        print(f"--- {name}")
        for key, value in results[name].items():  # type: ignore[attr-defined]
            print(f"  {key:<34} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
