"""The addresses a phone on the table's network can open.

``<hostname>.local`` works only where mDNS does (not on every PC), so the QR code carries the
LAN address and the console prints both, and localhost for the machine itself.
"""

from __future__ import annotations

import ipaddress
import socket

#: A documentation address (TEST-NET-1): "connecting" a UDP socket to it sends
#: nothing, but makes the kernel pick the interface and address of the default route.
_PROBE = ("192.0.2.1", 9)


def lan_ip() -> str | None:
    """This machine's address on its default route, or None when it has only loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            address = str(probe.getsockname()[0])
    except OSError:  # no route at all (no network yet)
        return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address


def mdns_name() -> str:
    """``<hostname>.local``: the name avahi announces for this machine."""
    return socket.gethostname().split(".")[0] + ".local"


def is_local_only(host: str) -> bool:
    """Whether a listening address is unreachable from other machines."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def addresses(port: int, listen: str = "0.0.0.0", ip: str | None = None) -> list[str]:
    """The page's addresses, best for a phone first: the LAN IP, the mDNS name, then localhost.

    A companion listening on loopback only (``host = "127.0.0.1"``) is reachable
    from this machine alone, so it offers localhost only.
    """
    local = f"http://localhost:{port}/"
    if is_local_only(listen):
        return [local]
    lan = [f"http://{ip}:{port}/"] if ip else []
    return [*lan, f"http://{mdns_name()}:{port}/", local]
