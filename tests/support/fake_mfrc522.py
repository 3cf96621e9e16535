"""An emulated MFRC522 chip behind fake ``spidev`` and ``RPi.GPIO`` modules.

The real ``mfrc522`` driver talks to the chip through SPI register reads and
writes. `Chip` answers those at register level — FIFO, IRQ flags, the CRC
coprocessor, the Transceive and MFAuthent commands, the timer, the antenna
switch and the receiver gain register, with their reset values — and counts
every SPI exchange (`Chip.spi_exchanges`). It plays the ISO 14443-A
tags in its field: REQA/ATQA, anticollision with BCC, SELECT/SAK, Crypto1
authentication (by key check) and block reads. A tag that has answered
anticollision is READY and, like a real one, ignores the next REQA (going back
to IDLE), so a tag held on the reader reads on every other poll. Tests move tags
in and out of the field, put two at once (a collision), or inject noise (a
wrong BCC or a parity error, at either cascade level).

The timer follows the datasheet (section 8.5): with TModeReg's TAuto set it starts
when a frame has been sent, a tag's answer stops it, and when no tag answers
ComIrqReg's TimerIRq is set once (2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz
have passed on the chip's clock (real time unless a test passes its own). A
Transceive command does not end by itself (no IdleIRq); an answer sets RxIRq, and
ErrIRq too when ErrorReg holds an error. With the antenna off (TxControlReg bits
0-1, off after a reset until the driver turns it on) no tag hears anything.

The chip is wired to one SPI bus and chip select (`Chip.wired`: SPI1 CE0, the reader's bus,
unless a test wires it the old way); a ``SpiDev`` opened elsewhere reads 0x00 (nothing on
MISO) and every handle opened is kept in `Chip.opened`, so a test sees which bus the driver
really opened, and how often.

`install()` puts the fakes in ``sys.modules`` so that ``import mfrc522`` — the
real package from PyPI — runs unchanged on a PC.
"""

from __future__ import annotations

import importlib
import random
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# registers
COMMAND, COMM_IRQ, DIV_IRQ, ERROR, STATUS2, FIFO_DATA, FIFO_LEVEL, CONTROL, BIT_FRAMING = (
    0x01, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0A, 0x0C, 0x0D,
)  # fmt: skip
CRC_L, CRC_M, VERSION = 0x22, 0x21, 0x37
TX_CONTROL, RF_CFG, T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x14, 0x26, 0x2A, 0x2B, 0x2C, 0x2D
#: Reset values of the registers modelled (datasheet section 9.2): ComIrqReg 0x14 (IdleIRq and
#: LoAlertIRq), TxControlReg 0x80 (antenna off), RFCfgReg 0x48 (RxGain 100: 33 dB), VersionReg.
RESET = {COMM_IRQ: 0x14, TX_CONTROL: 0x80, RF_CFG: 0x48, VERSION: 0x92}
# commands
IDLE, CALC_CRC, TRANSCEIVE, AUTHENT, SOFT_RESET = 0x00, 0x03, 0x0C, 0x0E, 0x0F
# CommIrqReg bits
TIMER_IRQ, ERR_IRQ, IDLE_IRQ, RX_IRQ = 0x01, 0x02, 0x10, 0x20
#: RFCfgReg's RxGain bits (6-4) in dB (table 98).
GAIN_DB = {0: 18, 1: 23, 2: 18, 3: 23, 4: 33, 5: 38, 6: 43, 7: 48}
# ErrorReg bits
PARITY_ERR, COLL_ERR = 0x02, 0x08
DEFAULT_KEY = [0xFF] * 6


def crc_a(data: list[int]) -> int:
    """ISO 14443-3 CRC_A (as the chip's coprocessor computes it)."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = ((crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)) & 0xFFFF
    return crc


@dataclass
class Tag:
    """A sticker: a MIFARE Classic 1K (4-byte UID, 64 blocks of 16 bytes, Crypto1 keys)
    or, with a 7-byte UID, an NTAG213 (45 pages of 4 bytes, no authentication).

    Writes follow the cards: Classic's two-step WRITE (command, then 16 bytes, each
    answered by a 4-bit ACK) after authentication, never to block 0 or a sector
    trailer; NTAG's one-step WRITE of a page from page 4 to 39 (user memory).
    ``faulty`` acknowledges writes but keeps nothing (to test the read-back check).
    """

    uid: list[int]
    blocks: dict[int, list[int]] = field(default_factory=dict)
    key: list[int] = field(default_factory=lambda: list(DEFAULT_KEY))
    state: str = "IDLE"  # IDLE, READY, READY2 (7-byte UID, level 1 selected), ACTIVE
    authenticated: bool = False
    pages: dict[int, list[int]] = field(default_factory=dict)
    faulty: bool = False
    pending_block: int | None = None
    writes: int = 0
    #: A MIFARE Classic with a 7-byte UID (SAK 0x08 at cascade level 2, not an NTAG).
    classic7: bool = False
    #: A SAK at cascade level 1 other than the standard's (a faulty or forged tag).
    sak_cl1: int | None = None

    @property
    def seven(self) -> bool:
        """A 7-byte UID: two cascade levels."""
        return len(self.uid) == 7

    @property
    def ntag(self) -> bool:
        return self.seven and not self.classic7

    @property
    def auth_uid(self) -> list[int]:
        """The 4 UID bytes Crypto1 authenticates with (a 7-byte UID's last four)."""
        return self.uid[3:7] if self.seven else self.uid

    @property
    def cl1(self) -> list[int]:
        """The tag's answer to anticollision at cascade level 1 (with its BCC)."""
        part = [0x88, *self.uid[:3]] if self.seven else self.uid[:4]
        return [*part, part[0] ^ part[1] ^ part[2] ^ part[3]]

    @classmethod
    def with_text(cls, uid: list[int], text: str) -> Tag:
        """A tag whose blocks 8-10 hold ``text`` (what SimpleMFRC522.write stores)."""
        data = text.ljust(48).encode("ascii")[:48]
        return cls(uid, {8 + i: list(data[16 * i : 16 * i + 16]) for i in range(3)})

    @property
    def legacy_text(self) -> str:
        """The number SimpleMFRC522.read_id_no_block returns for this tag (a 7-byte UID's first
        cascade level only: the cascade tag 0x88 and three bytes)."""
        n = 0
        for byte in self.cl1:
            n = n * 256 + byte
        return str(n)

    @property
    def uid_text(self) -> str:
        """What the table reports: a 4-byte UID as the driver's number, a 7-byte one in hex."""
        return self.legacy_text if not self.seven else ":".join(f"{b:02X}" for b in self.uid)


class Chip:
    """The MFRC522 at register level, with the tags in its field."""

    def __init__(self, seed: int = 0, clock: Callable[[], float] = time.monotonic) -> None:
        self.regs = [0] * 64
        self.fifo: list[int] = []
        self.field: list[Tag] = []
        self.noise = 0.0  # probability that an exchange is garbled
        self.rng = random.Random(seed)
        self.clock = clock
        self.exchanges = 0  # frames sent to the tags
        self.spi_exchanges = 0  # SPI transfers (one register read or write each)
        self.timer_ends: float | None = None
        #: The (bus, chip select) the chip is wired to, and each (bus, chip select) opened.
        self.wired = (1, 0)
        self.opened: list[tuple[int, int]] = []
        self.reset()

    def reset(self) -> None:
        """What a soft reset (or power-on) leaves: every register at its reset value."""
        self.regs = [0] * 64
        for register, value in RESET.items():
            self.regs[register] = value
        self.fifo.clear()
        self.timer_ends = None

    @property
    def gain_db(self) -> int:
        return GAIN_DB[(self.regs[RF_CFG] >> 4) & 0x07]

    @property
    def antenna_on(self) -> bool:
        return self.regs[TX_CONTROL] & 0x03 == 0x03

    def timer_period(self) -> float:
        prescaler = (self.regs[T_MODE] & 0x0F) << 8 | self.regs[T_PRESCALER]
        reload = self.regs[T_RELOAD_H] << 8 | self.regs[T_RELOAD_L]
        return (2 * prescaler + 1) * (reload + 1) / 13.56e6

    # --- the SPI side ---------------------------------------------------------------------

    def xfer2(self, data: list[int]) -> list[int]:
        self.spi_exchanges += 1
        address = (data[0] >> 1) & 0x3F
        if data[0] & 0x80:
            return [0, self._read(address)]
        self._write(address, data[1])
        return [0, 0]

    def _read(self, address: int) -> int:
        if address == COMM_IRQ and self.timer_ends is not None and self.clock() >= self.timer_ends:
            self.timer_ends = None
            self.regs[COMM_IRQ] |= TIMER_IRQ
        if address == FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if address == FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[address]

    def _write(self, address: int, value: int) -> None:
        if address == FIFO_DATA:
            self.fifo.append(value & 0xFF)
        elif address == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
        elif address in (COMM_IRQ, DIV_IRQ):  # bit 7 says set (1) or clear (0) the marked bits
            mask = value & 0x7F
            self.regs[address] = self.regs[address] | mask if value & 0x80 else self.regs[address] & ~mask
        elif address == COMMAND:
            self.regs[COMMAND] = value & 0x0F
            self._command(value & 0x0F)
        elif address == BIT_FRAMING:
            self.regs[BIT_FRAMING] = value
            if value & 0x80 and self.regs[COMMAND] == TRANSCEIVE:
                self._transceive(value & 0x07)
        else:
            self.regs[address] = value

    def _command(self, command: int) -> None:
        if command == SOFT_RESET:
            self.reset()
        elif command == CALC_CRC:
            crc = crc_a(self.fifo)
            self.fifo.clear()
            self.regs[CRC_L], self.regs[CRC_M] = crc & 0xFF, crc >> 8
            self.regs[DIV_IRQ] |= 0x04
        elif command == AUTHENT:
            self._authenticate(list(self.fifo))
            self.fifo.clear()

    # --- the RF side ----------------------------------------------------------------------

    def _answer(self, data: list[int], last_bits: int = 0, error: int = 0) -> None:
        """A tag's answer: the FIFO filled, RxIRq (and ErrIRq), the timer stopped (TAuto)."""
        self.regs[ERROR] = error
        self.fifo = list(data)
        self.regs[CONTROL] = last_bits
        self.regs[COMM_IRQ] |= RX_IRQ | (ERR_IRQ if error else 0)
        self.timer_ends = None

    def _silence(self) -> None:
        """No answer: the timer runs out its period, if TAuto started it."""
        self.regs[ERROR] = 0
        self.fifo.clear()
        self.timer_ends = self.clock() + self.timer_period() if self.regs[T_MODE] & 0x80 else None

    def _transceive(self, tx_last_bits: int) -> None:
        frame = list(self.fifo)
        self.fifo.clear()
        self.exchanges += 1
        if not self.antenna_on:
            return self._silence()
        garbled = bool(self.noise and self.rng.random() < self.noise)
        if frame[:1] in ([0x26], [0x52]) and tx_last_bits == 7:  # REQA / WUPA
            return self._request()
        if frame[:2] == [0x93, 0x20]:  # anticollision, cascade level 1
            return self._anticollision_1(garbled)
        if frame[:2] == [0x93, 0x70]:  # SELECT, cascade level 1
            return self._select_1(frame)
        if frame[:2] == [0x95, 0x20]:  # anticollision, cascade level 2 (7-byte UIDs)
            return self._anticollision_2(garbled)
        if frame[:2] == [0x95, 0x70]:  # SELECT, cascade level 2
            return self._select_2(frame)
        active = next((t for t in self.field if t.state == "ACTIVE"), None)
        if active is None:
            return self._silence()
        return self._to_active(active, frame)

    def _request(self) -> None:
        answering = []
        for tag in self.field:
            if tag.state == "IDLE":
                answering.append(tag)
            else:  # READY or ACTIVE: an unexpected REQA sends the tag back to IDLE
                tag.state, tag.authenticated = "IDLE", False
        if not answering:
            return self._silence()
        for tag in answering:
            tag.state = "READY"
        return self._answer([0x04, 0x00])

    def _uid_part(self, part: list[int], bcc: int, garbled: bool, wrong: int) -> None:
        """A UID part and its BCC on the air; ``garbled``: a wrong BCC or a parity error."""
        if garbled:
            if self.rng.random() < 0.5:
                return self._answer([*part, bcc ^ wrong])
            return self._answer([*part, bcc], error=PARITY_ERR)
        return self._answer([*part, bcc])

    def _anticollision_1(self, garbled: bool) -> None:
        ready = [t for t in self.field if t.state == "READY"]
        if not ready:
            return self._silence()
        if len(ready) > 1:  # two UIDs on the air at once
            return self._answer([self.rng.randrange(256) for _ in range(5)], error=COLL_ERR)
        *uid, bcc = ready[0].cl1
        return self._uid_part(uid, bcc, garbled, 0x5A)

    def _select_1(self, frame: list[int]) -> None:
        for tag in self.field:
            if tag.state == "READY" and frame[2:7] == tag.cl1:
                tag.state = "READY2" if tag.seven else "ACTIVE"
                if tag.sak_cl1 is not None:
                    return self._sak(tag.sak_cl1)
                return self._sak(0x04 if tag.seven else 0x08)
        return self._silence()

    def _anticollision_2(self, garbled: bool) -> None:
        for tag in self.field:
            if tag.state == "READY2":
                part = tag.uid[3:7]
                return self._uid_part(part, part[0] ^ part[1] ^ part[2] ^ part[3], garbled, 0x33)
        return self._silence()

    def _select_2(self, frame: list[int]) -> None:
        for tag in self.field:
            if tag.state == "READY2" and frame[2:6] == tag.uid[3:7]:
                tag.state = "ACTIVE"
                return self._sak(0x08 if tag.classic7 else 0x00)
        return self._silence()

    def _to_active(self, active: Tag, frame: list[int]) -> None:
        """A command to the selected tag: a Classic WRITE's data, READ, Classic or NTAG WRITE."""
        if active.pending_block is not None:  # the 16 data bytes of a Classic WRITE
            block, active.pending_block = active.pending_block, None
            if len(frame) != 18 or crc_a(frame[:16]) != frame[16] | frame[17] << 8:
                return self._ack(0x00)
            if not active.faulty:
                active.blocks[block] = frame[:16]
            active.writes += 1
            return self._ack(0x0A)
        if frame[:1] == [0x30]:  # READ: a Classic block (after auth), or four NTAG pages
            if active.ntag:
                data = [b for p in range(frame[1], frame[1] + 4) for b in active.pages.get(p, [0] * 4)]
            elif active.authenticated:
                data = active.blocks.get(frame[1], [0] * 16)
            else:
                return self._silence()
            crc = crc_a(data)
            return self._answer([*data, crc & 0xFF, crc >> 8])
        if frame[:1] == [0xA0] and not active.ntag:  # Classic WRITE, step one
            block = frame[1]
            if not active.authenticated or block == 0 or block % 4 == 3:
                return self._ack(0x00)
            active.pending_block = block
            return self._ack(0x0A)
        if frame[:1] == [0xA2] and active.ntag:  # NTAG WRITE of one page
            page = frame[1]
            if not 4 <= page <= 39 or len(frame) != 8:
                return self._ack(0x00)
            if not active.faulty:
                active.pages[page] = frame[2:6]
            active.writes += 1
            return self._ack(0x0A)
        return self._silence()

    def _sak(self, sak: int) -> None:
        crc = crc_a([sak])
        self._answer([sak, crc & 0xFF, crc >> 8])

    def _ack(self, nibble: int) -> None:
        """A 4-bit answer: ACK (0xA) or NAK (0x0)."""
        self._answer([nibble], last_bits=4)

    def _authenticate(self, frame: list[int]) -> None:
        key, uid = frame[2:8], frame[8:12]
        for tag in self.field if self.antenna_on else []:
            if tag.state == "ACTIVE" and not tag.ntag and tag.auth_uid == uid and tag.key == key:
                tag.authenticated = True
                self.regs[STATUS2] |= 0x08
                self.regs[ERROR] = 0
                self.regs[COMM_IRQ] |= IDLE_IRQ
                return
        self.regs[ERROR] = 0x01  # ProtocolErr
        self.regs[COMM_IRQ] |= IDLE_IRQ

    # --- the test's hand ------------------------------------------------------------------

    def put(self, *tags: Tag) -> None:
        for tag in tags:
            tag.state, tag.authenticated, tag.pending_block = "IDLE", False, None
        self.field = list(tags)

    def clear(self) -> None:
        self.field = []


#: The chip the fake spidev talks to; tests replace it.
CHIP = Chip()


class _SpiDev:
    def __init__(self) -> None:
        self.max_speed_hz = 0
        self.bus, self.device = -1, -1

    def open(self, bus: int, device: int) -> None:
        self.bus, self.device = bus, device
        CHIP.opened.append((bus, device))

    def xfer2(self, data: list[int]) -> list[int]:
        if (self.bus, self.device) != CHIP.wired:  # no chip there: MISO reads nothing
            return [0] * len(data)
        return CHIP.xfer2(data)

    def close(self) -> None:
        pass


def _gpio_module() -> types.ModuleType:
    gpio = types.ModuleType("RPi.GPIO")
    state: dict[str, Any] = {"mode": None, "pins": {}}
    gpio.BOARD, gpio.BCM, gpio.OUT, gpio.IN, gpio.HIGH, gpio.LOW = 10, 11, 0, 1, 1, 0  # type: ignore[attr-defined]
    gpio.getmode = lambda: state["mode"]  # type: ignore[attr-defined]
    gpio.setmode = lambda mode: state.__setitem__("mode", mode)  # type: ignore[attr-defined]
    gpio.setwarnings = lambda flag: None  # type: ignore[attr-defined]
    gpio.setup = lambda pin, direction, **kw: state["pins"].__setitem__(pin, 0)  # type: ignore[attr-defined]
    gpio.output = lambda pin, value: state["pins"].__setitem__(pin, value)  # type: ignore[attr-defined]
    gpio.cleanup = lambda *a: state["pins"].clear()  # type: ignore[attr-defined]
    gpio.state = state  # type: ignore[attr-defined]
    return gpio


def install(chip: Chip) -> Any:
    """Make ``import mfrc522`` use the fakes and ``chip``; return the freshly imported package."""
    global CHIP
    CHIP = chip
    spidev = types.ModuleType("spidev")
    spidev.SpiDev = _SpiDev  # type: ignore[attr-defined]
    rpi = types.ModuleType("RPi")
    gpio = _gpio_module()
    rpi.GPIO = gpio  # type: ignore[attr-defined]
    for name in [n for n in sys.modules if n == "mfrc522" or n.startswith("mfrc522.")]:
        del sys.modules[name]
    sys.modules.update({"spidev": spidev, "RPi": rpi, "RPi.GPIO": gpio})
    return importlib.import_module("mfrc522")


def simple_on(driver: Any) -> Any:
    """The package's ``SimpleMFRC522`` around an existing driver object (its ``read_id_no_block``
    is the old poll the tests and the benchmark compare with), without opening another bus."""
    simple_class = sys.modules["mfrc522"].SimpleMFRC522
    simple = simple_class.__new__(simple_class)
    simple.READER = driver
    return simple


def uninstall() -> None:
    for name in [n for n in sys.modules if n in ("spidev", "RPi", "RPi.GPIO") or n.startswith("mfrc522")]:
        del sys.modules[name]
