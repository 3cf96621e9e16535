"""The companion's settings: a TOML file with documented defaults.

Every setting has a default (``companion/config.example.toml`` lists them), so the file may set
only what differs. Every problem of a file is reported in one go, with the file, the line and
what would be accepted, in the catalogues' words. The settings also police the wiring: the
ring's pin must be one the SPI adapter drives, no two parts may share a GPIO or take a pin of
the SPI buses, and a config naming the ring's pin of earlier builds is told which wires move.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from companion.util.wording import CodedError, say

#: The one rule for a table PIN, wherever it comes from (config, ``--pin``, the pin file).
PIN_RULE = re.compile(r"[0-9]{4,8}")


def pin_problem(pin: str) -> str | None:
    """Why ``pin`` cannot be the table PIN (the catalogue's rule, after ``--pin '12': ``), or None."""
    if not PIN_RULE.fullmatch(pin):
        return say("pin_rule", "en")
    return None


#: Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
DEFAULT_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
#: How many markers the page draws (`web/static/chart.js` MARKS): shapes every phone's fonts have.
#: Beside the palette: a player is told apart by the pair (`companion.table.marks`).
MARKERS = 8


class ConfigError(CodedError, ValueError):
    """A setting is wrong: a code and params worded by the catalogues, where it is (`at`), and
    the other problems found in the same file (``also``), so one run reports them all."""

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code, **params)
        self.source = ""
        self.line: int | None = None
        self.also: list[ConfigError] = []

    def at(self, source: str, line: int | None = None) -> ConfigError:
        """This problem, placed in ``source`` (at ``line`` when known)."""
        self.source, self.line = source, line
        return self

    @property
    def problems(self) -> list[ConfigError]:
        """Every problem of the file, this one first."""
        return [self, *self.also]

    def words(self, lang: str = "en") -> str:
        """Each problem on its own line, after the file (and line) it is in."""
        lines = []
        for problem in self.problems:
            text = say(problem.code, lang, **problem.params)
            if problem.source:
                where = "config_at_line" if problem.line else "config_in"
                text = f"{say(where, lang, source=problem.source, line=problem.line)} {text}"
            lines.append(text)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.words("en")


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
    #: BCM pin of the ring's data line: SPI0's MOSI, GPIO10 (physical pin 19), the one the SPI
    #: ring adapter drives on every supported board: SPI0 has DMA on every board (docs/ring.md).
    pin: int = 10
    #: The order the ring's LEDs take their colour bytes in: a permutation of RGB (GRB for
    #: WS2812B rings) or of RGBW for rings with a white LED.
    order: str = "GRB"
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
class VenueSettings:
    """Publishing to a venue's MQTT broker (docs/venue.md); off while ``broker`` is empty."""

    #: "mqtt://host:1883" or "mqtts://host:8883" (TLS); empty: no venue, nothing is imported.
    broker: str = ""
    username: str = ""
    #: A file holding the broker password (kept out of the config, which may be shared).
    password_file: str = ""
    #: The CA certificate that signed the broker's (mqtts:// only); empty: the system's CAs.
    ca_file: str = ""
    topic_prefix: str = "trekking"
    #: The table's id in topics and on the hall's page; empty: this machine's host name.
    table: str = ""
    #: Announce the table's sensors to Home Assistant (MQTT discovery).
    home_assistant: bool = False
    discovery_prefix: str = "homeassistant"
    #: With ``home_assistant``: each tag tap is also a Home Assistant tag scan (MQTT tag scanner).
    tag_scans: bool = False
    #: A file holding the key the hall gave this table at enrolment (``companion hall --enrol``):
    #: the table signs its setups and events with it, and a hall that enrols keeps only those.
    key_file: str = ""


@dataclass(frozen=True)
class Config:
    table: TableSettings = field(default_factory=TableSettings)
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    ring: RingSettings = field(default_factory=RingSettings)
    buttons: ButtonSettings = field(default_factory=ButtonSettings)
    venue: VenueSettings = field(default_factory=VenueSettings)
    palette: tuple[str, ...] = DEFAULT_PALETTE
    source: str = "defaults"


#: Each ``[section]`` of the file: the settings class of the `Config` field it fills.
_SECTIONS: dict[str, type[Any]] = {
    name: type(part) for name, part in vars(Config()).items() if is_dataclass(part)
}
#: A venue broker's address: the scheme says whether TLS is used; the port is optional.
BROKER = re.compile(r"\Amqtts?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?/?\Z")
#: A table id or topic level: letters, digits, "-" and "_" (no MQTT wildcard, no "/").
TOPIC_WORD = re.compile(r"\A[A-Za-z0-9_-]{1,40}\Z")
_COLOUR = re.compile(r"\A#[0-9a-fA-F]{6}\Z")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
#: The type of a setting in words (the catalogue's ``config_type.<kind>``), never "a int".
_KINDS = {int: "int", float: "float", str: "str", bool: "bool"}

# --- the wiring ---------------------------------------------------------------------------------

#: Where each GPIO is on the 40-pin header (BCM number: physical pin), the same on every Pi here.
PHYSICAL = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31, 13: 33,
            19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 1: 28, 12: 32,
            16: 36, 20: 38, 21: 40}  # fmt: skip
#: The ring's bus (SPI0, ``dtparam=spi=on``: it claims all five pins, the ring uses MOSI only).
SPI0 = {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK"}
#: The reader's bus (SPI1, ``dtoverlay=spi1-1cs``: its chip select is GPIO18).
SPI1 = {18: "SPI1 CE0", 19: "SPI1 MISO", 20: "SPI1 MOSI", 21: "SPI1 SCLK"}
#: The ring data pins the SPI ring adapter can drive, per board (model string prefix).
RING_PINS: dict[str, tuple[int, ...]] = {
    "Raspberry Pi Zero 2": (10,),
    "Raspberry Pi 3": (10,),
    "Raspberry Pi 4": (10,),
    "Raspberry Pi 5": (10,),
}
#: The ring's data pin of earlier builds (SPI1 MOSI, physical pin 38).
OLD_RING_PIN = 20
#: Pins to offer for a button or RST: no bus, not the ID EEPROM (0, 1), I2C (2, 3) or UART (14, 15).
_FREE = (4, 5, 6, 12, 13, 16, 17, 22, 23, 24, 25, 26, 27)


def ring_pins(model: str = "") -> tuple[int, ...]:
    """The GPIOs the ring's data may use on the board ``model`` (any supported board's when
    the board is unknown, as when a Pi's config is checked on a PC)."""
    for prefix, pins in RING_PINS.items():
        if model.startswith(prefix):
            return pins
    return tuple(sorted({p for pins in RING_PINS.values() for p in pins}))


def _gpio(pin: int) -> dict[str, Any]:
    """The params that name a GPIO: its number and its physical pin on the header."""
    return {"gpio": f"GPIO{pin}", "physical": PHYSICAL.get(pin, "?")}


def wiring_problems(config: Config, lines: dict[str, int | None] | None = None) -> list[ConfigError]:
    """Every way the settings' pins cannot be wired: a ring pin the adapter cannot drive, a
    button or RST on an SPI bus pin, two parts on one GPIO. ``lines``: where each setting is."""
    lines = lines or {}
    problems: list[ConfigError] = []

    def problem(setting: str, code: str, **params: Any) -> None:
        problems.append(ConfigError(code, setting=setting, **params).at(config.source, lines.get(setting)))

    ring, drivable = config.ring.pin, ring_pins()
    if ring not in drivable:
        problem(
            "ring.pin",
            "config_ring_pin",
            why="old" if ring == OLD_RING_PIN else "reader" if ring in SPI1 else "other",
            value=ring,
            pins=", ".join(f"GPIO{p}" for p in drivable),
            header=", ".join(str(PHYSICAL[p]) for p in drivable),
            first=drivable[0],
            **_gpio(ring),
        )
    used = {
        "reader.rst_pin": config.reader.rst_pin,
        "buttons.crystal": config.buttons.crystal,
        "buttons.confirm": config.buttons.confirm,
        "buttons.undo": config.buttons.undo,
    }
    taken = {*SPI0, *SPI1, ring, *used.values()}
    free = ", ".join([f"GPIO{p}" for p in _FREE if p not in taken][:3])
    for setting, pin in used.items():
        if pin in SPI0 or pin in SPI1:
            why = "reader" if pin in SPI1 else "ring"
            role = SPI1.get(pin) or SPI0[pin]
            problem(setting, "config_pin_bus", why=why, value=pin, role=role, free=free, **_gpio(pin))
    seen: dict[int, str] = {}
    for setting, pin in used.items():
        if pin not in seen:
            seen[pin] = setting
            continue
        named, other = setting, seen[pin]
        if lines.get(named) is None and lines.get(other) is not None:  # blame the one the file sets
            named, other = other, named
        problem(named, "config_pin_shared", other=other, value=pin, free=free, **_gpio(pin))
    return problems


# --- reading the file ---------------------------------------------------------------------------


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


#: Each setting's range: (section, keys, the ``config_value`` variant, whether a value is out of it).
_RANGES: tuple[tuple[str, tuple[str, ...], str, Callable[[Any], bool]], ...] = (
    ("ring", ("leds",), "leds", lambda v: v not in (12, 16, 24, 60)),
    ("ring", ("direction",), "direction", lambda v: v not in ("clockwise", "counterclockwise")),
    ("ring", ("brightness", "night_brightness"), "fraction", lambda v: not 0.0 <= v <= 1.0),
    ("ring", ("night_from", "night_until"), "time", lambda v: not _TIME.match(v)),
    ("ring", ("twelve_oclock_led",), "not_negative", lambda v: v < 0),
    ("ring", ("fps",), "fps", lambda v: not 1 <= v <= 60),
    ("ring", ("order",), "order", lambda v: "".join(sorted(v)) not in ("BGR", "BGRW")),
    ("table", ("controls_per_minute",), "controls", lambda v: not 10 <= v <= 100000),
    ("table", ("turn",), "turn", lambda v: v not in ("quick", "confirm")),
    ("table", ("port",), "port", lambda v: not 1 <= v <= 65535),
    ("table", ("pin",), "table_pin", lambda v: bool(v and pin_problem(v))),
    ("table", ("live_pages", "live_pages_per_address"), "pages", lambda v: not 1 <= v <= 400),
    ("buttons", ("pin_hold",), "pin_hold", lambda v: not 1 <= v <= 30),
    ("reader", ("poll_interval", "debounce"), "reader_seconds", lambda v: not 0.005 <= v <= 5),
    ("reader", ("gain_db",), "gain", lambda v: v not in (18, 23, 33, 38, 43, 48)),
    ("buttons", ("undo_hold", "bounce"), "button_seconds", lambda v: not 0 <= v <= 5),
    ("venue", ("broker",), "broker", lambda v: bool(v and not BROKER.match(v))),
    ("venue", ("topic_prefix", "discovery_prefix"), "topic", lambda v: not TOPIC_WORD.match(v)),
    ("venue", ("table",), "topic", lambda v: bool(v and not TOPIC_WORD.match(v))),
)

#: The settings that name a GPIO (BCM 0-27), in every section but ``[table]`` (whose ``pin`` is the PIN).
_GPIO_KEYS = ("pin", "rst_pin", "crystal", "confirm", "undo")


def _check(section: str, key: str, value: Any) -> str | None:
    """Why ``value`` is not acceptable for ``section.key`` (the ``config_value`` variant), or None."""
    for where, keys, variant, out_of_range in _RANGES:
        if where == section and key in keys and out_of_range(value):
            return variant
    if key in _GPIO_KEYS and section != "table" and isinstance(value, int) and not 0 <= value <= 27:
        return "gpio"
    return None


def parse_config(text: str, source: str = "config") -> Config:
    """Read a TOML config; raise `ConfigError` listing every problem, each with its line."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config_toml", detail=str(exc)).at(source) from None
    problems: list[ConfigError] = []
    lines: dict[str, int | None] = {}
    built: dict[str, Any] = {"source": source}
    for section, value in raw.items():
        if section == "players":
            if not isinstance(value, dict) or set(value) - {"palette"}:
                problems.append(ConfigError("config_players").at(source))
                continue
            palette = value.get("palette", list(DEFAULT_PALETTE))
            if (
                not isinstance(palette, list)
                or len(palette) < 4
                or not all(isinstance(c, str) and _COLOUR.match(c) for c in palette)
            ):
                problems.append(
                    ConfigError("config_palette").at(source, _line_of(text, "players", "palette"))
                )
                continue
            built["palette"] = tuple(palette)
            continue
        cls = _SECTIONS.get(section)
        if cls is None:
            known = ", ".join(f"[{s}]" for s in (*_SECTIONS, "players"))
            problems.append(ConfigError("config_unknown_section", section=section, known=known).at(source))
            continue
        if not isinstance(value, dict):
            problems.append(ConfigError("config_not_table", section=section).at(source))
            continue
        defaults = {f.name: f.default for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, item in value.items():
            line = _line_of(text, section, key)
            lines[f"{section}.{key}"] = line
            setting = f"{section}.{key}"
            if key not in defaults:
                known = ", ".join(defaults)
                problems.append(
                    ConfigError("config_unknown_key", section=section, key=repr(key), known=known).at(
                        source, line
                    )
                )
                continue
            expected = type(defaults[key])
            if expected is float and isinstance(item, int) and not isinstance(item, bool):
                item = float(item)
            if type(item) is not expected:
                problems.append(
                    ConfigError(
                        "config_type",
                        kind=_KINDS[expected],
                        setting=setting,
                        value=_shown(item),
                        default=repr(defaults[key]),
                    ).at(source, line)
                )
                continue
            why = _check(section, key, item)
            if why:
                problems.append(
                    ConfigError("config_value", why=why, setting=setting, value=repr(item)).at(source, line)
                )
                continue
            values[key] = item
        built[section] = cls(**values)
    config = Config(**built)
    if not any(p.code == "config_value" and p.params.get("why") == "gpio" for p in problems):
        problems += wiring_problems(config, lines)
    if problems:
        problems.sort(key=lambda p: p.line or len(text.splitlines()) + 1)  # in the file's order
        first = problems[0]
        first.also = problems[1:]
        raise first
    return config


def _shown(value: Any) -> str:
    """A wrong value as the file wrote it, shortened (a whole table would fill the screen)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def load_config(path: str | Path | None) -> Config:
    """The settings from ``path``, or the defaults when it is None."""
    if path is None:
        return Config()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError("config_unreadable", path=str(p), error=exc.strerror) from None
    except UnicodeDecodeError:
        raise ConfigError("config_not_utf8", path=str(p)) from None
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
