"""Text typed by people, made safe to keep and to print.

Control characters in a name (an ANSI escape, a right-to-left override) would garble the
console or the journal, so they are removed where names enter (`strip_controls`) and escaped
on the console (`printable`). New names go through `player_name` (one Unicode spelling, NFC),
must show something (`visible`) and are told apart by `name_key`, so "Zoé" typed two ways or
"ann" and "Ann" are one player's name twice.
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
    if text.isprintable():  # has none of `_UNSAFE`'s categories: the usual line, checked in C
        return text
    if not any(_unsafe(char) for char in text):
        return text
    return "".join(char.encode("unicode_escape").decode("ascii") if _unsafe(char) else char for char in text)


#: Characters that draw nothing although Unicode calls them letters or symbols: the Hangul
#: fillers (U+115F, U+1160, U+3164, U+FFA0), the Khmer inherent vowels shown as nothing
#: (U+17B4, U+17B5) and the blank Braille pattern (U+2800). (The default-ignorable format
#: characters are removed with the controls; spaces and lone marks are not visible either.)
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u17b4\u17b5\u2800")
#: The categories of a character that draws something: letters, digits, punctuation, symbols.
_VISIBLE = ("L", "N", "P", "S")


def player_name(text: str) -> str:
    """A player's name as kept: controls removed, composed (NFC), spaces trimmed.

    Why NFC: "é" can be typed as one character or as "e" and a combining accent; both
    look the same and must be the same name in the game log, the standings and the API."""
    return unicodedata.normalize("NFC", strip_controls(text)).strip()


def visible(name: str) -> bool:
    """Whether ``name`` draws anything: a name of fillers or spaces only is a blank on the page."""
    return any(char not in _BLANK and unicodedata.category(char)[0] in _VISIBLE for char in name)


def name_key(name: str) -> str:
    """What two names are compared by: the same key is the same name to the people at the table.

    Compatibility forms folded (NFKC: a full-width A, U+FF21, is "A"), case folded, characters
    that draw nothing dropped and runs of spaces made one."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join("".join(char for char in folded if char not in _BLANK).split())
