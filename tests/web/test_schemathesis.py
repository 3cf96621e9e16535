"""schemathesis against /api/openapi.json: no HTTP 500, every error a JSON message.

Every documented operation is called with bodies and parameters generated from
the description, with and without the PIN, through the WSGI app (no network).
The table is a mock one; generated taps and presses may move the game along,
which is fine: only the answers are judged.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from companion.util.config import Config, TableSettings
from companion.web.app import create_app
from tests.support.tables import make_runtime, play_turn

schemathesis = pytest.importorskip("schemathesis")
from schemathesis import GenerationMode  # noqa: E402


def test_api_never_fails_with_500_and_answers_json(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, config=Config(table=TableSettings(controls_per_minute=100000)))
    rng = random.Random(1)
    for _ in range(12):  # a game under way, so corrections have takes to correct
        play_turn(rt, rng)
    app = create_app(rt, heartbeat=0.01)
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    schemas = json.loads(app.test_client().get("/api/openapi.json").get_data())["components"]["schemas"]
    documented = {
        c for kind in ("Error", "LibraryError") for c in schemas[kind]["properties"]["code"]["enum"]
    }
    checked: list[str] = []
    try:
        for result in schema.get_all_operations():
            operation = result.ok()
            if operation.path == "/api/events":
                continue  # an endless stream; tested in test_web.py

            strategy = operation.as_strategy(generation_mode=GenerationMode.POSITIVE) | operation.as_strategy(
                generation_mode=GenerationMode.NEGATIVE
            )

            @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(case=strategy)
            def run(case: Any) -> None:
                for headers in ({}, {"X-Table-Pin": "2468"}):
                    response = case.call(headers=headers)
                    assert response.status_code < 500, (case.path, response.status_code, response.text[:200])
                    if response.status_code >= 400:
                        body = response.json()
                        assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"]
                        # a page words a refusal from its code: every code it can meet is described
                        assert body.get("code", "http_error") in documented, (case.path, body)

            run()
            checked.append(f"{operation.method.upper()} {operation.path}")
    finally:
        rt.stop()
    assert len(checked) >= 15, checked
