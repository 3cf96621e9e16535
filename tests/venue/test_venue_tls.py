"""A venue over TLS (``mqtts://``) on a real Mosquitto: the right CA connects; a broker whose
certificate the table does not trust is said so (the doctor names the certificate) and the
table keeps refereeing."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

from companion.util.config import Config, TableSettings, VenueSettings
from tests.support.tables import FAST_BUTTONS, make_runtime, play_turn, require_tool
from tests.support.venue import Broker, wait_until

require_tool(shutil.which("openssl") is not None, "openssl is not installed", "apt-get install openssl")


def ca(folder: Path, name: str) -> tuple[Path, Path]:
    key, cert = folder / f"{name}.key", folder / f"{name}.crt"
    command = [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        f"/CN={name}",
    ]
    subprocess.run([*command, "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return key, cert


def server_cert(folder: Path, ca_key: Path, ca_cert: Path) -> tuple[Path, Path]:
    key, csr, cert = folder / "broker.key", folder / "broker.csr", folder / "broker.crt"
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(csr)], check=True, capture_output=True)  # fmt: skip
    extensions = folder / "san.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1\n")
    subprocess.run(["openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca_cert), "-CAkey", str(ca_key),
                    "-CAcreateserial", "-days", "2", "-extfile", str(extensions), "-out", str(cert)],
                   check=True, capture_output=True)  # fmt: skip
    return key, cert


def test_the_right_ca_connects_and_an_untrusted_certificate_is_said_while_the_table_plays(
    tmp_path: Path,
) -> None:
    from companion.run.doctor import Doctor

    certs = tmp_path / "certs"
    certs.mkdir()
    venue_key, venue_ca = ca(certs, "venue-ca")
    _, stranger_ca = ca(certs, "stranger-ca")
    key, cert = server_cert(certs, venue_key, venue_ca)
    broker = Broker(tmp_path / "broker", tls=(venue_ca, cert, key)).start()
    url = f"mqtts://127.0.0.1:{broker.port}"
    try:
        for trusted, ca_file in ((True, venue_ca), (False, stranger_ca)):
            venue = VenueSettings(broker=url, table="t1", ca_file=str(ca_file))
            config = Config(table=TableSettings(turn="quick"), buttons=FAST_BUTTONS, venue=venue)
            rt = make_runtime(tmp_path / f"t-{trusted}", config=config)
            try:
                rt.venue.start()
                if trusted:
                    wait_until(lambda rt=rt: rt.venue_status()["reachable"], 30, "a TLS connection")
                else:
                    rng = random.Random(2)
                    for _ in range(6):  # the table referees all the same
                        play_turn(rt, rng)
                    status = rt.venue_status()
                    assert not status["reachable"] and "certificate" in status["words"]
            finally:
                rt.stop()
            lines: list[str] = []
            Doctor(None, tmp_path / "data", say=lines.append).check_venue(config)
            assert lines[-1].startswith("✓" if trusted else "✗"), lines[-1]
            if not trusted:
                assert "certificate verify failed" in lines[-1], lines[-1]
    finally:
        broker.stop()
