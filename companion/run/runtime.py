"""`Runtime`: the running table's adapters and inputs, behind the web layer's port.

It implements `companion.web.ports.TableRuntime` for the page and holds what `companion run`
starts (the session, the ring's driver, the buttons, the reader loop, the access guard and
the coach). `companion.run.startup` builds it; the page reaches it only through the port.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.coach.service import CoachService
from companion.engine import Edition
from companion.hardware.buttons import Buttons, MockButtons
from companion.hardware.health import Health
from companion.hardware.reader import MockReader, ReaderLoop
from companion.hardware.ring import RGB, RingDriver, RingLayout, SimulatedRing, brightness_now, dimmed
from companion.hardware.ring_pin import pin_frame
from companion.hardware.supervise import SupervisedButtons
from companion.run.console_lines import ConsoleLines
from companion.store.log import Store
from companion.table import CUE_ACCEPT, CUE_REJECT, Outcome, Table
from companion.table.access import Access, session_key
from companion.table.seats import Seats
from companion.table.session import Session
from companion.table.tags import TagResolver
from companion.util.config import Config
from companion.util.lan import addresses, is_local_only, lan_ip
from companion.util.text import printable
from companion.util.wording import say

if TYPE_CHECKING:  # the history is read when a page asks for it, not at start
    from companion.history.past import History, Replays


@dataclass
class Runtime:
    """Everything `companion run` starts, with the inputs the page and tests use."""

    config: Config
    #: The current game and what outlives it (listeners, snapshot extras): `companion.table.session`.
    session: Session
    mock: bool
    pin: str
    layout: RingLayout
    ring: Any
    driver: RingDriver
    buttons: Buttons | None
    resolver: TagResolver
    reader: ReaderLoop | None = None
    #: Mock mode's reader, which the console and the page tap (its loop is ``reader``).
    mock_reader: MockReader | None = None
    threads: list[threading.Thread] = field(default_factory=list)
    say: Callable[[str], None] = print
    port: int = 8080
    #: The address the HTTP server listens on (loopback: the page is for this machine only).
    listen: str = "0.0.0.0"
    #: The last tag the reader saw that maps to no card (for enrolling it from the page).
    unknown_tag: str | None = None
    #: The PIN, its guessing limits and the host sessions (`companion.table.access`).
    access: Access = field(init=False)
    #: The host's coach (off until switched on; `companion.coach.service`).
    coach: CoachService = field(init=False)

    def __post_init__(self) -> None:
        self.access = Access.for_pin(self.pin, self.store.path.parent)
        seats = Seats(self.store.path.parent / "seats.json")  # kept across a restart, as sessions are
        self.coach = CoachService(
            lambda: self.table, say=self.say, assisted=self.store.mark_assisted, seats=seats
        )
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
    #: (`companion.web.editions`); it returns True when it took the tap.
    capture: Callable[[str], bool] | None = None
    #: The venue's outbox (`companion.venue.publisher.VenuePublisher`) when ``[venue]`` is set.
    venue: Any = None

    def venue_status(self) -> dict[str, Any] | None:
        """``venue`` in ``GET /api/state``: the table id and whether the broker is reachable."""
        return None if self.venue is None else dict(self.venue.status())

    @functools.cached_property
    def secret_key(self) -> bytes:
        """The session-signing key, made once per data directory and kept private to it."""
        return session_key(self.store.path.parent)

    def join_url(self, request_host: str = "") -> str:
        """The address phones should open: the one this page was reached by, if a phone
        could use it too; else this machine's LAN address (an mDNS name does not resolve
        everywhere), see `companion.util.lan`."""
        host = request_host.rsplit(":", 1)[0] if not request_host.endswith("]") else request_host
        if host and not is_local_only(host):
            return f"http://{request_host}/"
        return self.join_urls()[0]

    def join_urls(self) -> list[str]:
        """Every address of the page, best for a phone first (LAN IP, mDNS name, localhost)."""
        return addresses(self.port, self.listen, lan_ip())

    def tap(self, seen: str) -> Outcome:
        """A tag tapped at the table: in mock mode on `MockReader`, like a hand (its loop polls
        it and calls `tap_now`), as `press` presses gpiozero's mock pins; else `tap_now` itself."""
        if self.mock_reader is not None:
            outcome = self.mock_reader.tap(seen)
            assert isinstance(outcome, Outcome)
            return outcome
        return self.tap_now(seen)

    def tap_now(self, seen: str, read_text: Callable[[], str | None] | None = None) -> Outcome:
        """A tag (UID, card id or title) reached the reader: the one route of every tap, the
        `ReaderLoop`'s on a Pi and in mock mode alike. It is Home Assistant's tag scan when
        ``[venue] tag_scans`` says so; then the host's capture takes it, else it is resolved
        once (`companion.table.tags`) and the table gets the resolved reference."""
        with self.lines_held():
            if self.venue is not None:
                self.venue.tag_scanned(seen)
            captured = self.captured(seen)
            if captured is not None:
                return captured
            ref, why = self.resolve(seen)
            text = read_text() if ref is None and read_text is not None else None
            if text:
                from_text, why_text = self.resolve(text)
                if from_text is not None:
                    return self.tap_resolved(text, from_text, why_text)
            return self.tap_resolved(seen, ref, why)

    def lines_held(self) -> AbstractContextManager[None]:
        """While an input is handled, its console lines are written at once when it is done
        (`ConsoleLines`, which `companion run` says through)."""
        say = self.say
        return say.held() if isinstance(say, ConsoleLines) else nullcontext()

    def captured(self, seen: str) -> Outcome | None:
        """The tag taken by the edition being transcribed (the host's page asked for it), if so."""
        capture = self.capture
        if capture is None or not capture(seen.strip()):
            return None
        captured = {"tag": seen.strip()}
        return Outcome(True, say("tag_captured", **captured), CUE_ACCEPT, "tag_captured", params=captured)

    def resolve(self, seen: str) -> tuple[str | None, dict[str, str]]:
        """What a tag stands for: (reference, {}) or (None, why not: the ``unknown_tag``
        outcome's params, `TagResolver.resolve`). A tag enrolled since
        the start (`companion enroll` runs beside us) is found by reading the tags again."""
        ref, why = self.resolver.resolve(seen)
        if ref is None:
            self.resolver.tags = self.store.tags()
            ref, why = self.resolver.resolve(seen)
        return ref, why

    def tap_resolved(self, seen: str, ref: str | None, why: Mapping[str, str]) -> Outcome:
        """A tag already resolved (``ref``, or None and ``why``: the refusal's params) reaches the table."""
        if ref is None:
            self.unknown_tag = seen.strip()  # the page's enrolment form offers it
            facts = {"tag": seen.strip(), "why": "unknown", **why}
            outcome = Outcome(False, say("unknown_tag", **facts), CUE_REJECT, "unknown_tag", params=facts)
            return self.session.emit(outcome)
        return self.table.tap(ref)

    def press(self, name: str) -> Outcome:
        """A button press; in mock mode through gpiozero's mock pins, like a finger."""
        with self.lines_held():
            before = self.table.last
            if isinstance(self.buttons, MockButtons):
                self.buttons.press(name)
                after = self.table.last
                return (
                    after
                    if after is not before
                    else Outcome(False, say("press_lost"), CUE_REJECT, "press_lost")
                )
            return self.table.press(name)

    def press_now(self, name: str) -> Outcome:
        with self.lines_held():
            return self.table.press(name)

    def confirm_held(self) -> None:
        """Confirm held at the table: the ring shows the PIN and PIN lockouts are cleared."""
        self.access.guard.reset()
        start = self.driver.clock()
        pin = self.pin
        self.driver.overlay = lambda now: pin_frame(pin, self.layout, now - start)
        self.say(say("pin_shown"))

    def start_game(
        self, players: list[str], colours: list[str] | None, edition: str, seed: int | None
    ) -> int:
        """A new game from the page, put on the table at once (one at a time: `Session`), and
        said on the console."""
        game = self.session.start_game(players, colours, edition, seed)
        self.say(say("game_from_page", game=game, players=", ".join(self.table.board.names)))
        return game

    def seats(self, players: list[str], colours: list[str | None] | None) -> list[dict[str, Any]]:
        from companion.table.game_setup import seats_of
        from companion.util.text import player_name

        names = [name for name in map(player_name, players) if name]
        seat_colours, markers, _keep = seats_of(self.store, names, self.config, colours)
        return [
            {"name": n, "colour": c, "marker": m}
            for n, c, m in zip(names, seat_colours, markers, strict=True)
        ]

    # --- the port's intents and answers (`companion.web.ports.TableRuntime`) ----------------------

    @property
    def data_dir(self) -> Path:
        return self.store.path.parent

    def state(self) -> dict[str, Any]:
        return self.table.state_json()

    def page_text(self) -> tuple[int, str]:
        return self.table.page_text()

    def state_text(self) -> str:
        return self.table.state_text()

    def hardware_text(self) -> str:
        return self.health.as_json_text()

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

    def switch_coach(self, on: bool, everyone: bool | None = None) -> None:
        self.coach.switch(on, everyone)

    def ask_coach(self, player: str, phone: str) -> dict[str, Any]:
        return self.coach.ask(player, phone)

    def coach_advice(self, phone: str | None) -> dict[str, Any]:
        return self.coach.advice(phone)

    def coach_seat(self, phone: str | None) -> dict[str, Any]:
        return self.coach.seat(phone)

    def take_seat(self, player: str, phone: str) -> dict[str, Any]:
        return self.coach.take_seat(player, phone)

    def release_seat(self, player: str) -> bool:
        return self.coach.release(player)

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
        from companion.table.enrol import enroll_tag

        return enroll_tag(self.store, self.edition(), own_file, uid, card, values)

    def history(self, replays: Replays) -> History:
        from companion.history.past import load_history

        return load_history(self.store, replays)

    def history_version(self) -> int:
        return self.store.history_version

    def story(self, game_id: int) -> dict[str, Any]:
        from companion.history.past import game_story

        return game_story(self.store, game_id)

    def set_rate_assisted(self, include: bool) -> None:
        self.store.set_rate_assisted(include)

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
            level = self.driver.level if self.driver.level >= 0 else brightness_now(self.driver.settings)
            return dimmed(frame, level)  # as the simulated ring shows it
        return ring.shown if isinstance(ring, SimulatedRing) else self.driver.last

    def start(self) -> None:
        for target, name in (
            (self.driver.run, "ring"),
            *(((self.reader.run, "reader"),) if self.reader and not self.reader_is_mock() else ()),
            *(((self.button_keeper.run, "buttons"),) if self.button_keeper else ()),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self.threads.append(thread)
        if self.venue is not None:
            self.venue.start()  # connects in the background: the table never waits for the broker

    def reader_is_mock(self) -> bool:
        """The reader polls `MockReader`, whose hand polls it: it needs no thread."""
        return self.mock_reader is not None and self.reader is self.mock_reader.loop

    def stop(self) -> None:
        self.coach.stop()
        self.driver.stop()
        if self.reader is not None:
            self.reader.stop()
        if self.button_keeper is not None:
            self.button_keeper.close()
        elif self.buttons is not None:
            self.buttons.close()
        if self.venue is not None:
            self.venue.stop()  # delivers what it can in a moment, says offline; the rest goes next run
        self.session.stream.close(timeout=2.0)  # the hooks tell what is queued, then stop
        self.store.close()
