"""The tap and the buttons answered before Flask (`companion.web.fast_controls`) answer every
request exactly as the routes do: two identical tables get the same requests, one through
Flask, one through the WSGI app waitress serves (`FastReads`), and the status line, the body
and the headers must be byte for byte the same, success or refusal; each request is also
checked to have been answered where it should (before Flask, or by Flask)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug.test import Client, TestResponse
from werkzeug.wrappers import Request

from companion.run.runtime import Runtime
from companion.util.json_bounds import BadJson, check, parse
from companion.util.rate import SlidingWindow
from companion.web.app import MAX_BODY, create_app
from companion.web.fast_controls import ask_from, host_of, read_body, tag_of
from companion.web.mock import given_tag
from companion.web.route_support import ask_of, body_object
from companion.web.state_answers import FastReads
from tests.support.tables import make_runtime

PIN = {"X-Table-Pin": "2468"}


class Twins:
    """The same table twice: ``flask`` asks the app, ``fast`` asks what waitress serves."""

    def __init__(self, tmp_path: Path) -> None:
        self.runtimes: list[Runtime] = []
        self.apps: list[Any] = []
        for side in ("flask", "fast"):
            rt = make_runtime(tmp_path / side)
            app = create_app(rt, hostname="table")
            self.runtimes.append(rt)
            self.apps.append(app)
        self.flask_calls = 0
        wsgi_app = self.apps[1].wsgi_app

        def counted(environ: dict[str, Any], start_response: Any) -> Any:
            self.flask_calls += 1
            return wsgi_app(environ, start_response)

        self.apps[1].wsgi_app = counted
        self.flask = self.apps[0].test_client()
        self.fast = Client(FastReads(self.apps[1]))
        for app in self.apps:  # the rate limit within a test's reach, read at each request by both
            app.config["CONTROLS"] = SlidingWindow(40, 60)

    def ask(self, method: str, path: str, fast_answers: bool, **options: Any) -> TestResponse:
        """``method path`` asked of both: the same answer, and answered before Flask or not."""
        calls = self.flask_calls
        via_flask: TestResponse = self.flask.open(path, method=method, **options)
        fast = self.fast.open(path, method=method, **options)
        assert fast.status == via_flask.status, (path, fast.status, via_flask.status)
        assert fast.data == via_flask.data, (path, fast.data, via_flask.data)
        assert headers(fast) == headers(via_flask), path
        assert (self.flask_calls == calls) is fast_answers, (path, fast.data)
        return via_flask

    def tap(self, tag: str, fast_answers: bool = True, **options: Any) -> TestResponse:
        options.setdefault("headers", PIN)
        answer: TestResponse = self.ask("POST", "/api/reader/tap", fast_answers, json={"tag": tag}, **options)
        return answer

    def choice(self) -> str:
        expect = self.runtimes[0].table.expect()
        assert expect is not None and expect == self.runtimes[1].table.expect()
        return str(expect["choices"][0])


def headers(answer: TestResponse) -> list[tuple[str, str]]:
    """The answer's headers, in order; a cookie by its name only (each table signs its own)."""
    return [
        (name, value.split("=", 1)[0] if name == "Set-Cookie" else value)
        for name, value in answer.headers.to_wsgi_list()
    ]


@contextmanager
def twins(tmp_path: Path) -> Iterator[Twins]:
    both = Twins(tmp_path)
    try:
        yield both
    finally:
        for rt in both.runtimes:
            rt.stop()


def test_taps_and_presses_answer_as_the_routes_do(tmp_path: Path) -> None:
    with twins(tmp_path) as both:
        for _ in range(12):
            answer = both.tap(both.choice())
            assert answer.status_code == 200 and answer.get_json()["state"]["version"] > 0
        both.tap("no-such-card")  # the table's own refusal: a 200 with its outcome
        for name in ("crystal", "undo", "confirm"):
            assert both.ask("POST", f"/api/buttons/{name}", True, headers=PIN).status_code == 200
        both.tap("  " + both.choice() + " ")  # the table strips the tag
        assert both.runtimes[0].table.version == both.runtimes[1].table.version > 12


def test_every_refusal_answers_as_the_route_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with twins(tmp_path) as both:
        tag = both.choice()
        # refused by the guard, which the path before Flask runs itself
        assert both.tap(tag, headers={"X-Table-Pin": "1111"}).status_code == 403  # wrong PIN
        foreign = {**PIN, "Host": "evil.example"}
        assert both.tap(tag, headers=foreign).get_json()["code"] == "foreign_host"
        for rt in both.runtimes:
            rt.mock = False
        assert both.tap(tag).get_json()["code"] == "real_reader"  # not mock mode
        press = both.ask("POST", "/api/buttons/confirm", True, headers=PIN)
        assert press.get_json()["code"] == "real_buttons"
        for rt in both.runtimes:
            rt.mock = True
        # Flask's, the path before it declining before anything counts
        assert both.tap(tag, False, headers={}).get_json()["code"] == "login_needed"  # no PIN
        assert both.tap(tag, False, headers={"X-Table-Pin": ""}).get_json()["code"] == "login_needed"

        def body(data: bytes) -> TestResponse:
            return both.ask("POST", "/api/reader/tap", False, data=data, headers=PIN, content_type="text")

        assert body(b'{"tag":').get_json()["code"] == "json_invalid"
        assert body(b"[1]").get_json()["code"] == body(b"").get_json()["code"] == "tag_missing"
        assert body(b'{"tag":' + b"[" * 200 + b"]" * 200 + b"}").get_json()["code"] == "json_too_deep"
        assert both.tap(" ", False).get_json()["code"] == "tag_missing"
        assert body(b'{"tag":"' + b"x" * MAX_BODY + b'"}').status_code == 413  # body too big
        assert both.ask("POST", "/api/buttons/other", False, headers=PIN).get_json()["code"] == "no_button"
        assert both.ask("GET", "/api/reader/tap", False, headers=PIN).status_code == 405
        assert both.ask("POST", "/api/buttons/confirm/", False, headers=PIN).status_code in (308, 404)
        # the page's login: a cookie is Flask's (its session may renew it), CSRF included
        for client in (both.flask, both.fast):
            assert client.post("/api/login", json={"pin": "2468"}).status_code == 200
        stale = both.tap(tag, False, headers={"X-CSRF-Token": "stale"})
        assert stale.get_json()["code"] == "csrf_stale" and "Set-Cookie" in stale.headers
        assert both.tap(tag, False).status_code == 200  # the PIN beside a cookie: Flask's too
        for client in (both.flask, both.fast):
            client.delete_cookie("session")
        # a bug: the app's crash handler's answer and log line
        for rt in both.runtimes:
            monkeypatch.setattr(rt, "tap", broken)
        crash = both.tap(tag).get_json()
        assert (crash["code"], crash["params"]) == ("internal_error", {"error_type": "RuntimeError"})
        monkeypatch.undo()
        # many wrong PINs lock the address out; then the rate limit refuses everything
        codes = [both.tap(tag, headers={"X-Table-Pin": "1111"}).get_json()["code"] for _ in range(12)]
        assert codes[0] == "wrong_pin" and codes[-1] != "wrong_pin", codes
        while both.tap(tag).get_json().get("code") != "rate_limited":
            pass
        assert both.ask("POST", "/api/buttons/undo", True, headers=PIN).status_code == 429


def broken(tag: str) -> Any:
    raise RuntimeError("a bug")


def test_the_app_has_no_hook_the_path_before_flask_would_skip(tmp_path: Path) -> None:
    """The controls answered before Flask run none of Flask's hooks: the app's only one, the
    security headers, is written by `fast_controls.send` itself. A hook added to the app must
    be added there too (or the controls left to Flask), which this test is here to say."""
    with twins(tmp_path) as both:
        app = both.apps[0]
        assert not any(app.before_request_funcs.values())
        assert not any(app.teardown_request_funcs.values()) and not app.teardown_appcontext_funcs
        assert not any(app.url_value_preprocessors.values())
        assert not any(app.url_default_functions.values())
        hooks = [f.__name__ for funcs in app.after_request_funcs.values() for f in funcs]
        assert hooks == ["security_headers"]


# --- the request read from its environ as werkzeug's request reads it --------------------------

hosts = st.one_of(
    st.sampled_from(["table", "table:80", "table:443", "127.0.0.1:8080", "[::1]:8080", "évil", "a b", ""]),
    st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(
    scheme=st.sampled_from(["http", "https"]),
    host=hosts,
    address=st.one_of(st.none(), st.sampled_from(["", "192.168.1.20", "::1"])),
    csrf=st.one_of(st.none(), st.text(max_size=8)),
    terminated=st.booleans(),
    body=st.binary(max_size=40),
    extra=st.integers(-5, 5),
)
def test_the_environ_is_read_as_werkzeugs_request_reads_it(
    scheme: str, host: str, address: str | None, csrf: str | None, terminated: bool, body: bytes, extra: int
) -> None:
    """Also a ``Content-Length`` that is not the body's: a server that does not end the stream
    is read within it, as werkzeug reads it (a body cut short raises, both ways)."""

    def environ() -> dict[str, Any]:
        env: dict[str, Any] = {
            "REQUEST_METHOD": "POST", "PATH_INFO": "/api/reader/tap", "SERVER_NAME": "10.0.0.2",
            "SERVER_PORT": "8080", "wsgi.url_scheme": scheme, "HTTP_HOST": host,
            "HTTP_X_TABLE_PIN": "2468", "CONTENT_LENGTH": str(max(0, len(body) + extra)),
            "wsgi.input": io.BytesIO(body),
        }  # fmt: skip
        optional = {"REMOTE_ADDR": address, "HTTP_X_CSRF_TOKEN": csrf}
        env.update({key: value for key, value in optional.items() if value is not None})
        if terminated:
            env["wsgi.input_terminated"] = True
        return env

    def session() -> None:
        return None

    def outcome(read: Callable[[], bytes]) -> object:
        try:
            return read()
        except Exception as exc:  # the same refusal both ways
            return type(exc)

    read, asked = environ(), Request(environ(), populate_request=False)
    assert ask_from(read, "2468", session) == ask_of(asked, session)
    assert outcome(lambda: read_body(read)) == outcome(lambda: asked.get_data(cache=True))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.from_regex(r'\A\ufeff?[\[\]{}":,0-9a-zNI.\- ]{0,30}\Z'), st.text(max_size=30)))
def test_the_bounded_parser_decodes_as_json_loads_did(text: str) -> None:
    """`json_bounds.parse` keeps one decoder: every text is read, or refused, as by `json.loads`."""

    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:  # the parser as it was: the bounds, then `json.loads` with its own decoder each time
        check(text)
        expected: Any = json.loads(text, parse_constant=refuse)
    except ValueError:  # BadJson is one too
        expected = BadJson
    try:
        got: Any = parse(text.encode())
    except BadJson:
        got = BadJson
    assert got == expected and type(got) is type(expected)


@settings(max_examples=300, deadline=None)
@given(
    bodies=st.lists(
        st.one_of(
            st.builds(
                lambda t: json.dumps({"tag": t}).encode(), st.sampled_from(["H01", " ", "", "ancestor"])
            ),
            st.sampled_from([b'{"tag": 5}', b"[1]", b"", b"{", b'{"tag": "H01"}', b'{"tag": "I02"} ']),
            st.binary(max_size=300),
        ),
        max_size=12,
    )
)
def test_a_tap_body_read_again_reads_as_the_first_time(bodies: list[bytes]) -> None:
    """`tag_of` keeps each body's tag: asked again (the same card tapped later), the same bytes
    give what the parser gives them, tag or refusal, and a refusal is never kept as a tag."""

    def plain(data: bytes) -> object:
        try:
            return given_tag(body_object(data))
        except Exception as exc:
            return type(exc)

    def kept(data: bytes) -> object:
        try:
            return tag_of(data)
        except Exception as exc:
            return type(exc)

    for data in bodies + bodies:
        assert kept(data) == plain(data)


@given(
    host=st.sampled_from(["table:8080", "10.0.0.2", "[::1]:80", "table.local:443"]),
    scheme=st.sampled_from(["http", "https"]),
)
def test_a_host_worked_out_again_is_werkzeugs(host: str, scheme: str) -> None:
    """`host_of` keeps werkzeug's `get_host` of each pair: the second answer is the first's."""
    from werkzeug.sansio.utils import get_host

    assert host_of(scheme, host) == get_host(scheme, host)
    assert host_of(scheme, host) == get_host(scheme, host)
