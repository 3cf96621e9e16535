"""`companion edition ...`: the owner's editions from the command line.

Every value of an edition can be changed here as on the page; each change goes
through `companion.editions.edit` and is saved by the library (validated by the
engine, written atomically). Problems are one line each on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.editions import (
    EditionLibrary,
    FieldError,
    atomic_write,
    card_warnings,
    is_path,
    load_edition,
    load_named,
    mark_from_base,
    put_card,
    put_itinerary,
    read_edition_file,
    remove,
    set_ancestor,
    set_playmat,
    shipped_names,
    validate,
)
from companion.engine.edition import edition_to_json
from companion.run.commands import EXIT_USAGE, add_command, data_dir, fail, open_store, reader_refused
from companion.util.wording import say

#: Every action takes the data directory (`companion.run.commands.SHARED_OPTIONS`).
DATA = "--data-dir"


def _library(args: argparse.Namespace) -> EditionLibrary:
    return EditionLibrary(data_dir(args))


def _edition_object(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """An edition's JSON object by library name, or (the command line may) by file path."""
    if is_path(name):
        return edition_to_json(load_edition(name))
    return _library(args).raw(name)


def cmd_export(args: argparse.Namespace) -> int:
    from companion.editions import cards_to_csv, itineraries_to_csv  # (not loaded by every start)

    obj = _edition_object(args, args.edition)  # a refusal is `cli.main`'s to say (`refused`)
    if args.csv:
        sys.stdout.write(cards_to_csv(obj))
    elif args.itineraries_csv:
        sys.stdout.write(itineraries_to_csv(obj))
    else:
        sys.stdout.write(json.dumps(obj, indent=1, ensure_ascii=False) + "\n")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from companion.editions import CsvError, cards_from_csv, itineraries_from_csv  # (as cmd_export)

    path = Path(args.file)
    text = read_edition_file(path)
    if args.out is None:  # a shared edition file into this companion's library
        name = _library(args).import_text(text, args.name)
        print(say("ed_imported", path=path, name=repr(name)))
        return 0
    if args.base is None:
        return fail(say("ed_out_needs_base"))
    obj = _edition_object(args, args.base)
    base_obj = dict(obj)
    try:
        if args.itineraries:
            obj["itineraries"] = itineraries_from_csv(text)
        else:
            obj["cards"] = cards_from_csv(text)
    except CsvError as exc:
        for problem in exc.problems:
            print(f"companion: {path}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out)
    obj["name"] = args.name or out.stem
    # the owner's transcription, not the base edition ("Reference edition ..."), as a new one is
    obj["title"] = f"{obj['name']}: the owner's own box"
    # the parts kept from the base are not the owner's transcription (unless the base was)
    kept = ("ancestor", "cards" if args.itineraries else "itineraries", "playmat", "treks")
    shipped = args.base in shipped_names()
    mark_from_base(obj, args.base, base_obj, kept, shipped=shipped)
    validate(obj, str(out), str(obj["name"]))
    try:
        atomic_write(out, json.dumps(obj, indent=1, ensure_ascii=False) + "\n")
    except OSError as exc:
        return fail(say("ed_cannot_write", path=out, error=exc.strerror))
    kind = "itineraries" if args.itineraries else "cards"
    print(say(f"ed_wrote_{kind}", out=out, n=len(obj[kind]), path=path, base=args.base))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    library = _library(args)
    default = library.default()
    for name in library.names():
        info = library.info(name)
        days = " ".join(f"{n}" for n in info.cards.values())
        state = say(
            "ed_state_shipped" if info.shipped else "ed_state_complete" if info.complete else "ed_state_draft"
        )
        mark = "*" if name == default else " "
        row = say("ed_row", mark=mark, name=f"{name:<24}", state=f"{state:<8}", days=f"{days or '-':<10}",
                  itineraries=info.itineraries)  # fmt: skip
        print(row + (say("ed_row_problem", problem=info.problem) if info.problem else ""))
    return 0


def _change(args: argparse.Namespace, change: Any) -> int:
    """Load the owner's edition, apply ``change`` to its object, save it (validated)."""
    try:
        with _library(args).changing(args.name) as obj:  # not while the page (or another command) changes it
            said = change(obj) or []
    except OSError as exc:
        return fail(say("ed_not_saved", error=exc.strerror))
    for line in said:
        print(say("ed_warning", warning=line))
    print(say("ed_saved_edition", name=repr(args.name)))
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    _library(args).create(args.name, args.base, with_cards=args.copy)
    print(say("ed_created", name=repr(args.name), base=args.base))
    return 0


def cmd_card(args: argparse.Namespace) -> int:
    def change(obj: dict[str, Any]) -> list[str]:
        if args.remove:
            remove(obj, "cards", args.id)
            return []
        old: dict[str, Any] = next((c for c in obj.get("cards", []) if c.get("id") == args.id), {})
        fields = {k: getattr(args, k) if getattr(args, k) is not None else old.get(k, "") for k in
                  ("day", "year", "title", "hours", "gains", "note")}  # fmt: skip
        card = put_card(obj, fields, args.id)
        return [f"{card['id']}: {w}" for w in card_warnings(obj, card)]

    return _change(args, change)


def cmd_itinerary(args: argparse.Namespace) -> int:
    def change(obj: dict[str, Any]) -> None:
        if args.remove:
            remove(obj, "itineraries", args.id)
            return
        columns = {k: getattr(args, k) or "" for k in ("person", "event", "innovation", "progress")}
        put_itinerary(obj, args.id, columns, args.rows or "")

    return _change(args, change)


def cmd_playmat(args: argparse.Namespace) -> int:
    def change(obj: dict[str, Any]) -> None:
        slots = [s.split() for s in args.slots.split(",")] if args.slots else obj["slots"]
        treks = args.treks.split(",") if args.treks else obj["treks"]
        set_playmat(obj, slots, treks, obj.get("trek_beyond", 3) if args.beyond is None else args.beyond)

    return _change(args, change)


def cmd_ancestor(args: argparse.Namespace) -> int:
    def change(obj: dict[str, Any]) -> None:
        old = obj.get("ancestor") or {"hours": 1, "gains": []}
        copies = obj.get("ancestors", {})
        if args.copies:
            given = [c.strip() for c in args.copies.split(",")]
            if len(given) != 3:  # "6" alone would drop the copies for 3 and 4 players
                raise FieldError("ancestor_copies_cli", column="ancestors", value=args.copies[:20])
            copies = dict(zip(("2", "3", "4"), given, strict=True))
        hours = args.hours if args.hours is not None else old["hours"]
        set_ancestor(obj, hours, args.gains if args.gains is not None else old["gains"], copies)

    return _change(args, change)


def cmd_default(args: argparse.Namespace) -> int:
    _library(args).set_default(args.name)
    print(say("ed_default", name=repr(args.name)))
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    _library(args).delete(args.name)
    print(say("ed_deleted", name=repr(args.name)))
    return 0


def cmd_stickers(args: argparse.Namespace) -> int:
    """Write trek:<card id> onto blank stickers, in Date Index order, checking each."""
    from companion.hardware import reader as pi_reader
    from companion.hardware.stickers import Link, date_index, whole_box, write_deck
    from companion.util.config import load_config

    config = load_config(args.config)
    edition = load_named(_library(args).folder.parent, args.edition)
    order = whole_box(edition) if args.all else date_index(edition)
    if args.start:
        if args.start not in order:
            return fail(say("ed_not_a_card_to_write", card=repr(args.start), edition=edition.name))
        order = order[order.index(args.start) :]
    try:  # the reader opened as the table opens it (its faults in the catalogue's words)
        reader = pi_reader.open_mfrc522(config.reader.rst_pin, config.reader.gain_db)
    except Exception as exc:
        return reader_refused(exc)
    print(say("stickers_to_write", n=len(order)))
    try:
        link = Link(reader.driver, rc522=reader.chip)
        done = write_deck(link, edition, order, print, overwrite=args.overwrite)
    except KeyboardInterrupt:
        print()
        return 0
    print(say("stickers_done", n=len(done)))
    return 0


def cmd_tags(args: argparse.Namespace) -> int:
    """List the tags bound to cards, or unbind one (to bind it again with enroll or the page)."""
    store = open_store(args)  # a refusal (a full disk: the tag stays bound) is `cli.main`'s one line
    try:
        if args.unbind:
            if not store.unenroll(args.unbind):
                return fail(say("ed_tag_not_bound", uid=args.unbind))
            print(say("tag_freed", uid=args.unbind))
            return 0
        for uid, card in sorted(store.tags().items(), key=lambda item: item[1]):
            print(f"{card:<10} {uid}")
    finally:
        store.close()
    return 0


def add_commands(sub: Any) -> None:
    """Add the library commands to ``companion edition``'s subparsers."""
    p = add_command(sub, "export", "print an edition: JSON (to share), or its cards as CSV", cmd_export, DATA)
    p.add_argument("edition", metavar="EDITION", help="an edition name (or an edition file)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--csv", action="store_true", help="the cards: id,day,year,title,hours,gains,note")
    how.add_argument("--itineraries-csv", action="store_true", help="the itineraries as CSV")

    p = add_command(
        sub, "import", "CSV -> edition file (--base, --out), or a shared edition file", cmd_import, DATA
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--base", help="edition whose Ancestor, itineraries, playmat and treks are kept")
    p.add_argument("--out", help="the edition file to write (CSV import)")
    p.add_argument("--itineraries", action="store_true", help="FILE holds itineraries, not cards")
    p.add_argument("--name", help="the edition's name (default: from the file)")

    add_command(sub, "list", "the shipped and the owner's editions", cmd_list, DATA)

    p = add_command(sub, "new", "start an owner's edition", cmd_new, DATA)
    p.add_argument("name")
    p.add_argument("--base", default="reference", help="Ancestor, playmat and treks to start from")
    p.add_argument("--copy", action="store_true", help="also copy the base's cards and itineraries")

    p = add_command(sub, "card", "add, change or remove a History card", cmd_card, DATA)
    p.add_argument("name")
    p.add_argument("--id", help="the card to change or remove (a new card gets one if omitted)")
    p.add_argument("--day", help="I, II or III")
    p.add_argument("--year", help="1492, -490 or '490 BCE'")
    p.add_argument("--title")
    p.add_argument("--hours")
    p.add_argument("--gains", help="benefits in printed order: 'person crystal'")
    p.add_argument("--note")
    p.add_argument("--remove", action="store_true")

    p = add_command(sub, "itinerary", "add, change or remove an Itinerary", cmd_itinerary, DATA)
    p.add_argument("name")
    p.add_argument("id", help="the id printed on the card")
    for kind in ("person", "event", "innovation", "progress"):
        p.add_argument(f"--{kind}", help="spaces top down: '. 3 c' (plain, 3 points, crystal)")
    p.add_argument("--rows", help="row rewards: '2 5 c'")
    p.add_argument("--remove", action="store_true")

    p = add_command(
        sub, "playmat", "the six Row positions, the trek table and the step past 10", cmd_playmat, DATA
    )
    p.add_argument("name")
    p.add_argument("--slots", help="six benefit lists, comma separated: 'wild,person,event,crystal,...'")
    p.add_argument("--treks", help="ten values, comma separated: --treks=-1,1,3,6,9,13,17,21,25,30")
    p.add_argument("--beyond", help="points per card past 10")

    p = add_command(sub, "ancestor", "the Ancestor's hours, benefits and copies", cmd_ancestor, DATA)
    p.add_argument("name")
    p.add_argument("--hours")
    p.add_argument("--gains", help="benefits, space separated ('' for none)")
    p.add_argument("--copies", help="copies for 2,3,4 players: '6,9,12'")

    add_command(
        sub, "default", "the edition new games use (an owner's must be complete)", cmd_default, DATA
    ).add_argument("name")

    p = add_command(
        sub,
        "stickers",
        "write trek:<card id> onto blank stickers (the reader)",
        cmd_stickers,
        DATA,
        "--config",
    )
    p.add_argument("edition", metavar="EDITION", help="an edition name (or an edition file)")
    p.add_argument("--from", dest="start", help="start at this card (after an interruption)")
    p.add_argument("--overwrite", action="store_true", help="rewrite stickers that carry another card")
    p.add_argument("--all", action="store_true", help="then the Itineraries and the 12 Ancestor copies")

    p = add_command(sub, "tags", "the stickers bound to cards; --unbind UID frees one", cmd_tags, DATA)
    p.add_argument("--unbind", metavar="UID")

    add_command(sub, "delete", "delete an owner's edition", cmd_delete, DATA).add_argument("name")
