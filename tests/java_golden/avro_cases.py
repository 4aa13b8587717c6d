"""The Avro cases run through Confluent's AvroData 7.0.16 (tests/java/AvroDataGolden.java) and our AvroConverter.

`CONFIGS` are AvroDataConfig settings (only keys AvroDataConfig 7.0.16 defines); `schema_value_cases()` are
(label, Connect schema, value) run under every config; `avro_inputs()` are hand-written Avro schemas with a datum
in Avro's JSON encoding, for the reverse direction (toConnectSchema / toConnectData) only.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from typing import Any

from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT8_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Type,
    date_schema,
    decimal_schema,
    struct_schema,
    time_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters.binary import bits_schema
from connectors.postgres.value_converters.enums import enum_schema
from connectors.postgres.value_converters.geometric import GEOMETRY_SCHEMA, POINT_SCHEMA
from connectors.postgres.value_converters.numeric import VARIABLE_SCALE_DECIMAL_SCHEMA, variable_scale_struct
from connectors.relational.metadata_schemas import (
    NOTIFICATION_VALUE_SCHEMA,
    TRANSACTION_VALUE_SCHEMA,
    notification_value,
    transaction_begin_value,
    transaction_end_value,
)
from tests.java_golden.json_cases import dbz_record

CONFIGS: dict[str, dict[str, str]] = {
    "default": {},
    "no-meta": {"connect.meta.data": "false"},
    "enhanced": {"enhanced.avro.schema.support": "true"},
    "scrub": {"scrub.invalid.names": "true"},
    "optional-map-keys": {"allow.optional.map.keys": "true"},
    "discard-doc-default": {"discard.type.doc.default": "true"},
    "cache-1": {"schemas.cache.config": "1"},
    "all-on": {
        "enhanced.avro.schema.support": "true",
        "scrub.invalid.names": "true",
        "allow.optional.map.keys": "true",
        "discard.type.doc.default": "true",
        "schemas.cache.config": "5",
    },
    "scrub-no-meta": {"scrub.invalid.names": "true", "connect.meta.data": "false"},
}

Case = tuple[str, Schema, Any]

RECORD_DOC = "io.confluent.connect.avro.record.doc"

_DOUBLES = [0.0, -0.0, 1.5, 0.1, 1e10, 5e-324, 1.7976931348623157e308, math.nan, math.inf, -math.inf]
_FLOATS = [0.0, -0.0, 1.1, 3.4028234663852886e38, 1.401298464324817e-45, math.nan, math.inf, -math.inf]
_PRIMITIVES: list[tuple[Schema, Schema, list[Any], Any]] = [
    # required, optional, values, a default
    (INT8_SCHEMA, OPTIONAL_INT8_SCHEMA, [0, -128, 127], -7),
    (INT16_SCHEMA, OPTIONAL_INT16_SCHEMA, [0, -32768, 32767], 300),
    (INT32_SCHEMA, OPTIONAL_INT32_SCHEMA, [0, -(2**31), 2**31 - 1, -1], 42),
    (INT64_SCHEMA, OPTIONAL_INT64_SCHEMA, [0, -(2**63), 2**63 - 1, 1795303593299669000], -(2**40)),
    (FLOAT32_SCHEMA, OPTIONAL_FLOAT32_SCHEMA, _FLOATS, 1.1),
    (FLOAT64_SCHEMA, OPTIONAL_FLOAT64_SCHEMA, _DOUBLES, 1e10),
    (BOOLEAN_SCHEMA, OPTIONAL_BOOLEAN_SCHEMA, [True, False], True),
    (STRING_SCHEMA, OPTIONAL_STRING_SCHEMA, ["", "plain", 'q"\\/\x00\x1f\x7f', "é ü ß 日本", "a😀b"], "dflt"),
    (BYTES_SCHEMA, OPTIONAL_BYTES_SCHEMA, [b"", b"\x00", bytes(range(256))], b"\x00\xff\x80A"),
]


def _with_default(schema: Schema, default: Any) -> Schema:
    return schema.with_(default=default)


def _primitive_cases() -> list[Case]:
    cases: list[Case] = []
    for req, opt, values, default in _PRIMITIVES:
        t = req.type.value
        cases += [(f"{t}:{v!r}", req, v) for v in values]
        cases += [(f"optional {t}:{values[-1]!r}", opt, values[-1]), (f"optional {t}:null", opt, None)]
        cases += [
            (f"{t} with default:{values[0]!r}", _with_default(req, default), values[0]),
            (f"optional {t} with default:{values[0]!r}", _with_default(opt, default), values[0]),
            (f"optional {t} with default:null", _with_default(opt, default), None),
            (f"{t} required:null", req, None),
        ]
    return cases


def _logical_cases() -> list[Case]:
    cases: list[Case] = []
    decimals: list[tuple[Schema, list[str]]] = [
        (decimal_schema(0), ["0", "-128", "127", "128", "-129", "255", "-1", "123456789012345678901234567890"]),
        (decimal_schema(2), ["0.00", "-1.28", "12.34", "-99999999999999999999.99"]),
        (decimal_schema(2, precision=10), ["12.34", "-0.01"]),
        (decimal_schema(2, precision=64), ["12.34"]),
        (decimal_schema(10, precision=38), ["1.0000000001", "-0.0000000128"]),
        (decimal_schema(5, precision=3), ["1.23456", "-0.00128"]),  # scale > precision: AvroData's legacy form
        (decimal_schema(-2), ["1E+4", "-1.28E+4"]),  # a negative scale: legacy too
        (decimal_schema(3, optional=True), ["-0.128"]),
    ]
    for schema, values in decimals:
        params = schema.parameters or {}
        tag = f"decimal({params.get('scale')},{params.get('connect.decimal.precision', '-')})"
        cases += [(f"{tag}:{v}", schema, Decimal(v)) for v in values]
    cases += [
        ("decimal scale mismatch", decimal_schema(2), Decimal("1.5")),
        ("optional decimal null", decimal_schema(3, optional=True), None),
        ("decimal default", decimal_schema(1).with_(default=Decimal("-2.5")), Decimal("0.0")),
        ("optional decimal default", decimal_schema(1, optional=True).with_(default=Decimal("12.8")), None),
        ("date 0", date_schema(), dt.date(1970, 1, 1)),
        ("date -1", date_schema(), dt.date(1969, 12, 31)),
        ("date 9999", date_schema(), dt.date(9999, 12, 31)),
        ("optional date", date_schema(optional=True), dt.date(2024, 2, 29)),
        ("date default", date_schema(optional=True).with_(default=dt.date(2000, 1, 1)), None),
        ("time", time_schema(), dt.time(1, 2, 3, 4000)),
        ("time max", time_schema(), dt.time(23, 59, 59, 999000)),
        ("optional time null", time_schema(optional=True), None),
        ("time default", time_schema().with_(default=dt.time(12, 0)), dt.time(0, 0)),
        ("timestamp", timestamp_schema(), dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)),
        ("timestamp neg", timestamp_schema(), dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC)),
        (
            "timestamp default",
            timestamp_schema(optional=True).with_(default=dt.datetime(2001, 2, 3, 4, 5, 6, 7000, tzinfo=dt.UTC)),
            dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
        ),
    ]
    return cases


def _debezium_cases() -> list[Case]:
    micro_ts = Schema(Type.INT64, name="io.debezium.time.MicroTimestamp", version=1)
    nano_ts = Schema(Type.INT64, name="io.debezium.time.NanoTimestamp", version=1, optional=True)
    zoned = Schema(Type.STRING, name="io.debezium.time.ZonedTimestamp", version=1, optional=True)
    dbz_date = Schema(Type.INT32, name="io.debezium.time.Date", version=1)
    micro_time = Schema(Type.INT64, name="io.debezium.time.MicroTime", version=1, optional=True)
    interval = Schema(Type.INT64, name="io.debezium.time.MicroDuration", version=1)
    json_s = Schema(Type.STRING, name="io.debezium.data.Json", version=1)
    uuid = Schema(Type.STRING, name="io.debezium.data.Uuid", version=1, optional=True)
    enum = enum_schema(("happy", "sad", "ok"))
    enum_opt_default = enum.with_(optional=True, default="ok")
    bits = bits_schema(3)
    bits_long = bits_schema(70).with_(optional=True)
    vsd = VARIABLE_SCALE_DECIMAL_SCHEMA
    vsd_opt = vsd.with_(optional=True)
    cases: list[Case] = [
        ("MicroTimestamp", micro_ts, 1_700_000_000_123_456),
        ("NanoTimestamp", nano_ts, -1),
        ("ZonedTimestamp", zoned, "2024-01-02T03:04:05.123456Z"),
        ("dbz Date", dbz_date, -719162),
        ("MicroTime", micro_time, 86_400_000_000),
        ("MicroDuration", interval, 31_557_600_000_000),
        ("Json", json_s, '{"k": [1, 2.5, null]}'),
        ("Uuid", uuid, "e7b0e8a2-1d3c-4c1e-9a6f-7b0c5d1e2f3a"),
        ("Enum", enum, "sad"),
        ("Enum optional with default", enum_opt_default, None),
        ("Bits", bits, b"\x05"),
        ("Bits long", bits_long, b"\x01" * 9),
        ("VariableScaleDecimal", vsd, variable_scale_struct(Decimal("-12.3400"))),
        ("VariableScaleDecimal optional", vsd_opt, Struct.of(vsd_opt, [5, b"\x04\xcb\x2f"])),
        ("Point", POINT_SCHEMA, Struct.of(POINT_SCHEMA, [1.5, -2.25, b"\x01\x01", 4326])),
        ("Geometry", GEOMETRY_SCHEMA, Struct.of(GEOMETRY_SCHEMA, [b"\x01\x02\x03", None])),
    ]
    row = struct_schema(
        [
            ("id", INT32_SCHEMA),
            ("created", micro_ts.with_(optional=True)),
            ("mood", enum.with_(optional=True)),
            ("flags", bits.with_(optional=True)),
            ("amount", vsd_opt),
            ("location", POINT_SCHEMA.with_(optional=True)),
            ("shape", GEOMETRY_SCHEMA.with_(optional=True)),
            ("doc", json_s.with_(optional=True, default="{}")),
            ("status", enum.with_(default="happy")),
        ],
        name="dbserver1.public.things.Value",
    )
    cases += [
        (
            "debezium row",
            row,
            Struct.of(
                row,
                [
                    1,
                    1_700_000_000_000_001,
                    "ok",
                    b"\x06",
                    variable_scale_struct(Decimal("1E+3")),
                    Struct.of(POINT_SCHEMA, [0.0, 0.0, None, None]),
                    None,
                    None,
                    None,
                ],
            ),
        ),
        ("debezium row nulls", row, Struct.of(row, [2, None, None, None, None, None, None, None, "sad"])),
        ("debezium envelope", *dbz_record()),
        ("transaction begin", TRANSACTION_VALUE_SCHEMA, transaction_begin_value("571:5365", 1_700_000_000_000)),
        (
            "transaction end",
            TRANSACTION_VALUE_SCHEMA,
            transaction_end_value("571:5365", 1_700_000_000_001, 3, {"public.a": 2, "public.b": 1}),
        ),
        (
            "notification",
            NOTIFICATION_VALUE_SCHEMA,
            notification_value(
                "n1",
                "Incremental Snapshot",
                "STATUS",
                {"status": "STARTED", "connector_name": "dbserver1", "data_collections": "public.a,public.b", "z": ""},
                1_700_000_000_002,
            ),
        ),
    ]
    return cases


def _container_cases() -> list[Case]:
    point = struct_schema([("x", FLOAT64_SCHEMA), ("y", FLOAT64_SCHEMA)], name="geo.Point")
    arr_opt = SchemaBuilder.array(OPTIONAL_INT32_SCHEMA).build()
    arr_struct = SchemaBuilder.array(point).build()
    arr_opt_struct = SchemaBuilder.array(point.with_(optional=True)).optional().build()
    nested = SchemaBuilder.array(SchemaBuilder.array(STRING_SCHEMA).build()).build()
    arr_default = SchemaBuilder.array(INT64_SCHEMA).optional().default([1, 2]).build()
    m_str = SchemaBuilder.map(STRING_SCHEMA, OPTIONAL_INT64_SCHEMA).build()
    m_opt_key = SchemaBuilder.map(OPTIONAL_STRING_SCHEMA, INT32_SCHEMA).build()
    m_int = SchemaBuilder.map(INT32_SCHEMA, STRING_SCHEMA).build()
    m_int8 = SchemaBuilder.map(INT8_SCHEMA, OPTIONAL_BOOLEAN_SCHEMA).optional().build()
    m_struct_val = SchemaBuilder.map(STRING_SCHEMA, point).optional().build()
    m_struct_key = SchemaBuilder.map(point, BOOLEAN_SCHEMA).build()
    m_named = SchemaBuilder.map(INT64_SCHEMA, STRING_SCHEMA).name("com.example.Lookup").version(2).build()
    m_named_str = SchemaBuilder.map(STRING_SCHEMA, STRING_SCHEMA).name("com.example.Labels").doc("labels").build()
    m_decimal_keys = SchemaBuilder.map(decimal_schema(2), date_schema()).build()
    m_nested = SchemaBuilder.map(STRING_SCHEMA, SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build()).build()
    m_default = SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).optional().default({"k": 1}).build()
    m_int_default = SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).optional().default({7: 8}).build()
    two_maps = struct_schema(
        [("a", m_int), ("b", SchemaBuilder.map(INT64_SCHEMA, INT32_SCHEMA).build())], name="TwoMaps"
    )
    two_same_maps = struct_schema([("a", m_int), ("b", m_int)], name="TwoSameMaps")
    return [
        ("array of optional", arr_opt, [1, None, -3]),
        ("array empty", arr_opt, []),
        ("array of structs", arr_struct, [Struct.of(point, [1.0, 2.0]), Struct.of(point, [-0.0, 5e-324])]),
        ("array of optional structs", arr_opt_struct, [None, Struct.of(point, [1.0, 2.0])]),
        ("optional array null", arr_opt_struct, None),
        ("array nested", nested, [["a"], [], ["b", "c😀"]]),
        ("array default", arr_default, None),
        ("map str", m_str, {"zeta": 1, "alpha": None, "k😀": 3, "": 4}),
        ("map optional str keys", m_opt_key, {"a": 1, None: 2}),
        ("map optional str keys no null", m_opt_key, {"a": 1}),
        ("map int", m_int, {7: "seven", -1: "minus"}),
        ("map int8 optional", m_int8, {1: True, 2: None}),
        ("map struct values", m_struct_val, {"p": Struct.of(point, [1.5, -0.0])}),
        ("map struct keys", m_struct_key, {Struct.of(point, [1.0, 2.0]): True}),
        ("map named", m_named, {1: "one"}),
        ("map named string keys", m_named_str, {"x": "y"}),
        ("map decimal keys", m_decimal_keys, {Decimal("1.50"): dt.date(2020, 1, 1)}),
        ("map nested", m_nested, {"outer": {1: 2}}),
        ("map default", m_default, None),
        ("map int default", m_int_default, None),
        ("two MapEntry maps", two_maps, Struct.of(two_maps, [{1: "a"}, {2: 3}])),
        ("two same MapEntry maps", two_same_maps, Struct.of(two_same_maps, [{1: "a"}, {2: "b"}])),
        ("map many keys", m_str, {f"key{i}": i for i in range(40)}),
        ("map null value required", SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"a": None}),
        ("array null item required", SchemaBuilder.array(INT32_SCHEMA).build(), [1, None]),
    ]


def _struct_cases() -> list[Case]:
    inner = struct_schema([("id", INT32_SCHEMA), ("tag", OPTIONAL_STRING_SCHEMA)], name="ns.Inner")
    outer = struct_schema(
        [
            ("first", inner),
            ("second", inner),
            ("third", inner.with_(optional=True)),
            ("list", SchemaBuilder.array(inner).build()),
        ],
        name="ns.Outer",
    )
    other_ns = struct_schema([("x", inner)], name="other.Wrapper")
    deep = struct_schema([("w", other_ns), ("i", inner)], name="ns.Deep")
    anon_inner = struct_schema([("v", INT32_SCHEMA)])
    anon_inner2 = struct_schema([("w", STRING_SCHEMA)])
    anon = struct_schema(
        [
            ("a", anon_inner),
            ("b", anon_inner2),
            ("c", anon_inner.with_(optional=True)),
            ("d", anon_inner),
            ("e", SchemaBuilder.array(anon_inner2).build()),
        ]
    )
    no_ns = struct_schema([("k", INT64_SCHEMA)], name="NoNamespace")
    holder = struct_schema([("n", no_ns), ("m", no_ns.with_(optional=True))], name="deep.ns.Holder")
    defaults = struct_schema(
        [
            ("i8", _with_default(OPTIONAL_INT8_SCHEMA, 5)),
            ("i16", _with_default(INT16_SCHEMA, -5)),
            ("i", _with_default(OPTIONAL_INT32_SCHEMA, 5)),
            ("l", _with_default(OPTIONAL_INT64_SCHEMA, 2**40)),
            ("f", _with_default(OPTIONAL_FLOAT32_SCHEMA, 0.1)),
            ("d", _with_default(OPTIONAL_FLOAT64_SCHEMA, 1.0e10)),
            ("b", _with_default(OPTIONAL_BOOLEAN_SCHEMA, False)),
            ("s", _with_default(OPTIONAL_STRING_SCHEMA, "x😀")),
            ("y", _with_default(OPTIONAL_BYTES_SCHEMA, b"\x00\xff")),
            ("a", SchemaBuilder.array(INT32_SCHEMA).optional().default([1, 2]).build()),
            ("m", SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).optional().default({"k": 1}).build()),
            ("n", OPTIONAL_STRING_SCHEMA),
            ("r", _with_default(STRING_SCHEMA, "req")),
        ],
        name="Defaults",
    )
    docs = struct_schema(
        [
            ("a", OPTIONAL_INT32_SCHEMA.with_(doc="field a's schema doc")),
            ("b", STRING_SCHEMA),
            ("c", inner.with_(doc="inner doc", optional=True)),
        ],
        name="Docs",
        doc='struct doc with "quotes" and 😀',
        version=3,
        parameters={
            "io.confluent.connect.avro.record.doc": "record doc",
            "io.confluent.connect.avro.field.doc.a": "doc of a",
            "io.confluent.connect.avro.field.doc.b": "doc of b",
            "connect.record.doc": "connect record doc",
            "zeta": "1",
            "alpha": "2",
            "avro.java.string": "String",
            "io.confluent.connect.avro.field.default": "true",
        },
    )
    params = Schema(
        Type.STRING, name="custom.Str", version=7, doc="a string", parameters={"b": "2", "a": "1", "avro.x": "y"}
    )
    int_params = Schema(Type.INT32, parameters={"k": "v"}, optional=True)
    flagged = struct_schema(
        [
            (
                "f",
                Schema(
                    Type.INT32,
                    optional=True,
                    default=3,
                    parameters={"io.confluent.connect.avro.field.default": "true"},
                ),
            )
        ],
        name="Flagged",
    )
    empty = struct_schema([], name="Empty")
    clash_a = struct_schema([("a", INT32_SCHEMA)], name="ns.Clash")
    clash_b = struct_schema([("b", STRING_SCHEMA)], name="ns.Clash")
    clash = struct_schema([("x", clash_a), ("y", clash_b)], name="ns.Clashing")
    doc_a = struct_schema([("a", INT32_SCHEMA)], name="ns.Documented", parameters={RECORD_DOC: "one"})
    doc_b = struct_schema([("a", INT32_SCHEMA)], name="ns.Documented", parameters={RECORD_DOC: "two"})
    docs_differ = struct_schema([("x", doc_a), ("y", doc_b)], name="ns.DocsDiffer")
    unicode_field = struct_schema([("ünï", INT32_SCHEMA), ("日本", OPTIONAL_STRING_SCHEMA)], name="Unicode")
    optional_top = inner.with_(optional=True)
    return [
        ("struct reused", outer, Struct.of(outer, [Struct.of(inner, [1, "a"]), Struct.of(inner, [2, None]), None, []])),
        (
            "struct reused in list",
            outer,
            Struct.of(
                outer,
                [
                    Struct.of(inner, [1, None]),
                    Struct.of(inner, [2, None]),
                    Struct.of(inner, [3, "c"]),
                    [Struct.of(inner, [4, "d"])],
                ],
            ),
        ),
        (
            "struct other namespace",
            deep,
            Struct.of(deep, [Struct.of(other_ns, [Struct.of(inner, [1, None])]), Struct.of(inner, [2, "x"])]),
        ),
        (
            "unnamed structs",
            anon,
            Struct.of(
                anon,
                [
                    Struct.of(anon_inner, [1]),
                    Struct.of(anon_inner2, ["w"]),
                    None,
                    Struct.of(anon_inner, [4]),
                    [Struct.of(anon_inner2, ["z"])],
                ],
            ),
        ),
        ("unnamed struct top", anon_inner, Struct.of(anon_inner, [9])),
        ("struct without namespace", holder, Struct.of(holder, [Struct.of(no_ns, [1]), Struct.of(no_ns, [2])])),
        ("defaults all null", defaults, Struct(defaults)),
        (
            "defaults set",
            defaults,
            Struct.of(defaults, [1, 2, 3, 4, 0.5, 2.5, True, "s", b"\x01", [3], {"z": 2}, "n", "r"]),
        ),
        ("docs", docs, Struct.of(docs, [1, "b", Struct.of(inner, [1, None])])),
        ("params string", params, "s"),
        ("params optional int", int_params, 4),
        ("field default flag", flagged, Struct(flagged)),
        ("empty struct", empty, Struct(empty)),
        ("optional struct top", optional_top, Struct.of(optional_top, [1, "t"])),
        ("optional struct top null", optional_top, None),
        ("struct required field null", inner, Struct(inner)),
        ("same name, other fields", clash, Struct.of(clash, [Struct.of(clash_a, [1]), Struct.of(clash_b, ["b"])])),
        ("same name, other docs", docs_differ, Struct.of(docs_differ, [Struct.of(doc_a, [1]), Struct.of(doc_b, [2])])),
        ("unicode field names", unicode_field, Struct.of(unicode_field, [1, "x"])),
    ]


def _naming_cases() -> list[Case]:
    dashed = struct_schema(
        [
            ("a-b", INT32_SCHEMA),
            ("1col", OPTIONAL_STRING_SCHEMA),
            ("ünï", OPTIONAL_INT64_SCHEMA),
            ("ok_name", BOOLEAN_SCHEMA),
        ],
        name="my-server.public.my-table.Value",
    )
    dashed_ns = struct_schema([("id", INT32_SCHEMA)], name="my-server.public.items.Key")
    bad_record = struct_schema([("id", INT32_SCHEMA)], name="server.public.1table")
    spaced = struct_schema([("has space", INT32_SCHEMA)], name="Spaced Name")
    nested = struct_schema([("in-ner", dashed_ns.with_(optional=True)), ("x", dashed_ns)], name="a.b-c.Outer")
    map_named = SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).name("my-map.Entry").build()
    enum_dash = Schema(
        Type.STRING,
        name="my-enum.Color",
        parameters={
            "io.confluent.connect.avro.Enum": "my_enum.Color",
            "io.confluent.connect.avro.Enum.RED": "RED",
            "io.confluent.connect.avro.Enum.GREEN": "GREEN",
        },
    )
    return [
        ("dashed names", dashed, Struct.of(dashed, [1, "x", 2, True])),
        ("dashed namespace", dashed_ns, Struct.of(dashed_ns, [1])),
        ("record name with leading digit", bad_record, Struct.of(bad_record, [1])),
        ("spaced names", spaced, Struct.of(spaced, [1])),
        ("dashed nested", nested, Struct.of(nested, [None, Struct.of(dashed_ns, [2])])),
        ("dashed map name", map_named, {1: 2}),
        ("dashed enum name", enum_dash, "GREEN"),
    ]


def _enum_cases() -> list[Case]:
    def enum(name: str | None, full: str, symbols: list[str], **extra: str) -> Schema:
        params = {"io.confluent.connect.avro.Enum": full}
        params.update({f"io.confluent.connect.avro.Enum.{s}": s for s in symbols})
        params.update(extra)
        return Schema(Type.STRING, name=name, parameters=params)

    color = enum("com.example.Color", "com.example.Color", ["RED", "GREEN", "BLUE"])
    documented = enum(
        "com.example.Size",
        "com.example.Size",
        ["S", "M", "L"],
        **{"io.confluent.connect.avro.enum.doc.Size": "sizes", "io.confluent.connect.avro.enum.default.Size": "M"},
    )
    unnamed = enum(None, "Anon", ["A", "B"])
    bad_symbol = enum("e.Bad", "e.Bad", ["ok", "not ok"])
    # the symbol in the parameter's value differs from the one in its key: 7.0.16 takes values, master keys
    renamed = Schema(
        Type.STRING,
        name="e.Renamed",
        parameters={
            "io.confluent.connect.avro.Enum": "e.Renamed",
            "io.confluent.connect.avro.Enum.A": "X",
            "io.confluent.connect.avro.Enum.B": "Y",
        },
    )
    record = struct_schema(
        [
            ("c", color),
            ("c2", color),
            ("oc", color.with_(optional=True)),
            ("size", documented.with_(optional=True, default="L")),
        ],
        name="com.example.Shirt",
    )
    return [
        ("enum", color, "GREEN"),
        ("enum optional", color.with_(optional=True), "RED"),
        ("enum optional null", color.with_(optional=True), None),
        ("enum documented", documented, "S"),
        ("enum unnamed", unnamed, "B"),
        ("enum not a symbol", color, "PURPLE"),
        ("enum in record", record, Struct.of(record, ["RED", "BLUE", "GREEN", None])),
        ("enum symbol not a name", bad_symbol, "ok"),
        ("enum symbols renamed", renamed, "A"),
    ]


def _fixed_cases() -> list[Case]:
    fixed = Schema(Type.BYTES, name="fx.F4", parameters={"connect.fixed.size": "4"})
    unnamed = Schema(Type.BYTES, parameters={"connect.fixed.size": "4"})
    money = Schema(
        Type.BYTES,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters={"scale": "2", "connect.decimal.precision": "18", "connect.fixed.size": "8"},
    )
    wide = Schema(
        Type.BYTES,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters={"scale": "2", "connect.fixed.size": "8"},
    )
    record = struct_schema([("f", fixed), ("g", fixed.with_(optional=True)), ("h", fixed)], name="fx.Holder")
    return [
        ("fixed", fixed, b"\x01\x02\x03\x04"),
        ("fixed wrong size", fixed, b"\x01"),
        ("fixed unnamed", unnamed, b"\x01\x02\x03\x04"),
        ("fixed in record", record, Struct.of(record, [b"abcd", None, b"efgh"])),
        ("fixed decimal 8 bytes", money, Decimal("-92233720368547758.08")),
        ("fixed decimal 7 bytes", money, Decimal("-12345678901234.56")),
        ("fixed decimal short", money, Decimal("12.34")),
        ("fixed decimal no precision", wide, Decimal("1.00")),
    ]


def _union_cases() -> list[Case]:
    inner = struct_schema([("v", INT32_SCHEMA)], name="u.Rec", optional=True)
    union = struct_schema(
        [("int", OPTIONAL_INT32_SCHEMA), ("string", OPTIONAL_STRING_SCHEMA), ("Rec", inner)],
        name="io.confluent.connect.avro.Union",
    )
    return [
        ("connect union int", union, Struct.of(union, [5, None, None])),
        ("connect union record", union, Struct.of(union, [None, None, Struct.of(inner, [1])])),
    ]


def conform(schema: Schema, value: Any) -> Any:
    """The value with every Struct rebuilt on the schema of its place (as Java's Struct.put demands and the Java
    side's decoding of the tagged value does)."""
    if value is None:
        return None
    t = schema.type
    if t is Type.STRUCT and isinstance(value, Struct):
        return Struct.of(schema, [conform(f.schema, v) for f, v in zip(schema.fields, value.values, strict=True)])
    if t is Type.ARRAY:
        assert schema.value_schema is not None
        return [conform(schema.value_schema, v) for v in value]
    if t is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        return {conform(schema.key_schema, k): conform(schema.value_schema, v) for k, v in value.items()}
    return value


def schema_value_cases() -> list[Case]:
    return [(label, schema, conform(schema, value)) for label, schema, value in _cases()]


def _cases() -> list[Case]:
    return (
        _primitive_cases()
        + _logical_cases()
        + _debezium_cases()
        + _container_cases()
        + _struct_cases()
        + _naming_cases()
        + _enum_cases()
        + _fixed_cases()
        + _union_cases()
    )


def _j(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def avro_inputs() -> list[tuple[str, str, str]]:
    """(label, Avro schema text, datum in Avro's JSON encoding) for the reverse direction only."""
    rec = {
        "type": "record",
        "name": "Rec",
        "namespace": "com.example",
        "doc": "a record",
        "fields": [
            {"name": "i", "type": "int", "doc": "an int", "default": 3},
            {"name": "l", "type": ["null", "long"], "default": None},
            {"name": "s", "type": ["string", "null"], "default": "dflt"},
            {"name": "f", "type": "float", "default": 1.5},
            {"name": "by", "type": "bytes", "default": "\u00ff\u0000"},
            {"name": "arr", "type": {"type": "array", "items": "string"}, "default": ["a"]},
            {"name": "m", "type": {"type": "map", "values": "int"}, "default": {"k": 1}},
            {
                "name": "sub",
                "type": {"type": "record", "name": "Sub", "fields": [{"name": "x", "type": "int"}]},
                "default": {"x": 9},
            },
            {"name": "sub2", "type": "Sub"},
            {
                "name": "e",
                "type": {"type": "enum", "name": "E", "symbols": ["A", "B"], "doc": "an enum", "default": "B"},
            },
            {"name": "oe", "type": ["null", "E"], "default": None},
        ],
    }
    rec_value = {
        "i": 1,
        "l": {"long": 5},
        "s": {"string": "z"},
        "f": 2.5,
        "by": "\u0001",
        "arr": ["x", "y"],
        "m": {"a": 1},
        "sub": {"x": 1},
        "sub2": {"x": 2},
        "e": "A",
        "oe": {"com.example.E": "B"},
    }
    fixed = {"type": "fixed", "name": "F4", "namespace": "fx", "size": 4}
    fixed_dec = {"type": "fixed", "name": "Money", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 2}
    map_entry = {
        "type": "array",
        "items": {
            "type": "record",
            "name": "MapEntry",
            "namespace": "io.confluent.connect.avro",
            "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}],
        },
    }
    linked = {
        "type": "record",
        "name": "Node",
        "fields": [{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"], "default": None}],
    }
    return [
        ("record with defaults", _j(rec), _j(rec_value)),
        ("enum top", _j({"type": "enum", "name": "Suit", "symbols": ["SPADES", "HEARTS"]}), '"HEARTS"'),
        ("fixed", _j(fixed), '"\\u0001\\u0002\\u0003\\u0004"'),
        ("fixed decimal", _j(fixed_dec), '"\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0004\\u00d2"'),
        ("bytes decimal no precision", _j({"type": "bytes", "logicalType": "decimal", "scale": 3}), '"\\u00ff"'),
        (
            "bytes decimal precision 64",
            _j({"type": "bytes", "logicalType": "decimal", "precision": 64, "scale": 0}),
            '"\\u0001"',
        ),
        ("union int string", _j(["int", "string"]), '{"string":"s"}'),
        ("union null int string", _j(["null", "int", "string"]), '{"int":4}'),
        ("union null int string null", _j(["null", "int", "string"]), "null"),
        ("singleton union", _j(["int"]), '{"int":4}'),
        (
            "union of records",
            _j(
                [
                    {"type": "record", "name": "a.A", "fields": [{"name": "x", "type": "int"}]},
                    {"type": "record", "name": "b.B", "fields": [{"name": "y", "type": "string"}]},
                ]
            ),
            '{"b.B":{"y":"q"}}',
        ),
        ("map entries", _j(map_entry), '[{"key":1,"value":"one"},{"key":2,"value":"two"}]'),
        ("int8 annotated", _j({"type": "int", "connect.type": "int8"}), "-5"),
        ("int16 annotated", _j({"type": "int", "connect.type": "int16"}), "300"),
        ("bad connect.type", _j({"type": "int", "connect.type": "int128"}), "1"),
        ("timestamp-micros", _j({"type": "long", "logicalType": "timestamp-micros"}), "1"),
        ("timestamp-millis", _j({"type": "long", "logicalType": "timestamp-millis"}), "-1"),
        ("time-millis", _j({"type": "int", "logicalType": "time-millis"}), "1000"),
        ("date", _j({"type": "int", "logicalType": "date"}), "-1"),
        ("uuid", _j({"type": "string", "logicalType": "uuid"}), '"u"'),
        ("avro props", _j({"type": "string", "avro.java.string": "String", "avro.n": 3}), '"p"'),
        ("connect params not strings", _j({"type": "string", "connect.parameters": {"a": 1}}), '"p"'),
        ("connect.version not a number", _j({"type": "string", "connect.version": "x"}), '"p"'),
        (
            "decimal version mismatch",
            _j({"type": "bytes", "logicalType": "decimal", "scale": 0, "connect.version": 2}),
            '"\\u0001"',
        ),
        (
            "connect.name on record",
            _j({"type": "record", "name": "R", "connect.name": "other.Name", "fields": []}),
            "{}",
        ),
        (
            "connect default and doc",
            _j({"type": "string", "connect.doc": "d", "connect.default": "x", "connect.name": "n.S"}),
            '"p"',
        ),
        (
            "record namespace inheritance",
            _j(
                {
                    "type": "record",
                    "name": "Outer",
                    "namespace": "o",
                    "fields": [
                        {
                            "name": "a",
                            "type": {"type": "record", "name": "In", "fields": [{"name": "z", "type": "int"}]},
                        },
                        {"name": "b", "type": "In"},
                        {"name": "c", "type": "o.In"},
                    ],
                }
            ),
            '{"a":{"z":1},"b":{"z":2},"c":{"z":3}}',
        ),
        ("recursive record", _j(linked), '{"v":1,"next":{"Node":{"v":2,"next":null}}}'),
        ("null", _j("null"), "null"),
        (
            "map of records",
            _j({"type": "map", "values": {"type": "record", "name": "V", "fields": [{"name": "q", "type": "double"}]}}),
            '{"k":{"q":1.0}}',
        ),
        ("array of nullable", _j({"type": "array", "items": ["null", "string"]}), '[null,{"string":"s"}]'),
        (
            "union field with doc",
            _j({"type": "record", "name": "U", "fields": [{"name": "u", "type": ["int", "string"], "doc": "either"}]}),
            '{"u":{"int":1}}',
        ),
        (
            "optional fields with defaults",
            _j(
                {
                    "type": "record",
                    "name": "O",
                    "fields": [
                        {"name": "a", "type": ["int", "null"], "default": 7},
                        {"name": "b", "type": [{"type": "string", "connect.default": "c"}, "null"], "default": "f"},
                        {"name": "c", "type": ["null", "long"], "default": None},
                    ],
                }
            ),
            '{"a":null,"b":null,"c":null}',
        ),
        (
            "enum in union",
            _j(["null", {"type": "enum", "name": "Dir", "symbols": ["N", "S"]}, "string"]),
            '{"Dir":"S"}',
        ),
        ("fixed in union", _j(["null", {"type": "fixed", "name": "F2", "size": 2}]), '{"F2":"\\u0001\\u0002"}'),
        ("top-level optional with version", _j(["null", {"type": "long", "connect.version": 3}]), '{"long":5}'),
    ]
