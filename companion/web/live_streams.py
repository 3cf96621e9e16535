"""One writer for every live page (``GET /api/events``) served by waitress.

A thread per page that wakes at every change, fetches the snapshot and hands it to
waitress cost the daemon about 0.2 ms of CPU per page per step (issue 26): at 20 phones
as much as the step itself. Here a page's own server thread sends the first snapshot and
then only waits for its page to go away; one `Broadcaster` thread writes each new
snapshot (encoded once, `SseMessages`) and the heartbeats to every page's connection.

Each message is written as one HTTP/1.1 chunk, as waitress frames what an application
yields for a response without a length; the page's thread ends the response (waitress
writes the last chunk) only after the broadcaster has let go of its connection. A page
whose connection has output waiting is skipped until it drains: it gets the latest
snapshot then, never a backlog (waitress's deadline closes one that never drains).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.web.ports import TableRuntime

#: Output a page's connection may still hold unsent before it is skipped (a few snapshots).
BACKLOG = 64 * 1024
#: Seconds between a page's own thread's checks that its page is still there: the broadcaster
#: sees a page go away within a second and wakes it; this is only in case it did not.
GONE_CHECK = 30.0
HEARTBEAT_MESSAGE = b": heartbeat\n\n"


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


@dataclass(eq=False)
class Page:
    """A live page the broadcaster writes to: its waitress connection and what it was sent."""

    channel: Any
    sent: str
    quiet_since: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    closed: bool = False
    #: Set when the broadcaster can no longer write to it (the connection failed).
    done: threading.Event = field(default_factory=threading.Event)

    def write(self, framed: bytes) -> bool:
        """Write ``framed`` (a whole chunk, `chunk`) now, unless the page is closed or still
        draining.

        With nothing waiting on the connection (the usual case: a page reads what it is
        sent) the chunk goes straight to the socket, which takes it whole; only what it
        does not take goes through waitress's buffers and event loop. Through them every
        page's copy was copied twice more and woke the event loop, which walks every
        connection (issue 26)."""
        with self.lock:
            channel = self.channel
            if self.closed or not channel.connected or channel.will_close:
                self.done.set()
                return False
            if channel.total_outbufs_len > BACKLOG:
                return False
            try:
                with channel.outbuf_lock:  # the event loop flushes under it: no write crosses ours
                    if not channel.total_outbufs_len:
                        sent = channel.send(framed, do_close=False)  # 0: would block, or gone
                        if sent:
                            channel.active_at = channel.drained_at = time.monotonic()
                            if sent == len(framed):
                                return True
                            framed = framed[sent:]
                channel.write_soon(framed)
            except Exception:  # the connection went away between the check and the write
                self.done.set()
                return False
            return True


class Broadcaster:
    """The one thread that writes snapshots and heartbeats to every registered page; it
    runs while there are pages and starts again with the next one."""

    def __init__(
        self, runtime: TableRuntime, messages: SseMessages, boot: str, interval: float, heartbeat: float
    ):
        self.runtime, self.messages, self.boot = runtime, messages, boot
        self.interval, self.heartbeat = interval, heartbeat
        self.lock = threading.Lock()
        self.pages: list[Page] = []
        self.thread: threading.Thread | None = None
        #: When a page last joined: it may have been sent a snapshot older than the latest
        #: one while this thread waited, so the wait is short for a while after.
        self.joined_at = -math.inf

    def add(self, channel: Any, sent: str) -> Page:
        """Register a page whose connection has been sent ``sent`` (an event id) already."""
        page = Page(channel, sent, time.monotonic())
        with self.lock:
            self.pages.append(page)
            self.joined_at = page.quiet_since
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="live-pages", daemon=True)
                self.thread.start()
        return page

    def wait_until_gone(self, page: Page, gone: Callable[[], bool]) -> None:
        """Hold the page's own thread until its page went away. The broadcaster, which wakes
        at least every second anyway, tells it (`Page.done`): twenty page threads each waking
        every second to ask cost the daemon as much CPU as the one broadcaster (issue 26)."""
        while not page.done.wait(GONE_CHECK) and not gone():
            pass

    def remove(self, page: Page) -> None:
        """Unregister a page: once this returns, nothing more is written to its connection."""
        with page.lock:
            page.closed = True
        with self.lock:
            if page in self.pages:
                self.pages.remove(page)

    def run(self) -> None:
        sent_at = -math.inf
        while True:
            with self.lock:
                if not self.pages:
                    self.thread = None
                    return
                pages = list(self.pages)
            pause = sent_at + self.interval - time.monotonic()
            if pause > 0:  # a snapshot just went out: send the latest one a moment later
                time.sleep(pause)
            version, event_id, message = self.messages.chunked(self.runtime, self.boot)
            now = time.monotonic()
            for page in pages:
                channel = page.channel
                if not channel.connected or channel.will_close:  # gone: its thread gives it up
                    page.done.set()
                elif page.sent != event_id:
                    if page.write(message):
                        page.sent, page.quiet_since, sent_at = event_id, now, now
                elif now - page.quiet_since >= self.heartbeat and page.write(HEARTBEAT_CHUNK):
                    page.quiet_since = now
            # a change (or a new game) wakes this wait; a second at most, so heartbeats,
            # drained pages and pages gone are seen in time
            wait = min(1.0, max(0.0, min((p.quiet_since for p in pages), default=now) + self.heartbeat - now))
            if now - self.joined_at < 1.0:
                wait = min(wait, self.interval)
            self.runtime.wait_for_change(version, max(wait, 0.01))
