"""`companion enroll`: teach the companion which sticker is on which card.

For each tag: tap it (on a PC, type its UID), find the card by title or year,
then confirm its printed values or type the ones on your copy. Tags are kept in
the store; corrected values go to an owner's edition in the data directory's
library (named by the companion, never from inside a file), a copy of the
edition with the owner's numbers that `companion new --edition NAME` uses. A tag
already enrolled is refused. (The page's *Your box* transcribes whole editions.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from companion.editions import (
    BASE_PARTS,
    EditionLibrary,
    EditionNotFound,
    atomic_write,
    mark_from_base,
    read_edition_file,
    read_edition_text,
    shipped_names,
    transcribed,
    whole_number,
)
from companion.engine import Edition, EditionError
from companion.engine.edition import edition_to_json
from companion.engine.tokens import ANCESTOR, BENEFITS
from companion.engine.words import year_text
from companion.store.log import Store, StoreError
from companion.table.tags import TagRefused, check_tag, shows_something
from companion.util.wording import CodedError, say

Ask = Callable[[str], str | None]  # a prompt in, a line out (None: no more input)


def find(edition: Edition, query: str) -> list[tuple[str, str]]:
    """(id, label) of cards, itineraries and the Ancestor matching a title part, a year or an id."""
    q = query.strip().lower()
    found: list[tuple[str, str]] = []
    if not q:
        return found
    for card in edition.cards:
        year = year_text(card.year)
        if q == card.id.lower() or q in card.title.lower() or q in (year.lower(), str(card.year)):
            found.append(
                (card.id, f"{card.id}  {year:>10}  {card.title}  ({card.hours} h: {', '.join(card.gains)})")
            )
    for it in edition.itineraries:
        if q in it.id.lower() or q in ("itinerary", "itinéraire"):
            found.append((it.id, f"{it.id}  Itinerary"))
    if q in ANCESTOR or q in "ancêtre":
        found.append((ANCESTOR, "ancestor  an Ancestor card (all copies share one id)"))
    return found


def parse_values(text: str) -> tuple[int, list[str]] | str:
    """ "3 person,crystal" -> (3, ["person", "crystal"]); an error sentence otherwise."""
    parts = text.replace(",", " ").split()
    hours = whole_number(parts[0], 2) if parts else None
    if hours is None or not 1 <= hours <= 12:
        return say("enrol_hours_first")
    gains = parts[1:]
    unknown = [g for g in gains if g not in BENEFITS]
    if unknown:
        return say("enrol_unknown_benefit", benefit=repr(unknown[0]), benefits=", ".join(BENEFITS))
    return hours, gains


class EnrolRefused(CodedError, ValueError):
    """The page's enrolment was refused."""


class Enroller:
    """The enrolment dialogue, with input and output passed in (the console, or tests)."""

    def __init__(
        self, store: Store, edition: Edition, own_file: Path, ask: Ask, say: Callable[[str], None]
    ) -> None:
        self.store, self.edition, self.own_file, self.ask, self.say = store, edition, own_file, ask, say
        self.data: dict[str, Any] = (
            json.loads(read_edition_file(own_file)) if own_file.exists() else edition_to_json(edition)
        )

    def enroll_one(self, uid: str) -> bool:
        """Enrol one tag; False when the input ran out."""
        if not shows_something(uid):
            self.say(say("tag_invisible"))
            return True
        known = self.store.tags().get(uid)
        if known is not None:
            self.say(say("enrol_already", uid=uid, card=known))
            return True
        while True:
            query = self.ask(say("ask_card"))
            if query is None:
                return False
            if not query.strip():
                self.say(say("enrol_skipped"))
                return True
            matches = find(self.edition, query)
            if not matches:
                self.say(say("enrol_no_match", query=repr(query)))
                continue
            for n, (_, label) in enumerate(matches[:9], start=1):
                self.say(f"  {n}. {label}")
            pick = self.ask(say("ask_number"))
            if pick is None:
                return False
            number = whole_number(pick.strip(), 1)
            if number is not None and 1 <= number <= min(9, len(matches)):
                card = matches[number - 1][0]
                break
        try:
            check_tag(uid, card, [self.edition])
        except TagRefused as exc:
            self.say(str(exc))
            return True
        try:
            if card in self.edition.card_index and not self._confirm_values(card):
                return False
        except OSError as exc:  # the disk refused the owner's file: the old one is intact
            self.say(say("enrol_not_saved", file=self.own_file, error=exc.strerror, uid=uid))
            return True
        except EnrolRefused as exc:  # the owner's file changed beyond use meanwhile: nothing is written
            self.say(str(exc))
            return True
        try:
            self.store.enroll(uid, card, self.edition.name)
        except StoreError as exc:
            self.say(str(exc))
            return True
        self.say(say("enrol_done", uid=uid, card=card))
        return True

    def _confirm_values(self, card_id: str) -> bool:
        entry = next(c for c in self.data["cards"] if c["id"] == card_id)
        while True:
            shown = f"{entry['hours']} {' '.join(entry['gains'])}".strip()
            answer = self.ask(say("ask_values", shown=repr(shown)))
            if answer is None:
                return False
            if not answer.strip():
                return True
            values = parse_values(answer)
            if isinstance(values, str):
                self.say(values)
                continue
            entry["hours"], entry["gains"] = values
            self._save(card_id)
            return True

    def _save(self, card_id: str) -> None:
        """Write the owner's edition with ``card_id``'s values as typed, checked as `companion
        edition check` would, the file read again under the library's lock first (the page may
        have changed it meanwhile). If the card is gone, `EnrolRefused` says so and nothing is
        written, the tag not enrolled either, so typed values are never silently lost."""
        entry = next(c for c in self.data["cards"] if c["id"] == card_id)
        typed = entry["hours"], list(entry["gains"])
        folder = self.own_file.parent
        lock = EditionLibrary(folder.parent).editing() if folder.name == "editions" else nullcontext()
        with lock:
            if self.own_file.exists():
                try:
                    current = json.loads(read_edition_file(self.own_file))
                except (ValueError, EditionNotFound) as exc:
                    raise EnrolRefused(
                        "enrol_edition_unreadable", file=str(self.own_file), detail=str(exc)
                    ) from None
                cards = current.get("cards") if isinstance(current, dict) else None
                cards = cards if isinstance(cards, list) else []
                fresh = next((c for c in cards if isinstance(c, dict) and c.get("id") == card_id), None)
                if fresh is None:
                    raise EnrolRefused("enrol_card_gone", card=card_id, file=str(self.own_file))
                fresh["hours"], fresh["gains"] = typed
                self.data = current
            self._write(card_id)

    def _write(self, card_id: str) -> None:
        if self.data.get("name") != self.own_file.stem:  # the companion names the file, and so the edition
            # a copy of the edition: every part is still the base's until the owner enters it
            base = dict(self.data)
            self.data["name"] = self.own_file.stem
            mark_from_base(self.data, self.edition.name, base, (*BASE_PARTS, "cards", "itineraries"),
                           shipped=self.edition.name in shipped_names())  # fmt: skip
        transcribed(self.data, f"card:{card_id}")
        text = json.dumps(self.data, indent=1, ensure_ascii=False)
        try:
            read_edition_text(text, str(self.own_file), str(self.data["name"]))
        except EditionError as exc:  # pragma: no cover - the dialogue only writes valid values
            raise EnrolRefused("enrol_refused", detail=str(exc)) from None
        atomic_write(self.own_file, text + "\n")
        self.say(say("saved_to", file=self.own_file))


def enroll_tag(
    store: Store, edition: Edition, own_file: Path, uid: str, card: str, values: tuple[int, list[str]] | None
) -> tuple[str, dict[str, Any]]:
    """Enrol one tag in one go (the page's form): what was done, in English (the catalogue's
    ``enrolled`` sentence, and ``enrolled.saved`` when values were saved to the owner's edition,
    as the page writes them) and as that sentence's params (tag, card, its title and year,
    whether values were saved); raises EnrolRefused (nothing done) or StoreError."""
    if card != ANCESTOR and card not in edition.card_index and card not in edition.itinerary_index:
        raise EnrolRefused("enrol_not_a_card", card=card[:40], edition=edition.name)
    if values is not None and card not in edition.card_index:
        raise EnrolRefused("enrol_no_values", card=card)
    check_tag(uid, card, [edition])  # raises TagRefused: a tag that shows nothing, or reads as another card
    known = store.tags().get(uid)
    if known is not None:
        raise EnrolRefused("enrol_taken", tag=uid[:40], known=known)
    enroller = Enroller(store, edition, own_file, lambda _: None, lambda _: None)
    if values is not None:
        entry = next(
            (c for c in enroller.data.get("cards", ()) if isinstance(c, dict) and c.get("id") == card), None
        )
        if entry is None:  # the owner removed it from their edition (`Enroller._save` reads it again)
            raise EnrolRefused("enrol_card_gone", card=card, file=str(own_file))
        entry["hours"], entry["gains"] = values
        enroller._save(card)
    store.enroll(uid, card, edition.name)
    params: dict[str, Any] = {"tag": uid, "card": card, "saved": values is not None}
    if card in edition.card_index:
        params["title"] = edition.card(card).title
        params["year"] = edition.card(card).year
    elif card in edition.itinerary_index:
        params["itinerary"] = card
    # an itinerary is named as the page names it ("Itinerary IT03"), a card by its title and year
    label = {"c": say("itinerary", "en", i=card)} if "itinerary" in params else {}
    said = say("enrolled", "en", **params, **label)
    return (f"{said} {say('enrolled.saved', 'en')}" if values is not None else said), params
