"""The hall's enrolled tables: a key per table, given once, as Home Assistant pairs a device.

``companion hall --enrol TABLE`` draws a table's key (32 random bytes), keeps it in the hall's
folder (``enrolled.json``, 0600) and prints it once, for the table's ``[venue] key_file``. From
the first enrolment on, the hall keeps only what an enrolled table signed
(`companion.venue.topics.signature`): anyone on the broker may read, nobody without a table's
key can add to its games or to the league.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from companion.store.private_files import write_private

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
    keys = {t: k.hex() for t, k in enrolled_keys(folder).items()}
    keys[table] = secrets.token_hex(32)
    write_private(folder / FILE, json.dumps(keys, indent=1, sort_keys=True).encode())
    return keys[table]
