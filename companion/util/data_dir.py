"""Which data directory a command works in: ``--data-dir``, else ``COMPANION_DATA_DIR`` (the Pi's
wrapper sets it), else ``~/.local/share/trekking-companion``. Apart from `cli` so that
`editions.cli` needs no import back into the command that imports it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

DEFAULT_DATA_DIR = Path(os.environ.get("COMPANION_DATA_DIR", Path.home() / ".local/share/trekking-companion"))


def data_dir(args: argparse.Namespace) -> Path:
    """The command's ``--data-dir``, or the default."""
    return Path(args.data_dir) if args.data_dir else DEFAULT_DATA_DIR
