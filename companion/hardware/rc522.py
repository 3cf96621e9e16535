"""The MFRC522's frames with a wait that sleeps, and the ISO 14443-3 cascade that reads whole UIDs.

The ``mfrc522`` driver's ``MFRC522_ToCard`` waits for a tag's answer by reading
ComIrqReg up to 2,000 times and never stops on the timer interrupt, so each poll of an
empty reader costs about 2,000 SPI exchanges. `Rc522` keeps the driver for what it
does well (SPI, the reset, register reads and writes) and owns the exchange: the
chip's timer is armed for each frame (TAuto: it starts when the frame has been sent),
the wait sleeps in doubling steps and stops on RxIRq, ErrIRq or TimerIRq (an idle
poll: about 10 exchanges). The IRQ pin is not wired (wiring.md), so the wait reads
ComIrqReg; the datasheet facts used are in the constants' comments. `Rc522.select` reads
whole 4- and 7-byte UIDs, every answer checked, so a garbled frame never becomes a UID.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.table.tags import uid_text

# Registers (MFRC522 datasheet, section 9.2).
COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x06, 0x09, 0x0A
CONTROL, BIT_FRAMING = 0x0C, 0x0D
TX_CONTROL, RF_CFG, T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x14, 0x26, 0x2A, 0x2B, 0x2C, 0x2D
# Commands (section 10.3).
IDLE, TRANSCEIVE = 0x00, 0x0C
# ComIrqReg bits: Set1 (bit 7) writes 1s to the marked bits, 0 clears them; TimerIRq is set
# when the timer reaches zero, RxIRq at the end of a received frame, ErrIRq with any ErrorReg bit.
TIMER_IRQ, ERR_IRQ, IDLE_IRQ, RX_IRQ, ALL_IRQ = 0x01, 0x02, 0x10, 0x20, 0x7F
DONE = TIMER_IRQ | ERR_IRQ | IDLE_IRQ | RX_IRQ
# ErrorReg bits that spoil a frame: BufferOvfl, CollErr, ParityErr, ProtocolErr (CRCErr is
# not used: the CRC is checked here, the receiver's CRC being off by default).
FRAME_ERRORS = 0x1B
START_SEND = 0x80
# The timer (section 8.5): TModeReg TAuto (bit 7) starts it at the end of each sent frame and
# a received frame stops it; TPrescaler is 12 bits (TModeReg's low nibble and TPrescalerReg);
# its period is (2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz. 3390 makes a 0.5 ms tick.
T_AUTO, PRESCALER = 0x80, 3390
TICK = (2 * PRESCALER + 1) / 13.56e6
#: REQA waits 1.5 ms (a tag answers within about 0.1 ms, ISO 14443-3's FDT); every other
#: frame 15.5 ms (the driver's own value), longer than a MIFARE or NTAG write's 10 ms.
RELOAD_QUICK, RELOAD_FRAME = 2, 30
#: One bit on the air at 106 kbit/s, and a byte with its parity bit.
BIT_TIME = 128 / 13.56e6
#: The first pause of the wait, doubled after each read of ComIrqReg; the reads are bounded
#: even if the timer never fires (a chip that reset itself has TAuto off).
FIRST_STEP, MAX_IRQ_READS = 0.0005, 8
# RFCfgReg bits 6-4: the receiver's gain (table 98). 010 and 011 repeat 18 and 23 dB.
RX_GAIN = {18: 0b000, 23: 0b001, 33: 0b100, 38: 0b101, 43: 0b110, 48: 0b111}
RX_GAIN_MASK = 0x70
DEFAULT_GAIN_DB = 48
# ISO 14443-3 commands.
REQA, CASCADE_TAG, NVB_ANTICOLL, NVB_SELECT = 0x26, 0x88, 0x20, 0x70
CASCADE_LEVELS = (0x93, 0x95, 0x97)
SAK_CASCADE = 0x04
CLASSIC, NTAG = "MIFARE Classic 1K", "NTAG21x"
#: The reader's bus: SPI1, chip select 0 (``dtoverlay=spi1-1cs``: SCLK pin 40, MOSI pin 38, MISO
#: pin 35, CE0 GPIO18 pin 12). SPI0, which has DMA on every board, drives the ring (docs/ring.md);
#: the reader's two-byte register exchanges do not mind the auxiliary SPI1's pauses.
READER_BUS, READER_DEVICE = 1, 0


def crc_a(data: Sequence[int]) -> list[int]:
    """ISO 14443-3 CRC_A, low byte first (computed here: the chip's coprocessor costs exchanges)."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = ((crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)) & 0xFFFF
    return [crc & 0xFF, crc >> 8]


@dataclass(frozen=True)
class Frame:
    """A tag's answer: its bytes and how many bits of them are valid (ATQA 16, SAK 24, ACK 4)."""

    data: list[int]
    bits: int


@dataclass(frozen=True)
class Selected:
    """The tag selected: its whole UID, its SAK and its cascade level 1 answer (5 bytes)."""

    uid: tuple[int, ...]
    sak: int
    cl1: tuple[int, ...]

    @property
    def kind(self) -> str | None:
        """MIFARE Classic (SAK bits 0x18 say 0x08) or NTAG21x (a 7-byte UID with SAK 0x00)."""
        if self.sak & 0x18 == 0x08:
            return CLASSIC
        if len(self.uid) == 7 and self.sak & 0x7F == 0x00:
            return NTAG
        return None

    @property
    def uid_text(self) -> str:
        """What the table calls this tag (`companion.table.tags.uid_text`)."""
        return uid_text(self.uid)


def _bcc_ok(answer: Sequence[int]) -> bool:
    return len(answer) == 5 and answer[0] ^ answer[1] ^ answer[2] ^ answer[3] == answer[4]


class Rc522:
    """The chip behind the ``mfrc522`` driver object ``driver``, exchanged with frame by frame."""

    def __init__(
        self,
        driver: Any,
        gain_db: int = DEFAULT_GAIN_DB,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.driver = driver
        self.gain = RX_GAIN[gain_db]  # one of them: the config checks ``[reader] gain_db``
        self.sleep = sleep
        self.clock = clock
        self.ready = False
        self.reload = RELOAD_FRAME

    def write(self, register: int, value: int) -> None:
        self.driver.Write_MFRC522(register, value)

    def read(self, register: int) -> int:
        return int(self.driver.Read_MFRC522(register))

    def setup(self) -> None:
        """After the driver's reset: the timer this wait relies on, the receiver gain, the antenna on."""
        self.write(T_MODE, T_AUTO | PRESCALER >> 8)
        self.write(T_PRESCALER, PRESCALER & 0xFF)
        self.write(T_RELOAD_H, 0)
        self.write(T_RELOAD_L, RELOAD_FRAME)
        self.reload = RELOAD_FRAME
        self.write(RF_CFG, (self.read(RF_CFG) & ~RX_GAIN_MASK & 0xFF) | self.gain << 4)
        self.write(TX_CONTROL, self.read(TX_CONTROL) | 0x03)
        self.ready = True

    def configured(self) -> bool:
        """Whether the chip still holds the gain written by `setup` (one exchange): a chip that
        reset itself (a brown-out, a glitch on RST) is back at 33 dB with its antenna off."""
        return (self.read(RF_CFG) & RX_GAIN_MASK) == self.gain << 4

    def restore(self) -> None:
        """Reset the chip through the driver and set it up again."""
        self.driver.MFRC522_Init()
        self.setup()

    def transceive(self, frame: Sequence[int], tx_bits: int = 0, quick: bool = False) -> Frame | None:
        """Send ``frame`` (its last byte's ``tx_bits`` bits, 0 for all 8); the answer, or None when
        no tag answered in time or the answer was spoiled (collision, parity, overflow)."""
        if not self.ready:
            self.setup()
        reload = RELOAD_QUICK if quick else RELOAD_FRAME
        if reload != self.reload:
            self.write(T_RELOAD_L, reload)
            self.reload = reload
        self.write(COMMAND, IDLE)  # stops the last Transceive, which never ends by itself
        self.write(BIT_FRAMING, tx_bits)  # and clears StartSend before the FIFO is filled
        self.write(COM_IRQ, ALL_IRQ)  # Set1 = 0: clear every request bit
        self.write(FIFO_LEVEL, 0x80)  # FlushBuffer
        for byte in frame:
            self.write(FIFO_DATA, byte)
        self.write(COMMAND, TRANSCEIVE)
        self.write(BIT_FRAMING, START_SEND | tx_bits)
        on_air = len(frame) * 9 * BIT_TIME
        irq = self._wait(on_air + (reload + 1) * TICK)
        if not irq & RX_IRQ or self.read(ERROR) & FRAME_ERRORS:
            return None
        count = self.read(FIFO_LEVEL)
        last = self.read(CONTROL) & 0x07
        data = [self.read(FIFO_DATA) for _ in range(count)]
        return Frame(data, (count - 1) * 8 + last if last else count * 8)

    def _wait(self, expected: float) -> int:
        """ComIrqReg once one of `DONE`'s bits is set, or 0: read at once, then after pauses that
        double from `FIRST_STEP` (no pause ending later than the timer's expected end)."""
        start = self.clock()
        step = FIRST_STEP
        for n in range(MAX_IRQ_READS):
            irq = self.read(COM_IRQ)
            if irq & DONE or n == MAX_IRQ_READS - 1:
                return irq & DONE
            left = expected - (self.clock() - start)
            self.sleep(min(step, left) if left >= FIRST_STEP else step)
            step *= 2
        return 0

    def select(self) -> Selected | None:
        """Wake the tag in the field and select it through every cascade level (the cascade tag
        0x88 says more UID bytes follow); None if no tag (or two: a collision), or if any answer
        fails its check (each answer's BCC, the SAK's CRC and its cascade bit)."""
        atqa = self.transceive([REQA], tx_bits=7, quick=True)
        if atqa is None or atqa.bits != 16:
            return None
        uid: list[int] = []
        cl1: tuple[int, ...] = ()
        for level in CASCADE_LEVELS:
            answer = self.transceive([level, NVB_ANTICOLL])
            if answer is None or not _bcc_ok(answer.data):
                return None
            cl1 = cl1 or tuple(answer.data)
            request = [level, NVB_SELECT, *answer.data]
            sak = self.transceive([*request, *crc_a(request)])
            if sak is None or sak.bits != 24 or crc_a(sak.data[:1]) != sak.data[1:3]:
                return None
            more = answer.data[0] == CASCADE_TAG
            if more != bool(sak.data[0] & SAK_CASCADE):  # the cascade tag and the SAK disagree
                return None
            uid += answer.data[1:4] if more else answer.data[:4]
            if not more:
                return Selected(tuple(uid), sak.data[0], cl1)
        return None  # a fourth cascade level does not exist (ISO 14443-3: 4, 7 or 10 bytes)
