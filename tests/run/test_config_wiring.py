"""Settings that police the wiring, and a config error that says everything at once.

The ring's data pin must be one the SPI ring adapter drives (GPIO10, SPI0 MOSI); no part
may sit on a pin of the ring's SPI0 or the reader's SPI1 bus, and no two parts on one GPIO; a
config with the ring's pin of earlier builds (GPIO20) says which wires move where (issue 34).
Every problem of a file is reported in one run, each with its line, worded by the
catalogues in English and French, and a wrong type is named in words ("a whole number"),
never "must be a int" (issue 24 item 19, issue 22 item 4, issue 25).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.run.cli import main
from companion.util.config import (
    SPI0,
    SPI1,
    Config,
    ConfigError,
    RingSettings,
    parse_config,
    ring_pins,
    wiring_problems,
)
from companion.util.wording import CodedError


def problems(text: str) -> list[str]:
    """The English lines of the problems ``text`` has ([] when it is accepted)."""
    try:
        parse_config(text, "my.toml")
    except ConfigError as exc:
        return str(exc).splitlines()
    return []


def test_the_defaults_are_wired_without_a_clash() -> None:
    assert wiring_problems(Config()) == []
    assert Config().ring.pin == 10 and Config().ring.order == "GRB"
    assert ring_pins("Raspberry Pi 4 Model B Rev 1.5") == ring_pins("Raspberry Pi 5 Model B") == (10,)


def test_every_problem_of_a_file_is_reported_in_one_run_in_the_files_order() -> None:
    text = (
        "[ring]\n"
        "leds = 13\n"  # 2
        "pin = 18\n"  # 3
        'brightness = "high"\n'  # 4
        "[buttons]\n"
        "crystal = 6\n"  # 6: Confirm's pin
        "[reader]\n"
        "speed = 3\n"  # 8
    )
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "my.toml")
    lines = str(caught.value).splitlines()
    assert [re.match(r"my\.toml, line (\d+):", line).group(1) for line in lines] == ["2", "3", "4", "6", "8"]  # type: ignore[union-attr]
    assert len(caught.value.problems) == 5 and caught.value.also == caught.value.problems[1:]


def test_companion_run_check_prints_every_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[ring]\nleds = 13\norder = "XYZ"\n[buttons]\nundo = 10\n')
    assert main(["run", "--config", str(config), "--check"]) == 2
    err = capsys.readouterr().err
    assert "line 2: ring.leds = 13" in err and "line 3: ring.order = 'XYZ'" in err
    assert "line 5: buttons.undo = 10 is GPIO10 (physical pin 19), SPI0 MOSI" in err
    good = tmp_path / "good.toml"
    good.write_text('[ring]\norder = "GRBW"\n')
    assert main(["run", "--config", str(good), "--check"]) == 0


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[ring]\nleds = "24"\n', "ring.leds must be a whole number, not '24' (default: 24)"),
        ("[ring]\nbrightness = true\n", "ring.brightness must be a number such as 0.5, not True"),
        ("[ring]\norder = 3\n", "ring.order must be text in double quotes, not 3 (default: 'GRB')"),
        ("[table]\nport = 80.5\n", "table.port must be a whole number, not 80.5"),
    ],
)
def test_a_wrong_type_is_named_in_words(text: str, words: str) -> None:
    said = problems(text)
    assert len(said) == 1 and words in said[0], said


@settings(max_examples=40, deadline=None)
@given(
    where=st.sampled_from(
        [
            ("ring", "leds"),
            ("ring", "pin"),
            ("ring", "brightness"),
            ("ring", "order"),
            ("reader", "rst_pin"),
            ("reader", "debounce"),
            ("buttons", "undo"),
            ("table", "port"),
            ("table", "pin"),
            ("table", "turn"),
        ]
    ),
    value=st.sampled_from(['"x"', "1.5", "true", "[1]", "{ a = 1 }", "7"]),
)
def test_no_type_is_ever_a_int(where: tuple[str, str], value: str) -> None:
    for line in problems(f"[{where[0]}]\n{where[1]} = {value}\n"):
        assert not re.search(r"\ba (int|float|str|bool)\b|\ban? [a-z]+ ?\(", line), line


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("[ring]\npin = 12\n", ["ring.pin = 12 (GPIO12, physical pin 32) cannot drive the ring", "GPIO10",
                                "physical pin 19", "set pin = 10"]),
        ("[ring]\npin = 18\n", ["GPIO18 (physical pin 12), a pin of SPI1, the reader's bus", "GPIO10"]),
        ("[ring]\npin = 20\n", ["ring.pin = 20 is the wiring of earlier builds",
                                "move the ring's data wire from pin 38 to pin 19, and the reader's MOSI "
                                "from pin 19 to pin 38, its MISO from pin 21 to pin 35, its SCK from pin 23 "
                                "to pin 40 and its SDA from pin 24 to pin 12 (RST stays on pin 22), "
                                "then set pin = 10"]),
        ("[reader]\nrst_pin = 8\n", ["reader.rst_pin = 8 is GPIO8 (physical pin 24), SPI0 CE0",
                                     "SPI0, the ring's bus, claims it"]),
        ("[buttons]\ncrystal = 20\n", ["buttons.crystal = 20 is GPIO20 (physical pin 38), SPI1 MOSI",
                                       "reader's SPI1 bus"]),
        ("[buttons]\nundo = 18\n", ["buttons.undo = 18 is GPIO18 (physical pin 12), SPI1 CE0"]),
        ("[buttons]\nundo = 6\n", ["buttons.undo = 6 is GPIO6 (physical pin 31)",
                                   "which buttons.confirm uses"]),
        ("[buttons]\ncrystal = 25\n", ["buttons.crystal = 25 is GPIO25 (physical pin 22)",
                                       "which reader.rst_pin"]),
    ],
)  # fmt: skip
def test_a_pin_the_wiring_cannot_use_is_refused_with_the_pin_names(text: str, names: list[str]) -> None:
    said = problems(text)
    assert len(said) == 1, said
    for name in names:
        assert name in said[0], said[0]
    if "such as" in said[0]:  # the pins offered instead are on no bus and used by no part
        offered = {int(n) for n in re.findall(r"GPIO(\d+)", said[0].split("such as")[-1])}
        section, key, value = re.findall(r"\[(\w+)\]\n(\w+) = (\d+)", text)[0]
        pins = {"ring.pin": 10, "reader.rst_pin": 25, "buttons.crystal": 5, "buttons.confirm": 6,
                "buttons.undo": 13} | {f"{section}.{key}": int(value)}  # fmt: skip
        used = set(pins.values())
        assert offered and not offered & ({*SPI0, *SPI1} | used), offered


@settings(max_examples=200, deadline=None)
@given(pins=st.lists(st.integers(0, 27), min_size=5, max_size=5))
def test_a_wiring_is_accepted_exactly_when_no_pin_clashes(pins: list[int]) -> None:
    ring, rst, crystal, confirm, undo = pins
    text = (
        f"[ring]\npin = {ring}\n[reader]\nrst_pin = {rst}\n"
        f"[buttons]\ncrystal = {crystal}\nconfirm = {confirm}\nundo = {undo}\n"
    )
    others = [rst, crystal, confirm, undo]
    fine = ring == 10 and len(set(others)) == 4 and not set(others) & ({*SPI0, *SPI1})
    assert (problems(text) == []) is fine, problems(text)


@pytest.mark.parametrize("order", ["GRB", "RGB", "BRG", "GRBW", "RGBW", "WRGB"])
def test_every_order_of_the_channels_is_accepted(order: str) -> None:
    assert parse_config(f'[ring]\norder = "{order}"\n').ring == RingSettings(order=order)


@pytest.mark.parametrize("order", ["GRBB", "grb", "RG", "RGBWW", "RGBA"])
def test_an_order_that_is_not_the_channels_once_each_is_refused(order: str) -> None:
    said = problems(f'[ring]\norder = "{order}"\n')
    assert len(said) == 1 and "the letters R, G and B once each" in said[0]


def test_a_config_error_is_coded_and_worded_in_both_languages() -> None:
    text = (
        '[ring]\nleds = 13\npin = 20\norder = "X"\nfps = "a"\n[buttons]\nundo = 6\ncrystal = 8\n'
        '[table]\nturn = "fast"\n[disco]\n[players]\npalette = ["red"]\n'
    )
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "my.toml")
    error = caught.value
    assert isinstance(error, CodedError) and isinstance(error, ValueError)
    assert len(error.problems) == 9
    english, french = str(error).splitlines(), error.words("fr").splitlines()
    assert len(english) == len(french) == 9
    for en, fr in zip(english, french, strict=True):
        assert en != fr and "{" not in en and "{" not in fr, (en, fr)
    assert french[0].startswith("my.toml, ligne 2\u202f: ring.leds = 13 doit valoir 12, 16, 24 ou 60")


def test_an_unreadable_file_is_one_coded_problem() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("[ring\n", "my.toml")
    assert caught.value.code == "config_toml" and str(caught.value).startswith("my.toml: not valid TOML")
    assert caught.value.words("fr").startswith("my.toml\u202f: ce n'est pas du TOML valide")
