"""A newcomer's first ``scripts/companion run``: from a fresh clone to the page answering.

Clones a git revision of this repository into a temporary folder (no ``.venv``),
starts ``scripts/companion run --port N --data-dir D`` there and times until
``GET /`` answers 200: the environment's creation, the install and the daemon's
start, which is what a newcomer waits for. Then it stops the daemon and says what
the install put in the environment (whether pytest, mypy and playwright are there).

pip's download cache is whatever the machine has (say so with the figure);
``--no-cache`` sets ``PIP_NO_CACHE_DIR=1`` so that every package is downloaded::

    .venv/bin/python -m benchmarks.bench_first_run [--rev main] [--no-cache]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.daemon import free_port, page_answers

ROOT = Path(__file__).resolve().parents[1]


def first_run(rev: str, no_cache: bool, limit: float) -> None:
    with tempfile.TemporaryDirectory(prefix="first-run-") as tmp:
        clone = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", rev], cwd=clone, check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
        if no_cache:
            env["PIP_NO_CACHE_DIR"] = "1"
        port = free_port()
        log = open(Path(tmp) / "run.log", "w")  # noqa: SIM115 - closed below, after the process
        start = time.monotonic()
        process = subprocess.Popen(
            ["scripts/companion", "run", "--port", str(port), "--data-dir", str(Path(tmp) / "data")],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            while not page_answers(f"http://127.0.0.1:{port}/"):
                if process.poll() is not None or time.monotonic() - start > limit:
                    log.close()
                    print((Path(tmp) / "run.log").read_text()[-3000:], file=sys.stderr)
                    raise SystemExit(f"the page did not answer (exit {process.poll()})")
                time.sleep(0.2)
            elapsed = time.monotonic() - start
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(30)
            log.close()
        site = next((clone / ".venv" / "lib").glob("python*/site-packages"))
        present = [tool for tool in ("pytest", "mypy", "playwright") if (site / tool).exists()]
        print(f"rev {rev}: first `scripts/companion run` to the page answering: {elapsed:.1f} s")
        print(f"  pip cache: {'disabled (PIP_NO_CACHE_DIR=1)' if no_cache else 'as on this machine'}")
        print(f"  dev tools installed: {', '.join(present) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the git revision to clone (default HEAD)")
    parser.add_argument("--no-cache", action="store_true", help="PIP_NO_CACHE_DIR=1: download everything")
    parser.add_argument("--limit", type=float, default=900.0, help="give up after this many seconds")
    args = parser.parse_args()
    first_run(args.rev, args.no_cache, args.limit)


if __name__ == "__main__":
    main()
