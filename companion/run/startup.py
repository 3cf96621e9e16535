"""`companion run`'s start-up: open the store, resume (or start) a game, choose the adapters.

As gpiozero chooses its pin factories: on a Raspberry Pi the real reader, ring and buttons;
anywhere else (or with ``--mock``) the simulated ones and a dealer that reveals the cards it
shuffled. The store, the engine and the HTTP API are the same in both.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from companion.editions import EditionLibrary, EditionNotFound
from companion.engine import EditionError
from companion.hardware.buttons import Buttons, MockButtons
from companion.hardware.health import PARTS, Health
from companion.hardware.reader import MockReader, ReaderLoop, TagDebouncer, open_mfrc522
from companion.hardware.ring import RingDriver, RingLayout, SimulatedRing
from companion.hardware.ring_spi import open_spi_ring
from companion.hardware.supervise import SupervisedButtons, SupervisedReader
from companion.records.trekking import TREKKING, RecordError
from companion.run.runtime import Runtime
from companion.store.damage import DamageNotice
from companion.store.log import DiskFull, GameDamaged, Store, StoredGame, StoreError, disk_full, no_room
from companion.table import CUE_REJECT, Outcome, Table
from companion.table.access import table_pin
from companion.table.game_setup import FIRST_PLAYERS, new_game, start_for_table
from companion.table.session import Session
from companion.table.tags import TagResolver
from companion.util.config import Config
from companion.util.retry import retried, sleep
from companion.util.text import printable
from companion.util.wording import say as words
from companion.util.wording import sentence


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
        say(words("store_warning", warning=printable(warning)))
    if store.upgraded:
        say(printable(sentence(store.upgraded)))
    orphans = EditionLibrary(data_dir).clean_orphans()
    if orphans:
        say(words("orphans_removed", n=len(orphans), files=printable(", ".join(orphans))))
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
            say(words("game_not_resumed", game=game_id, why=why))
    if stored is not None and stored.damage is not None:
        store.set_aside(stored.damage)  # the events before it are kept: the game goes on from there
    report_damage(store.damage, say)
    if stored is None:
        # first names that read the same in English and French (the page may be either)
        game_id = new_game(store, list(FIRST_PLAYERS), config, mock=mock)
        *first, last = FIRST_PLAYERS
        say(words("game_started", game=game_id, first=", ".join(first), last=last))
        stored = store.load(game_id)
    return the_pin, stored


def report_damage(notices: Iterable[DamageNotice], say: Callable[[str], None]) -> None:
    """Say each damage the checksums found and the host has not acknowledged yet, at every
    start: on the console (the journal under systemd), as the page shows it (``store`` in
    ``/api/state``) until a host acknowledges it."""
    for notice in notices:
        say(words("store_damaged_said", message=printable(notice.message), fix=notice.fix))


#: The refusals that say another companion holds the store: never taken for a full disk.
RUNNING = ("store_running", "store_running_pid")

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

    def first(exc: Exception) -> None:
        problem = sentence(str(exc))
        say(words("disk_retry", problem=problem, every=f"{every:.0f}", seconds=f"{retry_for:.0f}"))

    def full(exc: Exception) -> bool:
        return isinstance(exc, DiskFull)

    runtime = retried(build, full, retry_for, every, first, lambda: say(words("disk_again")), sleep)
    assert runtime is not None  # `sleep` never stops the wait
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
    """Open the store, resume (or start) a game, and choose the adapters. ``claim`` (`companion
    run`) marks the store as in use, so a second `run` or a `companion new` beside it refuses.
    A full disk is a `DiskFull`, never "damaged": the caller waits for space."""
    try:
        store = Store(data_dir, TREKKING)
    except StoreError as exc:
        if not isinstance(exc, DiskFull) and no_room(data_dir):  # see below
            raise DiskFull("store_full_open", folder=str(data_dir)) from None
        raise
    try:
        the_pin, stored = _open_game(store, config, data_dir, mock, pin, say, claim)
    except OSError as exc:  # the PIN file, the lock file: written in the data directory
        store.close()
        if disk_full(exc, data_dir):
            raise DiskFull("store_full_start", folder=str(data_dir)) from None
        raise StoreError("store_data_dir", path=str(data_dir), cause=str(exc)) from None
    except StoreError as exc:
        store.close()
        if not isinstance(exc, DiskFull) and exc.code not in RUNNING and no_room(data_dir):
            # whatever the store's words for it, a refusal on a disk with no room is retried
            # (exit 3, which systemd restarts) instead of exit 2, which keeps a Pi down
            raise DiskFull("store_full_start", folder=str(data_dir)) from None
        raise
    except BaseException:
        store.close()
        raise
    table = Table(store, stored, log=lambda message: say(printable(message)), turn=config.table.turn)
    if store.warnings:  # the page shows it too: the owner must hear that moves may be missing
        table.last = Outcome(False, f"Warning: {' '.join(store.warnings)}", CUE_REJECT, "store_damaged")
    settings = config.ring
    layout = RingLayout(settings.leds, settings.twelve_oclock_led, settings.direction == "clockwise")
    health = Health(say)
    ring: Any = SimulatedRing(settings.leds)
    driver = RingDriver(table, ring, layout, settings, clock, on_error=say, health=health)
    if mock:
        for part in PARTS:
            health.ok(part, "simulated (mock mode)", quiet=True)
    else:  # a part that does not open is reported and retried; the table starts anyway
        driver.opener = functools.partial(open_spi_ring, settings)
        driver.failed = True
        driver.reopen()
    resolver = TagResolver(table.board.edition, store.tags())
    starter = functools.partial(start_for_table, store, config, mock)
    venue = config.venue
    table_id = None
    if venue.broker:  # only then: a table without a venue imports nothing of it
        from companion.venue.topics import table_id as venue_table

        table_id = venue_table(venue.table)
    session = Session(store, table, starter, turn=config.table.turn, table_id=table_id)
    session.listen(driver.notify)  # the ring reads each change once, never polling the table
    session.on_table.append(driver.notify)
    session.on_table.append(lambda new: setattr(resolver, "edition", new.board.edition))
    buttons: Buttons | None = None
    runtime = Runtime(config, session, mock, the_pin, layout, ring, driver, buttons, resolver, say=say,
                      health=health)  # fmt: skip
    if venue.broker:
        from companion.venue.publisher import VenuePublisher

        runtime.venue = VenuePublisher(venue, session, runtime.log)
    # Buttons press whatever game is on the table now (the page can start a new one).
    press, held = runtime.press_now, runtime.confirm_held
    if mock:
        runtime.buttons = MockButtons(config.buttons, press, held)
        hand = runtime.mock_reader = MockReader()
        hand.loop = attach_reader(runtime, hand.read_uid, hand.read_text, clock)
    else:
        keeper = SupervisedButtons(
            functools.partial(Buttons, config.buttons, press, on_confirm_held=held), health
        )
        if keeper.try_open():
            runtime.buttons = keeper.buttons
        runtime.button_keeper = keeper
        opener = functools.partial(open_mfrc522, config.reader.rst_pin, config.reader.gain_db)
        reader = SupervisedReader(opener, health, clock)
        reader.read_uid()  # open it now, so the console says at once whether it answers
        attach_reader(runtime, reader.read_uid, reader.read_text, clock)
    checker = threading.Thread(
        target=check_finished_games, args=(store, say), name="finished-games", daemon=True
    )
    checker.start()  # beside the table, not before it: 500 games' rows take a while on a Pi
    runtime.threads.append(checker)
    return runtime


def check_finished_games(store: Store, say: Callable[[str], None]) -> None:
    """Check every finished game but the one on the table by its checksums: damage is
    copied aside and said on the console (the journal) and the page like the table's own. A
    store closed meanwhile (the companion stopping) ends the check; a refusal (a full disk for
    the copy) is said, and the next start checks again."""
    try:
        found = store.finished_damage()
    except StoreError as exc:
        say(words("store_warning", warning=printable(sentence(str(exc)))))
        return
    except sqlite3.Error:  # closed under the check: the companion is stopping
        return
    report_damage(found, say)


def attach_reader(
    runtime: Runtime,
    read_uid: Callable[[], str | None],
    read_text: Callable[[], str | None],
    clock: Callable[[], float] = time.monotonic,
) -> ReaderLoop:
    """Poll an RFID reader for the table: each debounced tap is `Runtime.tap_now` (with the
    reader's ``read_text`` for a tag that is not enrolled: its text may carry its card id)."""
    settings = runtime.config.reader
    runtime.reader = ReaderLoop(
        read_uid, functools.partial(runtime.tap_now, read_text=read_text), settings.poll_interval,
        TagDebouncer(settings.debounce), clock=clock, on_error=lambda exc: runtime.say(f"reader: {exc}"),
    )  # fmt: skip
    return runtime.reader
