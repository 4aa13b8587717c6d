"""Column defaults (postgresql.md §6.9; §11 item 69)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api.schema import NO_DEFAULT

from ._helpers import conv, ctype, json_of


def test_int_default() -> None:  # item 69
    c = conv("int4", default="5")
    assert c.schema.default == 5
    assert '"default":5' in json_of(c.schema, None)


@pytest.mark.parametrize(
    ("type_name", "expression", "kwargs", "expected"),
    [
        ("int4", "'-5'::integer", {}, -5),
        ("int4", "nextval('t_id_seq'::regclass)", {}, 0),
        ("int8", "'9223372036854775807'::bigint", {}, 9223372036854775807),
        ("int2", "32767", {}, 32767),
        ("bool", "true", {}, True),
        ("bool", "false", {}, False),
        ("text", "'it''s'::text", {}, "it"),  # Debezium takes the first quoted run
        ("varchar", "'abc'::character varying", {}, "abc"),
        ("text", "upper('x'::text)", {}, ""),
        ("numeric", "1.5", {"length": 10, "scale": 2}, Decimal("1.50")),
        ("numeric", "'-1.5'::numeric", {"length": 10, "scale": 2}, Decimal("-1.50")),
        ("float8", "'1.25'::double precision", {}, 1.25),
        ("json", "'{}'::json", {}, "{}"),
        ("jsonb", "'{\"a\": 1}'::jsonb", {}, '{"a": 1}'),
        ("uuid", "gen_random_uuid()", {}, "00000000-0000-0000-0000-000000000000"),
        ("uuid", "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid", {}, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        ("date", "'2024-01-02'::date", {}, 19724),
        ("timestamp", "now()", {"scale": 6}, 0),
        ("timestamp", "'2018-06-20 15:13:16.945104'::timestamp without time zone", {"scale": 6}, 1529507596945104),
        ("timestamptz", "CURRENT_TIMESTAMP(6)", {"scale": 6}, "1970-01-01T00:00:00.000000Z"),
        # PostgreSQL 15 prints these SQL value functions bare: Debezium 3.6's CURRENT_DATE_TIMES give the zero too
        ("timestamptz", "CURRENT_TIMESTAMP", {"scale": 6}, "1970-01-01T00:00:00.000000Z"),
        ("date", "CURRENT_DATE", {}, 0),
        ("timestamp", "LOCALTIMESTAMP", {"scale": 6}, 0),
        ("time", "LOCALTIME", {"scale": 6}, 0),
        ("int4", " 7 ", {}, 7),  # trimmed for the types Debezium trims
        (
            "timestamptz",
            "'2020-01-01 11:00:00+01'::timestamp with time zone",
            {"scale": 6},
            "2020-01-01T10:00:00.000000Z",
        ),
        ("time", "'10:15:30'::time without time zone", {"scale": 6}, 36930000000),
        ("time", "now()", {"scale": 6}, 0),
        ("interval", "'1 day'::interval", {}, 86_400_000_000),
        ("interval", "now()", {}, 0),
        ("bit", "B'1'::\"bit\"", {"length": 1}, True),
        ("bit", "B'101'::\"bit\"", {"length": 3}, b"\x05"),
    ],
)
def test_defaults(type_name: str, expression: str, kwargs: dict[str, Any], expected: object) -> None:
    assert conv(type_name, default=expression, **kwargs).schema.default == expected


@pytest.mark.parametrize(
    ("type_name", "expression", "kwargs"),
    [
        ("int4", "(1 + 2)", {}),
        ("int4", "NULL::integer", {}),
        ("numeric", "1.5", {}),  # VariableScaleDecimal is a struct: no default
        ("numeric", "1.555", {"length": 10, "scale": 2}),  # BigDecimal.setScale(2) would need rounding
        ("money", "'$1.00'::money", {}),
        ("inet", "'1.2.3.4'::inet", {}),
    ],
)
def test_no_default(type_name: str, expression: str, kwargs: dict[str, Any]) -> None:
    assert conv(type_name, default=expression, **kwargs).schema.default is NO_DEFAULT


def test_no_default_for_domains_an_enum_default_is_its_label() -> None:
    domain = ctype("posint", schema="public", base=ctype("int4"))
    assert conv(domain, default="5").schema.default is NO_DEFAULT
    enum = ctype("mood", schema="public", category="E", enum_labels=("a", "b c"))
    # PostgresDefaultValueConverter.extractEnumDefault: 'label'::type, the cast naming the enum
    assert conv(enum, default="'a'::mood").schema.default == "a"
    assert conv(enum, default="'b c'::public.mood").schema.default == "b c"
    assert conv(enum, default="'a'::other").schema.default is NO_DEFAULT
    assert conv(enum, default="upper('a')").schema.default is NO_DEFAULT


def test_default_follows_modes() -> None:
    assert conv("numeric", length=10, scale=2, default="1.5", decimal_handling_mode="string").schema.default == "1.50"
    assert (
        conv("interval", default="'1 day'::interval", interval_handling_mode="string").schema.default
        == "P0Y0M1DT0H0M0S"
    )
