"""What sending the live pages a delta instead of the whole snapshot would save (issue 26).

Run: ``.venv/bin/python -m benchmarks.bench_page_delta [--games 3] [--pages 20] [--repeat 300]
[--json]``

A measure only: the page's protocol is unchanged (every change sends the whole snapshot). A
mocked table (4 players) plays ``--games`` games by random taps (a Confirm when asked); after
each change the page's snapshot (`Table.page_text`) is kept. Printed, per change: the whole
snapshot's bytes (what each live page is sent today), the bytes of a JSON merge patch
(RFC 7386) from the previous snapshot to this one, of a patch that also goes into lists
(`item_patch`: the log and the chart grow at their end, one player of four changes), and
each compressed with zlib (what a page taking ``deflate`` would get). Then the sending side's
CPU: ``--pages`` loopback TCP connections, read by another process, are each sent a message
of the median whole size, item patch size and deflated size, ``--repeat`` times, alternated;
printed is
the sending thread's CPU time per change for all pages (``time.thread_time``: the kernel's
loopback delivery is counted in the sender, as in the daemon).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from companion.records.trekking import TREKKING
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.game_setup import new_game
from companion.util.config import Config


def merge_patch(old: Any, new: Any) -> Any:
    """The RFC 7386 merge patch that turns ``old`` into ``new`` (None: no change at all).

    Objects are patched key by key (a removed key is set to null: the snapshots hold no null
    that a patch would have to tell apart); anything else is replaced whole."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None if old == new else new
    patch: dict[str, Any] = {}
    for key, value in new.items():
        if key not in old:
            patch[key] = value
        else:
            part = merge_patch(old[key], value)
            if part is not None:
                patch[key] = part
    for key in old:
        if key not in new:
            patch[key] = None
    return patch or None


def item_patch(old: Any, new: Any) -> Any:
    """`merge_patch`, lists included, whichever is shortest: a list as long as before patched
    item by item (``{"@3": patch}``), or told how many first items went and the new ones at
    its end (a log window: ``{"-": 1, "+": [...]}``), or replaced whole. A delta the page
    would need its own code to apply."""
    if isinstance(old, list) and isinstance(new, list):
        if old == new:
            return None
        candidates: list[Any] = [new]
        if len(old) == len(new):
            candidates.append(
                {f"@{k}": item_patch(a, b) for k, (a, b) in enumerate(zip(old, new, strict=True)) if a != b}
            )
        for dropped in range(len(old)):  # the first ``dropped`` items went, new ones came at the end
            kept = old[dropped:]
            if new[: len(kept)] == kept:
                candidates.append({"-": dropped, "+": new[len(kept) :]})
                break
        return min(candidates, key=lambda patch: len(json.dumps(patch, separators=(",", ":"))))
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None if old == new else new
    patch: dict[str, Any] = {}
    for key, value in new.items():
        part = item_patch(old[key], value) if key in old else value
        if part is not None:
            patch[key] = part
    for key in old:
        if key not in new:
            patch[key] = None
    return patch or None


def snapshots(games: int, seed: int) -> list[str]:
    """The page's snapshot after every change of ``games`` mocked games."""
    texts: list[str] = []
    for game in range(games):
        with tempfile.TemporaryDirectory() as tmp:
            config = Config()
            store = Store(Path(tmp), TREKKING)
            new_game(store, ["Ann", "Ben", "Cy", "Dee"], config, seed=seed + game, mock=True)
            store.close()
            rt = build_runtime(config, Path(tmp), mock=True, pin="0000", say=lambda _: None)
            rng = random.Random(seed + game)
            texts.append(rt.table.page_text()[1])
            while not rt.table.board.finished:
                expect = rt.table.expect()
                assert expect is not None
                rt.tap(rng.choice(expect["choices"]))
                if rt.table.pending is not None:
                    rt.table.press("confirm")
                texts.append(rt.table.page_text()[1])
            rt.stop()
    return texts


def sizes(texts: list[str]) -> dict[str, float]:
    whole, delta, items, whole_z, delta_z, items_z = [], [], [], [], [], []

    def text(patch: Any) -> bytes:
        return json.dumps(patch if patch is not None else {}, separators=(",", ":")).encode()

    for before, after in itertools.pairwise(texts):
        merged = text(merge_patch(json.loads(before), json.loads(after)))
        by_item = text(item_patch(json.loads(before), json.loads(after)))
        whole.append(len(after.encode()))
        delta.append(len(merged))
        items.append(len(by_item))
        whole_z.append(len(zlib.compress(after.encode(), 6)))
        delta_z.append(len(zlib.compress(merged, 6)))
        items_z.append(len(zlib.compress(by_item, 6)))
    return {
        "changes": len(whole),
        "whole_bytes_median": statistics.median(whole),
        "whole_bytes_max": max(whole),
        "merge_patch_bytes_median": statistics.median(delta),
        "item_patch_bytes_median": statistics.median(items),
        "item_patch_bytes_p90": sorted(items)[int(0.9 * len(items))],
        "whole_deflate_bytes_median": statistics.median(whole_z),
        "merge_patch_deflate_bytes_median": statistics.median(delta_z),
        "item_patch_deflate_bytes_median": statistics.median(items_z),
    }


def reader_child(port: int, count: int) -> int:
    """Hold ``count`` connections to ``port`` and read everything sent on them until they close."""
    import selectors

    selector = selectors.DefaultSelector()
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", port))
        conn.setblocking(False)
        selector.register(conn, selectors.EVENT_READ)
    print("ready", flush=True)
    open_ = count
    while open_:
        for key, _ in selector.select(1.0):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(1 << 20)
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(sock)
                sock.close()
                open_ -= 1
    return 0


def send_cpu(pages: int, message_sizes: list[int], repeat: int) -> dict[int, float]:
    """The sending thread's CPU per change (all pages) for each message size, alternated."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_page_delta", "--reader", str(port), str(pages)],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1],
    )  # fmt: skip
    conns = [listener.accept()[0] for _ in range(pages)]
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    spent = {size: 0.0 for size in message_sizes}
    try:
        for _ in range(repeat):
            for size in message_sizes:
                message = b"x" * size
                start = time.thread_time()
                for conn in conns:
                    conn.sendall(message)
                spent[size] += time.thread_time() - start
                time.sleep(0.002)  # the reader drains: each change finds the pages idle
    finally:
        for conn in conns:
            conn.close()
        listener.close()
        child.wait(30)
    return {size: 1000 * total / repeat for size, total in spent.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reader", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reader:
        return reader_child(*args.reader)
    result: dict[str, Any] = sizes(snapshots(args.games, args.seed))
    named = {
        "whole": int(result["whole_bytes_median"]),
        "item_patch": int(result["item_patch_bytes_median"]),
        "whole_deflate": int(result["whole_deflate_bytes_median"]),
    }
    cpu = send_cpu(args.pages, sorted(set(named.values())), args.repeat)
    for name, size in named.items():
        result[f"send_cpu_ms_{name}_{args.pages}_pages"] = round(cpu[size], 3)
    print(json.dumps(result) if args.json else "\n".join(f"{k:28} {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
