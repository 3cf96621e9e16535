"""Serving the page: the waitress server for a runtime, and waiting for a busy port.

Only `companion run` (the CLI) and the tests come here: the web layer (`companion.web.app`)
never imports it, it is handed the runtime through its port.
"""

from __future__ import annotations

import threading
from typing import Any

from companion.run.runtime import Runtime
from companion.util.wording import say


def make_server(
    runtime: Runtime, host: str, port: int, threads: int | None = None, heartbeat: float | None = None
) -> Any:
    """The page's HTTP server: waitress, a production WSGI server (`companion.web.http_server`).

    A live page's stream leaves the pool once its first snapshot is out, so the pool needs
    `SPARE_THREADS` for everything else and `HELD_PAGES` for the pages that cannot be handed
    over (HTTP/1.0), whatever ``[table] live_pages`` is."""
    from companion.web.app import MAX_BODY, create_app
    from companion.web.http_server import HELD_PAGES, SPARE_THREADS, create_guarded_server
    from companion.web.live import HEARTBEAT

    app = create_app(runtime, heartbeat=HEARTBEAT if heartbeat is None else heartbeat)
    threads = threads or HELD_PAGES + SPARE_THREADS
    # Streams that hold a thread may never take every thread, whatever the pool's size:
    # a smaller pool (a test's, a benchmark's) keeps at least two for polls and controls.
    streams = app.config["STREAMS"]
    streams.held_total = max(1, min(streams.total, HELD_PAGES, threads - 2))
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

    from companion.util.retry import retried

    retry_for = BIND_RETRY_SECONDS if retry_for is None else retry_for
    every = BIND_RETRY_EVERY if every is None else every

    def in_use(exc: Exception) -> bool:
        return isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE

    def first(exc: Exception) -> None:
        error = getattr(exc, "strerror", "")
        runtime.say(
            say("port_busy", port=port, error=error, every=f"{every:.0f}", seconds=f"{retry_for:.0f}")
        )

    def expired(exc: Exception) -> Exception:
        error = getattr(exc, "strerror", "")
        return PortBusy(say("port_still_busy", port=port, seconds=f"{retry_for:.0f}", error=error))

    def attempt() -> bool:
        serve(runtime, host, port)
        return True

    served = retried(
        attempt, in_use, retry_for, every, first,
        lambda: runtime.say(say("port_free", port=port)), stop.wait, expired,
    )  # fmt: skip
    return served is True


def serve(runtime: Runtime, host: str, port: int) -> None:
    """Run the HTTP API in the background until the process ends."""
    runtime.port, runtime.listen = port, host
    server = make_server(runtime, host, port)
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    runtime.threads.append(thread)
    url, *others = runtime.join_urls()
    runtime.say(say("table_at", url=url, pin=runtime.pin))
    try:
        import io

        import segno

        drawing = io.StringIO()
        segno.make(url, error="m").terminal(out=drawing, compact=True)
        runtime.say(drawing.getvalue())
    except Exception:  # a terminal without the block characters: the address above suffices
        pass
    if others:
        runtime.say(say("also_at", urls=", ".join(others)))
