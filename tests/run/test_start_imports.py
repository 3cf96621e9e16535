"""What `companion run --mock` loads before its first answer (issue 26: the start on a Zero).

The start of a Pi Zero 2 W is mostly imports (``python -X importtime``; docs/benchmarks-pi.md).
What serving the page does not need loads at its first use, in its adapter: the coach's
rollouts when the coach first works, the history and the league when a page first asks
for them, the sticker reader's text when an unknown tag is read, the editions' CSV forms and
commands when used, the venue only with a ``[venue]`` broker, the version only for
``--version``. This keeps them there: a top-level import added back would fail here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: Started in a fresh interpreter: the table runs in the main thread (it sets signal handlers),
#: a second thread asks ``GET /api/state`` until it is answered, then writes what is loaded to a
#: file of its own (on stdout its line could be glued to one the table prints at the same time).
PROBE = """
import json, os, socket, sys, threading, time
data, config, out = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()

def first_answer():
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port)) as c:
                c.sendall(b"GET /api/state HTTP/1.0\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
                if c.recv(12)[8:12] == b" 200":
                    break
        except OSError:
            time.sleep(0.05)
    import companion
    found = json.dumps({"modules": sorted(sys.modules), "version_read": "__version__" in vars(companion)})
    with open(out + ".part", "w") as f:
        f.write(found)
    os.replace(out + ".part", out)
    os._exit(0)

threading.Thread(target=first_answer, daemon=True).start()
from companion.run.cli import main
main(["run", "--mock", "--data-dir", data, "--config", config, "--port", str(port), "--pin", "2468"])
"""

#: Loaded at their first use, never by the start.
DEFERRED = (
    "companion.coach.chances",
    "companion.coach.bots",
    "companion.coach.worker",
    "companion.engine.playout",
    "companion.history.past",
    "companion.history.bgstats",
    "companion.records.league",
    "companion.hardware.stickers",
    "companion.editions.csv_forms",
    "companion.run.edition_commands",
    "companion.run.doctor",
    "companion.table.enrol",
    "companion.venue",
    "paho",
    "openskill",
    "multiprocessing",
)


def loaded_at_first_answer(tmp_path: Path) -> dict[str, object]:
    config = tmp_path / "config.toml"
    config.write_text('[table]\nhost = "127.0.0.1"\n')
    out = tmp_path / "loaded.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "data"), str(config), str(out)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    found: dict[str, object] = json.loads(out.read_text())
    return found


def test_the_first_answer_loads_nothing_it_does_not_need(tmp_path: Path) -> None:
    found = loaded_at_first_answer(tmp_path)
    modules = set(found["modules"])  # type: ignore[call-overload]
    assert "companion.web.app" in modules and "companion.table" in modules  # it did serve the page
    early = sorted(m for m in modules if any(m == d or m.startswith(d + ".") for d in DEFERRED))
    assert early == [], f"loaded before the first answer: {early}"
    assert found["version_read"] is False, "the version is read from the metadata only for --version"
