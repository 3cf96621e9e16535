"""The ``companion`` command line.

Every user-facing failure is a one-line message on stderr and exit status 2 —
never a traceback: a family at the table cannot act on one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from companion import __version__
from companion.editions import EditionNotFound, load_edition, read_edition_text
from companion.engine import EditionError

EXIT_USAGE = 2


def _fail(message: str) -> int:
    print(f"companion: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_replay(args: argparse.Namespace) -> int:
    from companion.record import RecordError, format_standings, replay_text

    try:
        text = sys.stdin.read() if args.record == "-" else Path(args.record).read_text(encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot read {args.record}: {exc.strerror}")
    except UnicodeDecodeError:
        return _fail(f"{args.record} is not a UTF-8 text file")
    try:
        result = replay_text(text)
    except RecordError as exc:
        return _fail(f"{args.record}: {exc}")
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(format_standings(result))
    return 0


def cmd_edition_check(args: argparse.Namespace) -> int:
    path = Path(args.path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror}")
    try:
        edition = read_edition_text(text, str(path), path.stem)
    except EditionError as exc:
        for problem in exc.problems:
            print(f"{path}: {problem}")
        errors = sum(1 for p in exc.problems if not p.warning)
        print(f"{path}: {errors} error(s); the edition cannot be used until they are fixed.")
        return 1
    for problem in edition.warnings:
        print(f"{path}: {problem}")
    counts = ", ".join(f"Day {d}: {len(edition.day_cards(d))}" for d in (1, 2, 3))
    print(
        f"{path}: OK: edition {edition.name!r}, {len(edition.cards)} History cards ({counts}), "
        f"{len(edition.itineraries)} itineraries, {len(edition.warnings)} warning(s)."
    )
    return 0


def cmd_edition_show(args: argparse.Namespace) -> int:
    try:
        edition = load_edition(args.name)
    except (EditionNotFound, EditionError) as exc:
        return _fail(str(exc))
    print(f"{edition.name}: {edition.title}")
    if edition.provenance:
        print(edition.provenance)
    for card in edition.cards:
        year = f"{-card.year} BCE" if card.year < 0 else str(card.year)
        print(f"  {card.id:<6} {year:>10}  {card.hours}h  {', '.join(card.gains) or '-':<40} {card.title}")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from companion.bots import BOTS
    from companion.simulate import SimulationError, format_summary, simulate

    if args.bot not in BOTS:
        return _fail(f"unknown bot {args.bot!r}; choose {', '.join(BOTS)}")
    try:
        summary = simulate(
            games=args.games, players=args.players, seed=args.seed, bot=args.bot, edition=args.edition
        )
    except (SimulationError, EditionNotFound, EditionError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        print(format_summary(summary))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Referee for the board game Trekking Through History."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    replay = sub.add_parser("replay", help="replay a game record and print the standings")
    replay.add_argument("record", metavar="RECORD", help='a trekking/1 record (JSON Lines), or "-" for stdin')
    replay.add_argument("--json", action="store_true", help="print the contract's JSON object")
    replay.set_defaults(func=cmd_replay)

    edition = sub.add_parser("edition", help="check or show an edition")
    edition_sub = edition.add_subparsers(dest="edition_command", metavar="ACTION")
    check = edition_sub.add_parser("check", help="list every problem of an edition file")
    check.add_argument("path", metavar="PATH")
    check.set_defaults(func=cmd_edition_check)
    show = edition_sub.add_parser("show", help="list the cards of an edition (name or path)")
    show.add_argument("name", metavar="NAME_OR_PATH", nargs="?", default="reference")
    show.set_defaults(func=cmd_edition_show)

    sim = sub.add_parser("simulate", help="play whole games with bots and report results and speed")
    sim.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    sim.add_argument("--players", type=int, default=4, help="players per game, 1-4 (default 4)")
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sim.add_argument("--bot", default="random", help="random or greedy (default random)")
    sim.add_argument("--edition", default="reference", help="edition name or file (default reference)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(func=cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        result: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    return result
