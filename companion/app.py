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
import hashlib
import logging
import os
import random
import secrets
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.buttons import Buttons, MockButtons
from companion.config import Config
from companion.editions import EditionNotFound
from companion.engine import EditionError
from companion.library import EditionLibrary, edition_setup_value
from companion.reader import ReaderLoop, TagDebouncer, TagResolver, open_pi_reader
from companion.record import RECORD_FORMAT, RecordError
from companion.ring import RGB, RingDriver, RingLayout, SimulatedRing, ansi, open_ring, render, view_of
from companion.store import Store
from companion.table import CUE_ACCEPT, CUE_REJECT, Outcome, Table

DEFAULT_DATA_DIR = Path(os.environ.get("COMPANION_DATA_DIR", Path.home() / ".local/share/trekking-companion"))

log = logging.getLogger("companion")


class GameSetupError(ValueError):
    """``companion new`` was asked for something impossible; the message says what."""


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
    names = [p.strip() for p in players if p.strip()]
    if not 1 <= len(names) <= 4:
        raise GameSetupError(f"a game has 1 to 4 players, not {len(names)} ({', '.join(names) or 'none'})")
    if len(set(names)) != len(names):
        raise GameSetupError("two players share a name; give each a different one")
    palette = list(colours or config.palette)
    if len(palette) < len(names):
        raise GameSetupError(f"{len(names)} players need {len(names)} colours, got {len(palette)}")
    library = EditionLibrary(store.path.parent)
    ed, kept = edition_setup_value(library, edition if edition is not None else library.default())
    if ed.itineraries and len(ed.itineraries) < 3 * len(names):
        raise GameSetupError(f"the {ed.name} edition has too few itineraries for {len(names)} players")
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
    store: Store
    table: Table
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
    #: The last tag the reader saw that maps to no card (for enrolling it from the page).
    unknown_tag: str | None = None
    #: While the host transcribes an edition, taps go to it instead of the game
    #: (`companion.edition_web`); it returns True when it took the tap.
    capture: Callable[[str], bool] | None = None

    @functools.cached_property
    def secret_key(self) -> bytes:
        """The session-signing key, made once per data directory and kept private to it."""
        path = self.store.path.parent / "secret.key"
        if not path.exists():
            path.touch(mode=0o600)
            path.write_bytes(secrets.token_bytes(32))
        return path.read_bytes()

    @functools.cached_property
    def pin_epoch(self) -> str:
        """Changes when the PIN changes, so a page logged in with an old PIN is logged out."""
        return hashlib.sha256(self.secret_key + self.pin.encode()).hexdigest()[:16]

    def join_url(self, request_host: str = "") -> str:
        """The address phones should open: the host's .local name (mDNS) and our port."""
        host = request_host.split(":")[0]
        if host and host not in ("localhost", "127.0.0.1", "::1", "[::1]"):
            return f"http://{request_host}/"
        return f"http://{_hostname()}.local:{self.port}/"

    def tap(self, seen: str) -> Outcome:
        """A tag (UID, card id or title) reached the reader."""
        capture = self.capture
        if capture is not None and capture(seen.strip()):
            return Outcome(True, f"Tag {seen.strip()} read for the edition being transcribed.", CUE_ACCEPT)
        ref, why = self.resolver.resolve(seen)
        if ref is None:  # perhaps enrolled since start (companion enroll runs beside us)
            self.resolver.tags = self.store.tags()
            ref, why = self.resolver.resolve(seen)
        if ref is None:
            self.unknown_tag = seen.strip()  # the page's enrolment form offers it
            outcome = Outcome(False, why, CUE_REJECT, "unknown_tag")
            with self.table.lock:
                return self.table._emit(outcome)
        return self.table.tap(ref)

    def press(self, name: str) -> Outcome:
        """A button press; in mock mode through gpiozero's mock pins, like a finger."""
        before = self.table.last
        if isinstance(self.buttons, MockButtons):
            self.buttons.press(name)
            after = self.table.last
            return (
                after if after is not before else Outcome(False, "The press was not registered.", CUE_REJECT)
            )
        return self.table.press(name)

    def press_now(self, name: str) -> Outcome:
        return self.table.press(name)

    def switch_game(self, game_id: int) -> None:
        """Put another stored game on the table (a new game started from the page)."""
        old = self.table
        table = Table(self.store, self.store.load(game_id), log=self.say)
        table.listeners.extend(old.listeners)
        table.version = old.version + 1
        self.table = table
        self.driver.table = table
        self.resolver.edition = table.board.edition
        with old.lock:
            old.version += 1  # wake live pages waiting on the old game
        old.wake()

    def ring_frame(self) -> list[RGB]:
        return self.ring.shown if isinstance(self.ring, SimulatedRing) else self.driver.last

    def start(self) -> None:
        for target, name in (
            (self.driver.run, "ring"),
            *(((self.reader.run, "reader"),) if self.reader else ()),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        self.driver.stop()
        if self.reader is not None:
            self.reader.stop()
        if self.buttons is not None:
            self.buttons.close()
        self.store.close()


def build_runtime(
    config: Config,
    data_dir: Path,
    mock: bool,
    pin: str | None = None,
    say: Callable[[str], None] = print,
    clock: Callable[[], float] = time.monotonic,
) -> Runtime:
    """Open the store, resume (or start) a game, and choose the adapters."""
    store = Store(data_dir)
    game_id = store.latest_unfinished()
    stored = None
    if game_id is not None:
        try:
            stored = store.load(game_id)
        except (RecordError, EditionError, EditionNotFound) as exc:
            # An old game naming an edition file that is gone (or a path, which is no
            # longer read): keep it on disk, say why, and start a new one.
            store.mark_finished(game_id, True)
            say(f"Game {game_id} cannot be resumed ({exc}); it is kept (companion export {game_id}).")
    if stored is None:
        game_id = new_game(store, ["Blue", "Orange"], config, mock=mock)
        say(f"No game in progress: started game {game_id} for Blue and Orange "
            "(start another with `companion new --players A,B,...`).")  # fmt: skip
        stored = store.load(game_id)
    table = Table(store, stored, log=say)
    settings = config.ring
    layout = RingLayout(settings.leds, settings.twelve_oclock_led, settings.direction == "clockwise")
    ring: Any = SimulatedRing(settings.leds, settings.brightness) if mock else open_ring(settings)
    driver = RingDriver(table, ring, layout, settings, clock, on_error=say)
    resolver = TagResolver(table.board.edition, store.tags())
    table_pin = pin or config.table.pin or f"{secrets.randbelow(10**4):04d}"
    buttons: Buttons | None = None
    runtime = Runtime(config, store, table, mock, table_pin, layout, ring, driver, buttons, resolver, say=say)
    # Buttons press whatever game is on the table now (the page can start a new one).
    press = runtime.press_now
    runtime.buttons = MockButtons(config.buttons, press) if mock else Buttons(config.buttons, press)
    if not mock:
        attach_reader(runtime, *open_pi_reader(config.reader.rst_pin))
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
        ref, _ = runtime.resolver.resolve(uid)
        if ref is None:  # not enrolled: maybe the tag carries its card id in its text
            text = read_text()
            runtime.tap(text if text and runtime.resolver.resolve(text)[0] else uid)
        else:
            runtime.tap(uid)

    runtime.reader = ReaderLoop(
        read_uid, on_tag, settings.poll_interval, TagDebouncer(settings.debounce), clock=clock,
        on_error=lambda exc: runtime.say(f"reader: {exc}"),
    )  # fmt: skip
    return runtime.reader


def _print_ring(runtime: Runtime) -> Callable[[Table, Outcome], None]:
    def show(table: Table, outcome: Outcome) -> None:
        view = view_of(table, time.monotonic())
        runtime.say("ring " + ansi(render(view, runtime.layout, 0.0)))

    return show


KEYS_HELP = (
    "Type a card id or the start of its title to tap it; c = Crystal, y = Confirm, u = Undo, ? = state."
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
        elif text in ("?", "state"):
            expect = runtime.table.expect()
            runtime.say(f"waiting for: {expect}")
        else:
            runtime.tap(text)


def make_server(
    runtime: Runtime, host: str, port: int, threads: int = 48, heartbeat: float | None = None
) -> Any:
    """The page's HTTP server: waitress, a production WSGI server.

    Each live page holds a worker thread for its event stream (48 threads: room for
    40 pages). A page that reads slower than the game moves must not make the
    server buffer snapshot after snapshot for it: past 256 KiB of pending output
    its stream waits, and then sends only the latest state.
    """
    from waitress import create_server

    from companion.web import HEARTBEAT, create_app

    app = create_app(runtime, heartbeat=HEARTBEAT if heartbeat is None else heartbeat)
    return create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="trekking-companion",
        outbuf_high_watermark=256 * 1024,
    )


def serve(runtime: Runtime, host: str, port: int) -> None:
    """Run the HTTP API in the background until the process ends."""
    runtime.port = port
    server = make_server(runtime, host, port)
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    runtime.threads.append(thread)
    url = runtime.join_url()
    runtime.say(f"The table is at {url} (table PIN {runtime.pin}). Scan to join:")
    try:
        import io

        import segno

        drawing = io.StringIO()
        segno.make(url, error="m").terminal(out=drawing, compact=True)
        runtime.say(drawing.getvalue())
    except Exception:  # a terminal without the block characters: the address above suffices
        pass


def _hostname() -> str:
    import socket

    return socket.gethostname().split(".")[0]
