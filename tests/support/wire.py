"""Raw HTTP on a new connection, and waiting for a condition: what the tests of the server's
event loop (the reads and the tap answered on its thread) each need."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable


def raw(port: int, request: bytes) -> bytes:
    """What the server sends for ``request`` on a new connection, until it closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether ``condition`` came true within ``seconds`` (asked every few milliseconds)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True
