"""One writer for every live page (``GET /api/events``) served by waitress.

A thread per page that wakes at every change, fetches the snapshot and hands it to
waitress cost the daemon, at 20 phones, as much as the step itself (docs/benchmarks.md has
the figures). Here a page's own server thread sends the first snapshot and
hands the connection over (`companion.web.http_server.GuardedChannel.hand_over`): the
thread is free again, and waitress's event loop, which walks every connection it holds
several times a request, no longer walks the page's. The `Broadcaster` owns the socket
from then on: one thread writes each new snapshot (made by the change's own thread while
pages watch, `companion.table.snapshot.Snapshots.wake`; framed once, `SseMessages`) and the
heartbeats to every page, another watches the sockets (a page gone, output drained).

Each message is written as one HTTP/1.1 chunk, as waitress frames what an application
yields for a response without a length, and the response ends as waitress ends it (the
last chunk when the server closes it; nothing more to a page gone). A page whose output
is still waiting past `BACKLOG` is skipped until it drains: it gets the latest snapshot
then, never a backlog; output no byte of which is taken for `SEND_SECONDS` closes it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.web.ports import TableRuntime

log = logging.getLogger("companion.web.live_streams")

Done = Callable[[], None]
#: What takes a page's connection (`companion.web.http_server.Taker`, not imported: waitress).
Taker = Callable[[socket.socket | None, bytes, Done], Done]

#: Output a page's connection may still hold unsent before it is skipped (a few snapshots).
BACKLOG = 64 * 1024
HEARTBEAT_MESSAGE = b": heartbeat\n\n"
#: The end of a chunked response (what waitress writes when a response's iterator ends).
LAST_CHUNK = b"0\r\n\r\n"


def sse(event_id: str, data: str) -> str:
    """One Server-Sent Events message carrying a snapshot."""
    return f"id: {event_id}\nevent: state\ndata: {data}\n\n"


def chunk(data: bytes) -> bytes:
    """``data`` as one HTTP/1.1 chunk (what waitress writes for each piece a response yields)."""
    return b"%X\r\n%s\r\n" % (len(data), data)


HEARTBEAT_CHUNK = chunk(HEARTBEAT_MESSAGE)


class SseMessages:
    """The latest snapshot as one Server-Sent Events message, encoded once per version
    however many live pages send it (each would otherwise copy and encode ~17 KB), and
    framed as a chunk once for the broadcaster."""

    def __init__(self) -> None:
        self.latest: tuple[int, str, bytes] | None = None  # replaced whole, never changed in place
        self.framed: tuple[int, str, bytes] | None = None  # `latest` as one chunk

    def message(self, runtime: TableRuntime, boot: str) -> tuple[int, str, bytes]:
        """The table's latest snapshot: its version, event id ("<boot>-<version>") and message."""
        version, data = runtime.page_text()
        event_id = f"{boot}-{version}"
        latest = self.latest
        if latest is None or latest[1] != event_id:
            latest = self.latest = (version, event_id, sse(event_id, data).encode())
        return latest

    def chunked(self, runtime: TableRuntime, boot: str) -> tuple[int, str, bytes]:
        """`message`, its message framed as one HTTP/1.1 chunk (`chunk`)."""
        latest = self.message(runtime, boot)
        framed = self.framed
        if framed is None or framed[1] != latest[1]:
            framed = self.framed = (latest[0], latest[1], chunk(latest[2]))
        return framed


def _nothing() -> None:
    pass


@dataclass(eq=False)
class Page:
    """A live page the broadcaster writes to: its socket, what it was sent, what waits."""

    sock: socket.socket
    sent: str
    quiet_since: float
    #: Called once the socket is closed (gives back the page's slot and its connection).
    on_close: Callable[[], None] = _nothing
    #: Output the socket has not taken yet, in order.
    pending: bytearray = field(default_factory=bytearray)
    #: Since when `pending` has waited without the page taking a byte of it.
    drained_at: float = 0.0
    closed: bool = False

    def write(self, framed: bytes, now: float) -> bool:
        """Write ``framed`` (a whole chunk, `chunk`) now, unless the page is still draining
        more than `BACKLOG`; what the socket does not take waits, after what waited already.
        Raises OSError if the connection failed."""
        if len(self.pending) > BACKLOG:
            return False
        if self.pending:
            self.pending += framed
            return True
        try:
            sent = self.sock.send(framed)
        except BlockingIOError:
            sent = 0
        if sent < len(framed):
            self.pending += framed[sent:]
            self.drained_at = now  # output starts waiting now
        return True

    def flush(self, now: float) -> None:
        """Send what waits, as much as the socket takes (raises OSError if it failed)."""
        try:
            sent = self.sock.send(self.pending)
        except BlockingIOError:
            sent = 0
        if sent:
            del self.pending[:sent]
            self.drained_at = now


class Broadcaster:
    """The threads that write snapshots and heartbeats to every page handed over and watch
    their sockets; they run while there are pages and start again with the next one."""

    def __init__(
        self, runtime: TableRuntime, messages: SseMessages, boot: str, interval: float, heartbeat: float
    ):
        self.runtime, self.messages, self.boot = runtime, messages, boot
        self.interval, self.heartbeat = interval, heartbeat
        self.lock = threading.Lock()  # the pages, their sockets and the selector
        self.pages: dict[int, Page] = {}  # by the socket's file descriptor
        self.thread: threading.Thread | None = None  # the writer
        self.watcher: threading.Thread | None = None
        self.selector: selectors.BaseSelector | None = None
        #: When a page last joined: it may have been sent a snapshot older than the latest
        #: one while the writer waited, so the wait is short for a while after.
        self.joined_at = -math.inf

    def take(self, sent: str, on_close: Callable[[], None]) -> Taker:
        """What hands a page's connection to this broadcaster (`GuardedChannel.hand_over`):
        ``sent`` is the event id it was sent already, ``on_close`` is called once its socket
        is closed."""

        def taker(sock: socket.socket | None, pending: bytes, closed: Done) -> Done:
            def released() -> None:
                closed()
                on_close()

            if sock is None:  # the page went away before it was handed over
                released()
                return _nothing
            page = self.add(sock, sent, pending, released)
            return lambda: self.drop(page, end=True)

        return taker

    def add(
        self, sock: socket.socket, sent: str, pending: bytes = b"", on_close: Callable[[], None] = _nothing
    ) -> Page:
        """Own ``sock``, a page's connection sent ``sent`` (an event id) already, and
        ``pending`` (output not sent yet)."""
        now = time.monotonic()
        page = Page(sock, sent, now, on_close, bytearray(pending), now)
        sock.setblocking(False)
        with self.lock:
            if self.selector is None:
                self.selector = selectors.DefaultSelector()
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if pending else 0)
            self.selector.register(sock, events, page)
            self.pages[sock.fileno()] = page
            self.joined_at = now
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="live-pages", daemon=True)
                self.thread.start()
            if self.watcher is None:
                self.watcher = threading.Thread(target=self.watch, name="live-pages-watch", daemon=True)
                self.watcher.start()
        return page

    def drop(self, page: Page, end: bool = False) -> None:
        """Close a page's connection (``end``: with the response's last chunk, as waitress
        ends a response when the server closes) and give back what it held."""
        with self.lock:
            if page.closed:
                return
            page.closed = True
            fd = page.sock.fileno()
            self.pages.pop(fd, None)
            if self.selector is not None:
                self.selector.unregister(page.sock)
            if end:
                with contextlib.suppress(OSError):  # best effort, as the socket takes it now
                    page.sock.send(bytes(page.pending) + LAST_CHUNK)
            page.sock.close()
        page.on_close()

    def _watch_writes(self, page: Page) -> None:
        """Watch ``page``'s socket for room when output waits, only for its going away else
        (under `lock`)."""
        if self.selector is not None and not page.closed:
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if page.pending else 0)
            if self.selector.get_key(page.sock).events != events:
                self.selector.modify(page.sock, events, page)

    def watch(self) -> None:
        """Wait on every page's socket: a page gone is closed at once, waiting output is
        sent as soon as the page takes it."""
        while True:
            with self.lock:
                selector = self.selector
                if not self.pages or selector is None:
                    self.watcher = None
                    if self.thread is None and selector is not None:
                        selector.close()
                        self.selector = None
                    return
            try:
                ready = selector.select(1.0)
            except (OSError, ValueError):  # closed meanwhile: the next turn sees why
                continue
            try:
                self._serve(ready)
            except Exception:  # a fault here must not leave every page unwatched for good
                log.exception("live pages: watching the sockets failed")
                time.sleep(0.1)

    def _serve(self, ready: list[tuple[selectors.SelectorKey, int]]) -> None:
        """Close the pages gone, send what waits to those with room (`watch`)."""
        now = time.monotonic()
        for key, events in ready:
            page: Page = key.data
            gone = False
            with self.lock:
                if page.closed:
                    continue
                try:
                    if events & selectors.EVENT_READ:
                        # a page sends nothing after its request: this is its end
                        # (or bytes it should not send, read and dropped)
                        gone = not page.sock.recv(65536)
                    if not gone and events & selectors.EVENT_WRITE and page.pending:
                        page.flush(now)
                        self._watch_writes(page)
                except BlockingIOError:
                    pass
                except OSError:
                    gone = True
            if gone:
                self.drop(page)

    def _write_to(
        self, page: Page, change: tuple[str, bytes], now: float, stuck: float, failed: list[Page]
    ) -> bool:
        """Write the ``change`` (its event id and message) to ``page`` if it has not had it, or a
        heartbeat if it has been quiet long enough; a page whose output has waited since
        ``stuck`` goes to ``failed``. True if the change went out (under `lock`)."""
        event_id, message = change
        sent = False
        if page.pending and page.drained_at <= stuck:
            failed.append(page)  # it takes nothing: as waitress's sweep closes it
        elif page.sent != event_id:
            if page.write(message, now):
                page.sent, page.quiet_since, sent = event_id, now, True
        elif now - page.quiet_since >= self.heartbeat and page.write(HEARTBEAT_CHUNK, now):
            page.quiet_since = now
        if page.pending:
            self._watch_writes(page)
        return sent

    def run(self) -> None:
        """Write the latest snapshot to every page that has not had it, after each change,
        and heartbeats to the quiet ones; close a page whose output waits too long."""
        sent_at = -math.inf
        while True:
            with self.lock:
                if not self.pages:
                    self.thread = None
                    if self.watcher is None and self.selector is not None:
                        self.selector.close()
                        self.selector = None
                    return
            pause = sent_at + self.interval - time.monotonic()
            if pause > 0:  # a snapshot just went out: send the latest one a moment later
                time.sleep(pause)
            try:
                version, event_id, message = self.messages.chunked(self.runtime, self.boot)
            except Exception:  # the pages keep what they have; the next turn tries again
                log.exception("live pages: the snapshot failed")
                time.sleep(1.0)
                continue
            from companion.web.http_server import SEND_SECONDS  # read each pass: tests shorten it

            now = time.monotonic()
            failed: list[Page] = []
            heartbeat, quietest, stuck = self.heartbeat, now, now - SEND_SECONDS
            with self.lock:
                for page in list(self.pages.values()):
                    try:
                        if self._write_to(page, (event_id, message), now, stuck, failed):
                            sent_at = now
                    except OSError:  # the connection failed
                        failed.append(page)
                    quietest = min(quietest, page.quiet_since)
            for page in failed:
                self.drop(page)
            # a change (or a new game) wakes this wait; a second at most, so heartbeats
            # and output waiting too long are seen in time
            wait = min(1.0, max(0.0, quietest + heartbeat - now))
            if now - self.joined_at < 1.0:
                wait = min(wait, self.interval)
            self.runtime.wait_for_change(version, max(wait, 0.01))
