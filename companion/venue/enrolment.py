"""The hall's enrolled tables: a key per table, given once, as Home Assistant pairs a device.

``companion hall --enrol TABLE`` draws a table's key (32 random bytes), keeps it in the hall's
folder (``enrolled.json``, 0600) and prints it once; the host puts it in the table's
``[venue] key_file``. From the first enrolment on, the hall keeps only what an enrolled table
signed (`companion.venue.topics.signature`): a setup or an event from a table it never
enrolled, or signed with another key, is refused and shown, and only enrolled tables count
against the hall's table limit. Anyone on the broker may still read; nobody without a
table's key can add to its games or to the league.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

FILE = "enrolled.json"


def enrolled_keys(folder: Path) -> dict[str, bytes]:
    """Each enrolled table's key (empty: the hall enrols nobody and trusts the broker's ACL)."""
    path = folder / FILE
    if not path.exists():
        return {}
    return {table: bytes.fromhex(key) for table, key in json.loads(path.read_text(encoding="utf-8")).items()}


def enrol(folder: Path, table: str) -> str:
    """Draw ``table``'s key (a new one when it was enrolled before: the old one stops counting),
    keep it, and return it as hex for the table's ``key_file``."""
    folder.mkdir(parents=True, exist_ok=True)
    keys = {t: k.hex() for t, k in enrolled_keys(folder).items()}
    keys[table] = secrets.token_hex(32)
    path = folder / FILE
    temporary = path.with_suffix(".tmp")
    with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
        json.dump(keys, out, indent=1, sort_keys=True)
        out.flush()
        os.fsync(out.fileno())
    temporary.replace(path)
    return keys[table]
