"""Text typed by people, made safe to keep and to print.

Player names come from the page, the command line and old game logs. Control
characters in them (an ANSI escape, a carriage return, a right-to-left override)
would move the console's cursor, recolour the journal or garble a line, so they
are removed where names enter (`strip_controls`) and shown as visible escapes on
the console (`printable`), which also covers names stored before this rule.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories never kept in a name: controls, format characters (bidi
#: overrides, zero-width joiners), line and paragraph separators, surrogates, unassigned.
_UNSAFE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in _UNSAFE


def strip_controls(text: str) -> str:
    """``text`` without control or format characters (a tab or newline becomes a space)."""
    return "".join(
        " " if char in "\t\n\r" else char for char in text if char in "\t\n\r" or not _unsafe(char)
    )


def printable(text: str) -> str:
    """``text`` for a console line: every control or format character written as an escape."""
    if not any(_unsafe(char) for char in text):
        return text
    return "".join(char.encode("unicode_escape").decode("ascii") if _unsafe(char) else char for char in text)
