"""Which machine the companion runs on, from the device tree's model string."""

from __future__ import annotations

import os
from pathlib import Path

#: Where Linux shows the board's model; the second stays readable when a
#: hardened service hides parts of /proc.
MODEL_FILES = ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model")


def board_model() -> str:
    """The board's model ("Raspberry Pi 4 Model B Rev 1.5"), or "" off a single-board computer.

    ``COMPANION_BOARD_MODEL`` pretends to be that board: the tests and the install
    rehearsal use it to start the Pi side of the companion on a PC.
    """
    pretend = os.environ.get("COMPANION_BOARD_MODEL")
    if pretend:
        return pretend
    for path in MODEL_FILES:
        try:
            return Path(path).read_text(errors="replace").strip("\x00 \n")
        except OSError:
            continue
    return ""


def user_name() -> str:
    """The name of the user this process runs as (the group to join is said for that user)."""
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name
