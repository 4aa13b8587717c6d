"""Network address and range types (postgresql.md §6.1): PostgreSQL's text, unchanged."""

from __future__ import annotations

import pytest

from connect_worker.api.schema import STRING_SCHEMA

from ._helpers import conv


@pytest.mark.parametrize(
    ("type_name", "text"),
    [
        ("inet", "192.168.0.1/24"),
        ("cidr", "10.0.0.0/8"),
        ("macaddr", "08:00:2b:01:02:03"),
        ("macaddr8", "08:00:2b:01:02:03:04:05"),
        ("int4range", "[1,5)"),
        ("int8range", "empty"),
        ("numrange", "(1.5,2.5]"),
        ("daterange", "[2020-01-01,2020-02-01)"),
        ("tsrange", '["2020-01-01 10:00:00","2020-01-02 10:00:00")'),
        ("tstzrange", '["2020-01-01 02:00:00-08",)'),
    ],
)
def test_passthrough(type_name: str, text: str) -> None:
    c = conv(type_name, optional=False)
    assert c.schema == STRING_SCHEMA
    assert c.from_text(text) == text
