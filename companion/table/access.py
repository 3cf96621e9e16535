"""Who may work the table's controls: the table PIN, its guessing limits and host sessions.

No Flask here: the web layer, the buttons (holding Confirm clears a lockout) and the command
line ask these objects. Unless the config or ``--pin`` sets one, the PIN is drawn once per data
directory (``<data>/pin``), so a restart never locks the host out. Guessing is limited for the
whole table, not only per address: a phone on a LAN can use as many addresses as it likes.
Sessions live on the server (the cookie holds a random id) and are kept in
``<data>/sessions.json`` as digests with the PIN, so a restart does not log the host out and
the file lets no one in. Deadlines are on the monotonic clock.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import ipaddress
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.store.private_files import write_private
from companion.util.config import pin_problem
from companion.util.files import read_text_file
from companion.util.json_bounds import BadJson
from companion.util.json_bounds import check as check_json
from companion.util.rate import SlidingWindow
from companion.util.wording import CodedError, say

#: Wrong PINs allowed from one address per minute.
ADDRESS_GUESSES_PER_MINUTE = 5
#: Wrong PINs allowed from everyone together per hour (then everyone waits, or the host
#: holds Confirm at the table). A 4-digit PIN then takes about 250 hours of guessing on
#: average instead of minutes from a thousand addresses.
TABLE_GUESSES_PER_HOUR = 20
#: A host's login lasts this long (a long game evening), then the page asks for the PIN again.
SESSION_SECONDS = 12 * 3600
#: Sessions kept at most (the oldest goes first): logins are few, a flood must not grow memory.
MAX_SESSIONS = 256
#: The most ``sessions.json`` may hold: `MAX_SESSIONS` entries of about 200 bytes each, with room.
SESSIONS_FILE_LIMIT = 256 * 1024


class LogoutNotSaved(CodedError):
    """A logout the disk would not keep: the session stays open (a restart would bring it
    back), so the page is told to free space and log out again instead of "logged out"."""


def kept_pin(data_dir: Path) -> str | None:
    """The PIN kept in ``data_dir``, or None when none (or no valid one) is kept there yet.

    Never draws one; a data directory that may not be read raises its PermissionError."""
    try:
        kept = (data_dir / "pin").read_text(encoding="ascii").strip()
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return None
    return kept if pin_problem(kept) is None else None


def stored_pin(data_dir: Path) -> str:
    """The PIN kept in ``data_dir`` (drawn and kept on first use, 6 digits, private to the owner)."""
    path = data_dir / "pin"
    try:
        kept = kept_pin(data_dir)
    except OSError:
        kept = None
    if kept is not None:
        return kept
    pin = f"{secrets.randbelow(10**6):06d}"
    write_private(path, (pin + "\n").encode("ascii"))
    return pin


#: Bytes of the cookie-signing key.
KEY_BYTES = 32


def session_key(data_dir: Path) -> bytes:
    """The key that signs the page's cookie, drawn once per data directory and kept there.

    A key file that is missing, empty or shorter than `KEY_BYTES` (older versions created
    it empty, then wrote it: a crash between left every login a 500) is drawn anew."""
    path = data_dir / "secret.key"
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    if len(key) >= KEY_BYTES:
        return key
    key = secrets.token_bytes(KEY_BYTES)
    write_private(path, key)
    return key


def table_pin(configured: str, given: str | None, data_dir: Path) -> str:
    """The PIN in force: ``--pin``, else the config's, else the one kept in the data directory.

    Raises ValueError (with the rule) for a ``--pin`` or config value that breaks it.
    """
    for source, value in (("--pin", given), ("[table] pin", configured)):
        if value:
            problem = pin_problem(value)
            if problem:
                raise ValueError(f"{source} {value!r}: {problem}")
            return value
    return stored_pin(data_dir)


def worded(code: str) -> tuple[str, str]:
    """A refusal as (code, its English sentence from the catalogue, `companion.util.wording`)."""
    return code, say(code, "en")


class PinGuard:
    """Counts wrong PINs per address and for the whole table; `reset` is the host's way back in.

    On the monotonic clock (`companion.util.rate`): a wall clock stepped back keeps no lockout."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._table = SlidingWindow(TABLE_GUESSES_PER_HOUR, 3600, clock)
        self._address = SlidingWindow(ADDRESS_GUESSES_PER_MINUTE, 60, clock)
        self._lock = threading.Lock()

    def refusal(self, address: str) -> str | None:
        """Why no PIN from ``address`` is checked now (a lockout), or None."""
        lockout = self.lockout(address)
        return None if lockout is None else lockout[1]

    def lockout(self, address: str) -> tuple[str, str] | None:
        """The lockout in force for ``address`` as (code, English sentence), or None.

        The code lets the page say it in its own language (``pin_locked_table``: the whole
        table's guesses are used up; ``pin_locked_address``: this device's); the English is
        the catalogue's sentence for it."""
        if not self._table.test("table"):
            return worded("pin_locked_table")
        if not self._address.test(address):
            return worded("pin_locked_address")
        return None

    def check(self, address: str, given: str, pin: str) -> tuple[str, str] | None:
        """One PIN guess from ``address``: None if ``given`` is ``pin``, else why not as
        (code, English sentence): ``wrong_pin``, or the lockout in force (then it is not checked).

        One step under the lock: the server answers with many threads, and guesses arriving
        together must not all pass the limit's test before any of them is counted."""
        with self._lock:
            lockout = self.lockout(address)
            if lockout is not None:
                return lockout
            if hmac.compare_digest(given.encode(), pin.encode()):
                return None
            self._table.hit("table")
            self._address.hit(address)
            return worded("wrong_pin")

    def reset(self) -> None:
        """Forget every wrong guess (the host held Confirm at the table)."""
        with self._lock:
            self._table.reset()
            self._address.reset()


@dataclass
class HostSession:
    csrf: str
    #: When it ends, on the monotonic clock.
    expires: float
    #: When it ends, on the wall clock: only to carry it across a restart.
    until: float


class Sessions:
    """Host logins kept on the server: the cookie carries only the id. With a ``path`` they are
    kept there too, keyed by a digest of the id with the PIN; ``clock`` is monotonic and
    ``wall`` only dates the kept file's entries."""

    def __init__(
        self,
        pin: str = "",
        path: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        lifetime: float = SESSION_SECONDS,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._sessions: dict[str, HostSession] = {}
        self._lock = threading.Lock()
        self.pin, self.path, self.clock, self.lifetime, self.wall = pin, path, clock, lifetime, wall
        self._load()

    def _key(self, sid: str) -> str:
        return hashlib.sha256(f"{self.pin}\0{sid}".encode()).hexdigest()

    def _load(self) -> None:
        """The sessions kept in ``path`` that have not ended, read bounded like every input (a
        regular file, at most `SESSIONS_FILE_LIMIT` bytes, nesting bounded); anything else
        logs the hosts out."""
        if self.path is None:
            return
        try:
            text = read_text_file(self.path, SESSIONS_FILE_LIMIT, follow_links=False)
            check_json(text)
            kept = json.loads(text)["sessions"]
            now, wall = self.clock(), self.wall()
            for entry in kept[:MAX_SESSIONS]:
                key, csrf, until = entry["key"], entry["csrf"], float(entry["until"])
                left = min(until - wall, self.lifetime)
                if isinstance(key, str) and isinstance(csrf, str) and left > 0:
                    self._sessions[key] = HostSession(csrf, now + left, until)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, BadJson, RecursionError):
            self._sessions.clear()  # logged out, nothing worse: the host logs in again

    def _save(self) -> None:
        """Keep the sessions in ``path`` (called under the lock). A disk that refuses keeps
        them in memory only: a restart would then log the host out, as before."""
        with contextlib.suppress(OSError):
            self._write()

    def _write(self) -> None:
        """`_save`, raising the disk's OSError (a logout must know whether it was kept)."""
        if self.path is None:
            return
        kept = [{"key": k, "csrf": s.csrf, "until": s.until} for k, s in self._sessions.items()]
        write_private(self.path, json.dumps({"sessions": kept}).encode("utf-8"))

    def open(self) -> tuple[str, HostSession]:
        """A new login: its id (for the cookie) and its CSRF token."""
        sid = secrets.token_urlsafe(32)
        with self._lock:
            now = self.clock()
            self._sessions = {k: s for k, s in self._sessions.items() if s.expires > now}
            while len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[next(iter(self._sessions))]
            session = HostSession(secrets.token_urlsafe(24), now + self.lifetime, self.wall() + self.lifetime)
            self._sessions[self._key(sid)] = session
            self._save()
        return sid, session

    def get(self, sid: object) -> HostSession | None:
        """The live session ``sid`` names, or None (unknown, revoked or expired)."""
        if not isinstance(sid, str) or len(sid) > 100:
            return None
        key = self._key(sid)
        with self._lock:
            session = self._sessions.get(key)
            if session is not None and session.expires <= self.clock():
                del self._sessions[key]
                self._save()
                return None
            return session

    def count(self) -> int:
        """Sessions not yet ended (some may have expired since)."""
        with self._lock:
            return len(self._sessions)

    def close(self, sid: object) -> None:
        """Logout: the id stops working, wherever the cookie was copied to, for good. When the
        disk refuses the rewrite, the session stays open and `LogoutNotSaved` is raised: a
        logout that came back at the next restart would be worse."""
        if isinstance(sid, str):
            with self._lock:
                key = self._key(sid)
                session = self._sessions.pop(key, None)
                if session is None:
                    return
                try:
                    self._write()
                except OSError:
                    self._sessions[key] = session
                    folder = "" if self.path is None else str(self.path.parent)
                    raise LogoutNotSaved("logout_not_saved", folder=folder) from None

    def close_all(self) -> None:
        """Everyone logs in again (the PIN changed)."""
        with self._lock:
            self._sessions.clear()
            self._save()


@dataclass
class Access:
    """The table's PIN with its guard and sessions, shared by the page, the buttons and the CLI."""

    pin: str
    guard: PinGuard
    sessions: Sessions

    @classmethod
    def for_pin(cls, pin: str, data_dir: Path | None = None) -> Access:
        """The access for ``pin``; with ``data_dir``, sessions are kept there across restarts."""
        path = None if data_dir is None else data_dir / "sessions.json"
        return cls(pin, PinGuard(), Sessions(pin, path))


def host_name(host_header: str) -> str:
    """The name part of an HTTP ``Host`` header, lower case, without port or IPv6 brackets."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


@functools.lru_cache(maxsize=64)
def host_allowed(host_header: str, names: frozenset[str]) -> bool:
    """Is ``host_header`` one of this machine's names, or an IP address? A DNS-rebinding page
    reaches the companion under the attacker's own name, so any other Host is not ours.

    Asked by every control with the same few headers (parsing an address was 6 % of a logged-in
    tap's instructions through the app): the answers are kept, a fixed few, nothing to forget."""
    name = host_name(host_header)
    if not name or len(host_header) > 255:
        return False
    if name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def own_names(hostname: str, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The names this machine answers to: localhost, its host name and its mDNS name, and ``extra``."""
    base = hostname.lower().split(".")[0]
    return frozenset(
        {
            "localhost",
            "localhost.localdomain",
            base,
            f"{base}.local",
            hostname.lower(),
            *(e.lower() for e in extra),
        }
    )
