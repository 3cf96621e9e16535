"""The builder's documents agree with each other and with the code: one list of supported boards,
the ring's data on pin 19 and every other pin where the code drives it, a parts list holding every
part the wiring uses, a supply per board, the power table's ring figures from the frames the
companion draws, and links that lead somewhere."""

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


def test_the_ring_data_leaves_pin_19_through_the_level_shifter_with_its_capacitor() -> None:
    wiring = text(WIRING)
    row = next(line for line in wiring.splitlines() if line.startswith("| 19 |"))
    assert "GPIO10" in row and "SPI0 MOSI" in row and "74AHCT125 **1A**" in row
    assert not re.search(r"^\| 12 \| GPIO18 \| NeoPixel data", wiring, flags=re.M), "the old PWM pin"
    assert "pin 19 GPIO10" in wiring, "the diagram shows the same pin"
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


# --- every pin number, from one source (issue 34) ---------------------------------------------------

INSTALLER = ROOT / "systemd" / "install-pi.sh"
#: Every page that names a header pin: the wiring, the parts list, the box, the builder's guide, the
#: ring's note, and the installer (its config.txt block's comments).
PIN_PAGES = [*DOCS, ROOT / "docs" / "ring.md", INSTALLER]


def the_wiring() -> dict[str, tuple[int, int]]:
    """Each wire's (GPIO, physical pin), from the code: the config's defaults and buses, the
    reader's and the ring's bus numbers."""
    from companion.hardware.rc522 import READER_BUS
    from companion.hardware.ring_spi import SPI_BUS
    from companion.util.config import PHYSICAL, SPI0, SPI1, Config

    assert (SPI_BUS, READER_BUS) == (0, 1), "the ring on SPI0, the reader on SPI1"
    spi1 = {role.split()[-1]: gpio for gpio, role in SPI1.items()}
    config = Config()
    assert SPI0[config.ring.pin] == "SPI0 MOSI", "the ring's data is SPI0's MOSI"
    gpios = {
        "ring data": config.ring.pin,
        "reader SDA": spi1["CE0"],
        "reader SCK": spi1["SCLK"],
        "reader MOSI": spi1["MOSI"],
        "reader MISO": spi1["MISO"],
        "reader RST": config.reader.rst_pin,
        "Crystal": config.buttons.crystal,
        "Confirm": config.buttons.confirm,
        "Undo": config.buttons.undo,
    }
    return {name: (gpio, PHYSICAL[gpio]) for name, gpio in gpios.items()}


def test_every_pin_number_agrees_across_the_docs_the_installer_and_the_config() -> None:
    """wiring.md's pin table and diagram carry each wire on the pin the code drives; and on every
    page (the parts list, the box, the builder's guide, docs/ring.md, the installer's config.txt
    block) a GPIO named with a header pin is on that pin, and a part named with a pin is on its own."""
    from companion.util.config import PHYSICAL

    wiring = the_wiring()
    table = {}
    for line in text(WIRING).splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit() and cells[1].startswith("GPIO"):
            table[cells[3]] = (int(cells[1][4:]), int(cells[0]))
    rows = {
        "ring data": "74AHCT125 **1A**",
        "reader SDA": "MFRC522 **SDA**",
        "reader SCK": "MFRC522 **SCK**",
        "reader MOSI": "MFRC522 **MOSI**",
        "reader MISO": "MFRC522 **MISO**",
        "reader RST": "MFRC522 **RST**",
        "Crystal": "Crystal button",
        "Confirm": "Confirm button",
        "Undo": "Undo button",
    }
    for name, cell in rows.items():
        found = [pins for goes_to, pins in table.items() if cell in goes_to]
        assert found == [wiring[name]], (name, found, wiring[name])
    diagram = text(WIRING)
    for name, label in (("reader SDA", "SDA"), ("reader SCK", "SCK"), ("reader MOSI", "MOSI"),
                        ("reader MISO", "MISO"), ("reader RST", "RST")):  # fmt: skip
        gpio, pin = wiring[name]
        assert re.search(rf"\| {label} +\|-+ pin {pin} +GPIO{gpio}\b", diagram), name
    gpio, pin = wiring["ring data"]
    assert f"pin {pin} GPIO{gpio} ---" in diagram and f"pin {pin}" in text(BUILDERS / "README.md")
    named = re.compile(
        r"GPIO(\d+)[,:]? \(?(?:physical )?pin (\d+)|pin (\d+) \(?GPIO(\d+)\b|pin (\d+) +GPIO(\d+)\b"
    )
    for page in PIN_PAGES:
        for match in named.finditer(text(page)):
            numbers = [int(n) for n in match.groups() if n is not None]
            gpio, pin = numbers if match.group(1) else numbers[::-1]
            assert PHYSICAL.get(gpio) == pin, f"{page.name}: {match.group(0)!r}"
    block = text(INSTALLER)
    assert "MOSI = GPIO10, pin 19" in block and "dtparam=spi=on" in block
    reader = ", ".join(f"{role} pin {wiring[f'reader {name}'][1]}" for role, name in
                       (("SCLK", "SCK"), ("MOSI", "MOSI"), ("MISO", "MISO")))  # fmt: skip
    assert reader in block and f"CE0 GPIO18 pin {wiring['reader SDA'][1]}" in block
    assert "dtoverlay=spi1-1cs" in block


def test_the_old_wiring_is_moved_wire_by_wire_to_the_pins_of_today() -> None:
    """The one sentence a config, the doctor and wiring.md say to a build wired before issue 34:
    each wire from its old pin (reader on SPI0, ring on SPI1's MOSI) to its pin today."""
    import json

    from companion.util.config import PHYSICAL, SPI0

    old_spi0 = {role.split()[-1]: PHYSICAL[gpio] for gpio, role in SPI0.items()}
    wiring = the_wiring()
    moves = {
        "the ring's data wire": (PHYSICAL[20], wiring["ring data"][1]),
        "MOSI": (old_spi0["MOSI"], wiring["reader MOSI"][1]),
        "MISO": (old_spi0["MISO"], wiring["reader MISO"][1]),
        "SCK": (old_spi0["SCLK"], wiring["reader SCK"][1]),
        "SDA": (old_spi0["CE0"], wiring["reader SDA"][1]),
    }
    catalogue = sentences(json.loads(text(ROOT / "web" / "static" / "i18n" / "en.json")))
    keys = ("config_ring_pin.old", "doctor_old_wiring.fix", "reader_no_answer.fix")
    said = [sentence for key, sentence in catalogue.items() if key.endswith(keys)]
    assert len(said) == 3, said
    for sentence in said:
        for wire, (old, new) in moves.items():
            assert re.search(rf"{wire} from pin {old} to pin {new}\b", sentence, flags=re.I), (wire, sentence)
    page = " ".join(text(WIRING).split())
    for wire, (old, new) in moves.items():
        label = "ring's data" if wire.startswith("the") else f"**{wire}**"
        assert f"{label} from pin {old} to **pin {new}**" in page, wire
