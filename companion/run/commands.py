"""What the ``companion`` commands share: the one-line failure and its exit status, the options
several commands take, the data directory and the store they open (`companion.run.cli`,
`edition_commands`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.engine import EditionError

if TYPE_CHECKING:  # imported where used: `companion --help` need not load SQLite
    from companion.store.log import Store

EXIT_USAGE = 2
#: ``--data-dir``, else ``COMPANION_DATA_DIR`` (the Pi's wrapper sets it), else this.
DEFAULT_DATA_DIR = Path(os.environ.get("COMPANION_DATA_DIR", Path.home() / ".local/share/trekking-companion"))

#: The options several commands share (`add_command`), each with its one help text.
SHARED_OPTIONS: dict[str, dict[str, Any]] = {
    "--data-dir": {
        "help": "where games and the owner's editions are kept (default ~/.local/share/trekking-companion)"
    },
    "--config": {"help": "a TOML settings file (see companion/config.example.toml)"},
    "--mock": {"action": "store_true", "help": "simulated reader, ring and buttons"},
}


def add_command(
    sub: Any, name: str, help: str, func: Callable[[argparse.Namespace], int], *shared: str
) -> argparse.ArgumentParser:
    """The parser of the command ``name``, which runs ``func``, with the ``shared`` options
    (`SHARED_OPTIONS`) its caller names."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help)
    parser.set_defaults(func=func)
    for option in shared:
        parser.add_argument(option, **SHARED_OPTIONS[option])
    return parser


def fail(message: str) -> int:
    """A command's failure: one line on stderr, never a traceback, and exit status 2."""
    print(f"companion: {message}", file=sys.stderr)
    return EXIT_USAGE


def refused(exc: Exception) -> int:
    """`fail` with a refusal: an edition's every error on its own line (file and where), any
    other refusal its one sentence."""
    if not isinstance(exc, EditionError):
        return fail(str(exc))
    for problem in exc.problems:
        if not problem.warning:
            print(f"companion: {exc.source}: {problem}", file=sys.stderr)
    return EXIT_USAGE


def reader_refused(exc: Exception) -> int:
    """`fail` for a reader a command could not open (no driver, SPI1 off, the GPIO refused):
    the catalogue's cause and fix, as `companion run` and the doctor say them."""
    from companion.hardware.health import diagnose

    cause, fix, *_ = diagnose("reader", exc)
    return fail(f"{cause}: {fix}")


def data_dir(args: argparse.Namespace) -> Path:
    """The data directory a command works in: its ``--data-dir``, or `DEFAULT_DATA_DIR`."""
    return Path(args.data_dir) if args.data_dir else DEFAULT_DATA_DIR


def open_store(args: argparse.Namespace) -> Store:
    """The data directory's `companion.store.log.Store`; an upgrade it made at opening (checksums
    computed for an older store) is said once, on stderr, whichever command opened it first."""
    from companion.records.trekking import TREKKING
    from companion.store.log import Store

    store = Store(data_dir(args), TREKKING)
    if store.upgraded:
        print(f"companion: {store.upgraded}", file=sys.stderr)
    return store
