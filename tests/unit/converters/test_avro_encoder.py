"""AvroConverter's encoder: the C encoder, the Python reference and fastavro (writing the datum avro_data builds
with the Avro schema avro_schema makes) give the same bytes for every kind of Connect value; the C encoder takes
the common values without falling back; bad values get a DataError naming the field."""

from __future__ import annotations

import datetime as dt
import io
import math
from decimal import Decimal
from typing import Any

import fastavro
import pytest

from connect_worker.api.errors import DataError
from connect_worker.api.schema import Schema, Type, date_schema, decimal_schema, time_schema, timestamp_schema
from connect_worker.api.struct import Struct
from converters import avro_encoder
from converters.avro import _strip_logical
from converters.avro_data import datum_writer
from converters.avro_encoder import AvroEncoder, compile_plan
from converters.avro_schema import AvroDataOptions, from_connect

ENUM_PARAMS = {"io.confluent.connect.avro.Enum": "ns.Mood", "io.confluent.connect.avro.Enum.happy": "happy",
               "io.confluent.connect.avro.Enum.sad": "sad"}  # fmt: skip

ROW = Schema(
    Type.STRUCT,
    name="srv.public.t.Value",
    optional=True,
    fields=[
        ("id", Schema(Type.INT32)),
        ("i8", Schema(Type.INT8, optional=True)),
        ("i16", Schema(Type.INT16, optional=True)),
        ("big", Schema(Type.INT64, optional=True)),
        ("f32", Schema(Type.FLOAT32, optional=True)),
        ("f64", Schema(Type.FLOAT64, optional=True)),
        ("flag", Schema(Type.BOOLEAN, optional=True)),
        ("text", Schema(Type.STRING, optional=True)),
        ("raw", Schema(Type.BYTES, optional=True)),
        ("amount", decimal_schema(2, optional=True, precision=10)),
        ("d", date_schema(optional=True)),
        ("t", time_schema(optional=True)),
        ("ts", timestamp_schema(optional=True)),
        ("with_default", Schema(Type.STRING, optional=True, default="dflt")),
        ("num_default", Schema(Type.INT64, default=7)),
        ("tags", Schema(Type.ARRAY, value_schema=Schema(Type.STRING, optional=True), optional=True)),
        (
            "attrs",
            Schema(
                Type.MAP, key_schema=Schema(Type.STRING), value_schema=Schema(Type.STRING, optional=True), optional=True
            ),
        ),
        ("by_int", Schema(Type.MAP, key_schema=Schema(Type.INT32), value_schema=Schema(Type.FLOAT64), optional=True)),
        ("mood", Schema(Type.STRING, optional=True, parameters=ENUM_PARAMS)),
        (
            "point",
            Schema(
                Type.STRUCT,
                name="io.debezium.data.geometry.Point",
                optional=True,
                fields=[
                    ("x", Schema(Type.FLOAT64)),
                    ("y", Schema(Type.FLOAT64)),
                    ("wkb", Schema(Type.BYTES, optional=True)),
                ],
            ),
        ),
    ],
)
ENVELOPE = Schema(
    Type.STRUCT,
    name="srv.public.t.Envelope",
    version=2,
    fields=[("before", ROW), ("after", ROW), ("op", Schema(Type.STRING)), ("ts_ms", Schema(Type.INT64, optional=True))],
)


def _row(**values: Any) -> Struct:
    return Struct(ROW, values)


ROWS = [
    _row(id=1, num_default=1),
    _row(
        id=-(2**31),
        i8=-128,
        i16=32767,
        big=2**63 - 1,
        f32=1.1,
        f64=-0.0,
        flag=True,
        text="héllo 😀",
        raw=b"\x00\xff",
        amount=Decimal("-1.28"),
        d=dt.date(1970, 1, 2),
        t=dt.time(10, 15, 30, 123000),
        ts=dt.datetime(2024, 1, 2, tzinfo=dt.UTC),
        with_default=None,
        num_default=None,
        tags=["a", None, ""],
        attrs={"k": "v", "n": None},
        by_int={1: 1.5, -2: math.inf},
        mood="sad",
        point=Struct(ROW.field("point").schema, {"x": 1.0, "y": math.nan}),  # type: ignore[union-attr]
    ),
    _row(
        id=2**31 - 1,
        big=-(2**63),
        f32=3.5e39,
        f64=math.nan,
        flag=False,
        text="",
        raw=b"",
        amount=Decimal("0.00"),
        d=-719162,
        t=0,
        ts=-62135596800000,
        tags=[],
        attrs={},
        by_int={},
        mood="happy",
        num_default=-1,
    ),
]
OPTIONS = [
    AvroDataOptions(),
    AvroDataOptions(enhanced_schema_support=True),
    AvroDataOptions(ignore_default_for_nullables=True),
]


def _fastavro(schema: Schema, options: AvroDataOptions, value: Any) -> bytes:
    parsed = fastavro.parse_schema(_strip_logical(from_connect(schema, options)), _ignore_default_error=True)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, datum_writer(schema, options)(value))
    return out.getvalue()


# every row under every option set, but a null in a required field whose default is ignored: that is an error
# (test_without_defaults_for_nullables_a_null_required_field_is_refused)
_NUM_DEFAULT = [f.name for f in ROW.fields].index("num_default")
CASES = [
    pytest.param(o, i, id=f"{name}-{i}")
    for o, name in zip(OPTIONS, ("default", "enhanced", "ignore-defaults"), strict=True)
    for i, row in enumerate(ROWS)
    if not (o.ignore_default_for_nullables and row.values[_NUM_DEFAULT] is None)
]


@pytest.mark.parametrize(("options", "index"), CASES)
def test_c_python_and_fastavro_write_the_same_bytes(options: AvroDataOptions, index: int) -> None:
    event = Struct(ENVELOPE, {"before": None, "after": ROWS[index], "op": "c", "ts_ms": 5})
    encoder = AvroEncoder(compile_plan(ENVELOPE, options))
    python = encoder.encode_python(event)
    assert python == _fastavro(ENVELOPE, options, event)
    if avro_encoder.ACCELERATED:
        assert avro_encoder._accel is not None
        assert avro_encoder._accel.encode(encoder.plan, event, b"") == python  # no fallback to Python
    assert encoder.encode(event, b"\x00\x00\x00\x00\x07") == b"\x00\x00\x00\x00\x07" + python


def test_the_c_encoder_is_built() -> None:
    """The project's install builds it (a machine without a C compiler runs the Python reference, slower)."""
    assert avro_encoder.ACCELERATED


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"id": "1", "num_default": 1}, r"Invalid type for INT32: str \(field after.id\)"),
        ({"id": None, "num_default": 1}, r"Found null value for non-optional schema \(field after.id\)"),
        ({"id": 1, "num_default": 1, "tags": ["a", 3]}, r"Invalid type for STRING: int \(field after.tags\[1\]\)"),
        ({"id": 1, "num_default": 1, "amount": 1.5}, r"expected BigDecimal but was float \(field after.amount\)"),
        ({"id": 2**31, "num_default": 1}, r"out of range for a 32-bit integer \(field after.id\)"),
    ],
)
def test_bad_values_name_the_field(values: dict[str, Any], message: str) -> None:
    event = Struct(ENVELOPE, {"before": None, "after": _row(**values), "op": "c"})
    with pytest.raises(DataError, match=message):
        AvroEncoder(compile_plan(ENVELOPE, AvroDataOptions())).encode(event, b"")


def test_without_defaults_for_nullables_a_null_required_field_is_refused() -> None:
    event = Struct(ENVELOPE, {"before": None, "after": _row(id=1), "op": "c"})
    AvroEncoder(compile_plan(ENVELOPE, AvroDataOptions())).encode(event, b"")  # Struct.get's default: 7
    with pytest.raises(DataError, match=r"non-optional schema \(field after.num_default\)"):
        AvroEncoder(compile_plan(ENVELOPE, AvroDataOptions(ignore_default_for_nullables=True))).encode(event, b"")


def test_an_enum_value_outside_its_symbols_is_refused() -> None:
    event = Struct(ENVELOPE, {"before": None, "after": _row(id=1, num_default=1, mood="angry"), "op": "c"})
    with pytest.raises(DataError, match="'angry' is not a symbol of the enum"):
        AvroEncoder(compile_plan(ENVELOPE, AvroDataOptions(enhanced_schema_support=True))).encode(event, b"")


def test_a_struct_of_an_equal_but_other_schema_object_is_written() -> None:
    """The C encoder takes only the plan's schema object; an equal copy goes through the reference (AvroData
    compares schemas by equality)."""
    copy = Schema(
        Type.STRUCT, name="srv.public.t.Envelope", version=2, fields=[(f.name, f.schema) for f in ENVELOPE.fields]
    )
    event = Struct(copy, {"before": None, "after": _row(id=1, num_default=1), "op": "c"})
    encoder = AvroEncoder(compile_plan(ENVELOPE, AvroDataOptions()))
    assert encoder.encode(event, b"") == encoder.encode_python(Struct(ENVELOPE, {"after": event.values[1], "op": "c"}))
