"""The C struct encoder (converters/_jsonstruct.c) against the Python encoders, on random schemas and values.

The reference is the checking encoder (`JsonCodec.encode_checked`, Kafka's rules and messages); the Java
golden tests hold both paths to the real JsonConverter's bytes on fixed cases. Here hypothesis draws struct
schemas (every field kind the plan knows, optional/required, defaults, nesting, named schemas) and values of
the right type or, now and then, the wrong one, and the converter's answer must be the reference's: the same
text, or a DataError with the same message.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import jackson_quote
from connect_worker.api.schema import Schema, SchemaBuilder, Type, decimal_schema
from connect_worker.api.struct import Struct
from converters import json_encoder
from converters.json import JsonConverter
from converters.json_encoder import JsonCodec


def test_the_extension_is_built() -> None:
    """`pip install -e .` (make) compiles it; a missing build must not pass silently as the Python path."""
    assert json_encoder._accel is not None, "converters._jsonstruct is not built: run `pip install -e .`"


# -- values -----------------------------------------------------------------------------------------------
class _Str(str):
    pass


class _Int(int):
    def __repr__(self) -> str:
        return "not-a-number"


# joined lists, not st.text(alphabet=...): text() applies the utf-8 codec filter to the whole alphabet and
# would drop the surrogates
texts = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),  # any code point PostgreSQL can send, astral ones included
        st.sampled_from('"\\/\x00\x01\x08\t\n\x0b\x0c\r\x1f\x7f\u2028\ufeff'),
        # lone surrogates and astral characters, named outright (drawn from ranges they come up rarely)
        st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "\U00010000", "\U0001f600", "\U0010ffff"]),
    ),
    max_size=40,
).map("".join)
ints = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(), st.builds(_Int, st.integers(-5, 5)))
wrong = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=3))


def _value_for(schema: Schema, *, well_typed: bool = False) -> st.SearchStrategy[Any]:
    """A value for a field: of the schema's type (None only where allowed when well_typed), else now and then
    None or the wrong type (rarely: one wrong field sends the whole struct to the checking encoder)."""
    good = _typed_value(schema, well_typed)
    if well_typed:
        return st.one_of(good, st.none()) if schema.optional or schema.default is not None else good
    return st.integers(0, 24).flatmap(lambda n: st.none() if n == 0 else wrong if n == 1 else good)


def _typed_value(schema: Schema, well_typed: bool) -> st.SearchStrategy[Any]:
    t = schema.type
    if schema.name == "org.apache.kafka.connect.data.Decimal":
        good: st.SearchStrategy[Any] = st.one_of(
            st.decimals(places=2, allow_nan=False, allow_infinity=False),  # the schema's scale: base64 in C
            st.integers(-(2**70), 2**70).map(lambda n: Decimal(n).scaleb(-2)),  # past 18 digits: Python
            st.sampled_from(  # byte-length edges, and 18/19 digits around the 64-bit limit of the C path
                [
                    Decimal(t)
                    for t in (
                        "0.00",
                        "-0.00",
                        "1.27",
                        "-1.28",
                        "327.67",
                        "-327.68",
                        "9999999999999999.99",
                        "-9999999999999999.99",
                        "92233720368547758.07",
                        "-92233720368547758.08",
                        "99999999999999999.99",
                        "-99999999999999999.99",
                    )
                ]
            ),
            st.decimals(),  # any scale, exponent forms, NaN: the Python encoder and its errors
        )
    elif t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        good = ints
    elif t is Type.STRING:
        good = st.one_of(texts, texts.map(_Str))
    elif t is Type.BOOLEAN:
        good = st.booleans()
    elif t is Type.FLOAT64:
        good = st.floats()
    elif t is Type.BYTES:
        good = st.binary(max_size=8)
    elif t is Type.ARRAY:
        good = st.lists(_value_for(schema.element_schema, well_typed=well_typed), max_size=3)
    else:
        assert t is Type.STRUCT
        good = _struct_value(schema, well_typed=well_typed)
    return good


def _struct_value(schema: Schema, *, well_typed: bool = False) -> st.SearchStrategy[Any]:
    fields = (_value_for(f.schema, well_typed=well_typed) for f in schema.fields)
    return st.tuples(*fields).map(lambda vs: Struct.of(schema, list(vs)))


@settings(max_examples=500, deadline=None)
@given(s=st.one_of(texts, st.text(max_size=200)))
def test_c_quote_is_jacksons(s: str) -> None:
    """The string rules alone, with no fallback behind them (a struct falls back on any error)."""
    assert json_encoder._accel is not None
    assert json_encoder._accel.quote(s) == jackson_quote(s)


# -- schemas ----------------------------------------------------------------------------------------------
_LEAVES: list[SchemaBuilder] = [
    SchemaBuilder(Type.INT8),
    SchemaBuilder(Type.INT32),
    SchemaBuilder(Type.INT64),
    SchemaBuilder(Type.STRING),
    SchemaBuilder(Type.STRING).name("io.debezium.data.Json"),
    SchemaBuilder(Type.BOOLEAN),
    SchemaBuilder(Type.FLOAT64),
    SchemaBuilder(Type.BYTES),
    SchemaBuilder.array(SchemaBuilder(Type.STRING).optional().build()),
]
_DEFAULTS = {Type.INT8: 3, Type.INT32: -7, Type.INT64: 2**40, Type.STRING: 'd"é😀', Type.BOOLEAN: True}


@st.composite
def leaf_schemas(draw: st.DrawFn) -> Schema:
    if draw(st.integers(0, 9)) == 0:
        return decimal_schema(2, optional=draw(st.booleans()))
    proto = draw(st.sampled_from(_LEAVES)).build()
    b = SchemaBuilder(proto.type)
    if proto.name is not None:
        b.name(proto.name)
    if proto.type is Type.ARRAY:
        b = SchemaBuilder.array(proto.element_schema)
    if draw(st.booleans()):
        b.optional()
    if proto.type in _DEFAULTS and draw(st.integers(0, 3)) == 0:
        b.default(_DEFAULTS[proto.type])
    return b.build()


def _struct_of(children: st.SearchStrategy[Schema]) -> st.SearchStrategy[Schema]:
    names = st.sampled_from(["id", "name", "é", 'q"uote', "x\ny", "😀", "a", "b", "c", "d"])

    @st.composite
    def build(draw: st.DrawFn) -> Schema:
        b = SchemaBuilder.struct().name(draw(st.sampled_from(["S", "io.debezium.connector.postgresql.Source"])))
        for name in draw(st.lists(names, unique=True, max_size=6)):
            b.field(name, draw(children))
        if draw(st.booleans()):
            b.optional()
        return b.build()

    return build()


struct_schemas = st.recursive(leaf_schemas(), _struct_of, max_leaves=12).filter(lambda s: s.type is Type.STRUCT)


def _encode(config: dict[str, str], schema: Schema, value: Any) -> str:
    conv = JsonConverter()
    conv.configure(config, False)
    try:
        out = conv.from_connect_data("t", schema, value)
    except DataError as e:
        return "error: " + str(e)
    return "null" if out is None else out.decode("utf-8")


def _reference(config: dict[str, str], schema: Schema, value: Any) -> str:
    codec = JsonCodec(
        numeric_decimals=False,
        replace_null_with_default=config.get("replace.null.with.default", "true") == "true",
        cache_size=10,
    )
    try:
        return codec.encode_checked(schema, value)
    except DataError as e:
        return "error: " + str(e)


_CONFIGS = [{"schemas.enable": "false"}, {"schemas.enable": "false", "replace.null.with.default": "false"}]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), schema=struct_schemas, config=st.sampled_from(_CONFIGS))
def test_c_encoder_answers_as_the_checking_encoder(data: st.DataObject, schema: Schema, config: dict[str, str]) -> None:
    value = data.draw(_value_for(schema))
    assert _encode(config, schema, value) == _reference(config, schema, value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), schemas=st.lists(struct_schemas, min_size=1, max_size=3), config=st.sampled_from(_CONFIGS))
def test_one_converter_answers_every_record_as_the_checking_encoder(
    data: st.DataObject, schemas: list[Schema], config: dict[str, str]
) -> None:
    """A converter remembers the last struct schema's encoder: records of the same schema in a row (good and
    bad values, nulls) and a switch to another schema and back must still answer as the reference does."""
    conv = JsonConverter()
    conv.configure(config, False)
    for _ in range(8):
        schema = data.draw(st.sampled_from(schemas))
        value = data.draw(_value_for(schema))
        try:
            out = conv.from_connect_data("t", schema, value)
            got = "null" if out is None else out.decode("utf-8")
        except DataError as e:
            got = "error: " + str(e)
        assert got == _reference(config, schema, value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), schema=struct_schemas, well_typed=st.booleans())
def test_c_and_generated_python_encoders_agree(
    data: st.DataObject, schema: Schema, well_typed: bool, monkeypatch_module: Any
) -> None:
    """Byte for byte, errors included: a bool in an int field and 1 or 0 in a bool field are refused by both."""
    value = data.draw(_struct_value(schema, well_typed=well_typed))
    config = {"schemas.enable": "true"}
    c = _encode(config, schema, value)
    with monkeypatch_module.context() as mp:
        mp.setattr(json_encoder, "_accel", None)
        py = _encode(config, schema, value)
    assert c == py


@pytest.mark.parametrize("accel", [True, False], ids=["c", "python"])
def test_bools_and_ints_are_not_interchangeable(accel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's True == 1 must not leak into the output: Kafka refuses a Boolean for an INT and an Integer for a
    BOOLEAN, in a struct field, an array item or a top-level value, on both encoder paths."""
    if not accel:
        monkeypatch.setattr(json_encoder, "_accel", None)
    config = {"schemas.enable": "false"}
    int32, boolean = SchemaBuilder(Type.INT32).build(), SchemaBuilder(Type.BOOLEAN).build()
    row = SchemaBuilder.struct().name("r").field("i", int32).field("b", boolean).build()
    ints, bools = SchemaBuilder.array(int32).build(), SchemaBuilder.array(boolean).build()
    assert _encode(config, row, Struct.of(row, [7, False])) == '{"i":7,"b":false}'
    assert _encode(config, row, Struct.of(row, [_Int(7), True])) == '{"i":7,"b":true}'  # an int subclass is an int
    assert _encode(config, row, Struct.of(row, [True, True])) == "error: Invalid type for INT32: <class 'bool'>"
    assert _encode(config, row, Struct.of(row, [7, 1])) == "error: Invalid type for BOOLEAN: <class 'int'>"
    assert _encode(config, int32, False) == "error: Invalid type for INT32: <class 'bool'>"
    assert _encode(config, boolean, 0) == "error: Invalid type for BOOLEAN: <class 'int'>"
    assert _encode(config, ints, [1, True]) == "error: Invalid type for INT32: <class 'bool'>"
    assert _encode(config, bools, [True, 1]) == "error: Invalid type for BOOLEAN: <class 'int'>"


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_debezium_envelope_bytes_equal_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        SchemaBuilder.struct()
        .name("io.debezium.connector.postgresql.Source")
        .field("version", SchemaBuilder(Type.STRING).build())
        .field("ts_ms", SchemaBuilder(Type.INT64).build())
        .field("snapshot", SchemaBuilder(Type.STRING).name("io.debezium.data.Enum").optional().default("false").build())
        .field("lsn", SchemaBuilder(Type.INT64).optional().build())
        .build()
    )
    row = (
        SchemaBuilder.struct()
        .name("p.public.t.Value")
        .optional()
        .field("id", SchemaBuilder(Type.INT64).build())
        .field("amount", decimal_schema(2, optional=True))
        .field("doc", SchemaBuilder(Type.STRING).name("io.debezium.data.Json").optional().build())
        .field("flag", SchemaBuilder(Type.BOOLEAN).optional().build())
        .build()
    )
    env = (
        SchemaBuilder.struct()
        .name("p.public.t.Envelope")
        .field("before", row)
        .field("after", row)
        .field("source", source)
        .field("op", SchemaBuilder(Type.STRING).build())
        .build()
    )
    value = Struct.of(
        env,
        [
            None,
            Struct.of(row, [2**63 - 1, Decimal("-12.30"), '{"k": "ü\\n😀"}', True]),
            Struct.of(source, ["3.6.3.Final", 1795303593300, None, 22182192]),
            "c",
        ],
    )
    out = {}
    for path in ("c", "python"):
        if path == "python":
            monkeypatch.setattr(json_encoder, "_accel", None)
        for schemas in ("true", "false"):
            out[path, schemas] = _encode({"schemas.enable": schemas}, env, value)
    assert out["c", "true"] == out["python", "true"]
    assert out["c", "false"] == out["python", "false"]
    assert out["c", "false"] == (
        '{"before":null,"after":{"id":9223372036854775807,"amount":"+zI=",'
        '"doc":"{\\"k\\": \\"ü\\\\n\\uD83D\\uDE00\\"}",'
        '"flag":true},"source":{"version":"3.6.3.Final","ts_ms":1795303593300,"snapshot":"false","lsn":22182192},'
        '"op":"c"}'
    )
