"""The server's refusals and the hardware faults reach the page as a code and params,
and the page has a sentence for each in English and in French (web/static/i18n/*.json).

A French page must never show an English sentence: HTTP errors keep their English
``error`` (scripts and tests read it) beside a ``code``; a part that is down keeps its
English ``message`` and ``fix`` (console, journal) beside a ``code``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.hardware.health import PARTS, HardwareFault, Health, diagnose
from companion.table.access import ADDRESS_GUESSES_PER_MINUTE
from tests.support.codes import hardware_codes, refused, server_codes, words
from tests.support.tables import client_from, make_runtime

ROOT = Path(__file__).resolve().parents[2]
PIN = {"X-Table-Pin": "2468"}


def test_every_server_error_code_has_a_sentence_in_english_and_french() -> None:
    codes = server_codes()
    assert {"wrong_pin", "pin_locked_table", "pin_locked_address", "login_needed", "foreign_host"} <= codes
    assert {"name_too_long", "player_count", "duplicate_names", "bad_colour", "unknown_edition"} <= codes
    assert {"too_few_itineraries", "wild_columns", "rate_limited", "too_many_pages", "real_reader"} <= codes
    for language, keys in words("msg").items():
        assert codes - keys == set(), (language, codes - keys)


def test_every_hardware_fault_has_a_cause_and_a_fix_in_english_and_french() -> None:
    codes = hardware_codes()
    assert {"ring_device_refused", "ring_spi_missing", "ring_spi_refused", "reader_no_answer"} <= codes
    assert {"ring_pin_unusable", "ring_driver_missing", "ring_frame_too_long"} <= codes
    assert {"spi_off", "device_refused", "buttons_no_pin_library", "ring_failed", "part_failed"} <= codes
    assert "button_unreadable" in codes
    for language, keys in words("hw").items():
        wanted = codes | {c + ".fix" for c in codes} | {f"part.{p}" for p in PARTS} | {"line"}
        assert wanted - keys == set(), (language, wanted - keys)


def test_the_api_description_lists_the_codes() -> None:
    spec = json.loads((ROOT / "companion" / "openapi.json").read_text(encoding="utf-8"))
    assert set(spec["components"]["schemas"]["Error"]["properties"]["code"]["enum"]) == server_codes()
    hardware = spec["paths"]["/api/state"]["get"]["responses"]["200"]["content"]["application/json"]
    part = hardware["schema"]["properties"]["hardware"]["items"]["properties"]
    assert set(part["code"]["enum"]) == hardware_codes()


# --- what the API sends -------------------------------------------------------------------------


client = client_from


def test_pin_refusals_carry_their_code(host_app: Any) -> None:
    app, _ = host_app
    http = client(app, "10.0.0.7")
    assert refused(http.post("/api/login", json={}), 400, "pin_missing")
    body = refused(http.post("/api/login", json={"pin": "0000"}), 403, "wrong_pin")
    assert body["error"] == "Wrong table PIN.", "the English text is kept for scripts"
    for _ in range(ADDRESS_GUESSES_PER_MINUTE):
        http.post("/api/login", json={"pin": "0000"})
    refused(http.post("/api/login", json={"pin": "2468"}), 429, "pin_locked_address")
    refused(client(app, "10.0.0.8").post("/api/undo"), 401, "login_needed")
    body = refused(
        client(app).post("/api/undo", headers={**PIN, "Host": "evil.example"}), 403, "foreign_host"
    )
    assert body["params"]["url"].startswith("http") and body["params"]["url"] in body["error"]


def test_the_whole_tables_lockout_has_its_own_code(host_app: Any) -> None:
    app, rt = host_app
    for n in range(30):
        client(app, f"10.3.0.{n + 1}").post("/api/login", json={"pin": "0000"})
    body = refused(client(app, "10.4.0.1").post("/api/login", json={"pin": "2468"}), 429, "pin_locked_table")
    assert "hold Confirm" in body["error"]
    rt.access.guard.reset()
    assert client(app, "10.4.0.1").post("/api/login", json={"pin": "2468"}).status_code == 200


@pytest.mark.parametrize(
    ("body", "code", "params"),
    [
        ({"players": ["Ann", "Ann"]}, "duplicate_names", {}),
        ({"players": ["A", "B", "C", "D", "E"]}, "player_count", {"n": 5}),
        ({"players": ["N" * 30]}, "name_too_long", {"max": 24, "name": "N" * 24}),
        ({"players": ["Ann"], "edition": "atlantis"}, "unknown_edition", {"edition": "atlantis"}),
        ({"players": "Ann"}, "players_missing", {}),
        ({"players": ["Ann"], "colours": ["red"]}, "bad_colours", {}),
        ({"players": ["Ann"], "seed": "x"}, "bad_edition_or_seed", {}),
    ],
)
def test_new_game_refusals_carry_their_code_and_facts(
    host_app: Any, body: Any, code: str, params: Any
) -> None:
    app, _ = host_app
    answer = refused(client(app).post("/api/game/new", json=body, headers=PIN), 400, code)
    assert params.items() <= answer.get("params", {}).items(), answer
    if code == "unknown_edition":
        assert "reference" in answer["params"]["known"]


def test_control_refusals_carry_their_code(host_app: Any) -> None:
    app, rt = host_app
    http = client(app)
    refused(http.post("/api/correct/wild", json={"wild": ["sky"]}, headers=PIN), 400, "wild_columns")
    refused(http.post("/api/correct/itinerary", json={}, headers=PIN), 400, "itinerary_fields")
    refused(http.post("/api/reader/tap", json={}, headers=PIN), 400, "tag_missing")
    assert refused(http.post("/api/buttons/start", headers=PIN), 404, "no_button")["params"] == {
        "button": "start"
    }
    refused(http.post("/api/enroll", json={}, headers=PIN), 400, "enrol_fields")
    refused(
        http.post("/api/enroll", json={"tag": "a1", "card": "x", "hours": 40}, headers=PIN),
        400,
        "enrol_values",
    )
    assert refused(http.get("/api/nowhere"), 404, "http_error")["params"] == {"status": 404}
    rt.mock = False
    refused(http.post("/api/reader/tap", json={"tag": "x"}, headers=PIN), 409, "real_reader")
    refused(http.post("/api/buttons/confirm", headers=PIN), 409, "real_buttons")


def test_the_new_game_refusals_name_their_code_where_they_are_raised(tmp_path: Path) -> None:
    from companion.table.game_setup import GameSetupError, new_game
    from companion.util.config import Config

    rt = make_runtime(tmp_path)
    try:
        with pytest.raises(GameSetupError) as refused_colour:
            new_game(rt.store, ["Ann"], Config(), colours=["#12345"])
        with pytest.raises(GameSetupError) as too_few:
            new_game(rt.store, ["Ann", "Ben"], Config(), colours=["#123456"])
    finally:
        rt.stop()
    assert refused_colour.value.code == "bad_colour" and refused_colour.value.params == {"colour": "'#12345'"}
    assert too_few.value.code == "too_few_colours" and too_few.value.params == {"n": 2, "got": 1}


# --- hardware faults ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "exc", "code", "params"),
    [
        (
            "ring",
            PermissionError(13, "Permission denied", "/dev/spidev0.0"),
            "ring_device_refused",
            {"device": "/dev/spidev0.0"},
        ),
        (
            "buttons",
            PermissionError(13, "Permission denied", "/dev/gpiochip0"),
            "device_refused",
            {"device": "/dev/gpiochip0"},
        ),
        (
            "reader",
            FileNotFoundError(2, "No such file", "/dev/spidev1.0"),
            "spi_off",
            {"device": "/dev/spidev1.0"},
        ),
        ("reader", ImportError("No module named 'spidev'"), "driver_missing", {}),
        (
            "ring",
            FileNotFoundError(2, "No such file", "/dev/spidev0.0"),
            "ring_spi_missing",
            {"device": "/dev/spidev0.0"},
        ),
        ("reader", OSError("timeout"), "reader_failed", {}),
        (
            "ring",
            HardwareFault("ring_pin_unusable", pin="GPIO20", pins="GPIO10"),
            "ring_pin_unusable",
            {"pin": "GPIO20", "pins": "GPIO10"},
        ),
    ],
)
def test_each_fault_kind_has_a_code_and_its_facts(
    part: str, exc: BaseException, code: str, params: Any
) -> None:
    found = diagnose(part, exc)
    assert found.code == code and params.items() <= found.params.items(), found
    assert found.params["part"] == part
    assert code in hardware_codes()


def test_a_part_that_is_down_keeps_its_english_and_sends_its_code(tmp_path: Path) -> None:
    said: list[str] = []
    health = Health(said.append)
    health.fail("ring", PermissionError(13, "Permission denied", "/dev/spidev0.0"))
    ring = next(p for p in health.as_json() if p["part"] == "ring")
    assert ring["code"] == "ring_device_refused" and ring["params"]["device"] == "/dev/spidev0.0"  # type: ignore[index]
    assert "group spi" in str(ring["fix"]) and "/dev/spidev0.0" in str(ring["message"])
    assert "NOT WORKING" in said[-1] and "group spi" in said[-1], "the console keeps the English"
    health.ok("ring", "24 LEDs on GPIO18")
    assert "code" not in next(p for p in health.as_json() if p["part"] == "ring"), "only a part that is down"


def test_the_reader_that_does_not_answer_names_its_version_register() -> None:
    from companion.hardware.reader import PiReader

    class Silent:
        @staticmethod
        def Read_MFRC522(register: int) -> int:
            return 0x00

    with pytest.raises(HardwareFault) as fault:
        PiReader(Silent()).check()
    assert fault.value.code == "reader_no_answer" and fault.value.params == {"version": "0x00"}
