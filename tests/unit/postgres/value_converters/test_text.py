"""Text-like types, enums and domains (postgresql.md §6.1, §6.5; §11 item 64; Appendix A.1)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from connect_worker.api.schema import Type

from ._helpers import conv, ctype, json_of


@pytest.mark.parametrize(
    ("type_name", "schema_name", "text"),
    [
        ("text", None, "héllo 😀"),
        ("varchar", None, "abc"),
        ("bpchar", None, "ab   "),
        ("char", None, "x"),
        ("name", None, "pg_class"),
        ("json", "io.debezium.data.Json", "[1, 2]"),
        ("jsonb", "io.debezium.data.Json", '{"k": 1}'),
        ("xml", "io.debezium.data.Xml", "<a>b</a>"),
        ("uuid", "io.debezium.data.Uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        ("tsvector", "io.debezium.data.Tsvector", "'a':1 'b':2"),
    ],
)
def test_builtin_text_types(type_name: str, schema_name: str | None, text: str) -> None:  # item 64
    c = conv(type_name)
    assert c.schema.type is Type.STRING and c.schema.name == schema_name
    assert c.schema.version == (1 if schema_name else None)
    assert c.from_text(text) == text


def test_jsonb_literal_payload() -> None:  # Appendix A.1
    c = conv("jsonb")
    out = json_of(c.schema, c.from_text('{"k": 1}'))
    assert '{"type":"string","optional":true,"name":"io.debezium.data.Json","version":1,"field":"f"}' in out
    assert '"f":"{\\"k\\": 1}"' in out


@pytest.mark.parametrize(
    ("name", "schema_name"), [("citext", None), ("ltree", "io.debezium.data.Ltree"), ("isbn", None)]
)
def test_extension_text_types(name: str, schema_name: str | None) -> None:
    c = conv(ctype(name, schema="public"))
    assert c.schema.type is Type.STRING and c.schema.name == schema_name
    assert c.from_text("Top.Science") == "Top.Science"


def test_enum() -> None:  # item 64
    c = conv(ctype("mood", schema="public", category="E", enum_labels=("a", "b")))
    assert c.schema.name == "io.debezium.data.Enum" and c.schema.parameters == {"allowed": "a,b"}
    assert c.from_text("b") == "b"


def test_domain_maps_as_its_base_type() -> None:
    numeric = ctype("numeric", category="N")
    domain = ctype("money2", schema="public", category="N", base=numeric)
    c = conv(domain, length=8, scale=2)
    assert c.schema.name == "org.apache.kafka.connect.data.Decimal"
    assert c.schema.parameters == {"scale": "2", "connect.decimal.precision": "8"}
    assert c.from_text("12.50") == Decimal("12.50")
    text_domain = ctype("email", schema="public", category="S", base=ctype("text", category="S"))
    assert conv(text_domain).from_text("a@b") == "a@b"


def test_user_type_named_like_a_builtin_is_not_the_builtin() -> None:
    from connectors.postgres.value_converters import TypeOptions, converter_for
    from connectors.relational.table import Column

    fake = ctype("int4", schema="public", category="C")
    assert converter_for(Column("c", 1, fake), TypeOptions()) is None
