"""Registry-level behaviour: unknown types, optionality, and the Appendix A.1 value schema as a whole."""

from __future__ import annotations

from connect_worker.api.schema import Type, struct_schema
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters import BUILTIN_TYPES, EXTENSION_TYPES, TypeOptions, converter_for
from connectors.relational.table import Column

from ._helpers import array_of, ctype, json_of


def test_unknown_type_is_omitted_by_default() -> None:
    column = Column("c", 1, ctype("box"))
    assert converter_for(column, TypeOptions()) is None


def test_unknown_type_as_binary_when_included() -> None:
    column = Column("c", 1, ctype("box"))
    c = converter_for(column, TypeOptions(include_unknown_datatypes=True))
    assert c is not None and c.schema.type is Type.BYTES and c.from_text("(1,1),(0,0)") == b"(1,1),(0,0)"
    h = converter_for(column, TypeOptions(include_unknown_datatypes=True, binary_handling_mode="hex"))
    assert h is not None and h.schema.type is Type.STRING and h.from_text("ab") == "6162"


def test_registry_is_split_by_family() -> None:
    assert {"int4", "numeric", "timestamptz", "interval", "jsonb", "bytea", "inet", "point"} <= set(BUILTIN_TYPES)
    assert {"hstore", "citext", "ltree", "isbn", "geometry", "geography"} <= set(EXTENSION_TYPES)


def test_appendix_a1_value_schema() -> None:
    """`id int PK, email text, balance numeric(10,2), created date, ts timestamptz, tags text[], payload jsonb,
    amount numeric` — the `before`/`after` schema and payloads captured from Debezium 3.6.3."""
    columns = [
        Column("id", 1, ctype("int4"), optional=False),
        Column("email", 2, ctype("text")),
        Column("balance", 3, ctype("numeric"), length=10, scale=2),
        Column("created", 4, ctype("date")),
        Column("ts", 5, ctype("timestamptz"), scale=6),
        Column("tags", 6, array_of(ctype("text"))),
        Column("payload", 7, ctype("jsonb")),
        Column("amount", 8, ctype("numeric")),
    ]
    converters = [converter_for(c, TypeOptions()) for c in columns]
    assert all(c is not None for c in converters)
    schema = struct_schema(
        [(col.name, c.schema) for col, c in zip(columns, converters, strict=True) if c],
        optional=True,
        name="dbserver1.public.customers.Value",
    )
    texts = ["2", "a@b", "12.34", "2024-01-02", "2024-01-02 03:04:05.123456+00", "{a,b}", '{"k": 1}', "3.14159"]
    value = Struct.of(schema, [c.from_text(t) for c, t in zip(converters, texts, strict=True) if c])
    out = json_of(schema, value)
    assert (
        '{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
        '{"type":"string","optional":true,"field":"email"},'
        '{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
        '"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"balance"},'
        '{"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"created"},'
        '{"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,"field":"ts"},'
        '{"type":"array","items":{"type":"string","optional":true},"optional":true,"field":"tags"},'
        '{"type":"string","optional":true,"name":"io.debezium.data.Json","version":1,"field":"payload"},'
        '{"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},'
        '{"type":"bytes","optional":false,"field":"value"}],"optional":true,'
        '"name":"io.debezium.data.VariableScaleDecimal","version":1,"doc":"Variable scaled decimal","field":"amount"}'
        '],"optional":true,"name":"dbserver1.public.customers.Value"'
    ) in out
    assert (
        '{"id":2,"email":"a@b","balance":"BNI=","created":19724,"ts":"2024-01-02T03:04:05.123456Z",'
        '"tags":["a","b"],"payload":"{\\"k\\": 1}","amount":{"scale":5,"value":"BMsv"}}'
    ) in out
