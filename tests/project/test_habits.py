"""The project's habits that code can check: one version, the private API we lean on pinned."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import companion
from companion.web.http_server import WAITRESS_SERIES as WRITTEN_FOR

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: The waitress series whose private API companion/web/http_server.py extends.
WAITRESS_SERIES = WRITTEN_FOR
#: What of it the server leans on, to re-read in a new waitress before moving the pin. Each one's
#: fallback is the same: under another series the server keeps waitress's plain channel and
#: sweep (`http_server.fits`): live pages hold a pool thread each, and there is no per-address cap.
WAITRESS_PRIVATE = (
    "per-address counts and deadlines (GuardedChannel): HTTPChannel.__init__(server, sock, addr, "
    "adj, map), handle_read, received, request, requests and requests_lock (each request's close() "
    "and headers), write_soon, _flush_some, total_outbufs_len, will_close, and del_channel called "
    "once a connection leaves the loop's map, on every close",
    "the sweep on the monotonic clock (_loop_hooks, sweep): BaseWSGIServer.readable called at the "
    "start of each pass and running maintenance once next_channel_cleanup passes, active_channels, "
    "_map and adj.connection_limit",
    "the live pages' hand-over (GuardedChannel.hand_over, _let_go): HTTPChannel's readable, "
    "writable, handle_close, close, outbufs, outbuf_lock, socket, connected; BaseWSGIServer's "
    "pull_trigger and logger; wasyncore.poll2 calling each channel's readable in the map's order "
    "(the listener before any connection); WSGITask.finish writing the last chunk through write_soon",
    "the loop's spin guard (GuardedChannel.sending): write_soon sending from the request's thread "
    "while it holds outbuf_lock, and handle_write flushing a connection with requests running only "
    "when it takes that lock without waiting (_flush_some_if_lockable)",
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


def test_no_file_holds_a_merge_conflicts_markers() -> None:
    """A conflict left in a merged file (docs/developers.md held both sides of one for a round)."""
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    marker = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix in {".png", ".jpg", ".stl", ".ico", ".woff2", ".gz"} or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [name for _ in marker.finditer(text)][:1]
    assert not found, f"merge conflict markers left in {found}"
