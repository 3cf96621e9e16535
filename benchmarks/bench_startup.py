"""Start-up and memory of the daemon, and the import time of the composition root.

Prints, for ``companion run --mock`` started from the given Python:

- start to first answer: from the process being started to ``GET /api/state``
  answering (what a family waits for after plugging the Pi in, minus the boot), and the
  daemon's CPU time (user + system) until then, which a loaded machine does not stretch;
- resident memory (VmRSS) idle, a few seconds after start, and with N live pages
  attached (each page: ``GET /``, ``GET /api/state?page=1`` and an open
  ``/api/events`` stream, as the page does);
- the import time of the composition root (`companion.run.startup`, `serving` and `console`;
  the median of repeated fresh interpreters, the
  interpreter's own start subtracted; wall and CPU time) and whether it imports gpiozero.

Only the standard library and the installed companion are needed, so it also runs
inside the rehearsal's arm64 root file systems under qemu (scripts/rehearse-pi), an
emulated Cortex-A53, which is not a Pi Zero 2 W (docs/benchmarks-pi.md):

    .venv/bin/python -m benchmarks.bench_startup --repeat 5
    sudo scripts/bench-emulated --only startup
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

#: The composition root: what `companion run` imports before it opens anything.
ROOT = "companion.run.startup, companion.run.serving, companion.run.console"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def import_time(python: str, repeat: int) -> dict[str, Any]:
    def run(code: str) -> tuple[float, float]:
        """Wall and CPU seconds (the child's user + system) of one fresh interpreter."""
        cpu0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run([python, "-c", code], check=True)
        wall, cpu1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)

    bases = [run("pass") for _ in range(repeat)]
    fulls = [run(f"import {ROOT}") for _ in range(repeat)]
    base, full = (statistics.median(r[0] for r in runs) for runs in (bases, fulls))
    base_cpu, full_cpu = (statistics.median(r[1] for r in runs) for runs in (bases, fulls))
    modules = subprocess.run(
        [python, "-c", f"import sys, {ROOT}; print(' '.join(sorted(sys.modules)))"],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    return {
        "import_composition_root_s": round(full - base, 3),
        "import_composition_root_cpu_s": round(full_cpu - base_cpu, 3),
        "interpreter_start_s": round(base, 3),
        "interpreter_start_cpu_s": round(base_cpu, 3),
        "imports_gpiozero": "gpiozero" in modules,
        "imports_flask": "flask" in modules,
    }


def _read_until(stream: socket.socket, marker: bytes, received: bytes, closed: str) -> bytes:
    """Read ``stream`` until ``marker`` is in what was received; a closed stream raises ``closed``."""
    while marker not in received:
        chunk = stream.recv(65536)
        if not chunk:
            stream.close()
            raise RuntimeError(closed)
        received += chunk
    return received


def open_page(port: int, address: str) -> socket.socket:
    """One live page from its own loopback address (127.0.0.x), as phones are: the server
    caps live pages per address. The page and its state are fetched, then its event stream
    held open; a refused request or stream is an error that says so, never a hang."""
    for path in ("/", "/api/state?page=1"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"GET {path} from {address} answered {response.status}: {body[:200]!r}")
        finally:
            conn.close()
    stream = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(address, 0))
    stream.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    received = _read_until(
        stream, b"\r\n\r\n", b"", f"the event stream from {address} closed before answering"
    )
    status_line = received.split(b"\r\n", 1)[0].decode("latin-1")
    if status_line.split()[1:2] != ["200"]:
        stream.close()
        raise RuntimeError(f"the event stream from {address} was refused: {status_line}")
    _read_until(
        stream, b"event: state", received, f"the event stream from {address} closed before its first state"
    )
    return stream


def page_address(k: int) -> str:
    """The k-th page's loopback address: 127.0.9.1, 127.0.9.2 ... (all of 127/8 is loopback)."""
    return f"127.0.{9 + k // 250}.{k % 250 + 1}"


def daemon(python: str, clients: int, settle: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        config = Path(tmp) / "config.toml"
        config.write_text('[table]\nhost = "127.0.0.1"\n')
        command = [python, "-m", "companion", "run", "--mock", "--data-dir", str(Path(tmp) / "data"),
                   "--config", str(config), "--port", str(port), "--pin", "2468"]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)  # fmt: skip
        try:
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5):
                        break
                except (urllib.error.URLError, ConnectionError):
                    if proc.poll() is not None:
                        raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited") from None
                    time.sleep(0.02)
            first = time.perf_counter() - t0
            # its CPU time to the first answer: what a loaded machine's wall time hides
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            first_cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            time.sleep(settle)
            idle = rss_mb(proc.pid)
            pages: list[socket.socket] = []
            try:
                for k in range(clients):
                    pages.append(open_page(port, page_address(k)))
                time.sleep(settle)
                loaded = rss_mb(proc.pid)
            finally:
                for page in pages:
                    page.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return {
        "start_to_first_answer_s": round(first, 2),
        "cpu_to_first_answer_s": round(first_cpu, 2),
        "rss_idle_mb": round(idle, 1),
        f"rss_{clients}_pages_mb": round(loaded, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter with the companion installed"
    )
    parser.add_argument("--clients", type=int, default=20, help="live pages to attach")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before each memory reading")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement (medians)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # Measured as installed: pip compiles the package's bytecode and the service keeps it, so a
    # shell that forbids writing it (PYTHONDONTWRITEBYTECODE, as some development shells set)
    # would time the compiler on every start. One warm-up import writes the cache first.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [args.python, "-c", f"import {ROOT}, companion.web.app"],
        check=True,
    )
    try:
        runs = [daemon(args.python, args.clients, args.settle) for _ in range(args.repeat)]
    except RuntimeError as exc:
        print(f"bench_startup: {exc}", file=sys.stderr)
        return 1
    result: dict[str, Any] = {
        "machine": os.uname().machine,
        **{key: statistics.median(r[key] for r in runs) for key in runs[0]},
        **import_time(args.python, args.repeat),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k:28} {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
