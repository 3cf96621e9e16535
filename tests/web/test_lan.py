"""The addresses the console and the QR code give: ones a phone on the LAN can open."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import companion.run.runtime as runtime_module
import companion.run.serving as serving_module
from companion.util.lan import addresses, is_local_only, lan_ip, mdns_name
from companion.web.app import create_app
from tests.support.tables import make_runtime


def test_a_phone_gets_the_lan_address_first_then_the_mdns_name_then_localhost() -> None:
    host = socket.gethostname().split(".")[0]
    assert addresses(8080, "0.0.0.0", "192.168.1.20") == [
        "http://192.168.1.20:8080/", f"http://{host}.local:8080/", "http://localhost:8080/",
    ]  # fmt: skip
    assert addresses(8080, "0.0.0.0", None)[0] == f"http://{mdns_name()}:8080/"


def test_a_companion_listening_on_loopback_only_offers_localhost_only() -> None:
    assert addresses(9000, "127.0.0.1", "192.168.1.20") == ["http://localhost:9000/"]
    assert is_local_only("::1") and is_local_only("localhost") and not is_local_only("0.0.0.0")


def test_the_lan_address_is_never_loopback() -> None:
    found = lan_ip()
    assert found is None or not found.startswith("127.")


def test_the_qr_code_and_join_give_the_lan_address_to_a_page_opened_on_localhost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtime_module, "lan_ip", lambda: "10.0.0.7")
    rt = make_runtime(tmp_path)
    rt.port = 8080
    http = create_app(rt).test_client()
    assert http.get("/api/join", headers={"Host": "localhost:8080"}).json["url"] == "http://10.0.0.7:8080/"
    assert http.get("/api/join", headers={"Host": "127.0.0.1:8080"}).json["url"] == "http://10.0.0.7:8080/"
    # a phone that reached the page by this machine's mDNS name passes on the same name
    own = f"{socket.gethostname().split('.')[0]}.local:8080"
    assert http.get("/api/join", headers={"Host": own}).json["url"] == f"http://{own}/"
    # any other name is not passed on (DNS rebinding, huge Host headers): the LAN address instead
    assert http.get("/api/join", headers={"Host": "pi.local:8080"}).json["url"] == "http://10.0.0.7:8080/"
    rt.stop()


def test_the_console_prints_every_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_module, "lan_ip", lambda: "10.0.0.7")
    said: list[str] = []
    rt = make_runtime(tmp_path)
    rt.say = said.append
    monkeypatch.setattr(
        serving_module, "make_server", lambda *a, **k: type("S", (), {"run": lambda self: None})()
    )
    serving_module.serve(rt, "0.0.0.0", 8123)
    text = "\n".join(said)
    assert "The table is at http://10.0.0.7:8123/" in text
    assert f"http://{mdns_name()}:8123/" in text and "http://localhost:8123/" in text
    rt.stop()
