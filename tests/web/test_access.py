"""Who gets at the controls: the table PIN, guessing limits, host sessions, the Host header,
and the input rules (colours, names) shared by the config, the API and the command line."""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.ring import RingLayout, render, view_of
from companion.hardware.ring_pin import START, pin_frame, pin_seconds
from companion.records.trekking import TREKKING
from companion.run.cli import main
from companion.run.startup import build_runtime
from companion.store.log import Store
from companion.table.access import TABLE_GUESSES_PER_HOUR, host_allowed, own_names, stored_pin, table_pin
from companion.table.game_setup import new_game
from companion.util.config import ButtonSettings, Config, ConfigError, TableSettings, parse_config
from companion.web.app import create_app
from tests.support.pin_reader import read_pin
from tests.support.tables import client_from, make_runtime

PIN = {"X-Table-Pin": "2468"}
GUESSES = TABLE_GUESSES_PER_HOUR


client = client_from


# --- PIN guessing -----------------------------------------------------------------------------


def test_guessing_from_many_addresses_locks_the_whole_table(host_app: Any) -> None:
    """The audit guessed from 1,000 loopback addresses; the table as a whole now says stop."""
    app, _ = host_app
    codes = [
        client(app, f"10.0.{n // 250}.{n % 250 + 1}").post("/api/login", json={"pin": f"{n:04d}"}).status_code
        for n in range(GUESSES + 5)
        if f"{n:04d}" != "2468"
    ]
    assert codes[:GUESSES] == [403] * GUESSES
    assert set(codes[GUESSES:]) == {429}, "past the table's limit every address waits"
    fresh = client(app, "10.9.9.9")
    refused = fresh.post("/api/login", json={"pin": "2468"})
    assert refused.status_code == 429 and "hold Confirm" in refused.get_json()["error"]
    assert fresh.post("/api/undo", headers=PIN).status_code == 429


def test_concurrent_guesses_never_pass_the_table_limit(host_app: Any) -> None:
    """waitress serves with many threads: guesses arriving together, each from its own address,
    are counted one by one, so no more than the limit are ever checked."""
    app, rt = host_app
    threads = 8 * GUESSES
    clients = [client(app, f"10.5.{n // 250}.{n % 250 + 1}") for n in range(threads)]
    start = threading.Barrier(threads)
    codes: list[int] = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can: the race shows at once

    def guess(http: Any) -> None:
        start.wait()
        codes.append(http.post("/api/login", json={"pin": "0000"}).status_code)

    try:
        workers = [threading.Thread(target=guess, args=(http,)) for http in clients]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(old)
    assert sorted(codes) == sorted([403] * GUESSES + [429] * (threads - GUESSES))
    assert client(app, "10.9.9.9").post("/api/login", json={"pin": "2468"}).status_code == 429
    rt.access.guard.reset()  # the host held Confirm at the table: the lockout clears
    assert client(app, "10.9.9.9").post("/api/login", json={"pin": "2468"}).status_code == 200


def test_a_logged_in_host_keeps_working_through_a_lockout(host_app: Any) -> None:
    app, _ = host_app
    host = client(app, "10.1.1.1")
    token = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    for n in range(GUESSES):
        client(app, f"10.2.0.{n + 1}").post("/api/login", json={"pin": "0000"})
    assert host.post("/api/undo", headers={"X-CSRF-Token": token}).status_code == 200


def test_holding_confirm_clears_the_lockout_and_shows_the_pin(tmp_path: Path) -> None:
    config = Config(buttons=ButtonSettings(bounce=0.0, undo_hold=0.15, pin_hold=0.2))
    rt = make_runtime(tmp_path, config=config)
    app = create_app(rt, hostname="trekpi")
    try:
        for n in range(GUESSES):
            client(app, f"10.3.0.{n + 1}").post("/api/login", json={"pin": "0000"})
        assert client(app, "10.4.0.1").post("/api/login", json={"pin": "2468"}).status_code == 429
        rt.buttons.hold("confirm", 0.5)  # type: ignore[union-attr]
        assert client(app, "10.4.0.1").post("/api/login", json={"pin": "2468"}).status_code == 200
        frame = rt.driver.draw()
        assert frame == [START] * 24, "the ring starts the PIN display"
    finally:
        rt.stop()


def test_the_pin_on_the_ring_reaches_a_logged_in_host_only_never_an_anonymous_page(tmp_path: Path) -> None:
    """GET /api/ring needs no login: while Confirm held shows the PIN, it serves the game's picture."""
    rt = make_runtime(tmp_path, brightness=1.0, night_brightness=1.0)  # the page's colours = the frame's
    app = create_app(rt, hostname="trekpi")
    now = [100.0]
    rt.driver.clock = lambda: now[0]
    anonymous, host = client(app, "10.5.0.1"), client(app, "10.5.0.2")
    assert host.post("/api/login", json={"pin": "2468"}).status_code == 200

    def leds(http: Any) -> list[tuple[int, int, int]]:
        body = http.get("/api/ring").get_json()["leds"]
        return [(int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)) for c in body]

    rt.confirm_held()
    seen_by_anyone, seen_by_host = [], []
    for k in range(int(pin_seconds(rt.pin) / 2 / 0.2)):
        now[0] = 100.0 + k * 0.2
        shown = rt.driver.draw()
        seen_by_host.append(leds(host))
        seen_by_anyone.append(leds(anonymous))
        assert seen_by_anyone[-1] == render(view_of(rt.table, now[0]), rt.layout, now[0]), "others: the game"
        assert seen_by_host[-1] == shown, "a host sees the ring as it is"
    assert read_pin(seen_by_host, rt.layout) == rt.pin
    assert read_pin(seen_by_anyone, rt.layout) == "" and [START] * 24 not in seen_by_anyone
    rt.stop()


@settings(max_examples=60, deadline=None)
@given(pin=st.from_regex(r"[0-9]{4,8}", fullmatch=True), leds=st.sampled_from([12, 16, 24, 60]))
def test_the_pin_on_the_ring_reads_back_as_the_pin(pin: str, leds: int) -> None:
    layout = RingLayout(leds, twelve=leds // 3, clockwise=leds != 16)
    one_pass = pin_seconds(pin) / 2
    frames = [pin_frame(pin, layout, k * 0.05) for k in range(int(one_pass / 0.05))]
    assert all(f is not None for f in frames)
    assert read_pin(frames, layout) == pin  # type: ignore[arg-type]
    assert pin_frame(pin, layout, pin_seconds(pin)) is None, "then the ring shows the game again"


# --- one PIN per table ---------------------------------------------------------------------------


def test_the_pin_is_drawn_once_per_data_directory_and_kept(tmp_path: Path) -> None:
    first = build_runtime(Config(), tmp_path, mock=True, say=lambda _: None)
    first.stop()
    second = build_runtime(Config(), tmp_path, mock=True, say=lambda _: None)
    second.stop()
    assert first.pin == second.pin and len(first.pin) == 6 and first.pin.isdigit()
    assert stat.S_IMODE(os.stat(tmp_path / "pin").st_mode) == 0o600
    assert table_pin("13579", None, tmp_path) == "13579", "the config wins"
    assert table_pin("13579", "8642", tmp_path) == "8642", "and --pin over it"


def test_companion_pin_prints_it(tmp_path: Path, capsys: Any) -> None:
    kept = stored_pin(tmp_path)
    assert main(["pin", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == kept


def test_companion_pin_never_draws_one_it_says_where_the_table_keeps_it(tmp_path: Path, capsys: Any) -> None:
    """A PIN drawn by `companion pin` in the wrong directory would be printed as the table's, and wrong."""
    data = tmp_path / "data"
    assert main(["pin", "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert f"no table PIN is kept in {data}" in err and "companion run" in err
    assert "--data-dir" in err and "sudo trekking-companion pin" in err
    assert not (data / "pin").exists() and not data.exists(), "nothing drawn, nothing made"
    (tmp_path / "config.toml").write_text('[table]\npin = "97531"\n')
    assert main(["pin", "--data-dir", str(data), "--config", str(tmp_path / "config.toml")]) == 0
    assert capsys.readouterr().out.strip() == "97531", "a configured PIN needs no kept one"
    data.mkdir()
    (data / "pin").write_text("12\n")  # damaged: `companion run` would draw a new one, so it is not the PIN
    assert main(["pin", "--data-dir", str(data)]) == 2
    capsys.readouterr()


def test_companion_pin_in_a_data_directory_it_may_not_read_says_to_use_sudo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """/var/lib/trekking-companion is 0700 for the service user: a plain user's `companion pin` is refused."""
    data = tmp_path / "data"
    stored_pin(data)
    real = Path.read_text

    def refused(self: Path, *args: Any, **kwargs: Any) -> str:
        if self == data / "pin":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", refused)
    assert main(["pin", "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert "may not read the table PIN" in err and "sudo trekking-companion pin" in err


def test_the_pi_wrapper_names_the_service_data_and_config_and_an_option_still_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    service, other = tmp_path / "service", tmp_path / "other"
    kept = stored_pin(service)
    monkeypatch.setenv("COMPANION_DATA_DIR", str(service))
    assert main(["pin"]) == 0 and capsys.readouterr().out.strip() == kept
    assert main(["pin", "--data-dir", str(other)]) == 2, "--data-dir wins over the wrapper's"
    (tmp_path / "config.toml").write_text('[table]\npin = "8642"\n')
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "config.toml"))
    assert main(["pin"]) == 0 and capsys.readouterr().out.strip() == "8642"


def test_one_pin_rule_for_the_config_and_the_command_line(tmp_path: Path, capsys: Any) -> None:
    with pytest.raises(ConfigError, match="4 to 8 digits"):
        parse_config('[table]\npin = "1"\n')
    assert main(["run", "--check", "--pin", "1"]) == 2
    assert "4 to 8 digits" in capsys.readouterr().err
    with pytest.raises(ValueError, match="4 to 8 digits"):
        build_runtime(Config(), tmp_path, mock=True, pin="12a4", say=lambda _: None)


# --- sessions ------------------------------------------------------------------------------------


def test_logout_revokes_a_copied_session_cookie(host_app: Any) -> None:
    app, _ = host_app
    host = client(app)
    token = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    cookie = host.get_cookie("session")
    assert cookie is not None and cookie.expires is not None, "the cookie ends with the session"
    thief = client(app, "10.5.5.5")
    thief.set_cookie("session", cookie.value)
    assert thief.post("/api/undo", headers={"X-CSRF-Token": token}).status_code == 200
    host.post("/api/logout", headers={"X-CSRF-Token": token})
    stolen = thief.post("/api/undo", headers={"X-CSRF-Token": token})
    assert stolen.status_code == 401 and "log in" in stolen.get_json()["error"]


def test_sessions_expire_on_the_server(host_app: Any) -> None:
    app, rt = host_app
    host = client(app)
    token = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    rt.access.sessions.clock = lambda: time.monotonic() + 13 * 3600
    assert host.post("/api/undo", headers={"X-CSRF-Token": token}).status_code == 401
    assert host.get("/api/session").get_json()["host"] is False


def test_a_logged_in_control_finds_its_cookie_among_others_and_its_answer_says_what_it_varies_by(
    host_app: Any,
) -> None:
    """The session is read from the request's one ``Cookie`` header, whatever other cookies the
    browser keeps for this host; the answer varies by cookie and carries the security headers,
    and the same cookie with its HMAC changed is no login."""
    app, _ = host_app
    host = client(app)
    token = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    cookie = host.get_cookie("session")
    assert cookie is not None
    host.set_cookie("theme", "dark")
    host.set_cookie("zz", '"quoted; value"')
    answer = host.post("/api/undo", headers={"X-CSRF-Token": token})
    assert answer.status_code == 200 and "Cookie" in answer.headers["Vary"]
    assert (
        answer.headers["X-Frame-Options"] == "DENY" and answer.headers["X-Content-Type-Options"] == "nosniff"
    )
    assert "default-src 'self'" in answer.headers["Content-Security-Policy"]
    forged = client(app, "10.5.5.6")
    forged.set_cookie("session", cookie.value[:-1] + ("0" if cookie.value[-1] != "0" else "1"))
    assert forged.post("/api/undo", headers={"X-CSRF-Token": token}).status_code == 401


# --- the Host header -----------------------------------------------------------------------------


def test_controls_answer_only_under_this_machines_names(host_app: Any) -> None:
    app, _ = host_app
    http = client(app)
    for host in ("attacker.example", "trekpi.attacker.example", "localhost.evil"):
        response = http.post("/api/login", json={"pin": "2468"}, headers={"Host": host})
        assert response.status_code == 403 and "own address" in response.get_json()["error"], host
        assert http.post("/api/undo", headers={**PIN, "Host": host}).status_code == 403
    for host in ("trekpi.local:8080", "TrekPi", "localhost:8080", "192.168.1.20:8080", "[::1]:8080"):
        assert http.post("/api/undo", headers={**PIN, "Host": host}).status_code == 200, host
    assert http.get("/api/state", headers={"Host": "attacker.example"}).status_code == 200, (
        "reading stays open"
    )


def test_a_huge_host_header_gets_the_qr_code_of_our_own_address(host_app: Any) -> None:
    app, _ = host_app
    http = client(app)
    response = http.get("/api/qr.svg", headers={"Host": "a." * 1200})
    assert response.status_code == 200 and b"<svg" in response.data
    assert "a.a.a.a" not in http.get("/api/join", headers={"Host": "a." * 1200}).get_json()["url"]


def test_host_names() -> None:
    names = own_names("trekpi.lan")
    assert host_allowed("trekpi:80", names) and host_allowed("trekpi.local.", names)
    assert host_allowed("10.0.0.7", names) and host_allowed("[fe80::1]:8080", names)
    assert not host_allowed("", names) and not host_allowed("x" * 300, names)
    assert not host_allowed("10.0.0.7.nip.io", names)


# --- colours and names ---------------------------------------------------------------------------


def test_colours_are_checked_at_every_entry(host_app: Any, tmp_path: Path, capsys: Any) -> None:
    app, _ = host_app
    http = client(app)
    for colours in (["#zzzzzz", "#000000"], ["#0072B2\n", "#000000"], ["#12345", "#000000"]):
        response = http.post(
            "/api/game/new", json={"players": ["Ann", "Ben"], "colours": colours}, headers=PIN
        )
        assert response.status_code == 400 and "#rrggbb" in response.get_json()["error"], colours
    with pytest.raises(ConfigError, match="palette"):
        parse_config('[players]\npalette = ["#0072B2\\n", "#E69F00", "#009E73", "#CC79A7"]\n')
    data = tmp_path / "cli"
    assert (
        main(["new", "--data-dir", str(data), "--mock", "--players", "A,B", "--colours", "#zzzzzz,#000000"])
        == 2
    )
    assert "#zzzzzz" in capsys.readouterr().err


def test_a_stored_bad_colour_never_turns_a_tap_into_a_500(tmp_path: Path) -> None:
    """A game stored before the colour rule (or by hand) still plays, and its ring still draws."""
    store = Store(tmp_path, TREKKING)
    store.new_game(
        {"type": "setup", "record": "trekking/1", "players": ["Ann", "Ben"], "watch_stack": ["Ann", "Ben"],
         "edition": "reference"},
        {"colours": ["#zzzzzz", "#E69F00"], "mock": True, "dealer_seed": 3},
    )  # fmt: skip
    store.close()
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=lambda _: None)
    app = create_app(rt)
    try:
        broken: list[str] = []

        def failing_listener(*_: Any) -> None:
            broken.append("x")
            raise RuntimeError("the ring fell off")

        rt.table.listeners.append(failing_listener)
        events = rt.table.seq
        response = app.test_client().post(
            "/api/reader/tap", json={"tag": rt.table.expect()["choices"][0]}, headers=PIN
        )
        assert response.status_code == 200 and response.get_json()["outcome"]["accepted"]
        assert broken and rt.table.seq == events + 1
        assert len(rt.driver.draw()) == 24, "the ring draws with the fallback colour"
    finally:
        rt.stop()


def test_names_are_bounded_and_cleaned(host_app: Any, tmp_path: Path) -> None:
    app, _ = host_app
    http = client(app)
    long = http.post("/api/game/new", json={"players": ["A" * 25, "Ben"]}, headers=PIN)
    assert long.status_code == 400 and "24 characters" in long.get_json()["error"]
    ok = http.post("/api/game/new", json={"players": ["\x1b[31mEve\u202e", "Ben\r\n"]}, headers=PIN)
    assert ok.status_code == 200
    assert [p["name"] for p in ok.get_json()["state"]["players"]] == ["[31mEve", "Ben"]
    store = Store(tmp_path / "cli", TREKKING)
    with pytest.raises(ValueError, match="24 characters"):
        new_game(store, ["B" * 30, "C"], Config())
    store.close()


def test_names_stored_before_the_rule_reach_the_console_escaped(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    store.new_game(
        {"type": "setup", "record": "trekking/1", "players": ["\x1b[2JAnn", "Ben"],
         "watch_stack": ["Ben", "\x1b[2JAnn"], "edition": "reference"},
        {"colours": ["#0072B2", "#E69F00"], "mock": True, "dealer_seed": 3},
    )  # fmt: skip
    store.close()
    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, pin="2468", say=said.append)
    try:
        for _ in range(2):  # Ben, then the player whose name was stored with an escape
            rt.tap(rt.table.expect()["choices"][0])
        assert said and not any("\x1b" in line for line in said)
        assert any("\\x1b[2JAnn" in line for line in said)
    finally:
        rt.stop()


def test_a_ring_failure_blames_the_drop_in_only_when_the_device_is_refused(tmp_path: Path) -> None:
    """The audit's bad colour froze the ring with a log line blaming the Pi 4 drop-in."""
    import threading

    from companion.hardware.ring import RingDriver

    rt = make_runtime(tmp_path)
    try:
        for failure, blamed in ((ValueError("bad colour"), False), (PermissionError("/dev/spidev0.0"), True)):

            class Broken:
                brightness = 1.0
                error = failure

                def __setitem__(self, *_: Any) -> None:
                    raise self.error

            said: list[str] = []
            driver = RingDriver(
                rt.table, Broken(), rt.layout, rt.config.ring, time.monotonic, on_error=said.append
            )
            thread = threading.Thread(target=driver.run)
            thread.start()
            deadline = time.monotonic() + 30  # a wait, not a measure: generous for a loaded CI machine
            while not said and time.monotonic() < deadline:
                time.sleep(0.02)
            driver.stop()
            thread.join()
            assert said and ("group spi" in said[0]) is blamed, said
    finally:
        rt.stop()


def test_the_mock_console_can_hold_confirm(tmp_path: Path) -> None:
    from companion.run.console import keyboard

    rt = make_runtime(tmp_path)
    try:
        keyboard(rt, ["pin"])
        assert rt.driver.draw() == [START] * 24
    finally:
        rt.stop()


def test_companion_run_shows_the_pin_and_how_to_recover_it(tmp_path: Path) -> None:
    from companion.run.serving import serve
    from tests.support.daemon import free_port

    said: list[str] = []
    rt = build_runtime(Config(), tmp_path, mock=True, say=said.append)
    try:
        serve(rt, "127.0.0.1", free_port())
        line = next(s for s in said if "table PIN" in s)
        assert f"table PIN {stored_pin(tmp_path)}" in line
        assert "companion pin" in line and "holding Confirm" in line
    finally:
        rt.stop()


# --- clocks, the session key and restarts (issue 16) ---------------------------------------------


def test_a_wall_clock_stepped_back_keeps_no_lockout(monkeypatch: Any) -> None:
    """The guessing limits counted by the wall clock: stepped back an hour, a lockout lasted an hour more."""
    from companion.table.access import ADDRESS_GUESSES_PER_MINUTE, PinGuard

    wall, steady = [time.time()], [1000.0]
    monkeypatch.setattr(time, "time", lambda: wall[0])
    monkeypatch.setattr(time, "monotonic", lambda: steady[0])
    guard = PinGuard()
    for _ in range(ADDRESS_GUESSES_PER_MINUTE):
        assert guard.check("10.1.1.1", "0000", "2468") == ("wrong_pin", "Wrong table PIN.")
    assert guard.lockout("10.1.1.1") is not None
    wall[0] -= 3600  # NTP, or a Pi without a real-time clock at boot
    steady[0] += 61  # a minute later
    assert guard.lockout("10.1.1.1") is None
    assert guard.check("10.1.1.1", "2468", "2468") is None


def test_the_controls_limit_ends_by_the_monotonic_clock(tmp_path: Path, monkeypatch: Any) -> None:
    wall, steady = [time.time()], [1000.0]
    monkeypatch.setattr(time, "time", lambda: wall[0])
    monkeypatch.setattr(time, "monotonic", lambda: steady[0])
    config = Config(table=TableSettings(controls_per_minute=2), buttons=ButtonSettings(bounce=0.0))
    rt = make_runtime(tmp_path, config=config)
    app = create_app(rt)
    http = client(app)
    assert [http.post("/api/undo", headers=PIN).status_code for _ in range(3)][2] == 429
    wall[0] -= 3600
    steady[0] += 61
    assert http.post("/api/undo", headers=PIN).status_code != 429
    rt.stop()


def _runtime(data: Path, pin: str = "2468") -> Any:
    return build_runtime(Config(), data, mock=True, pin=pin, say=lambda _: None)


@pytest.mark.parametrize("kept", [b"", b"short"])
def test_an_empty_or_short_session_key_is_replaced_at_start(tmp_path: Path, kept: bytes) -> None:
    """The audit: an empty secret.key (the old code created it, then wrote it) made every login a 500."""
    _runtime(tmp_path).stop()  # a data directory with a game
    key = tmp_path / "secret.key"
    key.write_bytes(kept)
    rt = _runtime(tmp_path)
    app = create_app(rt)
    assert client(app).post("/api/login", json={"pin": "2468"}).status_code == 200
    assert len(key.read_bytes()) == 32 and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not list(tmp_path.glob("*.new")), "written through a temporary file, renamed"
    rt.stop()
    assert _runtime(tmp_path).secret_key == key.read_bytes(), "kept once whole"


def _restarted(tmp_path: Path, cookie: Any) -> tuple[Any, Any]:
    """The table started again on the same files (as a new process would), and a phone that
    kept the session ``cookie``."""
    rt = _runtime(tmp_path)
    phone = client(create_app(rt))
    phone.set_cookie("session", cookie.value)
    return rt, phone


def _logged_in_then_stopped(tmp_path: Path) -> tuple[str, Any]:
    """A host logs in on a table that then stops: the login's CSRF token and session cookie."""
    rt = _runtime(tmp_path)
    host = client(create_app(rt))
    csrf: str = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    cookie = host.get_cookie("session")
    assert cookie is not None
    rt.stop()
    return csrf, cookie


def test_a_host_stays_logged_in_across_a_restart_until_logout(tmp_path: Path) -> None:
    """Issue 16: a restart, clean or a crash, logged every host out mid-game."""
    csrf, cookie = _logged_in_then_stopped(tmp_path)
    kept = tmp_path / "sessions.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert csrf in kept.read_text() and "sid" not in kept.read_text()

    rt, again = _restarted(tmp_path, cookie)
    assert again.get("/api/session").get_json() == {**again.get("/api/session").get_json(), "host": True}
    assert again.get("/api/session").get_json()["csrf"] == csrf
    assert again.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 200
    assert again.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
    rt.stop()

    rt, after = _restarted(tmp_path, cookie)
    assert after.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 401, "logout ends it"
    rt.stop()


def test_a_kept_session_still_ends_on_time_or_with_a_new_pin(tmp_path: Path) -> None:
    import json

    csrf, cookie = _logged_in_then_stopped(tmp_path)
    kept = tmp_path / "sessions.json"
    saved = kept.read_text()

    rt = _runtime(tmp_path, pin="97531")  # the PIN was changed: every login ends
    other = client(create_app(rt))
    other.set_cookie("session", cookie.value)
    assert other.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 401
    rt.stop()

    ended = json.loads(saved)
    ended["sessions"][0]["until"] = time.time() - 1  # its 12 hours passed while the companion was off
    kept.write_text(json.dumps(ended))
    rt, late = _restarted(tmp_path, cookie)
    assert late.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 401
    rt.stop()

    kept.write_text("{damaged")  # a damaged file logs the hosts out, nothing worse
    rt = _runtime(tmp_path)
    assert client(create_app(rt)).post("/api/login", json={"pin": "2468"}).status_code == 200
    rt.stop()


def test_the_limiter_remembers_a_bounded_number_of_addresses() -> None:
    """A guess from each of 20,000 addresses must not grow memory without end."""
    from companion.util.rate import SlidingWindow

    steady = [0.0]
    window = SlidingWindow(2, 60, clock=lambda: steady[0], max_keys=100)
    for n in range(20_000):
        assert window.hit(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}")
    assert len(window._hits) <= 100
    assert window.hit("a") and window.hit("a") and not window.hit("a"), "each address keeps its own count"
    steady[0] += 60.5
    assert window.test("a") and window.hit("a")


# --- issue 21: the sessions file read bounded; a logout the disk will not keep ----------------


def _damaged_sessions(kind: str, kept: Path) -> None:
    if kind == "deep":  # 1,000 levels in 2 KB: a RecursionError that stopped the start (exit 2)
        kept.write_text('{"sessions": ' + "[" * 1000 + "]" * 1000 + "}")
    elif kind == "fifo":  # nobody writes: an open for reading would wait for good
        os.mkfifo(kept)
    elif kind == "zero":  # a link to an endless device: read until memory ran out
        kept.symlink_to("/dev/zero")
    elif kind == "huge":  # a regular file far larger than 256 sessions can be
        kept.write_bytes(b'{"sessions": [' + b" " * (2 * 1024 * 1024) + b"]}")
    elif kind == "not-a-list":
        kept.write_text('{"sessions": 7}')


@pytest.mark.parametrize("kind", ["deep", "fifo", "zero", "huge", "not-a-list"])
def test_a_damaged_sessions_file_logs_the_hosts_out_and_nothing_else(tmp_path: Path, kind: str) -> None:
    """Issue 21 item 4: nested 1,000 deep it stopped the daemon, as a FIFO it hung the start,
    as a link to /dev/zero it read 1.8 GB. Now each only logs the hosts out."""
    csrf, cookie = _logged_in_then_stopped(tmp_path)
    kept = tmp_path / "sessions.json"
    kept.unlink()
    _damaged_sessions(kind, kept)
    result: list[Any] = []
    starting = threading.Thread(target=lambda: result.append(_runtime(tmp_path)), daemon=True)
    starting.start()
    starting.join(timeout=60)  # a FIFO blocked here for good before the fix
    assert result, f"the start never finished with a {kind} sessions file"
    rt = result[0]
    try:
        http = client(create_app(rt))
        http.set_cookie("session", cookie.value)
        assert http.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 401, "logged out"
        assert http.post("/api/login", json={"pin": "2468"}).status_code == 200, "and may log in again"
    finally:
        rt.stop()


def test_a_logout_the_full_disk_cannot_keep_is_refused_and_the_session_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 5: a logout on a full disk answered OK, and after a restart the logged-out
    cookie worked again. Now it is refused with what to do (507, a coded sentence), the page
    stays the host's, and once space is back the logout ends the session for good."""
    import errno

    import companion.table.access

    rt = _runtime(tmp_path)
    host = client(create_app(rt))
    csrf = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    cookie = host.get_cookie("session")
    assert cookie is not None
    real = companion.table.access.write_private

    def full(*_: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(companion.table.access, "write_private", full)
    refused = host.post("/api/logout", headers={"X-CSRF-Token": csrf})
    assert refused.status_code == 507, refused.get_json()
    said = refused.get_json()
    assert said["code"] == "logout_not_saved" and "still logged in" in said["error"]
    assert said["params"] == {"folder": str(tmp_path)}
    assert host.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 200, "still the host"
    rt.stop()

    rt = _runtime(tmp_path)  # a restart: the session was never said to be over
    monkeypatch.setattr(companion.table.access, "write_private", real)
    again = client(create_app(rt))
    again.set_cookie("session", cookie.value)
    assert again.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
    rt.stop()
    rt, after = _restarted(tmp_path, cookie)
    assert after.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 401, "ended for good"
    rt.stop()


def test_a_wall_clock_stepped_back_keeps_the_host_logged_in(
    host_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 8: the cookie's signature was dated on the wall clock and one "from the
    future" refused, so a clock stepped back 5 s logged the host out until it caught up."""
    import itsdangerous.timed

    app, _ = host_app
    host = client(app)
    csrf = host.post("/api/login", json={"pin": "2468"}).get_json()["csrf"]
    real = time.time
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: real() - 5)
    assert host.get("/api/session").get_json()["host"] is True
    assert host.post("/api/undo", headers={"X-CSRF-Token": csrf}).status_code == 200
