"""`companion run` and `companion new` in one import: the composition root's public names.

The code lives in modules named by what they hold, in the order a start goes through them:

- `companion.game_setup`: a new game, checked (`new_game`, `GameSetupError`);
- `companion.runtime`: `Runtime`, the running table behind the web layer's port;
- `companion.startup`: open the store, resume a game, choose the adapters (`build_runtime`);
- `companion.console`: the ring and the table's expectation on the console, the mock keyboard;
- `companion.serving`: the page's server and the wait for a busy port (`serve_when_free`).

This module only gathers them, for scripts and code written before the split; the package's
own modules import each name from where it lives (a test that replaces a module's name, such
as ``monkeypatch.setattr(companion.serving, "BIND_RETRY_SECONDS", ...)``, must name that module).
Importing it imports the whole composition root, which is what `benchmarks/bench_startup.py`
times and what `tests/test_hardware_faults.py` checks stays free of hardware drivers.
"""

from __future__ import annotations

from companion.console import KEYS_HELP, describe_expect, keyboard, print_ring
from companion.game_setup import FIRST_PLAYERS, NAME_LENGTH, new_game, start_for_table
from companion.ports import GameSetupError
from companion.runtime import Runtime
from companion.serving import (
    BIND_RETRY_EVERY,
    BIND_RETRY_SECONDS,
    PortBusy,
    make_server,
    serve,
    serve_when_free,
)
from companion.startup import (
    DISK_RETRY_EVERY,
    DISK_RETRY_SECONDS,
    attach_reader,
    build_runtime,
    build_when_space,
    report_damage,
)

__all__ = [
    "BIND_RETRY_EVERY",
    "BIND_RETRY_SECONDS",
    "DISK_RETRY_EVERY",
    "DISK_RETRY_SECONDS",
    "FIRST_PLAYERS",
    "KEYS_HELP",
    "NAME_LENGTH",
    "GameSetupError",
    "PortBusy",
    "Runtime",
    "attach_reader",
    "build_runtime",
    "build_when_space",
    "describe_expect",
    "keyboard",
    "make_server",
    "new_game",
    "print_ring",
    "report_damage",
    "serve",
    "serve_when_free",
    "start_for_table",
]
