"""A tag must show something and must not read as another card (issue 33 item 5).

A tag of only control characters was stored and listed empty; a typed tag spelt as another
card's id or title was stored and, enrolled tags coming first, made that id or title stand
for the wrong card from then on. Each way a tag is bound refuses both, with a code worded in
English and French: the page's enrolment (``POST /api/enroll``), the edition page's save
with the sticker tapped or typed (its ``binding``), and ``companion enroll`` (`Enroller`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.editions import load_edition
from companion.engine import Edition
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.table.enrol import Enroller
from companion.table.tags import TagResolver
from companion.util.wording import say
from tests.support.tables import api_client

PIN = {"X-Table-Pin": "2468"}
#: Tags that show nothing: C0 and C1 controls, DEL, format characters (zero width, marks).
INVISIBLE = ["\x00\x01", "\x07", "\x1b\x7f", "\u200b\u200e", "\x00 \x01", "\x85\x00"]


def _two_cards(ed: Edition) -> tuple[str, str, str]:
    """A card, and another card's id and title (a title the resolver reads as that card alone)."""
    resolver = TagResolver(ed, {})
    other = next(c for c in reversed(ed.cards[1:]) if resolver.resolve(c.title)[0] == c.id)
    return ed.cards[0].id, other.id, other.title


def _shadows(ed: Edition) -> tuple[str, str, list[str]]:
    """A card, another's id, and every spelling of that other card a tag may not take."""
    card, other, title = _two_cards(ed)
    return card, other, [other, f"trek:{other}", f"TREK:{other}", title, title.lower(), f" {title} "]


@pytest.mark.parametrize("tag", INVISIBLE)
def test_the_page_refuses_to_enrol_a_tag_that_shows_nothing(tmp_path: Path, tag: str) -> None:
    with api_client(tmp_path) as (http, rt):
        answer = http.post("/api/enroll", json={"tag": tag, "card": rt.edition().cards[0].id}, headers=PIN)
        assert answer.status_code == 400 and answer.get_json()["code"] == "tag_invisible", answer.get_json()
        assert "tap the sticker on the reader" in answer.get_json()["error"]
        assert "posez-la sur le lecteur" in say("tag_invisible", "fr")
        assert rt.store.tags() == {}


def test_the_page_refuses_to_enrol_a_tag_spelt_as_another_card(tmp_path: Path) -> None:
    with api_client(tmp_path) as (http, rt):
        ed = rt.edition()
        card, other, spellings = _shadows(ed)
        itinerary = ed.itineraries[0].id
        for tag in [*spellings, itinerary, "ancestor"]:
            answer = http.post("/api/enroll", json={"tag": tag, "card": card}, headers=PIN)
            body = answer.get_json()
            assert answer.status_code == 400 and body["code"] == "tag_shadows", (tag, body)
            assert body["params"]["card"] == card and body["params"]["tag"] == tag.strip()
            assert "bind it to" in body["error"] and "associez-la à" in say(
                "tag_shadows", "fr", **body["params"]
            )
        assert rt.store.tags() == {}
        assert rt.resolver.resolve(other)[0] == other  # typing the other card still names it
        # a tag spelt as its own card, or a sticker's own number, is bound as before
        for tag in (card, "04:5A:6B:7C:11:22:33"):
            assert http.post("/api/enroll", json={"tag": tag, "card": card}, headers=PIN).status_code == 200
        assert rt.store.tags() == {card: card, "04:5A:6B:7C:11:22:33": card}


def test_the_edition_page_saves_the_card_but_binds_no_such_tag(tmp_path: Path) -> None:
    """The sticker typed on the edition page (mock mode) is bound when its card is saved."""
    with api_client(tmp_path) as (http, rt):
        http.post("/api/library", json={"name": "my-box"}, headers=PIN)
        first = {"day": 1, "year": 1969, "hours": 2, "gains": [], "title": "Moon landing", "tag": "04A1"}
        assert (
            http.put("/api/library/my-box/cards", json=first, headers=PIN).get_json()["binding"]["card"]
            == "I01"
        )
        _, other, title = _two_cards(rt.edition())  # the table's edition: what taps resolve by now
        for tag, code in [
            ("\x01\x02", "tag_invisible"),
            ("moon landing", "tag_shadows"),  # the edition being transcribed: its I01
            (other, "tag_shadows"),
            (title, "tag_shadows"),
        ]:
            card = {"day": 1, "year": 1970, "hours": 2, "gains": [], "tag": tag}
            answer = http.put("/api/library/my-box/cards", json=card, headers=PIN)
            assert answer.status_code == 200, answer.get_json()  # the card is saved...
            binding = answer.get_json()["binding"]
            assert binding.get("error") == code and binding["was"] is None, (
                tag,
                binding,
            )  # ...its tag not bound
            http.delete(f"/api/library/my-box/cards/{answer.get_json()['card']['id']}", headers=PIN)
        assert rt.store.tags() == {"04A1": "I01"}


def _lines(lines: list[str]) -> Any:
    it = iter(lines)
    return lambda prompt: next(it, None)


def test_companion_enroll_refuses_both_and_goes_on(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    said: list[str] = []
    ed = load_edition("reference")
    card, other, title = _two_cards(ed)
    assert Enroller(store, ed, tmp_path / "mine.json", _lines([]), said.append).enroll_one("\x00\x01")
    assert said == [say("tag_invisible")]
    for tag in (other, title.lower()):
        enroller = Enroller(store, ed, tmp_path / "mine.json", _lines([card, "1", ""]), said.append)
        assert enroller.enroll_one(tag)
        assert "tag_shadows" not in said[-1] and said[-1].startswith(f"Tag {tag} reads as {other}")
    assert store.tags() == {}
