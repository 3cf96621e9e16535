"""What an outside audit broke with request bodies and the host's logout (issue 16): bodies
nested deep or holding huge numbers were 500s with a traceback each; logout had no CSRF check."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from companion.util.json_bounds import MAX_DEPTH, MAX_DIGITS, BadJson, check
from companion.util.wording import say
from tests.support.tables import api_client

PIN = {"X-Table-Pin": "2468"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def env(tmp_path: Path) -> Any:
    with api_client(tmp_path, heartbeat=0.05) as client:
        yield client


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def refused(response: Any, code: str) -> dict[str, Any]:
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    body: dict[str, Any] = response.get_json()
    assert body["code"] == code and body["error"], body
    return body


# --- bodies ---------------------------------------------------------------------------------------


def test_a_login_nested_1100_deep_is_refused_with_its_code(env: Any) -> None:
    """The audit: 2 KB of brackets, no PIN, and the server answered 500 with a traceback."""
    http, _ = env
    body = '{"pin": ' + nested(1100) + "}"
    assert refused(http.post("/api/login", data=body, headers=JSON), "json_too_deep")["params"] == {
        "max": MAX_DEPTH
    }


def test_a_huge_number_in_a_body_is_refused_with_its_code(env: Any) -> None:
    http, _ = env
    body = '{"players": ["Ann"], "seed": ' + "7" * 5000 + "}"
    refused(http.post("/api/game/new", data=body, headers={**PIN, **JSON}), "json_number_too_long")


def test_a_body_that_is_not_json_is_refused_with_its_code(env: Any) -> None:
    http, _ = env
    for body in (b"not json", b'{"tag": NaN}', b"\xff\xfe"):
        refused(http.post("/api/reader/tap", data=body, headers={**PIN, **JSON}), "json_invalid")


def test_a_body_that_is_not_utf8_says_so_in_both_languages(env: Any) -> None:
    """`BadJson` is a coded error: its English is the catalogue's, and the reason it gave at the
    raise site (not UTF-8 text) is a variant the French catalogue words too."""
    http, _ = env
    body = refused(http.post("/api/reader/tap", data=b"\xff\xfe", headers={**PIN, **JSON}), "json_invalid")
    assert body["params"] == {"why": "not_utf8"} and "not UTF-8 text" in body["error"], body
    assert "pas du texte UTF-8" in say("json_invalid", "fr", **body["params"])
    assert str(BadJson("json_too_deep", max=MAX_DEPTH)) == say("json_too_deep", max=MAX_DEPTH)


def test_an_edition_import_nested_deep_or_with_a_huge_number_is_refused(env: Any) -> None:
    """The edition's text is a string inside the body: the library's decoder saw it unbounded."""
    http, rt = env
    deep = json.dumps({"name": "deep", "cards": json.loads(nested(MAX_DEPTH + 1))})
    huge = '{"name": "huge", "cards": [], "year": ' + "9" * 5000 + "}"
    for text, code in ((deep, "json_too_deep"), (huge, "json_number_too_long")):
        refused(http.post("/api/library/import", json={"text": text}, headers=PIN), code)
    assert not (rt.store.path.parent / "editions").exists() or not any(
        (rt.store.path.parent / "editions").iterdir()
    ), "nothing imported"


def test_bodies_within_the_bounds_are_read_as_before(env: Any) -> None:
    http, rt = env
    tag = rt.table.expect()["choices"][0]
    answer = http.post("/api/reader/tap", data=json.dumps({"tag": tag}), headers={**PIN, **JSON})
    assert answer.status_code == 200 and answer.get_json()["outcome"]["accepted"]
    check(nested(MAX_DEPTH) + '"' + "[" * 100 + "9" * 100 + '"')  # brackets and digits in text are text
    check("1" * MAX_DIGITS)
    with pytest.raises(BadJson):
        check("1" * (MAX_DIGITS + 1))


def test_an_internal_error_is_one_short_log_line_at_most_every_few_seconds(
    env: Any, caplog: Any, monkeypatch: Any
) -> None:
    """The audit: each 500 wrote a 1.8 KB traceback, 535 KiB/s of log from one client."""
    http, rt = env

    def broken() -> Any:
        raise RuntimeError("x" * 5000)

    monkeypatch.setattr(rt.table, "state_text", broken)  # what GET /api/state reads
    with caplog.at_level(logging.INFO):
        answers = [http.get("/api/state") for _ in range(5)]
    assert {a.status_code for a in answers} == {500}
    assert answers[0].get_json()["code"] == "internal_error"
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, [r.getMessage()[:100] for r in lines]
    assert lines[0].exc_info is None and len(lines[0].getMessage()) < 500
    assert "RuntimeError" in lines[0].getMessage() and "GET /api/state" in lines[0].getMessage()


def test_a_path_in_the_crash_line_cannot_forge_log_lines(caplog: Any) -> None:
    from companion.web.app import CrashLog

    log = CrashLog(logging.getLogger("test-crash"), every=0.0)
    with caplog.at_level(logging.ERROR):
        log.report(ValueError("a\nb"), "GET /x\nERROR forged line")
        log.report(ValueError("second"), "GET /y")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all("\n" not in line for line in lines), lines


# --- logout ---------------------------------------------------------------------------------------


def test_logout_needs_the_logins_csrf_token(env: Any) -> None:
    """The audit: a page on another port of the same host (the same site for a SameSite
    cookie) logged the host out with a bare POST."""
    http, _ = env
    csrf = http.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    for headers in ({}, {"X-CSRF-Token": "forged"}):
        answer = http.post("/api/logout", headers=headers)
        assert answer.status_code == 403 and answer.get_json()["code"] == "csrf_stale"
        assert http.get("/api/session").get_json()["host"], "still logged in"
    assert http.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
    assert not http.get("/api/session").get_json()["host"]
    assert http.post("/api/logout").status_code == 200, "no login: nothing to end"
