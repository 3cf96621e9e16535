"""`companion run` and `companion new`: one process for the whole table.

The runtime wires the adapters around the rules core, each chosen at start-up
like gpiozero's pin factories: on a Raspberry Pi the real reader, ring and
buttons; anywhere else (or with ``--mock``) the simulated ones — a virtual
reader fed from the keyboard and the page, a ring drawn in the terminal and on
the page, buttons on gpiozero's mock pins, and a simulated dealer revealing the
cards it shuffled. The store, the engine and the HTTP API are the same in both.
"""

from __future__ import annotations

import functools
import logging
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.access import Access, session_key, table_pin
from companion.coach_service import CoachService
from companion.config import Config, colour_problem
from companion.editions import EditionLibrary, EditionNotFound, edition_setup_value
from companion.engine import Edition, EditionError
from companion.engine.words import plural
from companion.hardware.buttons import Buttons, MockButtons
from companion.hardware.health import PARTS, Health
from companion.hardware.reader import ReaderLoop, TagDebouncer, open_mfrc522
from companion.hardware.ring import (
    RGB,
    RingDriver,
    RingLayout,
    SimulatedRing,
    ansi,
    open_ring,
    render,
    view_of,
)
from companion.hardware.ring_pin import pin_frame
from companion.hardware.supervise import SupervisedButtons, SupervisedReader
from companion.lan import addresses, is_local_only, lan_ip
from companion.past import History, PastGame, Replays, load_history
from companion.ports import GameSetupError
from companion.record import RECORD_FORMAT, RecordError
from companion.session import Session
from companion.store import DiskFull, GameDamaged, Store, StoredGame, StoreError, disk_full, full_message
from companion.table import CUE_ACCEPT, CUE_REJECT, Outcome, Table
from companion.tags import TagResolver
from companion.text import name_key, player_name, printable, visible
from companion.wording import say

log = logging.getLogger("companion")


__all__ = ["GameSetupError", "Runtime", "build_runtime", "new_game"]

#: Longest player name: it must fit the page's tables and the console's lines.
NAME_LENGTH = 24
#: The players of the game a fresh companion starts by itself: names read alike in English and French.
FIRST_PLAYERS = ("Alex", "Sam")


def _start(
    store: Store,
    config: Config,
    mock: bool,
    players: list[str],
    colours: list[str] | None,
    edition: str,
    seed: int | None,
) -> int:
    """`new_game` as the session's starter: the table's settings bound, the page's choices free."""
    return new_game(store, players, config, colours, edition, seed, mock)


def new_game(
    store: Store,
    players: list[str],
    config: Config,
    colours: list[str] | None = None,
    edition: str | None = None,
    seed: int | None = None,
    mock: bool = True,
) -> int:
    """Start a new game in the store: random watch stack; in mock mode, a seeded dealer.

    ``edition`` is a name from the data directory's library (the table's default
    when None). An owner's edition is copied into the game's setup line, so the
    game resumes and exports exactly even if the owner later edits or deletes it.
    """
    # every entry point (the page, the API, `companion new`, the first game) comes here
    names = [name for name in map(player_name, players) if name]
    blank = [name for name in names if not visible(name)]
    if blank:
        raise GameSetupError(
            "a player's name needs a letter, digit or sign that shows; "
            f"{' '.join(f'U+{ord(char):04X}' for char in blank[0][:8])} shows nothing",
            code="name_invisible",
        )
    long = [n for n in names if len(n) > NAME_LENGTH]
    if long:
        raise GameSetupError(
            f"a player's name is at most {NAME_LENGTH} characters; shorten {long[0][:NAME_LENGTH]}...",
            code="name_too_long",
            max=NAME_LENGTH,
            name=long[0][:NAME_LENGTH],
        )
    if not 1 <= len(names) <= 4:
        raise GameSetupError(
            f"a game has 1 to 4 players, not {len(names)} ({', '.join(names) or 'none'})",
            code="player_count",
            n=len(names),
        )
    keys = [name_key(name) for name in names]
    if len(set(keys)) != len(keys):  # "Zoé" twice, "ann" and "Ann": the page would show one name twice
        raise GameSetupError("two players share a name; give each a different one", code="duplicate_names")
    palette = list(colours or config.palette)
    for colour in palette[: len(names)]:
        problem = colour_problem(colour)
        if problem:
            raise GameSetupError(problem, code="bad_colour", colour=repr(colour)[:40])
    if len(palette) < len(names):
        raise GameSetupError(
            f"{len(names)} players need {len(names)} colours, got {len(palette)}",
            code="too_few_colours",
            n=len(names),
            got=len(palette),
        )
    library = EditionLibrary(store.path.parent)
    ed, kept = edition_setup_value(library, edition if edition is not None else library.default())
    if ed.itineraries and len(ed.itineraries) < 3 * len(names):
        raise GameSetupError(
            f"the {ed.name} edition has too few itineraries for {len(names)} players",
            code="too_few_itineraries",
            edition=ed.name,
            n=len(names),
        )
    rng = random.Random(seed)
    stack = rng.sample(names, len(names))
    setup = {
        "type": "setup",
        "record": RECORD_FORMAT,
        "players": names,
        "watch_stack": stack,
        "edition": kept,
    }
    meta: dict[str, Any] = {"colours": palette[: len(names)], "mock": mock}
    if mock:
        meta["dealer_seed"] = seed if seed is not None else rng.randrange(1 << 30)
    return store.new_game(setup, meta)


@dataclass
class Runtime:
    """Everything `companion run` starts, with the inputs the page and tests use."""

    config: Config
    #: The current game and what outlives it (listeners, snapshot extras): `companion.session`.
    session: Session
    mock: bool
    pin: str
    layout: RingLayout
    ring: Any
    driver: RingDriver
    buttons: Buttons | None
    resolver: TagResolver
    reader: ReaderLoop | None = None
    threads: list[threading.Thread] = field(default_factory=list)
    say: Callable[[str], None] = print
    port: int = 8080
    #: The address the HTTP server listens on (loopback: the page is for this machine only).
    listen: str = "0.0.0.0"
    #: The last tag the reader saw that maps to no card (for enrolling it from the page).
    unknown_tag: str | None = None
    #: The PIN, its guessing limits and the host sessions (`companion.access`).
    access: Access = field(init=False)
    #: The host's coach (off until switched on; `companion.coach_service`).
    coach: CoachService = field(init=False)

    def __post_init__(self) -> None:
        self.access = Access.for_pin(self.pin, self.store.path.parent)
        self.coach = CoachService(lambda: self.table, say=self.say)
        # on the session, so that both follow a new game started from the page
        self.session.listen(self.coach.notify)
        self.session.annotate("coach", self.coach.view)

    @property
    def store(self) -> Store:
        return self.session.store

    @property
    def table(self) -> Table:
        """The game on the table now (a new game from the page replaces it)."""
        return self.session.table

    def log(self, message: str) -> None:
        """A line for the console or the journal: names typed by players cannot move the cursor."""
        self.say(printable(message))

    #: Each part's status, for the console, the journal and the page.
    health: Health = field(default_factory=lambda: Health(print))
    #: On a Pi: keeps trying to open buttons that failed to open.
    button_keeper: SupervisedButtons | None = None
    #: While the host transcribes an edition, taps go to it instead of the game
    #: (`companion.editions.web`); it returns True when it took the tap.
    capture: Callable[[str], bool] | None = None

    @functools.cached_property
    def secret_key(self) -> bytes:
        """The session-signing key, made once per data directory and kept private to it."""
        return session_key(self.store.path.parent)

    def join_url(self, request_host: str = "") -> str:
        """The address phones should open: the one this page was reached by, if a phone
        could use it too; else this machine's LAN address (an mDNS name does not resolve
        everywhere), see `companion.lan`."""
        host = request_host.rsplit(":", 1)[0] if not request_host.endswith("]") else request_host
        if host and not is_local_only(host):
            return f"http://{request_host}/"
        return self.join_urls()[0]

    def join_urls(self) -> list[str]:
        """Every address of the page, best for a phone first (LAN IP, mDNS name, localhost)."""
        return addresses(self.port, self.listen, lan_ip())

    def tap(self, seen: str) -> Outcome:
        """A tag (UID, card id or title) reached the reader: the one route of every tap.

        Capture (the host transcribing an edition takes the tag itself), else resolve once
        (`companion.tags`) and hand the resolved reference to the table."""
        return self.captured(seen) or self.tap_resolved(seen, *self.resolve(seen))

    def captured(self, seen: str) -> Outcome | None:
        """The tag taken by the edition being transcribed (the host's page asked for it), if so."""
        capture = self.capture
        if capture is None or not capture(seen.strip()):
            return None
        captured = {"tag": seen.strip()}
        return Outcome(True, say("tag_captured", **captured), CUE_ACCEPT, "tag_captured", params=captured)

    def resolve(self, seen: str) -> tuple[str | None, str]:
        """What a tag stands for: (reference, "") or (None, why not). A tag enrolled since
        the start (`companion enroll` runs beside us) is found by reading the tags again."""
        ref, why = self.resolver.resolve(seen)
        if ref is None:
            self.resolver.tags = self.store.tags()
            ref, why = self.resolver.resolve(seen)
        return ref, why

    def tap_resolved(self, seen: str, ref: str | None, why: str) -> Outcome:
        """A tag already resolved (``ref``, or None and ``why``) reaches the table."""
        if ref is None:
            self.unknown_tag = seen.strip()  # the page's enrolment form offers it
            kind = "ambiguous" if "matches several" in why else "unknown"
            facts = {"tag": seen.strip(), "why": kind}
            outcome = Outcome(False, say("unknown_tag", **facts), CUE_REJECT, "unknown_tag", params=facts)
            return self.session.emit(outcome)
        return self.table.tap(ref)

    def press(self, name: str) -> Outcome:
        """A button press; in mock mode through gpiozero's mock pins, like a finger."""
        before = self.table.last
        if isinstance(self.buttons, MockButtons):
            self.buttons.press(name)
            after = self.table.last
            return (
                after if after is not before else Outcome(False, say("press_lost"), CUE_REJECT, "press_lost")
            )
        return self.table.press(name)

    def press_now(self, name: str) -> Outcome:
        return self.table.press(name)

    def confirm_held(self) -> None:
        """Confirm held at the table: the ring shows the PIN and PIN lockouts are cleared."""
        self.access.guard.reset()
        start = self.driver.clock()
        pin = self.pin
        self.driver.overlay = lambda now: pin_frame(pin, self.layout, now - start)
        self.say("Confirm held: the ring shows the table PIN; wrong-PIN lockouts are cleared.")

    def start_game(
        self, players: list[str], colours: list[str] | None, edition: str, seed: int | None
    ) -> int:
        """A new game from the page, put on the table at once (one at a time: `Session`)."""
        return self.session.start_game(players, colours, edition, seed)

    def switch_game(self, game_id: int) -> None:
        """Put another stored game on the table (a new game started from the page)."""
        table = self.session.switch(game_id)
        self.say(f"New game {game_id} started from the page: {', '.join(table.board.names)}.")

    # --- the port's intents and answers (`companion.ports.TableRuntime`) ----------------------

    @property
    def data_dir(self) -> Path:
        return self.store.path.parent

    def state(self) -> dict[str, Any]:
        return self.table.state_json()

    def page_text(self) -> tuple[int, str]:
        return self.table.page_text()

    def version(self) -> int:
        return self.table.version

    def wait_for_change(self, version: int, timeout: float) -> int:
        """A new game wakes the old table's waiters (`Session.switch`): they see it at once."""
        return self.table.wait_for_change(version, timeout)

    def edition(self) -> Edition:
        return self.table.board.edition

    def player_names(self) -> list[str]:
        return list(self.table.board.names)

    def undo(self, seen: tuple[str, int] | None = None) -> Outcome:
        return self.table.undo(seen)

    def correct_wild(self, wild: list[str]) -> Outcome:
        return self.table.correct_wild(wild)

    def correct_itinerary(self, player: str, itinerary: str) -> Outcome:
        return self.table.correct_itinerary(player, itinerary)

    def switch_coach(self, on: bool) -> None:
        self.coach.switch(on)

    def store_damage(self) -> list[dict[str, Any]]:
        return [notice.to_json() for notice in self.store.damage]

    def acknowledge_damage(self) -> int:
        return self.store.acknowledge()

    def tags(self) -> dict[str, str]:
        return self.store.tags()

    def rebind_tag(self, uid: str, card: str, edition: str) -> None:
        self.store.rebind(uid, card, edition)
        self.resolver.tags = self.store.tags()

    def unbind_tag(self, uid: str) -> bool:
        freed = self.store.unenroll(uid)
        self.resolver.tags = self.store.tags()
        return freed

    def enroll(
        self, own_file: Path, uid: str, card: str, values: tuple[int, list[str]] | None
    ) -> tuple[str, dict[str, Any]]:
        from companion.enroll import enroll_tag

        return enroll_tag(self.store, self.edition(), own_file, uid, card, values)

    def aliases(self) -> dict[str, tuple[str, str]]:
        return self.store.aliases()

    def history(self, replays: Replays) -> History:
        return load_history(self.store, replays)

    def finished_game(self, game_id: int, replays: Replays) -> PastGame | None:
        row = next((r for r in self.store.finished_games() if r[0] == game_id), None)
        return replays.get(self.store, *row) if row is not None else None

    def merge_player(self, alias: str, player: str, name: str) -> None:
        self.store.merge_player(alias, player, name)

    def unmerge_player(self, alias: str) -> bool:
        return self.store.unmerge_player(alias)

    def ring_frame(self, private: bool = False) -> list[RGB]:
        """The Clock as shown now (the driver's ring: a real one that failed is replaced).

        While the ring shows the table PIN (Confirm held), only a ``private`` reader (a
        logged-in host) gets what the ring shows; anyone else gets the game's picture, so
        the PIN is seen at the table only, never over the network."""
        ring = self.driver.ring
        if not private and self.driver.overlay is not None:
            frame = self.driver.game_frame()
            if not isinstance(ring, SimulatedRing):
                return frame
            dimmed = SimulatedRing(len(frame), ring.brightness)  # as the simulated ring shows it
            dimmed[:] = frame
            dimmed.show()
            return dimmed.shown
        return ring.shown if isinstance(ring, SimulatedRing) else self.driver.last

    def start(self) -> None:
        for target, name in (
            (self.driver.run, "ring"),
            *(((self.reader.run, "reader"),) if self.reader else ()),
            *(((self.button_keeper.run, "buttons"),) if self.button_keeper else ()),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        self.coach.stop()
        self.driver.stop()
        if self.reader is not None:
            self.reader.stop()
        if self.button_keeper is not None:
            self.button_keeper.close()
        elif self.buttons is not None:
            self.buttons.close()
        self.store.close()


def _open_game(
    store: Store,
    config: Config,
    data_dir: Path,
    mock: bool,
    pin: str | None,
    say: Callable[[str], None],
    claim: bool,
) -> tuple[str, StoredGame]:
    """`build_runtime`'s first half: claim the store, the PIN, and the game to resume, its
    rows checked against their checksums (damage is set aside and said, see `report_damage`)."""
    if claim:
        store.claim()
    the_pin = table_pin(config.table.pin, pin, data_dir)
    for warning in store.warnings:
        say(f"Warning: {printable(warning)}")
    if store.upgraded:
        say(printable(store.upgraded[0].upper() + store.upgraded[1:]))
    orphans = EditionLibrary(data_dir).clean_orphans()
    if orphans:
        say(f"Removed {len(orphans)} temporary file(s) of an edition save that never finished: "
            f"{printable(', '.join(orphans))} (each edition is as it was before that save).")  # fmt: skip
    game_id = store.current_game()
    stored: StoredGame | None = None
    if game_id is not None:
        try:
            stored = store.load(game_id)
        except GameDamaged as exc:  # its players or edition changed: not resumed, kept
            store.set_aside(exc.damage)
        except (RecordError, EditionError, EditionNotFound) as exc:
            # An old game naming an edition file that is gone (or a path, which is no
            # longer read): keep it on disk, say why, and start a new one.
            store.mark_finished(game_id, True)
            why = printable(str(exc))
            say(f"Game {game_id} cannot be resumed ({why}); it is kept (companion export {game_id}).")
    if stored is not None and stored.damage is not None:
        store.set_aside(stored.damage)  # the events before it are kept: the game goes on from there
    report_damage(store, say)
    if stored is None:
        # first names that read the same in English and French (the page may be either)
        game_id = new_game(store, list(FIRST_PLAYERS), config, mock=mock)
        say(f"No game in progress: started game {game_id} for {' and '.join(FIRST_PLAYERS)} "
            "(start another from the page's Host menu).")  # fmt: skip
        stored = store.load(game_id)
    return the_pin, stored


def report_damage(store: Store, say: Callable[[str], None]) -> None:
    """Say each damage the checksums found and the host has not acknowledged yet, at every
    start: on the console (the journal under systemd), as the page shows it (``store`` in
    ``/api/state``) until a host acknowledges it."""
    for notice in store.damage:
        say(
            f"Warning: the game store is damaged: {printable(notice.message)}. What to do: "
            f"{notice.fix} (the page shows this until then)."
        )


#: A full disk at start is retried this long, every `DISK_RETRY_EVERY` seconds, while the owner
#: frees space; then `companion run` exits with status 3, which systemd restarts.
DISK_RETRY_SECONDS = 60.0
DISK_RETRY_EVERY = 5.0


def build_when_space(
    build: Callable[[], Runtime],
    say: Callable[[str], None] = print,
    retry_for: float | None = None,
    every: float | None = None,
) -> Runtime:
    """``build()``, tried again while the disk is full (said once, with what to do); raises
    the last `DiskFull` when there is still no space after ``retry_for`` seconds."""
    retry_for = DISK_RETRY_SECONDS if retry_for is None else retry_for
    every = DISK_RETRY_EVERY if every is None else every
    deadline = time.monotonic() + retry_for
    waited = False
    while True:
        try:
            runtime = build()
        except DiskFull as exc:
            if time.monotonic() >= deadline:
                raise
            if not waited:
                say(
                    f"{str(exc)[0].upper()}{str(exc)[1:]} Trying again every {every:.0f} s "
                    f"for {retry_for:.0f} s."
                )
            waited = True
            time.sleep(every)
            continue
        if waited:
            say("There is space on the disk again: starting.")
        return runtime


def build_runtime(
    config: Config,
    data_dir: Path,
    mock: bool,
    pin: str | None = None,
    say: Callable[[str], None] = print,
    clock: Callable[[], float] = time.monotonic,
    claim: bool = False,
) -> Runtime:
    """Open the store, resume (or start) a game, and choose the adapters.

    ``claim`` (`companion run`) marks the store as in use, so that a second `run` or a
    `companion new` beside it refuses with a clear message instead of changing a game
    this table would never show.

    A full disk (SQLite's or the system's word for it) is a `DiskFull`, never "damaged": the
    data is fine and the caller waits for space (`build_when_space`)."""
    store = Store(data_dir)
    try:
        the_pin, stored = _open_game(store, config, data_dir, mock, pin, say, claim)
    except OSError as exc:  # the PIN file, the lock file: written in the data directory
        store.close()
        if disk_full(exc):
            raise DiskFull(full_message(data_dir, "the companion cannot start; nothing was lost")) from None
        raise StoreError(f"cannot use the data directory {data_dir}: {exc}") from None
    except BaseException:
        store.close()
        raise
    table = Table(store, stored, log=lambda message: say(printable(message)), turn=config.table.turn)
    if store.warnings:  # the page shows it too: the owner must hear that moves may be missing
        table.last = Outcome(False, f"Warning: {' '.join(store.warnings)}", CUE_REJECT, "store_damaged")
    settings = config.ring
    layout = RingLayout(settings.leds, settings.twelve_oclock_led, settings.direction == "clockwise")
    health = Health(say)
    ring: Any = SimulatedRing(settings.leds, settings.brightness)
    driver = RingDriver(table, ring, layout, settings, clock, on_error=say, health=health)
    if mock:
        for part in PARTS:
            health.ok(part, "simulated (mock mode)", quiet=True)
    else:  # a part that does not open is reported and retried; the table starts anyway
        driver.opener = functools.partial(open_ring, settings)
        driver.failed = True
        driver.reopen()
    resolver = TagResolver(table.board.edition, store.tags())
    starter = functools.partial(_start, store, config, mock)
    session = Session(store, table, starter, turn=config.table.turn)
    session.listen(driver.notify)  # the ring reads each change once, never polling the table
    session.on_table.append(driver.notify)
    session.on_table.append(lambda new: setattr(resolver, "edition", new.board.edition))
    buttons: Buttons | None = None
    runtime = Runtime(config, session, mock, the_pin, layout, ring, driver, buttons, resolver, say=say,
                      health=health)  # fmt: skip
    # Buttons press whatever game is on the table now (the page can start a new one).
    press, held = runtime.press_now, runtime.confirm_held
    if mock:
        runtime.buttons = MockButtons(config.buttons, press, held)
    else:
        keeper = SupervisedButtons(
            functools.partial(Buttons, config.buttons, press, on_confirm_held=held), health
        )
        if keeper.try_open():
            runtime.buttons = keeper.buttons
        runtime.button_keeper = keeper
        reader = SupervisedReader(functools.partial(open_mfrc522, config.reader.rst_pin), health, clock)
        reader.read_uid()  # open it now, so the console says at once whether it answers
        attach_reader(runtime, reader.read_uid, reader.read_text, clock)
    return runtime


def attach_reader(
    runtime: Runtime,
    read_uid: Callable[[], str | None],
    read_text: Callable[[], str | None],
    clock: Callable[[], float] = time.monotonic,
) -> ReaderLoop:
    """Poll an RFID reader for the table: each debounced tap becomes `Runtime.tap`.

    A tag that is not enrolled is read once more for a card id in its text.
    """
    settings = runtime.config.reader

    def on_tag(uid: str) -> None:
        capture = runtime.capture
        if capture is not None and capture(uid):  # transcribing: the page wants the UID itself
            return
        ref, why = runtime.resolve(uid)
        if ref is None:  # not enrolled: maybe the tag carries its card id in its text
            text = read_text()
            if text:
                from_text, why_text = runtime.resolve(text)
                if from_text is not None:
                    runtime.tap_resolved(text, from_text, why_text)
                    return
        runtime.tap_resolved(uid, ref, why)

    runtime.reader = ReaderLoop(
        read_uid, on_tag, settings.poll_interval, TagDebouncer(settings.debounce), clock=clock,
        on_error=lambda exc: runtime.say(f"reader: {exc}"),
    )  # fmt: skip
    return runtime.reader


def print_ring(runtime: Runtime, colour: bool = True) -> Callable[[Table, Outcome], None]:
    """The ring on the console after each input: in colour on a terminal; where the output
    goes to a pipe or a log (no terminal to draw colours), what the table waits for instead."""

    def show(table: Table, outcome: Outcome) -> None:
        if colour:
            view = view_of(table, time.monotonic())
            runtime.say("ring " + ansi(render(view, runtime.layout, 0.0)))
        else:
            runtime.say(describe_expect(table))

    return show


def describe_expect(table: Table) -> str:
    """What the table waits for, as a sentence for the console (not the raw dictionary)."""
    expect = table.expect()
    if expect is None:
        won = table.board.winners()
        return f"The game is over: {' and '.join(won)} win{'s' if len(won) == 1 else ''}."
    kind, player = expect["kind"], expect["player"]
    if kind == "reveal":
        return "Waiting for the new top card of the deck: tap it to reveal it."
    if kind == "itinerary":
        return f"Waiting for {player} to tap an Itinerary card for today."
    if kind == "confirm":
        return f"Waiting for {player} to press Confirm (Crystal spends one more, Undo cancels)."
    armed = expect.get("crystals", 0)
    chosen = f" ({plural(armed, 'crystal')} chosen)" if armed else ""
    return f"Waiting for {player} to tap a card of the Departures Row or an Ancestor{chosen}."


KEYS_HELP = (
    "Type a card id or the start of its title to tap it; c = Crystal (before the tap: spend one), "
    "y = Confirm, u = Undo, ? = what the table waits for, pin = hold Confirm (the ring shows the PIN)."
)


def keyboard(runtime: Runtime, lines: Any = None) -> None:
    """The virtual reader and buttons on the console (mock mode)."""
    source = lines if lines is not None else sys.stdin
    for line in source:
        text = line.strip()
        if not text:
            continue
        if text in ("c", "crystal"):
            runtime.press("crystal")
        elif text in ("y", "confirm", "ok"):
            runtime.press("confirm")
        elif text in ("u", "undo"):
            runtime.press("undo")
        elif text == "pin":
            runtime.confirm_held()
        elif text in ("?", "state"):
            runtime.say(describe_expect(runtime.table))
        else:
            runtime.tap(text)


def make_server(
    runtime: Runtime, host: str, port: int, threads: int | None = None, heartbeat: float | None = None
) -> Any:
    """The page's HTTP server: waitress, a production WSGI server (`companion.http_server`).

    Each live page holds a worker thread for its event stream: the pool has room for
    the configured live pages (``[table] live_pages``; more pages poll) and spare
    threads for everything else. A page that reads slower than the game moves must
    not make the server buffer snapshot after snapshot for it: past 256 KiB of
    pending output its stream waits, and then sends only the latest state.
    """
    from companion.http_server import SPARE_THREADS, create_guarded_server
    from companion.web import HEARTBEAT, MAX_BODY, create_app

    app = create_app(runtime, heartbeat=HEARTBEAT if heartbeat is None else heartbeat)
    threads = threads or runtime.config.table.live_pages + SPARE_THREADS
    # Live streams may never take every thread, whatever the pool's size: a smaller
    # pool (a test's, a benchmark's) keeps at least two for pages, polls and controls.
    streams = app.config["STREAMS"]
    streams.total = max(1, min(streams.total, threads - 2))
    server = create_guarded_server(
        app,
        host,
        port,
        threads,
        ident="trekking-companion",
        outbuf_high_watermark=256 * 1024,
        max_request_body_size=MAX_BODY + 1,  # waitress refuses a body of this size or more
    )
    server.stream_slots = streams  # what the caps came to (the tests read it)
    return server


#: A port in use at start is retried this long, every `BIND_RETRY_EVERY` seconds: at boot
#: the program that held it (an old companion still stopping, another service) may be leaving.
BIND_RETRY_SECONDS = 60.0
BIND_RETRY_EVERY = 2.0


class PortBusy(Exception):
    """The port stayed in use for the whole retry window (a fault that may pass, unlike a setting)."""


def serve_when_free(
    runtime: Runtime,
    host: str,
    port: int,
    stop: threading.Event,
    retry_for: float | None = None,
    every: float | None = None,
) -> bool:
    """`serve`, trying again while the port is in use (said once); False if ``stop`` came first.

    Raises `PortBusy` when the port is still in use after ``retry_for`` seconds; any other
    failure to listen (an address this machine does not have, a port it may not use) is a
    setting, raised at once as the OSError it is."""
    import errno

    retry_for = BIND_RETRY_SECONDS if retry_for is None else retry_for
    every = BIND_RETRY_EVERY if every is None else every
    deadline = time.monotonic() + retry_for
    waited = False
    while True:
        try:
            serve(runtime, host, port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            if not waited:
                runtime.say(
                    f"Port {port} is in use ({exc.strerror}): trying again every {every:.0f} s for "
                    f"{retry_for:.0f} s (another program holds it; the table goes on meanwhile)."
                )
            waited = True
            if time.monotonic() >= deadline:
                raise PortBusy(
                    f"port {port} is still in use after {retry_for:.0f} s ({exc.strerror}): another program "
                    f"holds it (sudo ss -ltnp 'sport = :{port}' names it); stop it, or choose another port "
                    "with [table] port or --port"
                ) from None
        else:
            if waited:
                runtime.say(f"Port {port} is free: serving the page.")
            return True
        if stop.wait(every):
            return False


def serve(runtime: Runtime, host: str, port: int) -> None:
    """Run the HTTP API in the background until the process ends."""
    runtime.port, runtime.listen = port, host
    server = make_server(runtime, host, port)
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    runtime.threads.append(thread)
    url, *others = runtime.join_urls()
    runtime.say(
        f"The table is at {url} (table PIN {runtime.pin}; `companion pin` prints it, and holding "
        "Confirm on the table shows it on the ring). Scan to join:"
    )
    try:
        import io

        import segno

        drawing = io.StringIO()
        segno.make(url, error="m").terminal(out=drawing, compact=True)
        runtime.say(drawing.getvalue())
    except Exception:  # a terminal without the block characters: the address above suffices
        pass
    if others:
        runtime.say("Also: " + ", ".join(others) + " (the .local name where mDNS works; localhost on this "
                    "machine only).")  # fmt: skip
