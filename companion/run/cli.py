"""The ``companion`` command line.

Every user-facing failure is a one-line message on stderr and exit status 2 —
never a traceback: a family at the table cannot act on one. The exceptions are faults
that may pass by themselves, a port still in use or a disk still full after a minute
of retries: exit status 3, which the systemd unit restarts (status 2 it does not).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.editions import EditionNotFound, load_named, read_edition_text
from companion.engine import EditionError
from companion.engine.words import year_text
from companion.run.commands import (
    EXIT_USAGE,
    add_command,
    data_dir,
    fail,
    open_store,
    reader_refused,
    refused,
)
from companion.util.wording import CodedError, say

#: A fault that may pass (the port still in use after `companion.run.serving.BIND_RETRY_SECONDS`, the disk
#: still full after `companion.run.startup.DISK_RETRY_SECONDS`):
#: the systemd unit restarts on it, unlike on EXIT_USAGE.
EXIT_RETRY = 3


def cmd_replay(args: argparse.Namespace) -> int:
    from companion.records.trekking import RecordError, format_standings, replay_stream
    from companion.util.files import RECORD_LIMIT, open_regular

    # Read as bytes, line by line, the same way from a file and from standard input: a
    # line that is not UTF-8 is one bad event (bad_event) on both, never the whole record.
    try:
        if args.record == "-":
            result = replay_stream(sys.stdin.buffer, RECORD_LIMIT)
        else:
            with open_regular(args.record, RECORD_LIMIT) as stream:
                result = replay_stream(stream, RECORD_LIMIT)
    except OSError as exc:
        return fail(say("cli_cannot_read", path=args.record, error=exc.strerror))
    except RecordError as exc:
        return fail(f"{args.record}: {exc}")
    # The readable output prints any name: what the terminal cannot show (a lone
    # surrogate, say) is escaped instead of ending the program with a traceback.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    if args.json:
        result.write_json(sys.stdout)
        sys.stdout.write("\n")
    else:
        print(format_standings(result))
    return 0


def cmd_edition_check(args: argparse.Namespace) -> int:
    from companion.util.files import EDITION_LIMIT, read_text_file

    path = Path(args.path)
    try:
        text = read_text_file(path, EDITION_LIMIT)
    except OSError as exc:
        return fail(say("cli_cannot_read", path=path, error=exc.strerror))
    try:
        edition = read_edition_text(text, str(path), path.stem)
    except EditionError as exc:
        for problem in exc.problems:
            print(f"{path}: {problem}")
        errors = sum(1 for p in exc.problems if not p.warning)
        print(say("check_errors", path=path, n=errors))
        return 1
    for problem in edition.warnings:
        print(f"{path}: {problem}")
    counts = ", ".join(say("day_count", day=d, n=len(edition.day_cards(d))) for d in (1, 2, 3))
    print(say("check_ok", path=path, name=repr(edition.name), cards=len(edition.cards), days=counts,
              itineraries=len(edition.itineraries), warnings=len(edition.warnings)))  # fmt: skip
    return 0


def cmd_edition_show(args: argparse.Namespace) -> int:
    edition = load_named(data_dir(args), args.name)
    print(f"{edition.name}: {edition.title}")
    if edition.provenance:
        print(edition.provenance)
    for card in edition.cards:
        year = year_text(card.year)
        print(f"  {card.id:<6} {year:>10}  {card.hours}h  {', '.join(card.gains) or '-':<40} {card.title}")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from companion.coach.bots import BOTS
    from companion.coach.simulate import SimulationError, format_summary, simulate

    if args.bot not in BOTS:
        return fail(say("cli_unknown_bot", bot=repr(args.bot), bots=", ".join(BOTS)))
    edition = load_named(data_dir(args), args.edition)
    try:
        summary = simulate(
            games=args.games, players=args.players, seed=args.seed, bot=args.bot, edition=edition
        )
    except SimulationError as exc:
        return fail(str(exc))
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        print(format_summary(summary))
    return 0


def _mock(args: argparse.Namespace, tell: Any = print) -> bool:
    from companion.hardware.machine import board_model

    if args.mock:
        return True
    if "Raspberry Pi" not in board_model():
        tell(say("not_a_pi"))
        return True
    return False


def cmd_run(args: argparse.Namespace) -> int:
    import signal
    import threading

    from companion.run.console import KEYS_HELP, describe_expect, keyboard, print_ring
    from companion.run.console_lines import ConsoleLines
    from companion.run.serving import PortBusy, serve_when_free
    from companion.run.startup import build_runtime, build_when_space
    from companion.store.log import DiskFull, StoreError
    from companion.util.config import ConfigError, load_config, pin_problem

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return fail(str(exc))
    if args.pin is not None and pin_problem(args.pin):
        return fail(f"--pin {args.pin!r}: {pin_problem(args.pin)}")
    if args.check:
        if config.venue.broker:  # [venue] needs paho-mqtt (the venue extra): say what to install
            from companion.venue.publisher import library_problem

            if (missing := library_problem()) is not None:
                return fail(f"{config.source}: {missing}")
        print(f"{config.source}: OK")
        return 0
    mock = _mock(args)
    try:
        lines = ConsoleLines()  # each input's lines in one write
        runtime = build_when_space(
            lambda: build_runtime(config, data_dir(args), mock, args.pin, say=lines, claim=True)
        )
    except DiskFull as exc:  # not damage: the data is kept, and systemd tries again
        print(say("exit_retry", problem=str(exc).rstrip("."), status=EXIT_RETRY), file=sys.stderr)
        return EXIT_RETRY
    except (StoreError, RuntimeError, EditionError, EditionNotFound, ValueError) as exc:
        return fail(str(exc))
    if mock:
        runtime.session.listen(print_ring(runtime, colour=sys.stdout.isatty()))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        runtime.start()
        if not serve_when_free(runtime, config.table.host, args.port or config.table.port, stop):
            return 0  # stopped while the port was in use
        print(runtime.table.last.message)
        print(describe_expect(runtime.table))
        if mock and sys.stdin is not None and sys.stdin.isatty():
            print(KEYS_HELP)
            threading.Thread(target=keyboard, args=(runtime,), name="keyboard", daemon=True).start()
        while not stop.wait(0.5):
            pass
    except PortBusy as exc:
        print(say("exit_retry", problem=str(exc).rstrip("."), status=EXIT_RETRY), file=sys.stderr)
        return EXIT_RETRY
    except OSError as exc:
        return fail(say("cli_cannot_serve", port=args.port or config.table.port, error=exc.strerror))
    except KeyboardInterrupt:
        pass
    finally:
        runtime.stop()
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from companion.table.game_setup import new_game
    from companion.util.config import colour_problem, load_config

    config = load_config(args.config)
    store = open_store(args)
    store.refuse_if_running()
    colours = [c.strip() for c in args.colours.split(",")] if args.colours else None
    problems = [colour_problem(c) for c in colours or ()]
    if any(problems):
        return fail(f'--colours: {next(p for p in problems if p)} (all: "#0072B2,#E69F00")')
    game = new_game(store, args.players.split(","), config, colours, args.edition, args.seed, _mock(args))
    loaded = store.load(game)
    setup = loaded.setup
    print(say("game_created", game=game, players=", ".join(setup.players), stack=", ".join(setup.watch_stack),
              edition=setup.edition.name))  # fmt: skip
    return 0


#: On a Pi installed by systemd/install-pi.sh, the wrapper that runs `companion` as the service does.
PI_COMMAND = "sudo trekking-companion"


def cmd_pin(args: argparse.Namespace) -> int:
    """The table PIN in force: the config's, else the one kept in the data directory.

    Never draws one: a PIN drawn here would not be the table's (that one is drawn by
    `companion run` in the data directory it uses)."""
    from companion.table.access import kept_pin, table_pin
    from companion.util.config import ConfigError, load_config

    data = data_dir(args)
    try:
        config = load_config(args.config)
        if config.table.pin:
            print(table_pin(config.table.pin, None, data))
            return 0
        pin = kept_pin(data)
    except PermissionError:
        return fail(say("cli_pin_unreadable", dir=data, command=PI_COMMAND))
    except (ConfigError, ValueError, OSError) as exc:
        return fail(str(exc))
    if pin is None:
        return fail(say("cli_no_pin", dir=data, command=PI_COMMAND))
    print(pin)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    store = open_store(args)
    game = args.game
    if game is None:
        newest = next(iter(store.games()), None)
        if newest is None:
            return fail(say("cli_no_game", dir=data_dir(args)))
        game = newest[0]
    damage = store.load(game).damage
    sys.stdout.write(store.export(game))
    if damage is not None:  # never a shortened record without a word
        print(say("export_damaged", game=game, kept=damage.kept), file=sys.stderr)
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    """`companion.store.backup`: a checked copy of the store, safe while the companion runs."""
    from companion.store.backup import backup

    store = open_store(args)
    try:
        done = backup(store, Path(args.dest))
    finally:
        store.close()
    print(say("backup_done", dest=done.dest, games=done.games, finished=done.finished, events=done.events))
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    store = open_store(args)
    for game, created, finished, events in store.games():
        state = say("game_finished" if finished else "game_in_play")
        print(f"{game:>5}  {created}  {state:<8}  {say('game_events', n=events)}")
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    from companion.table.enrol import Enroller
    from companion.util.config import load_config

    config = load_config(args.config)
    store = open_store(args)
    edition = load_named(data_dir(args), args.edition)
    from companion.editions import EditionLibrary, mine_name

    own = Path(args.out) if args.out else EditionLibrary(data_dir(args)).path(mine_name(edition.name))

    def ask(prompt: str) -> str | None:
        try:
            return input(prompt)
        except EOFError:
            return None

    enroller = Enroller(store, edition, own, ask, print)
    mock = _mock(args)
    next_uid: Any
    if mock:
        print(say("mock_uid_help"))

        def next_uid() -> str | None:
            uid = ask(say("ask_uid"))
            return uid.strip() if uid and uid.strip() else None
    else:
        import time

        from companion.hardware.reader import TagDebouncer, open_mfrc522

        try:
            read_uid = open_mfrc522(config.reader.rst_pin, config.reader.gain_db).read_uid
        except Exception as exc:
            return reader_refused(exc)
        debouncer = TagDebouncer(config.reader.debounce)
        print(say("tap_a_tag"))

        def next_uid() -> str | None:
            while True:
                uid = debouncer.feed(read_uid(), time.monotonic())
                if uid is not None:
                    print(say("tag_read", uid=uid))
                    return str(uid)
                time.sleep(config.reader.poll_interval)

    try:
        while (uid := next_uid()) is not None and enroller.enroll_one(uid):
            pass
    except KeyboardInterrupt:
        print()
    print(say("tags_enrolled", n=len(store.tags())))
    return 0


class ShowVersion(argparse.Action):
    """``--version``: the version is read from the package's metadata only when asked for
    (`companion.__getattr__`), not on every start."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from companion import __version__

        print(f"{parser.prog} {__version__}")
        parser.exit()


def add_edition_commands(edition: argparse.ArgumentParser) -> None:
    """``companion edition``'s actions: check and show here, the library's in `edition_commands`."""
    from companion.run.edition_commands import add_commands

    edition_sub = edition.add_subparsers(dest="edition_command", metavar="ACTION")
    check = add_command(edition_sub, "check", "list every problem of an edition file", cmd_edition_check)
    check.add_argument("path", metavar="PATH")
    show = add_command(
        edition_sub, "show", "list the cards of an edition (name or path)", cmd_edition_show, "--data-dir"
    )
    show.add_argument("name", metavar="NAME_OR_PATH", nargs="?", default="reference")
    add_commands(edition_sub)


def command_word(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is not an option (the top-level
    parser's options take no value), or None (``--help``, ``--version``, nothing)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; given the ``command`` on the command line, the editions' dozen
    actions are built only for ``edition``: argparse builds each parser eagerly, and every
    start would pay for those it does not use. ``--help`` lists every
    command either way."""
    parser = argparse.ArgumentParser(
        prog="companion", description="Referee for the board game Trekking Through History."
    )
    parser.add_argument("--version", action=ShowVersion)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    replay = add_command(sub, "replay", "replay a game record and print the standings", cmd_replay)
    replay.add_argument("record", metavar="RECORD", help='a trekking/1 record (JSON Lines), or "-" for stdin')
    replay.add_argument("--json", action="store_true", help="print the contract's JSON object")

    edition = sub.add_parser("edition", help="the editions: check, show, edit, CSV, share, stickers")
    if command in (None, "edition"):
        add_edition_commands(edition)
    sim = add_command(
        sub, "simulate", "play whole games with bots and report results and speed", cmd_simulate, "--data-dir"
    )
    sim.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    sim.add_argument("--players", type=int, default=4, help="players per game, 1-4 (default 4)")
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sim.add_argument("--bot", default="random", help="random or greedy (default random)")
    sim.add_argument("--edition", default="reference", help="edition name or file (default reference)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")

    run_help = "run the table: reader, ring, buttons, store and the page"
    run = add_command(sub, "run", run_help, cmd_run, "--data-dir", "--config", "--mock")
    run.add_argument("--port", type=int, help="HTTP port (default from the config, 8080)")
    run.add_argument(
        "--pin", help="the table PIN for controls, 4-8 digits (default: the config's, else `companion pin`)"
    )
    run.add_argument("--check", action="store_true", help="check the config file and exit")

    new = add_command(
        sub, "new", "start a new game in the data directory", cmd_new, "--data-dir", "--config", "--mock"
    )
    new.add_argument("--players", required=True, help="names, comma separated: Ann,Ben,Cy")
    new.add_argument("--colours", help='colours in seat order: "#0072B2,#E69F00"')
    new.add_argument("--edition", help="edition name (default: the table's default, see `edition list`)")
    new.add_argument("--seed", type=int, help="seed of the watch stack and, in mock mode, of the dealer")

    pin_help = "print the table PIN (the config's, else the one kept for the data directory)"
    add_command(sub, "pin", pin_help, cmd_pin, "--data-dir", "--config")

    export = add_command(
        sub, "export", "write a game as a trekking/1 record to stdout", cmd_export, "--data-dir"
    )
    export.add_argument("game", nargs="?", type=int, help="game id (default: the newest)")

    enroll_help = "map RFID tags to cards, correcting printed values"
    enroll = add_command(sub, "enroll", enroll_help, cmd_enroll, "--data-dir", "--config", "--mock")
    enroll.add_argument("--edition", default="reference", help="edition the tags belong to (name or file)")
    enroll.add_argument("--out", help="the owner's edition file for corrected values")

    backup_help = "copy the games to a new file, checked; safe while it runs"
    backup = add_command(sub, "backup", backup_help, cmd_backup, "--data-dir")
    backup.add_argument("dest", help="the backup file to write (a new name: never replaced)")

    add_command(sub, "games", "list the games in the data directory", cmd_games, "--data-dir")

    doctor_help = "check the wiring, the drivers and the settings, one line each"
    doctor = add_command(sub, "doctor", doctor_help, cmd_doctor, "--data-dir", "--config")
    doctor.add_argument("--wait", type=float, default=15.0, help="seconds to wait for a tag or a press")
    doctor.add_argument(
        "--soak",
        type=float,
        metavar="SECONDS",
        help="instead of the checks: a moving frame on the ring at 30 fps for SECONDS while the Pi is busy, "
        "then how many wrong-colour flashes you saw (docs/builders/tester.md)",
    )

    hall_help = "follow every table of a venue through its MQTT broker; serve its page"
    hall = add_command(sub, "hall", hall_help, cmd_hall)
    hall.add_argument(
        "--broker", required=True, help='the venue\'s broker, "mqtt://host:1883" or "mqtts://..."'
    )
    hall.add_argument(
        "--data-dir", help="where the hall keeps the games (default: a hall folder in the data directory)"
    )
    hall.add_argument("--port", type=int, default=8090, help="the hall's page (default 8090)")
    hall.add_argument("--host", default="0.0.0.0", help="the address the page listens on")
    hall.add_argument("--prefix", default="trekking", help="the tables' topic prefix ([venue] topic_prefix)")
    hall.add_argument("--tables", help="the only table ids to follow, comma-separated (default: any)")
    hall.add_argument("--username", default="", help="the hall's user on the broker")
    hall.add_argument("--password-file", default="", help="a file holding that user's password")
    hall.add_argument("--ca-file", default="", help="mqtts://: the CA that signed the broker's certificate")
    hall.add_argument(
        "--pin", help="the league host's PIN, 4 to 8 digits (default: drawn once, kept in DIR/pin)"
    )
    hall.add_argument("--enrol", metavar="TABLE", help="give TABLE its key (printed once) and exit")
    return parser


def cmd_hall(args: argparse.Namespace) -> int:
    """Follow the venue until stopped (Ctrl+C or SIGTERM); the page is read-only."""
    import signal

    from companion.table.access import Access, table_pin
    from companion.util.config import BROKER, TOPIC_WORD, VenueSettings
    from companion.venue.hall import Hall
    from companion.venue.hall_web import create_hall_app, hall_server
    from companion.venue.league import LeagueBook
    from companion.venue.publisher import library_problem

    if (missing := library_problem()) is not None:
        return fail(missing)
    if not BROKER.match(args.broker):
        return fail(say("config_value.broker", setting="--broker", value=repr(args.broker)))
    if not TOPIC_WORD.match(args.prefix):
        return fail(say("config_value.topic", setting="--prefix", value=repr(args.prefix)))
    if not 1 <= args.port <= 65535:
        return fail(say("config_value.port", setting="--port", value=args.port))
    folder = Path(args.data_dir) if args.data_dir else data_dir(args) / "hall"
    if args.enrol:  # a key per table, given once: the hall keeps only what enrolled tables sign
        from companion.venue.enrolment import enrol

        if not TOPIC_WORD.match(args.enrol):
            return fail(say("config_value.topic", setting="--enrol", value=repr(args.enrol)))
        print(say("hall_enrolled", table=args.enrol, key=enrol(folder, args.enrol)), flush=True)
        return 0
    tables = {t.strip() for t in args.tables.split(",") if t.strip()} if args.tables else None
    settings = VenueSettings(broker=args.broker, username=args.username, password_file=args.password_file,
                             ca_file=args.ca_file, topic_prefix=args.prefix)  # fmt: skip
    try:  # the hall's PIN is the table's rule and code: --pin, else one kept in the folder
        pin = table_pin("", args.pin, folder)
    except ValueError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(say("venue_credentials", broker=args.broker, error=str(exc)))
    hall = Hall(folder, args.prefix, tables)
    book = LeagueBook(folder / "league")
    access = Access.for_pin(pin, folder)
    if not args.pin:
        print(say("hall_pin_kept", path=folder / "pin"), flush=True)
    try:
        hall.connect(settings)
    except (OSError, ValueError, IndexError) as exc:
        return fail(say("venue_credentials", broker=args.broker, error=str(exc)))
    server = hall_server(create_hall_app(hall, access, book), args.host, args.port)

    def stop(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print(say("hall_serving", host=args.host, port=args.port), flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        hall.stop()
        book.close()
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 0 when every check passed, 1 otherwise (each ✗ says its fix)."""
    from companion.run.doctor import Doctor

    ask = input if sys.stdin is not None and sys.stdin.isatty() else None
    doctor = Doctor(args.config, data_dir(args), ask=ask, wait=args.wait)
    if args.soak is not None:
        return 0 if doctor.soak(args.soak) else 1
    return 0 if doctor.run() else 1


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(command_word(words))
    args = parser.parse_args(words)
    # The Pi's wrapper (systemd/trekking-companion) names the service's settings and data
    # this way, for every command that takes them; --config and --data-dir still win.
    for option, variable in (("config", "COMPANION_CONFIG"), ("data_dir", "COMPANION_DATA_DIR")):
        if hasattr(args, option) and getattr(args, option) is None and os.environ.get(variable):
            setattr(args, option, os.environ[variable])
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        result: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    except (CodedError, EditionError, EditionNotFound) as exc:  # a setting, a refusal, a missing edition
        return refused(exc)
    return result
