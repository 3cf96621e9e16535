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
depends only on the task's version, status, length, headers, the request's ``Connection`` and
the second it started in (its Date), so its head and what it set on the task are kept by those.
"""

from __future__ import annotations

from typing import Any

from waitress.buffers import OverflowableBuffer  # type: ignore[import-untyped]
from waitress.parser import HTTPRequestParser  # type: ignore[import-untyped]
from waitress.receiver import FixedStreamReceiver  # type: ignore[import-untyped]

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


#: A response's head and what building it set on the task, by everything it was built from.
AnswerKey = tuple[str, str, str, int | None, bool, bool, bool, str, int, tuple[tuple[str, str], ...]]
ANSWERS: dict[AnswerKey, tuple[bytes, tuple[tuple[str, str], ...], bool, bool]] = {}


class KeptAnswerHeads:
    """For a subclass of waitress's ``WSGITask``: `build_response_header` given back for a
    response built from the same values in the same second (the second is its Date)."""

    def build_response_header(self) -> bytes:
        task: Any = self
        try:
            key = (
                task.version,
                task.request.headers.get("CONNECTION", ""),
                task.status,
                task.content_length,
                task.close_on_finish,
                task.chunked_response,
                task.wrote_header,
                task.channel.server.adj.ident,
                int(task.start_time),
                tuple(task.response_headers),
            )
            kept = ANSWERS.get(key)
        except TypeError:  # a header that is not a pair of texts: waitress's to judge
            kept, key = None, None
        if kept is None:
            head: bytes = super().build_response_header()  # type: ignore[misc]
            if key is not None:
                if len(ANSWERS) >= KEPT:
                    ANSWERS.clear()
                ANSWERS[key] = (
                    head,
                    tuple(task.response_headers),
                    task.close_on_finish,
                    task.chunked_response,
                )
            return head
        head, headers, task.close_on_finish, task.chunked_response = kept
        task.response_headers = list(headers)
        return head
