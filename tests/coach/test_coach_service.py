"""The coach beside the running table (`companion.coach.service`): its switch, its asks, its pool.

Off by default; the host's switch needs the PIN; once on, the player to move asks and the
answer goes to the asking phone only (the seats' rules: tests/coach/test_coach_seats.py),
never into anyone's state or live stream; "coach for everyone" answers unasked; an answer
never moves the table's version (a player's Undo is never stale because of it); a game with advice is marked
assisted; and the worker processes are one pool at a time, gone when off, gone with a
SIGKILLed parent (counted from /proc, real processes).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.support.processes import descendants, parent_of
from tests.support.tables import (
    api_app,
    api_client,
    client_from,
    coach_at_a_take,
    play_turn,
    quick_coach,
    to_a_take,
)

PIN = {"X-Table-Pin": "2468"}


def _wait_for(check: Any, timeout: float = 60.0) -> Any:
    """Poll ``check`` until it returns something true (a wait, never a measurement)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError("the condition did not come in time")


def _ready(http: Any, headers: dict[str, str] | None = None) -> dict[str, Any] | None:
    coach: dict[str, Any] = http.get("/api/coach", headers=headers or PIN).get_json()["coach"]
    return coach if coach.get("status") == "ready" else None


def test_the_coach_is_off_by_default_and_its_switch_needs_the_pin(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        assert http.get("/api/state").get_json()["coach"] == {"on": False, "everyone": False}
        assert http.post("/api/coach", json={"on": True}).status_code == 401
        for bad in ({"on": "yes"}, {"on": True, "everyone": "yes"}):
            refused = http.post("/api/coach", json=bad, headers=PIN)
            assert refused.status_code == 400 and refused.get_json()["code"] == "coach_switch"
        asked = http.post("/api/coach/ask", json={"player": rt.table.board.player_to_move})
        assert asked.status_code == 409 and asked.get_json()["code"] == "coach_off"
        assert rt.coach.thread is None


def test_the_player_to_move_asks_and_only_that_phone_sees_the_answer(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        host, asker, guest = app.test_client(), client_from(app, "10.0.0.2"), client_from(app, "10.0.0.3")
        turn = coach_at_a_take(rt, 3)
        assert host.post("/api/coach", json={"on": True}, headers=PIN).status_code == 200
        other = next(n for n in rt.table.board.names if n != turn)
        refused = asker.post("/api/coach/ask", json={"player": other})
        assert refused.status_code == 409 and refused.get_json()["code"] == "coach_not_to_move"
        assert refused.get_json()["params"]["turn"] == turn
        assert asker.post("/api/coach/ask", data="{}").status_code == 415  # not JSON: no other site's form
        assert rt.coach.advice(None)["status"] == "none" and not rt.store.assisted()  # nobody asked yet
        answer = asker.post("/api/coach/ask", json={"player": turn.upper()}).get_json()["coach"]
        assert answer["status"] == "ready" and answer["player"] == turn
        assert answer["events"] == rt.table.seq and answer["game"] == rt.table.game_id
        assert sorted(c["card"] for c in answer["cards"]) == sorted(rt.table.expect()["choices"])
        assert abs(sum(p["win"] for p in answer["players"]) - 100) < 0.5
        # the asking phone reads it again; the host's page, a guest's state, page state, stream
        # and coach read do not
        assert _ready(asker, {}) == answer
        assert host.get("/api/coach", headers=PIN).get_json()["coach"] == {"on": True, "status": "private"}
        assert guest.get("/api/coach").get_json()["coach"] == {"on": True, "status": "private"}
        for path in ("/api/state", "/api/state?page=1"):
            assert guest.get(path).get_json()["coach"] == {"on": True, "everyone": False}
        stream = guest.get("/api/events", buffered=False)
        first = next(c for c in stream.response if b"data:" in c)
        stream.close()
        snapshot = json.loads(first.split(b"data: ", 1)[1])
        assert snapshot["coach"] == {"on": True, "everyone": False} and b"rollouts" not in first
        assert rt.store.assisted() == {rt.table.game_id}  # the game is marked assisted


def test_coach_for_everyone_answers_unasked_and_anyone_reads_it(tmp_path: Path) -> None:
    with api_app(tmp_path) as (app, rt):
        host, guest = app.test_client(), client_from(app, "10.0.0.3")
        quick_coach(rt, 3)
        rng = random.Random(5)
        to_a_take(rt, rng)
        host.post("/api/coach", json={"on": True, "everyone": True}, headers=PIN)
        assert guest.get("/api/state").get_json()["coach"] == {"on": True, "everyone": True}
        coach = _wait_for(lambda: _ready(guest, {}))
        assert coach["events"] == rt.table.seq
        play_turn(rt, rng)
        to_a_take(rt, rng)
        assert _wait_for(lambda: _ready(guest, {}))["events"] == rt.table.seq
        host.post("/api/coach", json={"on": True, "everyone": False}, headers=PIN)
        assert guest.get("/api/coach").get_json()["coach"] == {"on": True, "status": "private"}


def test_an_undo_with_the_coach_answering_is_never_refused_as_stale(tmp_path: Path) -> None:
    """Issue 21 item 8: the coach's answers used to bump the version the page's Undo is
    checked against, so an Undo sent with the snapshot the page showed was refused."""
    with api_client(tmp_path) as (http, rt):
        quick_coach(rt, 1)
        rng = random.Random(6)
        to_a_take(rt, rng)
        http.post("/api/coach", json={"on": True, "everyone": True}, headers=PIN)
        for _ in range(6):
            to_a_take(rt, rng)
            play_turn(rt, rng)
            if rt.table.board.finished:
                break
            shown = http.get("/api/state").get_json()  # the snapshot the page shows
            _wait_for(lambda: rt.coach.answer is not None and rt.coach.answer[1] == rt.table.seq)
            undo = http.post(
                "/api/undo", json={"version": shown["version"], "process": shown["process"]}, headers=PIN
            )
            outcome = undo.get_json()["outcome"]
            assert outcome["code"] != "undo_stale" and outcome["accepted"] is True, outcome


def test_the_table_takes_cards_while_the_coach_thinks_and_its_late_answer_is_not_shown(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The coach's thread holds no lock of the table while it computes: a take goes through
    meanwhile, and the answer it then finishes (for the position before that take) is not
    shown; the next answer is for the position after it."""
    from companion.coach import chances
    from companion.coach.chances import evaluate

    thinking, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow(board: Any, per_candidate: int, seconds: float | None, seed: int | None = None) -> Any:
        calls.append(board.next_seq)
        if len(calls) == 1:  # the first answer waits until the test has taken a card
            thinking.set()
            assert release.wait(30)
        return evaluate(board, 1, None, seed=1)

    # the service imports the rollouts when it first works (issue 26): patched where they live
    monkeypatch.setattr(chances, "evaluate", slow)
    with api_client(tmp_path) as (http, rt):
        rt.coach.workers = 0
        rng = random.Random(3)
        to_a_take(rt, rng)
        rt.coach.switch(True, everyone=True)
        assert thinking.wait(30)
        assert rt.table.lock.acquire(timeout=5)  # free while the coach thinks
        rt.table.lock.release()
        before = rt.table.seq
        play_turn(rt, rng)  # a take, answered at once
        assert rt.table.seq > before
        assert rt.coach.advice(None)["status"] == "thinking"
        release.set()
        assert _wait_for(lambda: _ready(http))["events"] == rt.table.seq > before
        assert len(calls) >= 2
        rt.coach.switch(False)


# --- the worker processes, counted from /proc ------------------------------------------------


def _workers() -> list[int]:
    """The coach's worker processes below this test's process (and any forkserver of old)."""
    return descendants(os.getpid())


def test_a_switch_flipped_at_finger_speed_never_has_two_pools_and_off_leaves_nothing(
    tmp_path: Path,
) -> None:
    """Issue 21 item 2: each "on" started new workers before the old ones had gone (66
    processes on a Pi), and "off" left multiprocessing's forkserver and resource tracker."""
    with api_client(tmp_path) as (http, rt):
        rt.coach.workers, rt.coach.seconds = 2, 0.3
        to_a_take(rt, random.Random(7))
        peak, stop = [0], threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], len(_workers()))
                stop.wait(0.005)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            for _ in range(8):
                http.post("/api/coach", json={"on": True, "everyone": True}, headers=PIN)
                _wait_for(lambda: rt.coach.pool is not None, 30)  # this "on" has its workers
                http.post("/api/coach", json={"on": False}, headers=PIN)
                assert _workers() == []  # off means gone, before the answer is sent
            for _ in range(8):  # faster than workers start: an "on" waits for the last "off"
                http.post("/api/coach", json={"on": True, "everyone": True}, headers=PIN)
                http.post("/api/coach", json={"on": False}, headers=PIN)
            http.post("/api/coach", json={"on": True, "everyone": True}, headers=PIN)
            _wait_for(lambda: _ready(http), 60)
        finally:
            stop.set()
            sampler.join()
        assert 0 < peak[0] <= 2
        rt.coach.stop()
        assert _workers() == []


WORKER_PARENT = """
import threading, time
from companion.coach.chances import CoachPool
from companion.editions import load_edition
from companion.engine import Board
from companion.coach.simulate import random_setup
import random
edition = load_edition("reference")
board = Board(random_setup(edition, ["Ann", "Ben"], random.Random(1)))
pool = CoachPool(edition, 2)
# minutes of rollouts with no time limit: the workers are busy, not waiting on their pipe
threading.Thread(target=pool.evaluate, args=(board, 10**6, None), daemon=True).start()
time.sleep(0.5)
print(" ".join(str(p.pid) for p in pool.procs), flush=True)
time.sleep(120)
"""


def test_a_sigkilled_parent_leaves_no_worker_behind() -> None:
    """Issue 21 item 2: a SIGKILLed daemon left its workers (and the forkserver) to init.
    Killed mid-rollout, the workers are not reading their pipe: the kernel's parent-death
    signal ends them at once, not when their minutes of work are done."""
    parent = subprocess.Popen([sys.executable, "-c", WORKER_PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    workers = [int(p) for p in parent.stdout.readline().split()]
    assert len(workers) == 2 and set(workers) <= set(descendants(parent.pid))
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    parent.stdout.close()
    try:
        _wait_for(lambda: all(parent_of(w) is None for w in workers), 10)
    finally:
        for w in workers:  # never leave one on the machine, whatever the outcome
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGKILL)


#: A companion's coach on the console (``say=print``, as ``companion run`` has it), answering
#: with one worker for a long while; the test kills that worker mid-answer.
KILLED_WORKER = """
import os, random, sys, tempfile, time
from pathlib import Path
from companion.run.startup import build_runtime
from companion.util.config import Config
from tests.support.tables import play_turn

rt = build_runtime(Config(), Path(tempfile.mkdtemp()), mock=True, pin="2468", say=print)
rt.coach.workers, rt.coach.seconds, rt.coach.per_candidate = 1, 120, 10**7
rng = random.Random(3)
while rt.table.expect()["kind"] != "take":
    play_turn(rt, rng)
rt.switch_coach(True, everyone=True)
while rt.coach.pool is None or not hasattr(rt.coach.pool, "procs"):
    time.sleep(0.02)
print("WORKER", rt.coach.pool.procs[0].pid, flush=True)
while rt.coach.failed is None:
    time.sleep(0.02)
rt.stop()
print("DONE", flush=True)
"""


def test_a_worker_killed_mid_answer_is_one_line_on_the_console(tmp_path: Path) -> None:
    """Issue 33 item 5: it printed a traceback (through `logging`) besides the coach's line."""
    daemon = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert daemon.stdout is not None
    try:
        lines = []
        for line in daemon.stdout:
            lines.append(line)
            if line.startswith("WORKER "):
                os.kill(int(line.split()[1]), signal.SIGKILL)  # the answer is on its way
        daemon.wait(60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            daemon.kill()
    out = "".join(lines)
    assert "DONE" in out and "Traceback" not in out, out
    stopped = [line for line in lines if "coach" in line.lower() and "WORKER" not in line]
    assert len(stopped) == 1 and " at chances.py:" in stopped[0], out
