"""The reader's own wait, gain and cascade levels, through the real mfrc522 driver on the emulated chip.

Issue 25, item 3: the driver's ``read_id_no_block`` reads ComIrqReg 2,000 times per empty
poll (it never stops on the timer interrupt), leaves the receiver at 33 dB and keeps only
the first three bytes of an NTAG's 7-byte UID.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.editions import shipped_edition
from companion.hardware.rc522 import CLASSIC, NTAG, crc_a
from companion.hardware.reader import ReaderLoop, TagDebouncer, open_mfrc522
from companion.table.tags import TagResolver, legacy_uid_text
from companion.util.config import ConfigError, parse_config
from tests.support.fake_mfrc522 import COMM_IRQ, TIMER_IRQ, Chip, Tag, simple_on
from tests.support.fake_mfrc522 import crc_a as chip_crc_a

CLASSIC_TAG = Tag([0x04, 0xA1, 0xB2, 0xC3])
NTAG_TAG = Tag([0x04, 0x5A, 0x6B, 0x7C, 0x11, 0x22, 0x33])


def idle_poll(chip: Chip, read: Any) -> int:
    """SPI exchanges of one poll of an empty reader."""
    chip.clear()
    before = chip.spi_exchanges
    assert read() is None
    return chip.spi_exchanges - before


def test_an_idle_poll_makes_at_most_20_spi_exchanges_and_stops_on_the_timer(chip: Chip) -> None:
    reader = open_mfrc522(25)
    idle_poll(chip, reader.read_uid)  # the first poll also shortens the timer for REQA
    assert idle_poll(chip, reader.read_uid) <= 20
    assert chip.regs[COMM_IRQ] & TIMER_IRQ, "the wait ended on the chip's timer interrupt"
    # 7 register writes to send REQA, then ComIrqReg read at once, after 0.5 ms and at the
    # timer's end (1.5 ms): the timer, not a count, ends the wait
    assert idle_poll(chip, reader.read_uid) <= 11
    driver = idle_poll(chip, simple_on(reader.driver).read_id_no_block)
    assert driver > 2000, f"the driver's own poll: {driver} exchanges (it ignores TimerIRq)"


def test_a_chip_whose_timer_never_fires_still_costs_a_bounded_poll(chip: Chip) -> None:
    reader = open_mfrc522(25)
    chip.clock = lambda: 0.0  # the chip's time stands still: TimerIRq never comes
    for _ in range(3):
        assert idle_poll(chip, reader.read_uid) <= 20


def test_a_card_is_read_removed_and_read_again_and_idle_polls_stay_cheap(chip: Chip) -> None:
    reader = open_mfrc522(25)
    now = [0.0]
    taps: list[str] = []
    loop = ReaderLoop(reader.read_uid, taps.append, 0.1, TagDebouncer(0.6), clock=lambda: now[0])
    costs: list[int] = []
    for tags, polls in (([], 5), ([CLASSIC_TAG], 20), ([], 10), ([CLASSIC_TAG], 20), ([], 10)):
        chip.put(*tags)
        for _ in range(polls):
            before = chip.spi_exchanges
            loop.poll()
            if not tags:
                costs.append(chip.spi_exchanges - before)
            now[0] += 0.1
    assert taps == [CLASSIC_TAG.uid_text, CLASSIC_TAG.uid_text], "held once, lifted, tapped again"
    assert max(costs) <= 20, costs


def test_the_receiver_gain_is_written_after_each_reset(chip: Chip) -> None:
    reader = open_mfrc522(25)
    assert chip.gain_db == 48, "the default: the chip's own reset value is 33 dB"
    assert chip.regs[0x26] & 0x0F == 0x08, "RFCfgReg's reserved bits keep their reset value"
    reader = open_mfrc522(25, gain_db=38)
    assert chip.gain_db == 38
    chip.reset()  # the chip resets itself (a brown-out): 33 dB, the antenna off
    chip.put(CLASSIC_TAG)
    assert reader.read_uid() is None and chip.gain_db == 33
    reader.check()  # what the supervisor runs every few seconds
    assert chip.gain_db == 38 and chip.antenna_on
    assert reader.read_uid() == CLASSIC_TAG.uid_text


def test_the_gain_setting_takes_only_what_the_chip_can_set() -> None:
    assert parse_config("").reader.gain_db == 48
    assert parse_config("[reader]\ngain_db = 23\n").reader.gain_db == 23
    with pytest.raises(ConfigError, match=r"line 2: reader.gain_db = 40 must be 18, 23, 33, 38, 43 or 48"):
        parse_config("[reader]\ngain_db = 40\n", "config.toml")


def test_an_ntag_is_read_whole_and_a_classic_as_before(chip: Chip) -> None:
    reader = open_mfrc522(25)
    twin = Tag([0x04, 0x5A, 0x6B, 0x7C, 0x99, 0x88, 0x77])  # the same first three bytes
    seen = {}
    for tag in (CLASSIC_TAG, NTAG_TAG, twin):
        chip.put(tag)
        seen[tag.uid_text] = reader.read_uid()
        assert seen[tag.uid_text] == tag.uid_text
        assert reader.last is not None and list(reader.last.uid) == tag.uid
    assert reader.last is not None and reader.last.kind == NTAG
    assert seen[NTAG_TAG.uid_text] == "04:5A:6B:7C:11:22:33"
    assert NTAG_TAG.legacy_text == twin.legacy_text, "the driver's number could not tell them apart"
    chip.put(CLASSIC_TAG)
    legacy = simple_on(reader.driver).read_id_no_block()
    assert legacy == int(CLASSIC_TAG.uid_text), "a Classic keeps its number"
    chip.put(CLASSIC_TAG)
    reader.read_uid()
    assert reader.last is not None and reader.last.kind == CLASSIC


def test_an_ntag_enrolled_under_its_old_number_still_resolves() -> None:
    edition = shipped_edition("reference")
    resolver = TagResolver(edition, {NTAG_TAG.legacy_text: "I07", CLASSIC_TAG.uid_text: "T01"})
    assert legacy_uid_text(NTAG_TAG.uid_text) == NTAG_TAG.legacy_text
    assert resolver.resolve(NTAG_TAG.uid_text) == ("I07", {})
    assert resolver.resolve(CLASSIC_TAG.uid_text) == ("T01", {})
    assert legacy_uid_text("04:5A:6B") is None and legacy_uid_text(CLASSIC_TAG.uid_text) is None


def test_noise_at_either_cascade_level_never_makes_a_wrong_uid(chip: Chip) -> None:
    reader = open_mfrc522(25)
    chip.noise = 0.4
    chip.put(NTAG_TAG)
    results = {reader.read_uid() for _ in range(300)}
    assert results == {None, NTAG_TAG.uid_text}, results


def test_a_cascade_tag_the_sak_contradicts_is_not_a_uid(chip: Chip) -> None:
    """A level 1 answer starting with the cascade tag 0x88 whose SAK says "complete" is
    refused: it would otherwise be read as the 4-byte UID 88 04 5A 6B."""
    reader = open_mfrc522(25)
    liar = Tag(list(NTAG_TAG.uid))
    liar.sak_cl1 = 0x08
    chip.put(liar)
    assert [reader.read_uid() for _ in range(4)] == [None] * 4


def test_the_crc_is_iso_14443s() -> None:
    assert crc_a([0x93, 0x70]) == [chip_crc_a([0x93, 0x70]) & 0xFF, chip_crc_a([0x93, 0x70]) >> 8]
    assert crc_a([0x00, 0x00]) == [0xA0, 0x1E]  # ISO/IEC 14443-3 annex B's example


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.lists(st.integers(0, 255), min_size=4, max_size=4),
        st.lists(st.integers(0, 255), min_size=7, max_size=7),
    ).filter(lambda uid: 0x88 not in (uid[0], uid[3]))
    # ISO 14443-3: the cascade tag is never a 4-byte UID's first byte nor a 7-byte one's fourth
)
def test_every_uid_comes_out_whole(chip: Chip, uid: list[int]) -> None:
    reader = open_mfrc522(25)
    tag = Tag(uid)
    chip.put(tag)
    assert reader.read_uid() == tag.uid_text
    assert reader.last is not None and list(reader.last.uid) == uid
    assert (len(tag.uid_text) == 20) == (len(uid) == 7), "a 7-byte UID in hex, a 4-byte one a number"


def test_the_benchmark_prints_both_paths_figures() -> None:
    """A short run of benchmarks/bench_reader.py (the figures: --seconds 10), as a user runs it."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "benchmarks.bench_reader", "--seconds", "0.3"]
    lines = subprocess.run(command, capture_output=True, text=True, check=True, cwd=root).stdout.splitlines()
    counts = [float(line.split(": ")[1]) for line in lines if "SPI exchanges per idle poll: " in line]
    assert len(counts) == 2 and counts[0] <= 20 < 2000 < counts[1], lines
    assert sum("idle CPU: " in line for line in lines) == 2


def test_the_emulated_timer_runs_the_datasheets_period(chip: Chip) -> None:
    """(2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz: the driver's init (TPrescaler 0xD3E,
    TReload 30) is 15.5 ms; the reader's REQA timer (TReload 2) 1.5 ms."""
    from mfrc522 import MFRC522

    MFRC522(bus=1)  # the reader's bus (SPI1)
    assert chip.timer_period() == pytest.approx(6781 * 31 / 13.56e6) == pytest.approx(0.0155, abs=1e-4)
    reader = open_mfrc522(25)
    reader.read_uid()
    assert chip.timer_period() == pytest.approx(6781 * 3 / 13.56e6)


def test_the_table_sets_the_configured_gain_and_sets_it_again_after_the_chip_resets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chip: Chip
) -> None:
    """`companion run`'s reader (startup's supervised opener) with ``[reader] gain_db = 23``."""
    import companion.run.startup as startup
    from companion.hardware.buttons import Buttons
    from companion.hardware.ring import SimulatedRing
    from companion.records.trekking import TREKKING
    from companion.store.log import Store
    from companion.table.game_setup import new_game

    config = parse_config("[reader]\ngain_db = 23\n[ring]\nleds = 12\n")
    store = Store(tmp_path, TREKKING)
    new_game(store, ["Ann", "Ben"], config, seed=3, mock=False)
    store.close()
    factory = MockFactory()
    monkeypatch.setattr(startup, "open_spi_ring", lambda settings: SimulatedRing(settings.leds))
    monkeypatch.setattr(startup, "Buttons", lambda settings, press, **kw: Buttons(settings, press, factory))
    now = [1000.0]
    rt = startup.build_runtime(config, tmp_path, mock=False, pin="2468", say=lambda _: None,
                               clock=lambda: now[0])  # fmt: skip
    try:
        assert chip.gain_db == 23
        chip.reset()  # a brown-out: 33 dB, antenna off
        chip.put(CLASSIC_TAG)
        assert rt.reader is not None
        taps: list[str] = []
        rt.reader.on_tap = taps.append
        rt.reader.poll()
        assert taps == [] and chip.gain_db == 33, "a reset chip hears no tag"
        now[0] += 6  # the supervisor checks the chip every 5 s
        for _ in range(5):
            rt.reader.poll()
            now[0] += 0.1
        assert chip.gain_db == 23 and taps == [CLASSIC_TAG.uid_text]
    finally:
        rt.stop()
