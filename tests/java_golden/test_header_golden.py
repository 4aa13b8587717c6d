"""SimpleHeaderConverter against the real org.apache.kafka.connect.storage.SimpleHeaderConverter."""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    date_schema,
    decimal_schema,
    struct_schema,
    time_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from converters.json import JsonConverter
from converters.simple_header import SimpleHeaderConverter
from tests.java_golden.conftest import RunJava
from tests.java_golden.tags import to_tag

pytestmark = pytest.mark.java

_W = JsonConverter()
_W.configure({}, False)
_POINT = struct_schema([("id", INT32_SCHEMA), ("name", STRING_SCHEMA)], name="P")

FROM_CASES: list[tuple[Schema | None, Any]] = [
    (STRING_SCHEMA, 'plain 😀 "q"'),
    (INT32_SCHEMA, -5),
    (INT64_SCHEMA, 1795303593299669),
    (FLOAT64_SCHEMA, 1e10),
    (FLOAT64_SCHEMA, 0.1),
    (FLOAT32_SCHEMA, 1.1),
    (BOOLEAN_SCHEMA, True),
    (BYTES_SCHEMA, b"\x01\x02\x03"),
    (decimal_schema(2), Decimal("-12.34")),
    (decimal_schema(0), Decimal("1E+3")),
    (SchemaBuilder.array(STRING_SCHEMA).build(), ["a", 'b"c', "d\\e"]),
    (SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"x": 1, "y": 2}),
    (_POINT, Struct.of(_POINT, [2, 'a"b'])),
    (timestamp_schema(), dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)),
    (timestamp_schema(), dt.datetime(2023, 11, 14, tzinfo=dt.UTC)),
    (date_schema(), dt.date(2024, 1, 2)),
    (time_schema(), dt.time(3, 4, 5, 6000)),
    (None, None),
]

TO_INPUTS = [
    "",
    "hello",
    "true",
    "false",
    "null",
    "1",
    "-128",
    "300",
    "70000",
    "5000000000",
    "1.5",
    "1.0",
    "0.5",
    "1e400",
    "9223372036854775808",
    "2023-11-14T22:13:20.123Z",
    "2024-01-02",
    "03:04:05.006Z",
    "[1,2,3]",
    '{"a":1,"b":2}',
    '["x","y"]',
    "some text, with: delimiters",
    "-0.0",
    "1E+3",
]


def _schema_text(schema: Schema | None) -> str | None:
    return None if schema is None else _W.as_json_schema(schema)


def test_header_from_connect_matches_java(run_java: RunJava) -> None:
    cases = [
        {"op": "hfrom", "schema": None if s is None else json.loads(_W.as_json_schema(s)), "value": to_tag(s, v)}
        for s, v in FROM_CASES
    ]
    answers = run_java("JsonConverterGolden.java", cases)
    conv = SimpleHeaderConverter()
    conv.configure({})
    for (schema, value), java in zip(FROM_CASES, answers, strict=True):
        out = conv.from_connect_header("t", "h", schema, value)
        assert {"bytes": None if out is None else base64.b64encode(out).decode()} == java, (schema, value)


def test_header_to_connect_matches_java(run_java: RunJava) -> None:
    cases: list[dict[str, Any]] = [{"op": "hto", "data": base64.b64encode(t.encode()).decode()} for t in TO_INPUTS]
    cases.append({"op": "hto", "data": None})
    answers = run_java("JsonConverterGolden.java", cases)
    conv = SimpleHeaderConverter()
    conv.configure({})
    bad = []
    for text, java in zip([*TO_INPUTS, None], answers, strict=True):
        sv = conv.to_connect_header("t", "h", None if text is None else text.encode())
        py = {"schema": _schema_text(sv.schema), "value": to_tag(sv.schema, sv.value)}
        java.pop("javaNull", None)  # Java answers null itself; the Python API answers SchemaAndValue(None, None)
        if py != java:
            bad.append((text, java, py))
    assert not bad, "\n".join(map(str, bad))
