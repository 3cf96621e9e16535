"""The real mfrc522 driver against an emulated chip: every take counts once, no phantom."""

from __future__ import annotations

import random
from pathlib import Path

from companion.engine import ChooseItinerary, Reveal, Take
from companion.hardware.reader import ReaderLoop, TagDebouncer, open_mfrc522
from companion.run.startup import attach_reader
from tests.support.fake_mfrc522 import Chip, Tag
from tests.support.tables import make_runtime

A = Tag([0x04, 0xA1, 0xB2, 0xC3])
B = Tag([0x09, 0x10, 0x20, 0x30])


def test_the_driver_reads_a_uid_and_nothing_from_an_empty_field(chip: Chip) -> None:
    read_uid = open_mfrc522(25).read_uid
    assert read_uid() is None
    chip.put(A)
    assert read_uid() == A.uid_text
    assert read_uid() is None, "a READY tag ignores the next REQA, as real tags do"
    assert read_uid() == A.uid_text


def test_the_driver_reads_a_card_id_written_in_the_tag_text(chip: Chip) -> None:
    read_text = open_mfrc522(25).read_text
    chip.put(Tag.with_text([1, 2, 3, 4], "trek:I07"))
    assert read_text() == "trek:I07"


def test_a_custom_reset_pin_is_passed_to_the_driver(chip: Chip) -> None:
    import sys

    read_uid = open_mfrc522(17).read_uid
    assert 11 in sys.modules["RPi.GPIO"].state["pins"], "BCM 17 is physical pin 11"
    chip.put(A)
    assert read_uid() == A.uid_text


def run(
    chip: Chip, script: list[tuple[float, list[Tag]]], poll: float = 0.1, window: float = 0.6
) -> list[str]:
    """Play a timeline (seconds, tags in the field) through the reader loop; return the taps."""
    read_uid = open_mfrc522(25).read_uid
    now = [0.0]
    taps: list[str] = []
    loop = ReaderLoop(read_uid, taps.append, poll, TagDebouncer(window), clock=lambda: now[0])
    for duration, tags in script:
        chip.put(*tags)
        end = now[0] + duration
        while now[0] < end:
            loop.poll()
            now[0] += poll
    return taps


def test_a_tag_held_for_seconds_counts_once(chip: Chip) -> None:
    assert run(chip, [(0.5, []), (5.0, [A]), (1.0, [])]) == [A.uid_text]


def test_taps_in_and_out_of_the_field_count_each_time(chip: Chip) -> None:
    script = [(0.3, [A]), (1.0, []), (0.4, [A]), (1.0, []), (0.3, [B]), (1.0, [])]
    assert run(chip, script) == [A.uid_text, A.uid_text, B.uid_text]


def test_read_flicker_does_not_make_a_second_tap(chip: Chip) -> None:
    script = [(0.6, [A]), (0.2, []), (0.5, [A]), (0.3, []), (0.8, [A]), (1.0, [])]
    assert run(chip, script) == [A.uid_text]


def test_two_tags_at_once_read_as_nothing_until_one_is_lifted(chip: Chip) -> None:
    taps = run(chip, [(2.0, [A, B]), (1.0, [B]), (1.0, [])])
    assert taps == [B.uid_text], "a collision is never mistaken for a tag"


def test_noise_never_invents_a_tag(chip: Chip) -> None:
    chip.noise = 0.3
    rng = random.Random(7)
    tags = [Tag([rng.randrange(256) for _ in range(4)]) for _ in range(20)]
    script: list[tuple[float, list[Tag]]] = []
    for tag in tags:
        script += [(1.0, [tag]), (1.0, [])]
    taps = run(chip, script)
    assert taps == [t.uid_text for t in tags], "each tap once, in order, none invented, none lost"
    assert chip.exchanges > 200


def test_takes_through_the_emulated_reader_count_exactly_once(chip: Chip, tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    now = [0.0]
    reader = open_mfrc522(25)
    loop = attach_reader(rt, reader.read_uid, reader.read_text, clock=lambda: now[0])
    ed = rt.table.board.edition
    tags = {}
    for n, card in enumerate([c.id for c in ed.cards] + [i.id for i in ed.itineraries] + ["ancestor"]):
        tag = Tag([0x10, n >> 8, n & 0xFF, 0x42])
        rt.store.enroll(tag.uid_text, card, ed.name)
        tags[card] = tag
    rt.resolver.tags = rt.store.tags()
    rng = random.Random(2)
    chip.noise = 0.1
    for _ in range(30):
        expect = rt.table.expect()
        assert expect is not None
        counted = count(rt.table.board.moves)
        chip.put(tags[rng.choice(expect["choices"])])
        for _ in range(25):  # held 2.5 s, with the READY/IDLE flicker and noise
            loop.poll()
            now[0] += 0.1
        chip.clear()
        for _ in range(10):
            loop.poll()
            now[0] += 0.1
        if rt.table.pending is not None:
            rt.table.press("confirm")
        after = count(rt.table.board.moves)
        kind = Take if expect["kind"] == "take" else ChooseItinerary
        assert after[kind] == counted[kind] + 1, "the tap counted exactly once"
        assert after[Reveal] >= counted[Reveal]
    rt.stop()


def count(moves: list[object]) -> dict[type, int]:
    return {kind: sum(1 for m in moves if type(m) is kind) for kind in (Take, ChooseItinerary, Reveal)}


def test_a_tag_with_its_card_id_in_its_text_works_without_enrolment(chip: Chip, tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    now = [0.0]
    reader = open_mfrc522(25)
    loop = attach_reader(rt, reader.read_uid, reader.read_text, clock=lambda: now[0])
    first = rt.table.expect()["choices"][0]
    chip.put(Tag.with_text([7, 7, 7, 7], f"trek:{first}"))
    for _ in range(5):
        loop.poll()
        now[0] += 0.1
    assert rt.table.board.itinerary.count(-1) == 1, f"the itinerary {first} was chosen from the tag's text"
    rt.stop()


def test_the_reader_is_opened_once_on_spi1_and_only_its_own_reset_pin_is_driven(chip: Chip) -> None:
    """Issue 34: the reader lives on SPI1 CE0; ``SimpleMFRC522()`` first opened /dev/spidev0.0
    (the ring's bus now) and drove physical pin 22 before the real driver object was made."""
    import sys

    read_uid = open_mfrc522(17).read_uid
    assert chip.opened == [(1, 0)], "one handle, on the reader's bus"
    assert set(sys.modules["RPi.GPIO"].state["pins"]) == {11}, "RST on BCM 17 (pin 11), never pin 22"
    chip.put(A)
    assert read_uid() == A.uid_text


def test_a_reader_still_wired_to_spi0_does_not_answer(chip: Chip) -> None:
    """An older build's reader (on SPI0's pins) reads 0x00 on SPI1: the check says no chip answers."""
    import pytest

    from companion.hardware.health import HardwareFault
    from companion.hardware.reader import open_mfrc522

    chip.wired = (0, 0)
    reader = open_mfrc522(25)
    with pytest.raises(HardwareFault) as fault:
        reader.check()
    assert fault.value.code == "reader_no_answer"
