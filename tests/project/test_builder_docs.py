"""The builder's documents agree with each other and with the code: one list of supported boards,
the ring's data on pin 38, a parts list holding every part the wiring uses, a supply per board,
the power table's ring figures from the frames the companion draws, and links that lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILDERS = ROOT / "docs" / "builders"
WIRING = ROOT / "wiring.md"
PARTS = ROOT / "hardware" / "README.md"
ENCLOSURE = ROOT / "hardware" / "enclosure" / "README.md"
DOCS = [WIRING, PARTS, ENCLOSURE, *sorted(BUILDERS.glob("*.md"))]
#: Pages the guide links to that other branches write (the installer's commands, the ring's
#: design note); the lead drops an entry once its page is merged.
WRITTEN_ELSEWHERE = {BUILDERS / "install.md"}
#: Fix sentences retired on another branch, not yet merged (none now).
RETIRED_ELSEWHERE: set[str] = set()


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_builders_page_names_the_same_supported_boards() -> None:
    for path in DOCS:
        assert not re.search(r"Pi 4 or (Pi )?5\b", text(path)), f"{path.name} names only two boards"
    for path in (WIRING, PARTS, BUILDERS / "README.md"):
        assert "Zero 2 W, 3, 4 or 5" in " ".join(text(path).split()), path.name


def test_the_ring_data_leaves_pin_38_through_the_level_shifter_with_its_capacitor() -> None:
    wiring = text(WIRING)
    row = next(line for line in wiring.splitlines() if line.startswith("| 38 |"))
    assert "GPIO20" in row and "SPI1 MOSI" in row and "74AHCT125 **1A**" in row
    assert not re.search(r"^\| 12 \| GPIO18 \| NeoPixel data", wiring, flags=re.M), "the old PWM pin"
    assert "pin 38 GPIO20" in wiring, "the diagram shows the same pin"
    assert "100 nF" in wiring and "pin 14 (VCC) and pin 7 (GND)" in wiring


def test_a_four_pin_button_is_wired_on_diagonal_legs() -> None:
    """Issue 25: 'always pressed' sent makers looking for a 3.3 V leg; with pull-ups it is a joined pair."""
    wiring = text(WIRING)
    assert "diagonally opposite legs" in wiring
    assert "3.3 V instead of GND" not in wiring
    assert re.search(r"always\s+pressed.*?joined", wiring, flags=re.S)


def test_the_parts_list_holds_every_part_the_wiring_uses_and_a_supply_per_board() -> None:
    parts = text(PARTS)
    for part in ("SN74AHCT125N", "100 nF", "1000 µF", "330 Ω", "22 AWG", "Dupont", "M2.5", "NTAG213",
                 "Adafruit 1643", "1463", "1586", "12 mm", "microSD"):  # fmt: skip
        assert part in parts, part
    rows = {
        line.split("|")[1].strip(): line for line in parts.splitlines() if line.startswith("| Raspberry Pi")
    }
    for board, supply in (("Zero 2 W", "5.1 V 2.5 A"), ("3 Model B", "5.1 V 2.5 A"),
                          ("4 Model B", "5.1 V 3 A"), ("5, 2 GB", "5.1 V 5 A")):  # fmt: skip
        row = next(line for name, line in rows.items() if board in name)
        assert supply in row, (board, row)


def test_the_power_tables_ring_figures_are_the_benchmarks() -> None:
    """docs/builders/power.md and wiring.md quote bench_ring_current.py: a change to the frames
    or to the estimate that leaves them stale fails here."""
    import json
    import subprocess
    import sys

    command = [sys.executable, "-m", "benchmarks.bench_ring_current", "--brightness", "0.3", "--json"]
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    day = {int(leds): by_brightness["0.3"] for leds, by_brightness in json.loads(out).items()}
    power, wiring = text(BUILDERS / "power.md"), text(WIRING)
    turn = " / ".join(f"{day[n]['turn']:.0f}" for n in (12, 16, 24))
    peak = " / ".join(f"{day[n]['peak']:.0f}" for n in (12, 16, 24))
    assert f"| {turn} mA |" in power and f"| {peak} mA |" in power, (turn, peak)
    for leds, label in ((12, "12 LEDs"), (16, "16 LEDs"), (24, "24 LEDs")):
        row = next(line for line in wiring.splitlines() if line.startswith(f"| {label} |"))
        assert f"{day[leds]['peak'] / 1000:.2f} A" in row, row


def links(path: Path) -> list[Path]:
    """Relative link targets of a Markdown page (anchors dropped)."""
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text(path))
    return [(path.parent / t).resolve() for t in targets if "://" not in t]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_of_the_builders_pages_leads_somewhere(page: Path) -> None:
    missing = [t for t in links(page) if not t.exists() and t not in WRITTEN_ELSEWHERE]
    assert not missing, missing


def sentences(catalogue: object, prefix: str = "") -> dict[str, str]:
    """Every sentence of a catalogue, nested sections flattened to dotted keys."""
    if isinstance(catalogue, dict):
        return {k: v for key, sub in catalogue.items() for k, v in sentences(sub, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): catalogue} if isinstance(catalogue, str) else {}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_wiring_section_a_fix_sentence_names_exists(language: str) -> None:
    """A fix that sends a maker to a section of wiring.md that is not there is a dead end (issue 25)."""
    import json

    headings = [line.lstrip("#").strip() for line in text(WIRING).splitlines() if line.startswith("#")]
    catalogue = sentences(json.loads(text(ROOT / "web" / "static" / "i18n" / f"{language}.json")))
    cited = {
        key: section
        for key, sentence in catalogue.items()
        if not any(key.endswith(retired) for retired in RETIRED_ELSEWHERE)
        for section in re.findall(r"wiring\.md, sections? ([^);]+)", sentence)
    }
    assert len(cited) >= 5, "the catalogue cites wiring.md's sections"
    assert {k: s for k, s in cited.items() if not any(s.startswith(h) for h in headings)} == {}
