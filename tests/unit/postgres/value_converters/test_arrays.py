"""Arrays (postgresql.md §6.4; §11 item 67; Appendix A.1)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from connect_worker.api.schema import Type
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.postgres.value_converters.arrays import parse_array
from connectors.relational.table import Column

from ._helpers import array_of, conv, ctype, json_of


def test_int_array_with_null() -> None:  # item 67
    c = conv(array_of(ctype("int4")))
    assert c.schema.type is Type.ARRAY and c.schema.value_schema is not None
    assert c.schema.value_schema.type is Type.INT32 and c.schema.value_schema.optional
    assert c.from_text("{1,NULL,3}") == [1, None, 3]
    assert '"f":[1,null,3]' in json_of(c.schema, c.from_text("{1,NULL,3}"))


def test_text_array_literal_schema() -> None:  # Appendix A.1
    c = conv(array_of(ctype("text")))
    out = json_of(c.schema, c.from_text("{a,b}"))
    assert '{"type":"array","items":{"type":"string","optional":true},"optional":true,"field":"f"}' in out
    assert '"f":["a","b"]' in out


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("{}", []),
        ('{"a b","\\"q\\"","NULL",NULL,"x\\\\y",""}', ["a b", '"q"', "NULL", None, "x\\y", ""]),
        ("{{1,2},{3,4}}", [["1", "2"], ["3", "4"]]),
        ("[0:1]={1,2}", ["1", "2"]),
        ('{"{}",","}', ["{}", ","]),
        ("{ a , b }", ["a", "b"]),
    ],
)
def test_parser(text: str, items: list[object]) -> None:
    assert parse_array(text) == items


def test_element_types() -> None:
    assert conv(array_of(ctype("numeric")), length=10, scale=2).from_text("{1.50,NULL}") == [Decimal("1.50"), None]
    num = conv(array_of(ctype("numeric")), length=10, scale=2).schema.value_schema
    assert num is not None and num.parameters == {"scale": "2", "connect.decimal.precision": "10"} and num.optional
    tstz = conv(array_of(ctype("timestamptz")), scale=6)
    assert tstz.from_text('{"2020-01-01 10:00:00+02"}') == ["2020-01-01T08:00:00.000000Z"]
    assert conv(array_of(ctype("bytea"))).from_text('{"\\\\x0102"}') == [b"\x01\x02"]
    assert conv(array_of(ctype("date"))).from_text("{1970-01-10}") == [9]
    assert conv(array_of(ctype("uuid"))).schema.value_schema.name == "io.debezium.data.Uuid"  # type: ignore[union-attr]
    hstore_items = conv(array_of(ctype("hstore", schema="public"))).from_text('{"\\"a\\"=>\\"1\\""}')
    assert hstore_items == ['{"a":"1"}']


def test_multidimensional_sub_arrays_become_null() -> None:
    assert conv(array_of(ctype("int4"))).from_text("{{1,2},{3,4}}") == [None, None]


def test_enum_array_has_required_elements() -> None:
    c = conv(array_of(ctype("mood", schema="public", category="E", enum_labels=("a", "b"))))
    assert c.schema.value_schema is not None and not c.schema.value_schema.optional
    assert c.schema.value_schema.parameters == {"allowed": "a,b"}
    assert c.from_text("{a,b}") == ["a", "b"]


@pytest.mark.parametrize("element", ["money", "name", "interval", "varbit", "xml", "point"])
def test_unsupported_arrays_are_omitted_even_with_unknown_types(element: str) -> None:
    for include in (False, True):
        column = Column("c", 1, array_of(ctype(element)))
        assert converter_for(column, TypeOptions(include_unknown_datatypes=include)) is None


def test_arrays_of_domains_are_omitted() -> None:
    domain = ctype("posint", schema="public", base=ctype("int4"))
    assert converter_for(Column("c", 1, array_of(domain)), TypeOptions(include_unknown_datatypes=True)) is None
