"""The project's habits that code can check: one version, the private API we lean on pinned."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import companion

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: The waitress series whose private API companion/web/http_server.py extends.
WAITRESS_SERIES = (3, 0)
#: What of it the server leans on, to re-read in a new waitress before moving the pin.
WAITRESS_PRIVATE = (
    "waitress.channel.HTTPChannel: handle_read, write_soon, _flush_some, addr, del_channel (called "
    "once a connection leaves the loop's map, on every close: the per-address counts follow it)",
    "waitress.server.BaseWSGIServer: active_channels, readable (and the maintenance it runs)",
    "the live pages' hand-over (GuardedChannel.hand_over, _let_go): HTTPChannel's readable, "
    "writable, handle_close, close, del_channel, outbufs, outbuf_lock, requests_lock, socket, "
    "connected; BaseWSGIServer's _map, pull_trigger, adj.connection_limit; wasyncore.poll2 "
    "calling each channel's readable in the map's order (the listener before any connection); "
    "WSGITask.finish writing the last chunk through write_soon",
    "one send per response (OneSendTask): HTTPChannel.task_class; WSGITask.write, wrote_header, "
    "channel, writing the head through channel.write_soon then the body's first piece in the same "
    "call (a head written alone still goes out at the end of that call)",
    "a request read in the pass that accepts its connection: HTTPChannel.handle_read called at the "
    "end of the channel's __init__ (the channel complete, in the map) when poll says it has input",
    "the loop not waking itself (_woken_from_elsewhere): BaseWSGIServer.pull_trigger called by "
    "HTTPChannel.service and write_soon as self.server.pull_trigger()",
    "a head parsed once (companion/web/kept_heads.py): HTTPChannel.parser_class; "
    "HTTPRequestParser.parse_header leaving its results as new attributes of the parser (its "
    "headers in self.headers), a body of known length as FixedStreamReceiver(content_length, "
    "OverflowableBuffer(adj.inbuf_overflow)): tests/web/test_kept_heads.py compares them",
    "a response head built once per shape (KeptAnswerHeads): WSGITask.build_response_header reading "
    "only version, status, content_length, close_on_finish, chunked_response, wrote_header, "
    "response_headers, start_time (its Date, whole seconds, utilities.build_http_date), "
    "request.headers['CONNECTION'] and "
    "channel.server.adj.ident, and setting only response_headers, close_on_finish and "
    "chunked_response: tests/web/test_kept_heads.py compares them",
    "an environ built once per head (KeptEnvironments): WSGITask.get_environment reading only "
    "environ (its cached copy), version, request.command, path, request_uri, query, url_scheme, "
    "headers, header_bytes_received and get_body_stream(), channel.addr and "
    "check_client_disconnected, server.effective_port, server_name, adj.ident and adj.url_prefix, "
    "and sys.stderr: tests/web/test_kept_heads.py compares them",
    "the listener's accept without enums (_quick_accept): BaseWSGIServer.handle_accept calling "
    "self.accept() and taking None as no connection (wasyncore.dispatcher.accept's contract), "
    "the standard library's socket._accept() and socket.accept() making socket(family, type, proto, "
    "fileno=fd): tests/web/test_http_limits.py compares them",
    "an answer sent at once when nothing waits (GuardedChannel._send_now): HTTPChannel.outbuf_lock, "
    "total_outbufs_len, sendbuf_len, last_activity, connected, wasyncore.dispatcher.send(data, "
    "do_close) returning 0 when the socket takes nothing; write_soon taking the rest as before",
    "the mock tap on the loop's thread (_serve_here): HTTPChannel.requests, the parser's "
    "command, path, headers and error, and BaseWSGIServer.add_task called by HTTPChannel.received "
    "on the loop's thread once a request is whole",
)


def series(text: str) -> tuple[int, int]:
    major, minor = re.match(r"(\d+)\.(\d+)", text).groups()  # type: ignore[union-attr]
    return int(major), int(minor)


def waitress_check(installed: str) -> str | None:
    """What to re-check when ``installed`` is not the pinned series, or None."""
    if series(installed) == WAITRESS_SERIES:
        return None
    return (
        f"waitress {installed} is installed, but companion/web/http_server.py extends waitress "
        f"{'.'.join(map(str, WAITRESS_SERIES))}'s private API: re-read "
        + "; ".join(WAITRESS_PRIVATE)
        + f" in waitress {installed}, run tests/web/test_http_limits.py and benchmarks/bench_attacks.py, "
        "then move the pin in pyproject.toml and WAITRESS_SERIES in tests/project/test_habits.py"
    )


def test_the_installed_waitress_is_the_series_the_server_was_written_for() -> None:
    problem = waitress_check(version("waitress"))
    assert problem is None, problem


def test_pyproject_pins_waitress_to_that_series() -> None:
    (pin,) = [d for d in PROJECT["dependencies"] if d.startswith("waitress")]
    major, minor = WAITRESS_SERIES
    assert f">={major}.{minor}" in pin and f"<{major}.{minor + 1}" in pin, pin


def test_another_waitress_series_is_refused_with_what_to_re_check() -> None:
    assert waitress_check("3.0.2") is None
    problem = waitress_check("3.1.0")
    assert problem is not None and "_flush_some" in problem and "pyproject.toml" in problem
    assert waitress_check("4.0") is not None


def test_the_version_is_written_once_and_read_from_the_metadata() -> None:
    assert companion.__version__ == PROJECT["version"] == version("trekking-companion")
    source = (ROOT / "companion" / "__init__.py").read_text(encoding="utf-8")
    assert PROJECT["version"] not in source, "the version is written in pyproject.toml only"
    shown = subprocess.run(
        [sys.executable, "-m", "companion", "--version"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["companion", PROJECT["version"]]


def test_the_score_charts_are_drawn_by_one_module() -> None:
    """The end screen's and the history page's charts, and their palette, dashes and markers,
    were written twice (end.js, history.js): chart.js draws both."""
    static = ROOT / "web" / "static"
    for name in sorted(p.name for p in static.glob("*.js")):
        source = (static / name).read_text(encoding="utf-8")
        if name == "chart.js":
            assert "<polyline" in source and "const DASHES" in source
            continue
        for own in ("<polyline", "const DASHES", "const MARKS", "const PALETTE"):
            assert own not in source, f"web/static/{name} draws a chart itself ({own}): use chart.js"


def test_one_route_draws_qr_codes(tmp_path: Path) -> None:
    """The page's address and a finished game's card were drawn by two routes, each with its
    own copy of the drawing (issue 22.7): ``/api/qr.svg`` (``?game=N``) is the one."""
    from companion.web.app import create_app
    from tests.support.tables import make_runtime

    rt = make_runtime(tmp_path)
    try:
        rules = [rule.rule for rule in create_app(rt).url_map.iter_rules() if "qr" in rule.rule.lower()]
    finally:
        rt.stop()
    assert rules == ["/api/qr.svg"], f"a second QR route: {rules}; draw with ?game= on /api/qr.svg"
    drawing = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "companion" / "web").glob("*.py"))
        if "segno" in path.read_text(encoding="utf-8")
    ]
    assert drawing == ["companion/web/qr.py"], f"QR codes drawn outside companion.web.qr.qr_svg: {drawing}"
