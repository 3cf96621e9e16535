"""`KeptHeads` leaves a parser exactly as waitress's own parser does, for any request.

A differential test: generated requests (well formed, odd and hostile: bare CR or LF, folded
or repeated headers, underscores, bad lengths, chunked bodies, bytes of every value) go through
waitress's ``HTTPRequestParser`` and through `KeptHeads` twice (the second time from what was
kept), and every attribute of the three parsers must be equal, the body's receiver included.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from waitress.adjustments import Adjustments  # type: ignore[import-untyped]
from waitress.parser import HTTPRequestParser  # type: ignore[import-untyped]

from companion.web import kept_heads
from companion.web.http_server import GuardedChannel
from companion.web.kept_heads import KeptHeads

ADJ = Adjustments(max_request_body_size=64 * 1024 + 1)

METHODS = st.sampled_from([b"GET", b"POST", b"HEAD", b"PUT", b"get", b"G ET", b"", b"\x85GET"])
URIS = st.one_of(
    st.sampled_from(
        [
            b"/api/state",
            b"/api/state?page=1",
            b"/api/reader/tap",
            b"http://h:8/x?y#z",
            b"//evil/p",
            b"/a%20b?c=%ff",
            b"*",
            b"/\x00",
            b"",
        ]
    ),
    st.binary(max_size=12),
)
VERSIONS = st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"HTTP/1.1 ", b"http/1.1", b"HTTP/1", b""])
NAMES = st.one_of(
    st.sampled_from(
        [
            b"Host",
            b"Content-Length",
            b"content-length",
            b"Transfer-Encoding",
            b"Connection",
            b"Expect",
            b"Cookie",
            b"X-Table-Pin",
            b"X_Table_Pin",
            b"X-Forwarded-For",
            b" Host",
            b"Host ",
            b"",
        ]
    ),
    st.binary(max_size=8),
)
VALUES = st.one_of(
    st.sampled_from(
        [
            b"127.0.0.1:8080",
            b"12",
            b"0",
            b"+12",
            b"1 2",
            b"99999999999999999999",
            b"-1",
            b"chunked",
            b"gzip, chunked",
            b"chunked, gzip",
            b"close",
            b"keep-alive",
            b"Keep-Alive",
            b"100-continue",
            b" spaced \t",
            b"a\r\n b",
            b"\x85",
            b"",
        ]
    ),
    st.binary(max_size=12),
)
LINE_ENDS = st.sampled_from([b"\r\n", b"\r\n", b"\r\n", b"\n", b"\r", b"\r\n "])


GOOD_HEADERS = st.sampled_from(
    [
        b"Host: 127.0.0.1:8080",
        b"Content-Length: 12",
        b"Content-Length: 0",
        b"Connection: close",
        b"Connection: keep-alive",
        b"Expect: 100-continue",
        b"Transfer-Encoding: chunked",
        b"Cookie: session=x",
        b"X-Table-Pin: 2468",
        b"Accept: */*",
        b"accept: text/html",
    ]
)


@st.composite
def well_formed(draw: Any) -> bytes:
    """A request as clients send them: a known method, path and version, real headers."""
    method = draw(st.sampled_from([b"GET", b"POST", b"HEAD"]))
    uri = draw(st.sampled_from([b"/api/state", b"/api/state?page=1", b"/api/reader/tap", b"/a%20b?c=%ff#f"]))
    head = method + b" " + uri + b" " + draw(st.sampled_from([b"HTTP/1.1", b"HTTP/1.0"]))
    for line in draw(st.lists(GOOD_HEADERS, max_size=5)):
        head += b"\r\n" + line
    body = draw(st.sampled_from([b"", b'{"tag":"c-1"}', b"5\r\nhello\r\n0\r\n\r\n", b"x" * 20]))
    return bytes(head + b"\r\n\r\n" + body)


@st.composite
def requests(draw: Any) -> bytes:
    """A request's bytes: well formed, shaped like HTTP with odd parts, or anything at all."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return bytes(draw(st.binary(max_size=80)))
    if kind <= 5:
        return bytes(draw(well_formed()))
    end = draw(LINE_ENDS)
    head = draw(METHODS) + b" " + draw(URIS) + b" " + draw(VERSIONS)
    for name, value in draw(st.lists(st.tuples(NAMES, VALUES), max_size=6)):
        head += draw(LINE_ENDS) + name + draw(st.sampled_from([b": ", b":", b" : ", b":\t"])) + value
    head += end + b"\r\n"
    body = draw(st.sampled_from([b"", b'{"tag":"c-1"}', b"5\r\nhello\r\n0\r\n\r\n", b"x" * 20]))
    return bytes(head + body)


def fed(parser: Any, data: bytes, pieces: int) -> Any:
    """``parser`` given ``data`` as a channel gives it (in ``pieces`` reads), until complete."""
    step = max(1, len(data) // pieces)
    for start in range(0, len(data), step):
        piece = data[start : start + step]
        while piece and not parser.completed:
            used = parser.received(piece)
            piece = piece[used:]
    return parser


def state(parser: Any) -> dict[str, Any]:
    """Every attribute of ``parser``, its body's receiver and error as comparable values."""
    seen: dict[str, Any] = {}
    for name, value in vars(parser).items():
        if name == "headers":
            value = list(value.items())
        elif name == "body_rcv" and value is not None:
            receiver = {k: v for k, v in vars(value).items() if k != "buf"}
            value = (type(value), receiver, bytes(value.getbuf().get()))
        elif name == "error" and value is not None:
            value = (type(value), vars(value))
        seen[name] = value
    return seen


@settings(max_examples=600, deadline=None)
@given(data=requests(), pieces=st.integers(1, 3))
def test_a_parser_from_kept_heads_is_waitress_own(data: bytes, pieces: int) -> None:
    kept_heads.HEADS.clear()
    theirs = state(fed(HTTPRequestParser(ADJ), data, pieces))
    first = state(fed(KeptHeads(ADJ), data, pieces))
    again = state(fed(KeptHeads(ADJ), data, pieces))  # from the kept head, when it was kept
    assert first == theirs
    assert again == theirs


def test_a_kept_head_is_used_again_and_the_memory_stays_bounded() -> None:
    kept_heads.HEADS.clear()
    head = b"GET /api/state?page=1 HTTP/1.1\r\nHost: t\r\nAccept: */*\r\n\r\n"
    fed(KeptHeads(ADJ), head, 1)
    assert len(kept_heads.HEADS) == 1
    calls: list[bytes] = []
    original = HTTPRequestParser.parse_header

    def counted(parser: Any, header_plus: bytes) -> None:
        calls.append(header_plus)
        original(parser, header_plus)

    HTTPRequestParser.parse_header = counted
    try:
        again = fed(KeptHeads(ADJ), head, 1)
        assert calls == [], "parsed again"
        assert again.path == "/api/state" and again.query == "page=1" and again.headers["HOST"] == "t"
        for n in range(kept_heads.KEPT + 5):
            fed(KeptHeads(ADJ), head.replace(b"*/*", str(n).encode()), 1)
        assert len(kept_heads.HEADS) <= kept_heads.KEPT
        fed(KeptHeads(ADJ), b"GET /" + b"x" * kept_heads.LONGEST + b" HTTP/1.1\r\n\r\n", 1)
        assert all(len(head) <= kept_heads.LONGEST for head in kept_heads.HEADS)
        other = Adjustments(url_scheme="https")  # another server's settings: parsed for it
        assert fed(KeptHeads(other), head, 1).url_scheme == "https"
    finally:
        HTTPRequestParser.parse_header = original


def test_the_server_parses_with_kept_heads() -> None:
    assert GuardedChannel.parser_class is KeptHeads


HEADER_NAMES = st.sampled_from(
    [
        "Content-Type",
        "Content-Length",
        "content-length",
        "Date",
        "date",
        "Server",
        "Connection",
        "connection",
        "Transfer-Encoding",
        "X-Frame-Options",
        "x-a-b",
        "Via",
    ]
)
HEADER_VALUES = st.one_of(st.sampled_from(["12", "0", "close", "Keep-Alive", "x", ""]), st.text(max_size=6))
LENGTHS = st.one_of(st.integers(0, 10**7).map(str), st.sampled_from(["", "+1", "1 ", "\u0661", "12"]))


@st.composite
def response_headers(draw: Any) -> list[tuple[str, str]]:
    """An answer's headers: as apps write them (one ``Content-Length``), or anything."""
    headers = draw(st.lists(st.tuples(HEADER_NAMES, HEADER_VALUES), max_size=6))
    if draw(st.booleans()):
        headers = [h for h in headers if h[0].lower() not in ("content-length", "date")]
        headers.insert(draw(st.integers(0, len(headers))), ("Content-Length", draw(LENGTHS)))
    return headers


@st.composite
def tasks(draw: Any) -> dict[str, Any]:
    """What waitress builds a response's head from, of every kind."""
    return {
        "version": draw(st.sampled_from(["1.0", "1.1"])),
        "connection": draw(st.sampled_from(["", "close", "keep-alive", "Keep-Alive", "CLOSE", "other"])),
        "status": draw(
            st.sampled_from(["200 OK", "204 No Content", "304 Not Modified", "101 Go", "404 Not Found"])
        ),
        "content_length": draw(st.one_of(st.none(), st.integers(0, 99))),
        "close_on_finish": draw(st.booleans()),
        "headers": draw(response_headers()),
        "start_time": draw(st.floats(1.7e9, 1.7e9 + 3, allow_nan=False)),
        "ident": draw(st.sampled_from(["waitress", "trekking-companion", ""])),
    }


FIELDS = {
    "version",
    "connection",
    "status",
    "content_length",
    "close_on_finish",
    "headers",
    "start_time",
    "ident",
}


def built(task_class: Any, given: dict[str, Any]) -> tuple[Any, ...]:
    """The head ``task_class`` builds for ``given``, and what building it set on the task."""
    from types import SimpleNamespace

    channel = SimpleNamespace(server=SimpleNamespace(adj=SimpleNamespace(ident=given["ident"])))
    headers = {"CONNECTION": given["connection"]} if given["connection"] else {}
    task = task_class(channel, SimpleNamespace(version=given["version"], headers=headers))
    task.status, task.content_length = given["status"], given["content_length"]
    task.close_on_finish, task.start_time = given["close_on_finish"], given["start_time"]
    task.response_headers = list(given["headers"])
    try:
        head = task.build_response_header()
    except Exception as exc:  # a header waitress cannot write (not Latin-1): the same refusal
        return type(exc), str(exc)
    return head, task.response_headers, task.close_on_finish, task.chunked_response


def relength(headers: list[tuple[str, str]], length: str) -> list[tuple[str, str]]:
    """``headers`` with their first ``Content-Length``'s value replaced by ``length``."""
    changed, done = [], False
    for name, value in headers:
        if name == "Content-Length" and not done:
            value, done = length, True
        changed.append((name, value))
    return changed


@settings(max_examples=500, deadline=None)
@given(
    given=tasks(),
    changed=tasks(),
    field=st.sampled_from(sorted(FIELDS)),
    length=LENGTHS,
    later=st.floats(0, 3, allow_nan=False),
)
def test_a_kept_response_head_is_waitress_own(
    given: dict[str, Any], changed: dict[str, Any], field: str, length: str, later: float
) -> None:
    from waitress.task import WSGITask  # type: ignore[import-untyped]

    from companion.web.http_server import OneSendTask

    kept_heads.ANSWERS.clear()
    theirs = built(WSGITask, given)
    assert built(OneSendTask, given) == theirs
    assert built(OneSendTask, given) == theirs  # from what was kept, when it was
    # the same shape, another length, maybe another second: its own length and Date put in
    moved = {
        **given,
        "headers": relength(given["headers"], length),
        "start_time": given["start_time"] + later,
    }
    assert built(OneSendTask, moved) == built(WSGITask, moved)
    other = {**given, field: changed[field]}  # one thing changed: never the kept head of another
    assert built(OneSendTask, other) == built(WSGITask, other)


def test_the_answers_heads_are_built_once_for_every_length_and_second(monkeypatch: Any) -> None:
    """The daemon's answers (a length, no Date of their own): waitress builds the head of the
    first one only; the others of the same shape are cut from it, byte for byte its own."""
    from waitress.task import WSGITask

    from companion.web.http_server import OneSendTask
    from companion.web.route_support import SECURITY_HEADERS

    kept_heads.ANSWERS.clear()
    calls: list[int] = []
    original = WSGITask.build_response_header

    def counted(task: Any) -> bytes:
        calls.append(1)
        head: bytes = original(task)
        return head

    headers = [("Content-Type", "application/json"), ("Content-Length", "0"), *SECURITY_HEADERS]
    answers = [
        {
            **dict.fromkeys(FIELDS),
            "version": "1.1",
            "connection": "",
            "status": "200 OK",
            "close_on_finish": False,
        }
        | {"headers": relength(headers, str(n)), "start_time": 1.7e9 + n / 7, "ident": "trekking-companion"}
        for n in (5, 14_975, 19_011, 7, 0)
    ]
    monkeypatch.setattr(WSGITask, "build_response_header", counted)
    mine = [built(OneSendTask, answer) for answer in answers]
    assert len(calls) == 1
    monkeypatch.undo()
    assert mine == [built(WSGITask, answer) for answer in answers]


def environ_of(task_class: Any, parser: Any, settings: dict[str, Any], addr: Any) -> list[tuple[str, Any]]:
    """The environ ``task_class`` builds for ``parser``'s request, in order, as comparable values
    (the body's stream by its type and content, from the start)."""
    from types import SimpleNamespace

    adj = Adjustments(ident=settings["ident"], url_prefix=settings["url_prefix"])
    server = SimpleNamespace(adj=adj, effective_port=settings["port"], server_name=settings["name"])
    channel = SimpleNamespace(server=server, addr=addr, adj=adj, check_client_disconnected=settings["check"])
    task = task_class(channel, parser)
    environ = task.get_environment()
    assert task.get_environment() is environ  # the same request's again: the same dict
    shown = []
    for name, value in environ.items():
        if name == "wsgi.input":
            value.seek(0)
            value = (type(value), value.read())
            environ[name].seek(0)
        shown.append((name, value))
    return shown


SETTINGS = st.fixed_dictionaries(
    {
        "ident": st.sampled_from(["waitress", "trekking-companion", ""]),
        "url_prefix": st.sampled_from(["", "/app", "/api"]),
        "port": st.sampled_from([8080, 18670]),
        "name": st.sampled_from(["localhost", "pi.local"]),
        "check": st.sampled_from([lambda: False, lambda: True]),
    }
)
ADDRESSES = st.tuples(st.sampled_from(["127.0.0.1", "10.0.0.7", "::1"]), st.integers(1, 65535))


@settings(max_examples=400, deadline=None)
@given(
    data=requests(),
    settings_=SETTINGS,
    other=SETTINGS,
    field=st.sampled_from(["ident", "url_prefix", "port", "name"]),
    addr=ADDRESSES,
    later=ADDRESSES,
)
def test_a_kept_environ_is_waitress_own(
    data: bytes, settings_: dict[str, Any], other: dict[str, Any], field: str, addr: Any, later: Any
) -> None:
    """Any request, to a server of any settings, from any address: the environ built from what
    was kept has waitress's keys in waitress's order and its values, this connection's own."""
    from waitress.task import WSGITask

    from companion.web.http_server import OneSendTask

    kept_heads.ENVIRONS.clear()
    parsers = [fed(KeptHeads(ADJ), data, 1) for _ in range(4)]
    if parsers[0].error is not None or not parsers[0].completed:
        return  # waitress answers it with its error task: no environ
    assert environ_of(OneSendTask, parsers[0], settings_, addr) == environ_of(
        WSGITask, parsers[0], settings_, addr
    )
    # again (from what was kept, when it was), from another connection
    assert environ_of(OneSendTask, parsers[1], settings_, later) == environ_of(
        WSGITask, parsers[1], settings_, later
    )
    # one of the server's settings changed: never the kept environ of another server
    changed = {**settings_, field: other[field]}
    assert environ_of(OneSendTask, parsers[2], changed, later) == environ_of(
        WSGITask, parsers[2], changed, later
    )
    # a header changed after parsing (a pipelined request closing its connection): its own
    parsers[3].headers["CONNECTION"] = "close"
    assert environ_of(OneSendTask, parsers[3], settings_, addr) == environ_of(
        WSGITask, parsers[3], settings_, addr
    )


def test_an_environ_is_kept_once_per_head_and_holds_no_request() -> None:
    """The page's read again: waitress builds its environ once; what is kept holds neither the
    connection nor the body of the request that made it, and the memory stays bounded."""
    from types import SimpleNamespace

    from waitress.task import WSGITask

    from companion.web.http_server import OneSendTask

    kept_heads.ENVIRONS.clear()
    head = b"POST /api/reader/tap HTTP/1.1\r\nHost: t\r\nContent-Length: 13\r\n\r\n" + b'{"tag":"c-1"}'
    calls: list[int] = []
    original = WSGITask.get_environment

    def counted(task: Any) -> Any:
        calls.append(1)
        return original(task)

    adj = Adjustments()
    server = SimpleNamespace(adj=adj, effective_port=80, server_name="t")

    def channel(port: int) -> Any:
        return SimpleNamespace(
            server=server, addr=("127.0.0.1", port), adj=adj, check_client_disconnected=None
        )

    WSGITask.get_environment = counted
    try:
        environs = [
            OneSendTask(channel(n), fed(KeptHeads(ADJ), head, 1)).get_environment() for n in (1, 2, 3)
        ]
    finally:
        WSGITask.get_environment = original
    assert len(calls) == 1
    assert [e["REMOTE_PORT"] for e in environs] == ["1", "2", "3"]
    assert [e["wsgi.input"].read() for e in environs] == [b'{"tag":"c-1"}'] * 3
    (kept,) = kept_heads.ENVIRONS.values()
    assert all(kept[name] is None for name in kept_heads.PER_REQUEST)
    for n in range(kept_heads.KEPT + 5):
        other = head.replace(b"Host: t", f"Host: {n}".encode())
        OneSendTask(channel(n), fed(KeptHeads(ADJ), other, 1)).get_environment()
    assert len(kept_heads.ENVIRONS) <= kept_heads.KEPT
    long = b"GET /" + b"x" * kept_heads.LONGEST + b" HTTP/1.1\r\n\r\n"
    OneSendTask(channel(9), fed(KeptHeads(ADJ), long, 1)).get_environment()
    assert all(len(key[7]) <= kept_heads.LONGEST for key in kept_heads.ENVIRONS)
