"""Every sentence people read, from one catalogue per language.

The table, the server's refusals, the hardware faults and the store's notices speak in codes
and params; the words live in ``web/static/i18n/en.json`` and ``fr.json``, which the page reads
too, so the console's English and the page's are one text. ``{name}`` is a param and
``{n|one|other}`` the plural form CLDR's rule picks for ``n`` (`plural_category`, as the page's
``Intl.PluralRules``). A code is looked up in the ``msg`` block (``code.variant`` first), then
``hw``, ``console`` and the page's words; a key is in one block only (`tests/project/test_wording.py`).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Callable
from typing import Any

LANGUAGES = ("en", "fr")

#: ``{name|one|other}``: a form may contain plain ``{param}`` placeholders, not another choice.
_CHOICE = re.compile(r"\{(\w+)\|((?:[^|{}]|\{\w+\})*)\|((?:[^|{}]|\{\w+\})*)\}")
_PARAM = re.compile(r"\{(\w+)\}")


@functools.cache
def catalogue(lang: str = "en") -> dict[str, Any]:
    """The catalogue of ``lang``, read once from the package (the page's own file)."""
    if lang not in LANGUAGES:
        raise ValueError(f"no catalogue for language {lang!r}: use one of {', '.join(LANGUAGES)}")
    source = importlib.resources.files("companion.page.static") / "i18n" / f"{lang}.json"
    loaded: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return loaded


def plural_category(lang: str, n: float) -> str:
    """CLDR's cardinal category of a whole number: "one" or "other" (the only two the
    catalogues use). English: one is 1 only; French: 0 and 1 (and 1.5: the integer part)."""
    if lang == "fr":
        return "one" if 0 <= abs(n) < 2 else "other"
    return "one" if n == 1 else "other"


def chooser(lang: str, params: dict[str, Any]) -> Callable[[re.Match[str]], str]:
    """The form ``params`` pick in a ``{name|one|other}`` match (`_CHOICE`); a choice of a param
    not given stays as written, and one of a param that is not a number takes "other"."""

    def choose(match: re.Match[str]) -> str:
        name, one, other = match.groups()
        if name not in params:
            return match.group(0)
        try:
            number = float(params[name])
        except (TypeError, ValueError):
            return other
        return one if plural_category(lang, number) == "one" else other

    return choose


def fill(lang: str, text: str, params: dict[str, Any]) -> str:
    """``text`` with its plural choices made and its params written; an unknown param stays
    as written (the page does the same), so a missing fact shows rather than vanishes."""
    if "|" in text:  # a choice has two bars: most sentences have none, and skip the search
        text = _CHOICE.sub(chooser(lang, params), text)
    pieces = _PARAM.split(text)  # the text between the params, each param's name at odd places
    if len(pieces) == 1:
        return text
    out = []
    for at, piece in enumerate(pieces):
        if at % 2 == 0:
            out.append(piece)
        else:
            out.append(str(params[piece]) if piece in params else f"{{{piece}}}")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def template(code: str, lang: str = "en", variant: str = "") -> str | None:
    """The sentence of ``code`` (``code.variant`` first), or None if no catalogue block has it.
    Kept per code, language and variant, as bench_step's profile asked (its figures with and
    without: benchmarks/results/step-memos.txt); never invalidated: the catalogues are read once."""
    words = catalogue(lang)
    for block in (words["msg"], words["hw"], words["console"], words):
        if variant and isinstance(block.get(f"{code}.{variant}"), str):
            return str(block[f"{code}.{variant}"])
        if isinstance(block.get(code), str):
            return str(block[code])
    return None


def columns_words(columns: list[Any], lang: str = "en") -> str:
    """Columns by their names on the page's legend: "Person and Event", "Personnage et Événement"."""
    words = catalogue(lang)
    names = [str(words.get(f"l_{c}", c)) for c in columns]
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} {words['console']['and']} {names[-1]}"


def card_label(params: dict[str, Any], lang: str = "en") -> str:
    """A card in a sentence as the page writes it: "Title (year)", the Ancestor by name."""
    if params.get("card") == "ancestor":  # inside a sentence: "Mia a pris l'Ancêtre", "took the Ancestor"
        return str(catalogue(lang)["the_ancestor"])
    if params.get("title"):
        year = params.get("year")
        if isinstance(year, int):
            bce = catalogue(lang)["bce"]
            return f"{params['title']} ({f'{-year} {bce}' if year < 0 else year})"
        return str(params["title"])
    return str(params.get("card", ""))


#: The parts of an edition that can still be the base edition's, as the page names them.
_BASE_PARTS = {"ancestor": "ed_the_ancestor", "playmat": "ed_the_playmat", "treks": "ed_the_trek_table"}


def base_words(from_base: dict[str, Any], lang: str = "en") -> str:
    """An edition's parts still the base edition's (``from_base``: its whole parts, and how many
    cards and itineraries), in words as the edition page writes them: "the Ancestor, 3 cards"."""
    words = catalogue(lang)
    said = [str(words[_BASE_PARTS[p]]) if p in _BASE_PARTS else str(p) for p in from_base.get("parts", [])]
    for kind, one in (("cards", "ed_1_card"), ("itineraries", "ed_1_itinerary")):
        n = from_base.get(kind) or 0
        if n:
            said.append(str(words[one]) if n == 1 else fill(lang, str(words[f"ed_{kind}"]), {kind: n}))
    return ", ".join(said)


def say(code: str, lang: str = "en", **values: Any) -> str:
    """The sentence of ``code`` in ``lang`` with ``values`` filled in.

    ``c`` is the card of ``card``/``title``/``year`` when those are given; a ``player``
    that is "" is "That player". A code no catalogue has is a programming error: the
    tests check that every code Python emits has its sentence."""
    if "card" in values and "c" not in values:
        values["c"] = card_label(values, lang)
    if values.get("player") == "":
        values["player"] = catalogue(lang)["msg"]["that_player"]
    if isinstance(values.get("columns"), list):  # Wild tokens' columns, as the page names them
        values["columns"] = columns_words(values["columns"], lang)
    if isinstance(values.get("row"), list):  # the Departures Row, as the table shows its cards
        values["row"] = ", ".join(card_label(c, lang) for c in values["row"] if isinstance(c, dict)) or "-"
    if isinstance(values.get("from_base"), dict):  # the page writes it in words too (edition/api.js)
        values["from_base"] = base_words(values["from_base"], lang)
    variant = str(values.get("why") or values.get("kind") or ("more" if values.get("more") else ""))
    text = template(code, lang, variant)
    if text is None:
        raise KeyError(f"no sentence for {code!r} in the {lang} catalogue")
    filled = fill(lang, text, values)
    return sentence(filled) if text.startswith("{c}") else filled  # "L'Ancêtre coûte…"


class CodedError(Exception):
    """An error that carries only its ``code`` and ``params``: its English (``str(exc)``, which
    the CLI, the console and the journal print) is the English catalogue's sentence, and a page
    words the same code in its language. So a refusal's sentence is written once per language,
    in the catalogues, never at the raise site (`tests/project/test_architecture.py` checks)."""

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        return say(self.code, "en", **self.params)


def sentence(text: str) -> str:
    """``text`` shown on its own line, starting with a capital. The store's sentences start in
    lower case, written to follow "error:" or to sit inside another sentence; the page's
    ``sentence`` in ``i18n.js`` does the same for its own lines."""
    return text[:1].upper() + text[1:]


def took_text(params: dict[str, Any], lang: str = "en") -> str:
    """A take's sentence and what came with it, in the order the page writes them: the
    crystals spent, the Punctual bonus, the winners or the Day's end, the reveal to make."""
    parts = [say("took", lang, **params)]
    if params.get("crystals"):
        parts.append(say("spent", lang, n=params["crystals"]) + ".")
    if params.get("punctual"):
        parts.append(say("punctual", lang))
    winners = params.get("winners")
    if winners:
        names = " & ".join(str(w) for w in winners)
        parts.append(say("won_shared" if len(winners) > 1 else "won", lang, w=names))
    elif params.get("day_over"):
        parts.append(say("day_over", lang, d=params["day_over"], e=params["day"]))
    if params.get("reveal"):
        parts.append(say("reveal_prompt", lang))
    return " ".join(parts)
