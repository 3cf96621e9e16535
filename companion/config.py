"""The companion's settings: a TOML file with documented defaults.

Every setting has a default, so the file is optional and may set only what
differs (``companion/config.example.toml`` lists them all). A bad value is
reported with the file, the line and what would be accepted — never a traceback.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from companion.access import pin_problem

#: Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
DEFAULT_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")


class ConfigError(ValueError):
    """A setting is wrong; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class TableSettings:
    port: int = 8080
    #: The table PIN guarding every control (4-8 digits); empty: the one drawn once for the data directory.
    pin: str = ""
    host: str = "0.0.0.0"
    #: Controls accepted from one device per minute (a flood guard; people never come close).
    controls_per_minute: int = 600
    #: Live pages (event streams) served at once, and from one address; past either, a page
    #: polls every few seconds instead, so a flood of pages cannot take every server thread.
    live_pages: int = 64
    live_pages_per_address: int = 8
    #: "quick": Crystal is pressed before tapping the card, and the tap commits the take
    #: (a take that spends nothing is one tap); "confirm": tap, Crystal(s), then Confirm.
    turn: str = "quick"


@dataclass(frozen=True)
class ReaderSettings:
    #: Seconds between two polls of the reader (never a busy loop).
    poll_interval: float = 0.1
    #: A tag must be away this many seconds before it counts as a new tap.
    debounce: float = 0.6
    #: BCM pin wired to the MFRC522's RST.
    rst_pin: int = 25
    #: The MFRC522's receiver gain in dB (RFCfgReg), written after each reset of the chip;
    #: its own default, 33 dB, reads stickers through a lid less far.
    gain_db: int = 48


@dataclass(frozen=True)
class RingSettings:
    leds: int = 24
    #: The LED at 12 o'clock (0 = the ring's first LED).
    twelve_oclock_led: int = 0
    direction: str = "clockwise"
    brightness: float = 0.3
    night_brightness: float = 0.08
    #: Night brightness applies between these times ("HH:MM"), e.g. for late games.
    night_from: str = "22:00"
    night_until: str = "07:00"
    #: BCM pin of the ring's data line (GPIO18 is PWM0 on every Pi model).
    pin: int = 18
    #: Frames per second of the ring animation.
    fps: int = 30


@dataclass(frozen=True)
class ButtonSettings:
    crystal: int = 5
    confirm: int = 6
    undo: int = 13
    #: Seconds Undo must be held (a short press does nothing, so it is never hit by accident).
    undo_hold: float = 1.0
    #: Debounce window of the buttons, seconds.
    bounce: float = 0.05
    #: Seconds Confirm must be held to show the table PIN on the ring (and clear a PIN lockout).
    pin_hold: float = 5.0


@dataclass(frozen=True)
class Config:
    table: TableSettings = field(default_factory=TableSettings)
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    ring: RingSettings = field(default_factory=RingSettings)
    buttons: ButtonSettings = field(default_factory=ButtonSettings)
    palette: tuple[str, ...] = DEFAULT_PALETTE
    source: str = "defaults"


_SECTIONS: dict[str, type[Any]] = {
    "table": TableSettings,
    "reader": ReaderSettings,
    "ring": RingSettings,
    "buttons": ButtonSettings,
}
_COLOUR = re.compile(r"\A#[0-9a-fA-F]{6}\Z")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def _line_of(text: str, section: str, key: str) -> int | None:
    """The line where ``key`` is set in ``[section]`` (tomllib does not say)."""
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[([^\]]+)\]", stripped)
        if header:
            current = header.group(1).strip()
        elif current == section and re.match(rf"^{re.escape(key)}\s*=", stripped):
            return number
    return None


def _check(section: str, key: str, value: Any) -> str | None:
    """Why ``value`` is not acceptable for ``section.key``, or None."""
    if section == "ring":
        if key == "leds" and value not in (12, 16, 24, 60):
            return "must be 12, 16, 24 or 60 (the NeoPixel ring sizes supported)"
        if key == "direction" and value not in ("clockwise", "counterclockwise"):
            return 'must be "clockwise" or "counterclockwise"'
        if key in ("brightness", "night_brightness") and not 0.0 <= value <= 1.0:
            return "must be between 0.0 and 1.0"
        if key in ("night_from", "night_until") and not _TIME.match(value):
            return 'must be a time such as "22:00"'
        if key == "twelve_oclock_led" and value < 0:
            return "must be 0 or more"
        if key == "fps" and not 1 <= value <= 60:
            return "must be 1 to 60"
    if section == "table" and key == "controls_per_minute" and not 10 <= value <= 100000:
        return "must be 10 to 100000"
    if section == "table" and key == "turn" and value not in ("quick", "confirm"):
        return 'must be "quick" (crystals before the tap) or "confirm" (tap, crystals, Confirm)'
    if section == "table" and key == "port" and not 1 <= value <= 65535:
        return "must be a port number 1-65535"
    if section == "table" and key == "pin" and value and pin_problem(value):
        return 'must be 4 to 8 digits, such as "4821" (or "" to keep the one drawn for this data directory)'
    if section == "table" and key == "live_pages" and not 1 <= value <= 400:
        return "must be 1 to 400"
    if section == "table" and key == "live_pages_per_address" and not 1 <= value <= 400:
        return "must be 1 to 400"
    if section == "buttons" and key == "pin_hold" and not 1 <= value <= 30:
        return "must be between 1 and 30 seconds"
    if section == "reader" and key in ("poll_interval", "debounce") and not 0.005 <= value <= 5:
        return "must be between 0.005 and 5 seconds"
    if section == "reader" and key == "gain_db" and value not in (18, 23, 33, 38, 43, 48):
        return "must be 18, 23, 33, 38, 43 or 48 (the receiver gains the MFRC522 can set)"
    if section == "buttons" and key in ("undo_hold", "bounce") and not 0 <= value <= 5:
        return "must be between 0 and 5 seconds"
    if (
        key in ("pin", "rst_pin", "crystal", "confirm", "undo")
        and isinstance(value, int)
        and not 0 <= value <= 27
    ):
        return "must be a BCM GPIO number 0-27"
    return None


def parse_config(text: str, source: str = "config") -> Config:
    """Read a TOML config; raise `ConfigError` for the first problem with its line."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    built: dict[str, Any] = {"source": source}
    for section, value in raw.items():
        if section == "players":
            if not isinstance(value, dict) or set(value) - {"palette"}:
                raise ConfigError(f"{source}: [players] has one setting, palette")
            palette = value.get("palette", list(DEFAULT_PALETTE))
            if (
                not isinstance(palette, list)
                or len(palette) < 4
                or not all(isinstance(c, str) and _COLOUR.match(c) for c in palette)
            ):
                line = _line_of(text, "players", "palette")
                where = f"{source}, line {line}" if line else source
                raise ConfigError(
                    f"{where}: players.palette must list 4 or more colours "
                    '(such as ["#0072B2", "#E69F00", "#009E73", "#CC79A7"])'
                )
            built["palette"] = tuple(palette)
            continue
        cls = _SECTIONS.get(section)
        if cls is None:
            known = ", ".join(f"[{s}]" for s in (*_SECTIONS, "players"))
            raise ConfigError(f"{source}: unknown section [{section}]; use {known}")
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {section} must be a [{section}] table")
        defaults = {f.name: f.default for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, item in value.items():
            line = _line_of(text, section, key)
            where = f"{source}, line {line}" if line else source
            if key not in defaults:
                raise ConfigError(
                    f"{where}: [{section}] has no setting {key!r}; known: {', '.join(defaults)}"
                )
            expected = type(defaults[key])
            if expected is float and isinstance(item, int) and not isinstance(item, bool):
                item = float(item)
            if type(item) is not expected:
                raise ConfigError(
                    f"{where}: {section}.{key} must be a {expected.__name__}, not {item!r} "
                    f"(default: {defaults[key]!r})"
                )
            problem = _check(section, key, item)
            if problem:
                raise ConfigError(f"{where}: {section}.{key} = {item!r} {problem}")
            values[key] = item
        built[section] = cls(**values)
    return Config(**built)


def load_config(path: str | Path | None) -> Config:
    """The settings from ``path``, or the defaults when it is None."""
    if path is None:
        return Config()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {p}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config file {p} is not UTF-8 text") from None
    return parse_config(text, str(p))


def colour_problem(colour: object) -> str | None:
    """Why ``colour`` is not a player colour, or None: the one rule for the config, the page and the CLI."""
    if isinstance(colour, str) and _COLOUR.match(colour):
        return None
    shown = repr(colour)[:40]
    return f'{shown} is not a colour; write it as "#rrggbb" with hexadecimal digits, such as "#0072B2"'


def colour_rgb(colour: str) -> tuple[int, int, int]:
    """``"#0072B2"`` as (0, 114, 178)."""
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
