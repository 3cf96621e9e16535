"""Issue 23 item 1: the ``[venue]`` settings, with the same coded, located errors as every section."""

from __future__ import annotations

import pytest

from companion.util.config import Config, ConfigError, VenueSettings, parse_config


def test_without_a_venue_section_there_is_no_broker_and_the_defaults_hold() -> None:
    venue = parse_config("[table]\nport = 8080\n").venue
    assert venue == VenueSettings() == Config().venue
    assert (venue.broker, venue.topic_prefix, venue.table) == ("", "trekking", "")
    assert not venue.home_assistant


def test_a_full_venue_section_is_read() -> None:
    venue = parse_config(
        '[venue]\nbroker = "mqtts://broker.cafe.lan:8883"\nusername = "t1"\npassword_file = "/etc/pw"\n'
        'ca_file = "/etc/ca.pem"\ntopic_prefix = "cafe"\ntable = "table-1"\nhome_assistant = true\n'
    ).venue
    assert venue.broker == "mqtts://broker.cafe.lan:8883" and venue.table == "table-1"
    assert venue.home_assistant and venue.discovery_prefix == "homeassistant"


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('broker = "http://broker:1883"', "broker"),
        ('broker = "broker.lan"', "broker"),
        ('broker = "mqtt://broker:1883/extra/path"', "broker"),
        ('topic_prefix = "cafe/#"', "topic"),
        ('topic_prefix = ""', "topic"),
        ('table = "table+1"', "topic"),
        ('table = "a/b"', "topic"),
        ('discovery_prefix = "home assistant"', "topic"),
    ],
)
def test_a_bad_venue_setting_is_refused_at_its_line_with_what_would_do(line: str, why: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f"[venue]\n{line}\n", "venue.toml")
    assert caught.value.code == "config_value" and caught.value.params["why"] == why
    assert caught.value.line == 2
    for lang in ("en", "fr"):
        words = caught.value.words(lang)
        assert "venue.toml" in words and "venue." in words and "{" not in words


def test_a_wrong_type_in_the_venue_section_is_named() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("[venue]\nhome_assistant = 1\n")
    assert caught.value.code == "config_type"
