"""The JsonConverter cases run through both the real Java JsonConverter and the Python one."""

from __future__ import annotations

import datetime as dt
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

CONFIGS: list[dict[str, str]] = [
    {},
    {"schemas.enable": "false"},
    {"decimal.format": "NUMERIC"},
    {"replace.null.with.default": "false"},
    {"schemas.enable": "false", "decimal.format": "numeric", "replace.null.with.default": "false"},
]

DOUBLES = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    1.1,
    100.0,
    1e7,
    9999999.0,
    1e10,
    1e-7,
    0.001,
    0.0009999999999999998,
    1e-3 * 1.5,
    123456.789,
    0.1 + 0.2,
    2.0**53,
    1.7976931348623157e308,
    2.2250738585072014e-308,
    5e-324,
    1e21,
    1e22,
    1e23,
    3.141592653589793,
    -2.5e-5,
    math.nan,
    math.inf,
    -math.inf,
]
FLOATS = [
    0.0,
    -0.0,
    1.1,
    1e10,
    1e-7,
    100.0,
    0.001,
    3.4028234663852886e38,
    1.401298464324817e-45,
    16777216.0,
    0.1,
    1.0e7,
    123.456,
    -7.25e-12,
    math.nan,
    math.inf,
]
STRINGS = [
    "",
    "plain",
    'quo"te',
    "back\\slash",
    "slash/",
    "\x00\x01\x1f",
    "\b\t\n\f\r",
    "\x7f",
    "é ü ß",
    "\u2028\u2029",
    "😀",
    "a😀b𝄞c",
    "\ufffe\uffff",
    "日本語",
    "\u0080\u07ff\u0800",
]


def _dbz_envelope_schema() -> Schema:
    """Spec Appendix A.1: the Debezium 3.6.3 PostgreSQL value schema."""
    value = struct_schema(
        [
            ("id", INT32_SCHEMA),
            ("email", OPTIONAL_STRING_SCHEMA),
            ("balance", decimal_schema(2, optional=True, precision=10)),
            ("created", Schema(Type.INT32, optional=True, name="io.debezium.time.Date", version=1)),
            ("ts", Schema(Type.STRING, optional=True, name="io.debezium.time.ZonedTimestamp", version=1)),
            ("tags", SchemaBuilder.array(OPTIONAL_STRING_SCHEMA).optional().build()),
            ("payload", Schema(Type.STRING, optional=True, name="io.debezium.data.Json", version=1)),
            (
                "amount",
                struct_schema(
                    [("scale", INT32_SCHEMA), ("value", BYTES_SCHEMA)],
                    optional=True,
                    name="io.debezium.data.VariableScaleDecimal",
                    version=1,
                    doc="Variable scaled decimal",
                ),
            ),
        ],
        optional=True,
        name="dbserver1.public.customers.Value",
    )
    source = struct_schema(
        [
            ("version", STRING_SCHEMA),
            ("connector", STRING_SCHEMA),
            ("name", STRING_SCHEMA),
            ("ts_ms", INT64_SCHEMA),
            (
                "snapshot",
                Schema(
                    Type.STRING,
                    optional=True,
                    name="io.debezium.data.Enum",
                    version=1,
                    parameters={
                        "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
                    },
                    default="false",
                ),
            ),
            ("db", STRING_SCHEMA),
            ("sequence", OPTIONAL_STRING_SCHEMA),
            ("ts_us", OPTIONAL_INT64_SCHEMA),
            ("ts_ns", OPTIONAL_INT64_SCHEMA),
            ("schema", STRING_SCHEMA),
            ("table", STRING_SCHEMA),
            ("txId", OPTIONAL_INT64_SCHEMA),
            ("lsn", OPTIONAL_INT64_SCHEMA),
            ("xmin", OPTIONAL_INT64_SCHEMA),
            ("origin", OPTIONAL_STRING_SCHEMA),
            ("origin_lsn", OPTIONAL_INT64_SCHEMA),
        ],
        name="io.debezium.connector.postgresql.Source",
        version=1,
    )
    block = struct_schema(
        [("id", STRING_SCHEMA), ("total_order", INT64_SCHEMA), ("data_collection_order", INT64_SCHEMA)],
        optional=True,
        name="event.block",
        version=1,
    )
    return struct_schema(
        [
            ("before", value),
            ("after", value),
            ("source", source),
            ("transaction", block),
            ("op", STRING_SCHEMA),
            ("ts_ms", OPTIONAL_INT64_SCHEMA),
            ("ts_us", OPTIONAL_INT64_SCHEMA),
            ("ts_ns", OPTIONAL_INT64_SCHEMA),
        ],
        name="dbserver1.public.customers.Envelope",
        version=2,
    )


def dbz_record() -> tuple[Schema, Struct]:
    env = _dbz_envelope_schema()
    value_schema = env.fields[1].schema
    amount_schema = value_schema.fields[7].schema
    after = Struct.of(
        value_schema,
        [
            2,
            'a"b@x.org',
            Decimal("12.34"),
            19724,
            "2024-01-02T03:04:05.123456Z",
            ["a", None, "b"],
            '{"k": 1}',
            Struct.of(amount_schema, [5, b"\x04\xcb\x2f"]),
        ],
    )
    source = Struct.of(
        env.fields[2].schema,
        [
            "3.6.3.Final",
            "postgresql",
            "dbserver1",
            1795303593299,
            None,
            "postgres",
            '[null,"22182096"]',
            1795303593299669,
            1795303593299669000,
            "public",
            "customers",
            728,
            22182096,
            None,
            None,
            None,
        ],
    )
    return env, Struct.of(env, [None, after, source, None, "r", 1795303593300, None, None])


def schema_value_cases() -> list[tuple[str, Schema | None, Any]]:
    """(label, schema, Python value) cases for fromConnectData."""
    cases: list[tuple[str, Schema | None, Any]] = []
    primitives: list[tuple[Schema, list[Any]]] = [
        (INT8_SCHEMA, [0, -128, 127]),
        (INT16_SCHEMA, [-32768, 32767]),
        (INT32_SCHEMA, [-(2**31), 2**31 - 1, 42]),
        (INT64_SCHEMA, [-(2**63), 2**63 - 1, 1795303593299669000]),
        (BOOLEAN_SCHEMA, [True, False]),
        (BYTES_SCHEMA, [b"", b"\x01\x02\x03", bytes(range(256)), b"\xff\xfe"]),
    ]
    for t, vals in primitives:
        cases += [(f"{t.type.value}:{v!r}", t, v) for v in vals]
    cases += [(f"double:{v!r}", FLOAT64_SCHEMA, v) for v in DOUBLES]
    cases += [(f"float:{v!r}", FLOAT32_SCHEMA, v) for v in FLOATS]
    cases += [(f"string:{v!r}", STRING_SCHEMA, v) for v in STRINGS]
    # nulls, defaults, tombstones
    opt_def = SchemaBuilder(Type.STRING).optional().default("dflt").build()
    req_def = SchemaBuilder(Type.INT32).default(7).build()
    cases += [
        ("tombstone", None, None),
        ("optional null", OPTIONAL_STRING_SCHEMA, None),
        ("required null", STRING_SCHEMA, None),
        ("optional null with default", opt_def, None),
        ("required null with default", req_def, None),
        ("value with default", opt_def, "given"),
    ]
    dec2 = decimal_schema(2, optional=True, precision=10)
    for d in ["-12.34", "12.34", "0.00", "1.00", "-0.01", "99999999999999999999999999999999.99", "-5.50"]:
        cases.append((f"decimal:{d}", dec2, Decimal(d)))
    cases.append(("decimal scale mismatch", dec2, Decimal("1.5")))
    # Python's True == 1: a bool is no int to Kafka, nor an int a bool (tagged as Boolean and Long for Java)
    flags = SchemaBuilder.struct().name("flags").field("n", INT32_SCHEMA).field("b", BOOLEAN_SCHEMA).build()
    cases += [
        ("int32 given a bool", INT32_SCHEMA, True),
        ("boolean given an int", BOOLEAN_SCHEMA, 1),
        ("int array given a bool", SchemaBuilder.array(INT64_SCHEMA).build(), [1, False]),
        ("struct int field given a bool", flags, Struct.of(flags, [True, True])),
        ("struct bool field given an int", flags, Struct.of(flags, [1, 0])),
    ]
    for d in ["1E+3", "0.0000001", "123.4500", "-1E-10"]:
        exp = Decimal(d).as_tuple().exponent
        assert isinstance(exp, int)
        cases.append((f"decimal exact:{d}", decimal_schema(-exp), Decimal(d)))
    cases += [
        ("date 0", date_schema(), dt.date(1970, 1, 1)),
        ("date 19000", date_schema(), dt.date(2022, 1, 8)),
        ("date -1", date_schema(), dt.date(1969, 12, 31)),
        ("time", time_schema(), dt.time(1, 2, 3, 4000)),
        ("time max", time_schema(), dt.time(23, 59, 59, 999000)),
        ("timestamp", timestamp_schema(), dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)),
        ("timestamp neg", timestamp_schema(), dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC)),
        (
            "date default",
            SchemaBuilder(Type.INT32)
            .name("org.apache.kafka.connect.data.Date")
            .version(1)
            .optional()
            .default(dt.date(2000, 1, 1))
            .build(),
            None,
        ),
        (
            "decimal default",
            SchemaBuilder(Type.BYTES)
            .name("org.apache.kafka.connect.data.Decimal")
            .version(1)
            .parameter("scale", "1")
            .default(Decimal("-2.5"))
            .build(),
            None,
        ),
    ]
    # containers
    arr = SchemaBuilder.array(OPTIONAL_INT32_SCHEMA).build()
    nested = SchemaBuilder.array(SchemaBuilder.array(STRING_SCHEMA).build()).build()
    mstr = SchemaBuilder.map(STRING_SCHEMA, OPTIONAL_INT64_SCHEMA).build()
    mint = SchemaBuilder.map(INT32_SCHEMA, STRING_SCHEMA).build()
    point = struct_schema([("x", FLOAT64_SCHEMA), ("y", FLOAT64_SCHEMA)], name="Point")
    mstruct = SchemaBuilder.map(STRING_SCHEMA, point).optional().build()
    mkeys = SchemaBuilder.map(point, BOOLEAN_SCHEMA).build()
    cases += [
        ("array", arr, [1, None, -3]),
        ("array empty", arr, []),
        ("array nested", nested, [["a"], [], ["b", "c😀"]]),
        ("map str", mstr, {"zeta": 1, "alpha": None, "k😀": 3, "": 4}),
        ("map int", mint, {7: "seven", -1: "minus"}),
        ("map struct values", mstruct, {"p": Struct.of(point, [1.5, -0.0])}),
        ("map struct keys", mkeys, {Struct.of(point, [1.0, 2.0]): True}),
    ]
    # structs
    inner = struct_schema([("id", INT32_SCHEMA)], name="dbserver1.public.customers.Key")
    defaults = struct_schema(
        [
            ("i", SchemaBuilder(Type.INT32).optional().default(5).build()),
            ("s", SchemaBuilder(Type.STRING).optional().default("x").build()),
            ("b", SchemaBuilder(Type.BOOLEAN).optional().default(False).build()),
            ("f", SchemaBuilder(Type.FLOAT64).optional().default(1.0e10).build()),
            ("y", SchemaBuilder(Type.BYTES).optional().default(b"\x00").build()),
            ("a", SchemaBuilder.array(INT32_SCHEMA).optional().default([1, 2]).build()),
            ("m", SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).optional().default({"k": 1}).build()),
            ("n", SchemaBuilder(Type.STRING).optional().build()),
        ],
        name="defaults",
        doc='doc with "quotes" and 😀',
        parameters={"p2": "v2", "p1": "v\n1"},
    )
    cases += [
        ("debezium key", inner, Struct.of(inner, [2])),
        ("defaults all null", defaults, Struct(defaults)),
        ("defaults set", defaults, Struct.of(defaults, [1, "s", True, 2.5, b"\x01", [3], {"z": 2}, "n"])),
        ("struct required null field", inner, Struct(inner)),
        ("empty struct", struct_schema([]), Struct(struct_schema([]))),
        ("debezium envelope", *dbz_record()),
    ]
    # schemaless values
    cases += [
        ("schemaless int", None, 12),
        ("schemaless float", None, 1.0e-7),
        ("schemaless str", None, "s😀"),
        ("schemaless bool", None, True),
        ("schemaless bytes", None, b"\x01"),
        ("schemaless list", None, [1, "a", None, [True]]),
        ("schemaless map", None, {"b": 1, "a": {"c": [1.5]}, "n": None}),
        ("schemaless offsets key", None, ["inventory", {"server": "dbserver1"}]),
        ("schemaless map int keys", None, {1: "a", 2: "b"}),
    ]
    return cases


def to_inputs() -> list[tuple[str, dict[str, str], bytes | None]]:
    """Extra (label, config, bytes) cases for toConnectData beyond the round trips."""
    env = b'{"schema":%s,"payload":%s}'
    s_int = b'{"type":"int32","optional":false}'
    s_opt = b'{"type":"int32","optional":true}'
    s_dec = (
        b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
        b'"parameters":{"scale":"2"}}'
    )
    s_struct = (
        b'{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"},'
        b'{"type":"string","optional":true,"default":"d","field":"b"},'
        b'{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},'
        b'"optional":true,"field":"m"}],"optional":false,"name":"S"}'
    )
    many = b"{" + b",".join(b'"key%d":%d' % (i, i) for i in range(20)) + b"}"
    on: dict[str, str] = {}
    off = {"schemas.enable": "false"}
    return [
        ("null bytes", on, None),
        ("empty", on, b""),
        ("empty schemaless", off, b""),
        ("whitespace schemaless", off, b"  \n"),
        ("not json", on, b"{nope"),
        ("not json schemaless", off, b"[1,"),
        ("trailing garbage", off, b'{"a":1} xyz'),
        ("no envelope", on, b'{"a":1}'),
        ("extra field", on, b'{"schema":null,"payload":1,"x":2}'),
        ("schemaless numbers", off, b"[1,-0,1.50,1e2,-0.0,9223372036854775808,12345678901234567890123]"),
        ("schemaless many keys", off, many),
        ("schemaless nested", off, b'{"z":{"y":[{"x":null}]},"a":"\\ud83d\\ude00\\u0000"}'),
        ("int from float", on, env % (s_int, b"3.99")),
        ("int from string", on, env % (s_int, b'"12"')),
        ("int wraps", on, env % (s_int, b"4294967297")),
        ("int null required", on, env % (s_int, b"null")),
        ("int null optional", on, env % (s_opt, b"null")),
        ("decimal numeric input", on, env % (s_dec, b"1.50")),
        ("decimal base64", on, env % (s_dec, b'"+y4="')),
        ("decimal bad base64", on, env % (s_dec, b'"!!"')),
        ("decimal bool", on, env % (s_dec, b"true")),
        ("struct missing and extra", on, env % (s_struct, b'{"a":1,"zz":3}')),
        ("struct not object", on, env % (s_struct, b"[1]")),
        ("struct map order", on, env % (s_struct, b'{"a":1,"b":null,"m":' + many + b"}")),
        ("schema without type", on, env % (b'{"optional":true}', b"1")),
        ("schema unknown type", on, env % (b'{"type":"int128"}', b"1")),
        ("array as object", on, env % (b'{"type":"array","items":{"type":"int64"}}', b'{"a":1,"b":2}')),
        (
            "map pairs",
            on,
            env % (b'{"type":"map","keys":{"type":"int8"},"values":{"type":"boolean"}}', b"[[1,true],[2,false]]"),
        ),
        ("map bad pair", on, env % (b'{"type":"map","keys":{"type":"int8"},"values":{"type":"boolean"}}', b"[[1]]")),
        ("string from number", on, env % (b'{"type":"string","optional":true}', b"5")),
        ("float32 rounding", on, env % (b'{"type":"float"}', b"1.1")),
        ("double -0.0", on, env % (b'{"type":"double"}', b"-0.0")),
        ("timestamp", on, env % (b'{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"}', b"-1")),
        ("date not int", on, env % (b'{"type":"int32","name":"org.apache.kafka.connect.data.Date"}', b"1.5")),
        ("bytes invalid", on, env % (b'{"type":"bytes"}', b'"a$"')),
        ("schema content", {"schema.content": s_int.decode()}, b"17"),
    ]
