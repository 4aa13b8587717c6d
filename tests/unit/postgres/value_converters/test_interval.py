"""INTERVAL (postgresql.md §6.1; §11 item 61)."""

from __future__ import annotations

import pytest

from connectors.postgres.value_converters.interval import parse_interval

from ._helpers import conv


def test_micro_duration() -> None:  # item 61
    c = conv("interval")
    assert c.schema.name == "io.debezium.time.MicroDuration" and c.schema.type.name == "INT64"
    assert c.from_text("1 year 2 mons 3 days 04:05:06.78") == 37091106780000


def test_iso_string() -> None:  # item 61
    c = conv("interval", interval_handling_mode="string")
    assert c.schema.name == "io.debezium.time.Interval"
    assert c.from_text("1 year 2 mons 3 days 04:05:06.78") == "P1Y2M3DT4H5M6.78S"
    assert c.from_text("00:00:00") == "P0Y0M0DT0H0M0S"
    assert c.from_text("-1 years -2 mons +3 days -04:05:06") == "P-1Y-2M3DT-4H-5M-6S"
    assert c.from_text("00:00:00.000001") == "P0Y0M0DT0H0M0.000001S"


@pytest.mark.parametrize(
    ("text", "micros"),
    [
        ("00:00:00", 0),
        ("1 day", 86_400_000_000),
        ("-1 days +02:00:00", -79_200_000_000),
        ("-00:00:01.5", -1_500_000),
        ("1 mon", 2_629_800_000_000),
        ("100:00:00", 360_000_000_000),
        ("@ 1 day ago", -86_400_000_000),
    ],
)
def test_micros(text: str, micros: int) -> None:
    assert conv("interval").from_text(text) == micros


def test_parts() -> None:
    assert parse_interval("-1 years -2 mons +3 days -04:05:06.5") == (-1, -2, 3, -4, -5, -6.5)
