"""The production server holds many live pages at once and tells each of them."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

from companion.run.serving import serve
from tests.support.daemon import free_port
from tests.support.tables import make_runtime

STREAMS = 14  # the issue asks for at least 12 open streams


def next_snapshot(response: http.client.HTTPResponse) -> dict[str, object]:
    buffer = b""
    while True:
        buffer += response.read1(65536)
        while b"\n\n" in buffer:
            message, buffer = buffer.split(b"\n\n", 1)
            for line in message.split(b"\n"):
                if line.startswith(b"data: "):
                    data: dict[str, object] = json.loads(line[6:])
                    return data


def test_many_live_pages_each_get_every_change(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    port = free_port()
    serve(rt, "127.0.0.1", port)
    conns = []
    try:
        for k in range(STREAMS):  # one page per phone: each from its own address
            conn = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=10, source_address=(f"127.0.1.{k + 1}", 0)
            )
            conn.request("GET", "/api/events")
            response = conn.getresponse()
            assert response.getheader("Content-Type", "").startswith("text/event-stream")
            first = next_snapshot(response)
            conns.append((conn, response, first["version"]))
        rt.tap(rt.table.expect()["choices"][0])
        for _, response, seen in conns:
            update = next_snapshot(response)
            assert update["version"] != seen and update["last"]["accepted"]  # type: ignore[index]
        # plain requests still get through while the streams are open
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        plain.request("GET", "/api/state")
        assert plain.getresponse().status == 200
    finally:
        for conn, _, _ in conns:
            conn.close()
        rt.stop()
