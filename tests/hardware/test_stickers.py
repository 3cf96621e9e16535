"""Writing trek:<card id> onto blank stickers with the real mfrc522 driver and an emulated chip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.editions import shipped_edition
from companion.hardware.rc522 import CLASSIC, NTAG
from companion.hardware.stickers import (
    Link,
    date_index,
    ndef_text,
    parse_ndef_text,
    read_sticker,
    read_text,
    write_deck,
    write_sticker,
)
from companion.table.tags import TagResolver
from tests.support.fake_mfrc522 import Chip, Tag

EDITION = shipped_edition("reference")


def driver() -> Any:
    from companion.hardware.reader import open_mfrc522

    return open_mfrc522(25).driver  # the writer's driver is the reader's, on SPI1


def classic(n: int) -> Tag:
    return Tag([0x04, 0x10, 0x20, n])


def ntag(n: int) -> Tag:
    return Tag([0x04, 0x5A, 0x6B, 0x7C, 0x11, 0x22, n])


class Hand:
    """Puts the next sticker on the reader whenever the writer waits for the field to fill."""

    def __init__(self, chip: Chip, stickers: list[Tag]) -> None:
        self.chip, self.stickers, self.used, self.now = chip, list(stickers), [], 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.chip.field and self._field_empty_wanted():
            self.chip.clear()
        elif not self.chip.field and self.stickers:
            tag = self.stickers.pop(0)
            self.used.append(tag)
            self.chip.put(tag)

    def _field_empty_wanted(self) -> bool:
        return True  # the writer only sleeps while waiting: take the written sticker away


def test_both_sticker_kinds_are_detected_with_their_table_uid(chip: Chip) -> None:
    link = Link(driver())
    for tag, kind in ((classic(1), CLASSIC), (ntag(2), NTAG)):
        chip.put(tag)
        sticker = link.detect()
        assert sticker is not None and sticker.kind == kind and list(sticker.uid) == tag.uid
        assert sticker.uid_text == tag.uid_text, "the number the table's reader reports"


def test_write_a_deck_in_date_index_order_and_read_it_back(chip: Chip) -> None:
    order = date_index(EDITION)[:4]
    years = [EDITION.card(c).year for c in order]
    assert years == sorted(years)
    stickers = [classic(1), ntag(2), classic(3), ntag(4)]
    hand = Hand(chip, stickers)
    said: list[str] = []
    done = write_deck(Link(driver()), EDITION, order, said.append, sleep=hand.sleep, timeout=None)
    assert done == order
    for tag, card in zip(stickers, order, strict=True):
        chip.put(tag)
        assert read_text(driver()) == f"trek:{card}"
        assert TagResolver(EDITION, {}).resolve(read_text(driver()) or "")[0] == card
    assert sum("Written and checked" in s for s in said) == 4
    assert stickers[0].blocks[8][:5] == list(b"trek:"), "Classic: SimpleMFRC522's blocks 8-10"
    assert parse_ndef_text([b for p in range(4, 20) for b in stickers[1].pages.get(p, [0] * 4)]) == (
        f"trek:{order[1]}"
    )


def test_the_table_reads_an_ntag_sticker_through_the_pi_reader(chip: Chip) -> None:
    from companion.hardware.reader import open_mfrc522

    tag = ntag(9)
    tag.pages = {
        4 + i // 4: ndef_text("trek:I07")[i : i + 4] for i in range(0, len(ndef_text("trek:I07")), 4)
    }
    chip.put(tag)
    reader = open_mfrc522(25)
    assert reader.read_uid() == tag.uid_text
    assert reader.read_text() == "trek:I07"


def test_a_write_that_does_not_take_is_caught_by_the_read_back(chip: Chip) -> None:
    bad, good = classic(7), classic(8)
    bad.faulty = True
    hand = Hand(chip, [bad, good])
    said: list[str] = []
    done = write_deck(Link(driver()), EDITION, ["I01"], said.append, sleep=hand.sleep)
    assert done == ["I01"] and hand.used == [bad, good]
    assert any("read back" in s for s in said), said
    assert good.blocks[8][:8] == list(b"trek:I01")


def test_a_sticker_of_another_card_is_refused_and_one_of_this_card_counts_as_done(chip: Chip) -> None:
    other, same = Tag.with_text([1, 2, 3, 4], "trek:I02"), Tag.with_text([1, 2, 3, 5], "trek:I01")
    hand = Hand(chip, [other, same])
    said: list[str] = []
    assert write_deck(Link(driver()), EDITION, ["I01"], said.append, sleep=hand.sleep) == ["I01"]
    assert any("already carries trek:I02" in s for s in said)
    assert any("already carries I01" in s for s in said)
    assert other.writes == 0 and same.writes == 0


def test_a_locked_classic_sticker_is_reported(chip: Chip) -> None:
    locked = classic(5)
    locked.key = [1, 2, 3, 4, 5, 6]
    hand = Hand(chip, [locked])
    said: list[str] = []
    link = Link(driver())
    assert (
        write_deck(link, EDITION, ["I01"], said.append, sleep=hand.sleep, clock=hand.clock, timeout=5) == []
    )
    assert any("transport key" in s for s in said), said


def test_the_cli_writes_from_a_given_card_to_the_end(chip: Chip, capsys: Any) -> None:
    import threading
    import time

    from companion.run.cli import main

    last = date_index(EDITION)[-1]
    tag = ntag(3)
    chip.put(tag)

    def lift() -> None:  # the owner takes the sticker away once it is written
        while tag.writes == 0:
            time.sleep(0.01)
        time.sleep(0.05)
        chip.clear()

    threading.Thread(target=lift, daemon=True).start()
    assert main(["edition", "stickers", "reference", "--from", last]) == 0
    out = capsys.readouterr().out
    assert f"now carries trek:{last}" in out and "1 sticker written and checked." in out
    chip.put(tag)
    assert read_text(driver()) == f"trek:{last}"
    assert main(["edition", "stickers", "reference", "--from", "nope"]) == 2


def test_the_whole_box_adds_itineraries_and_each_ancestor_copy(chip: Chip) -> None:
    from companion.hardware.stickers import whole_box

    order = whole_box(EDITION)
    assert order[:108] == date_index(EDITION)
    assert order[108:132] == [it.id for it in EDITION.itineraries]
    assert order[132:] == ["ancestor"] * 12
    stickers = [classic(20), ntag(21)]
    hand = Hand(chip, stickers)
    said: list[str] = []
    assert write_deck(Link(driver()), EDITION, ["T01", "ancestor"], said.append, sleep=hand.sleep) == [
        "T01", "ancestor"
    ]  # fmt: skip
    assert "Next: Itinerary T01." in said[0] and any("Next: an Ancestor card" in s for s in said)
    for tag, item in zip(stickers, ["T01", "ancestor"], strict=True):
        chip.put(tag)
        assert TagResolver(EDITION, {}).resolve(read_text(driver()) or "")[0] == item


def test_a_classic_with_a_seven_byte_uid_is_written_as_a_classic_not_an_ntag(chip: Chip) -> None:
    """Two cascade levels do not make an NTAG: the SAK at level 2 says which (0x08 a Classic)."""
    link = Link(driver())
    tag = Tag([0x04, 0x5A, 0x6B, 0x7C, 0x11, 0x22, 0x33], classic7=True)
    chip.put(tag)
    sticker = link.detect()
    assert sticker is not None and sticker.kind == CLASSIC and list(sticker.uid) == tag.uid
    assert sticker.uid_text == tag.uid_text
    write_sticker(link, sticker, "trek:II07")  # it reads the text back (authenticated) too
    assert bytes(tag.blocks[8]).decode().startswith("trek:II07") and tag.pages == {}
    chip.put(tag)
    again = link.detect()
    assert again is not None and read_sticker(link, again) == "trek:II07"
    chip.put(tag)
    assert read_text(link.chip) == "trek:II07", "the table's reader reads it too"


def test_the_sticker_writer_off_a_pi_says_why_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`companion edition stickers` opens the reader as the table does: a reader it cannot reach
    is the catalogue's fault and fix, as `companion run` and the doctor say it."""
    from companion.hardware.health import HardwareFault
    from companion.run.cli import main

    def unreachable(rst_pin: int, gain_db: int = 48) -> Any:
        raise HardwareFault("reader_driver_missing", detail="No module named 'mfrc522'")

    monkeypatch.setattr("companion.hardware.reader.open_mfrc522", unreachable)
    assert main(["edition", "stickers", "reference", "--data-dir", str(tmp_path)]) == 2
    fault = HardwareFault("reader_driver_missing", detail="No module named 'mfrc522'")
    assert f"{fault}: {fault.fix}" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["edition", "stickers", "reference"], ["enroll"]])
def test_a_reader_on_spi1_switched_off_is_said_with_its_fix_not_a_traceback(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a Pi whose SPI1 is off, the driver's spidev raises FileNotFoundError when the reader
    opens: `edition stickers` and `enroll` say the catalogue's cause and fix, as the doctor does."""
    from companion.hardware.health import diagnose
    from companion.run.cli import main

    def spi_off(rst_pin: int, gain_db: int = 48) -> Any:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr("companion.hardware.reader.open_mfrc522", spi_off)
    monkeypatch.setattr("companion.hardware.machine.board_model", lambda: "Raspberry Pi 4 Model B Rev 1.5")
    assert main([*command, "--data-dir", str(tmp_path)]) == 2
    cause, fix, code, _ = diagnose("reader", FileNotFoundError(2, "No such file or directory"))
    assert code == "spi_off" and f"{cause}: {fix}" in capsys.readouterr().err


def test_a_text_record_without_its_status_byte_reads_as_no_text() -> None:
    """A sticker whose NDEF Text record is empty (payload length 0, written by another app or
    damaged) reads as no text: not an IndexError, which on the table's reader thread made the
    reader look broken and in `edition stickers` a traceback."""
    empty = [0x03, 4, 0xD1, 0x01, 0x00, 0x54, 0xFE] + [0] * 57
    assert parse_ndef_text(empty) is None
    assert parse_ndef_text([0x03, 7, 0xD1, 0x01, 0x03, 0x54, 0x02, ord("e"), ord("n"), 0xFE]) == ""
