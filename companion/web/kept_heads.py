"""Request and response heads made by waitress once, kept for the next identical one.

A page asks ``GET /api/state`` with the very same bytes every time, and the mock reader's taps
differ only in their body: waitress's ``parse_header`` (its lines split, each matched against
RFC 7230's grammar, the URI split) was the largest part of the event loop's own CPU per
request (issue 26). `KeptHeads` runs waitress's own ``parse_header`` on a head it has not seen
and keeps what that set on the parser; the same head again gets those values back. Nothing
is parsed here: a head waitress refused (its exception), a chunked one (its receiver keeps
state), one longer than `LONGEST` are parsed by waitress every time. Proven equal to waitress's
own parser on generated requests, hostile ones included (tests/web/test_kept_heads.py).

`KeptAnswerHeads` does the same for a response's head: waitress's ``build_response_header``
(each header's name capitalised, the connection's fate, the Date formatted, the lines sorted)
depends only on the task's version, status, headers, the request's ``Connection`` and the
second it started in (its Date). Its head is kept by all of these but the length and the second,
cut around the two: the next answer of the same shape gets its own length and Date put in.

`KeptEnvironments` does the same for a request's WSGI environ: waitress's ``get_environment``
builds it key by key (each header renamed and looked up), from the request's head and the
server's settings, and from what differs per connection and request (the client's address and
port, the body's stream, ``sys.stderr``, the connection's ``client_disconnected``). Its environ
is kept by everything it was built from; the next request with the same gets a copy with its own
per-connection values put in their places.
"""

from __future__ import annotations

import sys
from typing import Any

from waitress.buffers import OverflowableBuffer  # type: ignore[import-untyped]
from waitress.parser import HTTPRequestParser  # type: ignore[import-untyped]
from waitress.receiver import FixedStreamReceiver  # type: ignore[import-untyped]
from waitress.utilities import build_http_date  # type: ignore[import-untyped]

#: Heads kept at most (then all forgotten: the bytes are the client's, the memory must stay small).
KEPT = 64
#: Bytes of the longest head kept (a phone's with its cookie is well under this).
LONGEST = 4096


class Kept:
    """What waitress's ``parse_header`` set for one head: the parser's new attributes, its
    headers in order, and the server's settings it read (``adj``)."""

    __slots__ = ("adj", "headers", "values")

    def __init__(self, adj: Any, values: dict[str, Any], headers: dict[str, str]) -> None:
        self.adj, self.values, self.headers = adj, values, headers


#: By head (the request line and headers, as ``parse_header`` is given them).
HEADS: dict[bytes, Kept] = {}


class KeptHeads(HTTPRequestParser):  # type: ignore[misc]
    """waitress's ``HTTPRequestParser``, with `parse_header` given back for a head already read."""

    def parse_header(self, header_plus: bytes) -> None:
        kept = HEADS.get(header_plus)
        if kept is not None and kept.adj is self.adj:
            self.__dict__.update(kept.values)
            self.headers.update(kept.headers)  # the parser's own dict (empty until now), in order
            length: int = kept.values.get("content_length", 0)
            if length > 0:  # what waitress makes for a body of known length: a new one each request
                self.body_rcv = FixedStreamReceiver(length, OverflowableBuffer(self.adj.inbuf_overflow))
            return
        before = set(vars(self))
        super().parse_header(header_plus)  # raises for a head it refuses: nothing kept
        if self.chunked or len(header_plus) > LONGEST:
            return
        values = {
            name: value for name, value in vars(self).items() if name not in before and name != "body_rcv"
        }
        if len(HEADS) >= KEPT:
            HEADS.clear()
        HEADS[header_plus] = Kept(self.adj, values, dict(self.headers))


#: A response's shape: everything its head is built from but its length and its second.
AnswerKey = tuple[str, str, str, bool, bool, bool, str, tuple[tuple[str, str], ...]]


class Answer:
    """A response's head cut around its length and its Date (``head`` is ``before``, the length,
    ``middle``, the Date, ``after``), and what building it set on the task: its final headers
    (the length's and the Date's places in them) and the connection's fate."""

    __slots__ = ("after", "before", "chunked", "close", "date_at", "headers", "length_at", "middle")

    def __init__(self, head: bytes, length: str, date: str, task: Any) -> None:
        headers: list[tuple[str, str]] = task.response_headers
        self.length_at = headers.index(("Content-Length", length))
        self.date_at = headers.index(("Date", date))
        length_line, date_line = (
            f"\r\nContent-Length: {length}\r\n".encode(),
            f"\r\nDate: {date}\r\n".encode(),
        )
        at, date_at = head.index(length_line), head.index(date_line)
        if head.count(length_line) != 1 or head.count(date_line) != 1 or date_at < at + len(length_line) - 2:
            raise ValueError("not one length and one Date, in that order")
        self.before = head[: at + len(b"\r\nContent-Length: ")]
        self.middle = head[at + len(length_line) - 2 : date_at + len(b"\r\nDate: ")]
        self.after = head[date_at + len(date_line) - 2 :]
        self.headers = tuple(headers)
        self.close, self.chunked = task.close_on_finish, task.chunked_response

    def head(self, length: str, date: str, task: Any) -> bytes:
        """The head for ``length`` and ``date``; the task left as waitress's building leaves it."""
        headers = list(self.headers)
        headers[self.length_at], headers[self.date_at] = ("Content-Length", length), ("Date", date)
        task.response_headers, task.close_on_finish, task.chunked_response = headers, self.close, self.chunked
        return b"".join((self.before, length.encode(), self.middle, date.encode(), self.after))


ANSWERS: dict[AnswerKey, Answer] = {}
#: The Date of the last second asked (`http_date`).
DATE: tuple[int, str] = (-1, "")


def http_date(when: float) -> str:
    """waitress's Date for ``when`` (its whole second), formatted once a second."""
    global DATE
    second = int(when)
    if DATE[0] != second:
        DATE = (second, build_http_date(when))
    return DATE[1]


def shape(headers: list[tuple[str, str]]) -> tuple[tuple[tuple[str, str], ...], str] | None:
    """``headers`` with their length taken out, and the length (digits); None unless they hold
    exactly one ``Content-Length`` (spelt so) and no ``Date``: waitress's building is kept only then."""
    length = None
    shaped = []
    for header in headers:
        name, value = header
        if name == "Content-Length" and length is None and value.isascii() and value.isdigit():
            length, header = value, (name, "")
        elif name.lower() in ("content-length", "date"):
            return None
        shaped.append(header)
    return None if length is None else (tuple(shaped), length)


class KeptAnswerHeads:
    """For a subclass of waitress's ``WSGITask``: `build_response_header` given back for a
    response of the same shape (`shape`), its length and its Date put in their places."""

    def build_response_header(self) -> bytes:
        task: Any = self
        try:
            shaped = shape(task.response_headers)
            key = (
                None
                if shaped is None
                else (
                    task.version,
                    task.request.headers.get("CONNECTION", ""),
                    task.status,
                    task.close_on_finish,
                    task.chunked_response,
                    task.wrote_header,
                    task.channel.server.adj.ident,
                    shaped[0],
                )
            )
            kept = None if key is None else ANSWERS.get(key)
        except (TypeError, ValueError, AttributeError):  # a header not a pair of texts: waitress's to judge
            shaped = key = kept = None
        if shaped is None or key is None:  # not of the usual shape: waitress's building, as it is
            return super().build_response_header()  # type: ignore[misc, no-any-return]
        length, date = shaped[1], http_date(task.start_time)
        if kept is not None:
            return kept.head(length, date, task)
        head: bytes = super().build_response_header()  # type: ignore[misc]
        try:
            answer = Answer(head, length, date, task)
        except ValueError:  # a 204 or a 304 (no length), or a head waitress wrote otherwise
            return head
        if len(ANSWERS) >= KEPT:
            ANSWERS.clear()
        ANSWERS[key] = answer
        return head


#: The keys of a WSGI environ that differ per connection or request (`KeptEnvironments`).
PER_REQUEST = (
    "REMOTE_ADDR",
    "REMOTE_HOST",
    "REMOTE_PORT",
    "wsgi.errors",
    "wsgi.input",
    "waitress.client_disconnected",
)

#: What an environ is built from but the per-request values: the server's settings it reads,
#: the task's version, the request's method, path, URI, query, scheme and headers (in order).
EnvironKey = tuple[Any, ...]
#: Environs kept (their per-request values None), by key.
ENVIRONS: dict[EnvironKey, dict[str, Any]] = {}


class KeptEnvironments:
    """For a subclass of waitress's ``WSGITask``: `get_environment` given back for a request
    of the same head to the same server, with its own per-request values (`PER_REQUEST`)."""

    def get_environment(self) -> dict[str, Any]:
        task: Any = self
        if task.environ is not None:
            return task.environ  # type: ignore[no-any-return]
        request, channel = task.request, task.channel
        server = channel.server
        adj = server.adj
        if request.header_bytes_received > LONGEST:  # a client's long head: built, never kept
            return super().get_environment()  # type: ignore[misc, no-any-return]
        key = (
            server.effective_port,
            server.server_name,
            adj.ident,
            adj.url_prefix,
            task.version,
            request.command,
            request.path,
            request.request_uri,
            request.query,
            request.url_scheme,
            tuple(request.headers.items()),
        )
        kept = ENVIRONS.get(key)
        if kept is None:
            environ: dict[str, Any] = super().get_environment()  # type: ignore[misc]
            if len(ENVIRONS) >= KEPT:
                ENVIRONS.clear()
            # before the app changes it; never holding this connection or its request's body
            ENVIRONS[key] = {**environ, **dict.fromkeys(PER_REQUEST)}
            return environ
        environ = kept.copy()  # the same keys in the same order: only these values change
        addr = channel.addr
        environ["REMOTE_ADDR"] = environ["REMOTE_HOST"] = addr[0]
        environ["REMOTE_PORT"] = str(addr[1])
        environ["wsgi.errors"] = sys.stderr
        environ["wsgi.input"] = request.get_body_stream()
        environ["waitress.client_disconnected"] = channel.check_client_disconnected
        task.environ = environ
        return environ
