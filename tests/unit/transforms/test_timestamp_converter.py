from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.schema import (
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    date_schema,
    struct_schema,
    time_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue

from ._helpers import make, rec

TS = dt.datetime(2024, 3, 5, 14, 7, 9, 45_000, tzinfo=dt.UTC)
MILLIS = 1709647629045


def conv(**props: str) -> Any:
    return make(TimestampConverterValue, {k.replace("_", "."): v for k, v in props.items()})


@pytest.mark.parametrize(
    ("props", "schema", "value", "out_schema", "expected"),
    [
        ({"target_type": "Timestamp"}, INT64_SCHEMA, MILLIS, timestamp_schema(), TS),
        ({"target_type": "unix"}, timestamp_schema(), TS, INT64_SCHEMA, MILLIS),
        ({"target_type": "unix", "unix_precision": "seconds"}, timestamp_schema(), TS, INT64_SCHEMA, 1709647629),
        (
            {"target_type": "unix", "unix_precision": "microseconds"},
            timestamp_schema(),
            TS,
            INT64_SCHEMA,
            MILLIS * 1000,
        ),
        (
            {"target_type": "Timestamp", "unix_precision": "nanoseconds"},
            INT64_SCHEMA,
            MILLIS * 10**6 + 999,
            timestamp_schema(),
            TS,
        ),
        (
            {"target_type": "string", "format": "yyyy-MM-dd HH:mm:ss.SSS"},
            timestamp_schema(),
            TS,
            STRING_SCHEMA,
            "2024-03-05 14:07:09.045",
        ),
        (
            {"target_type": "Timestamp", "format": "yyyy-MM-dd HH:mm:ss.SSS"},
            STRING_SCHEMA,
            "2024-03-05 14:07:09.045",
            timestamp_schema(),
            TS,
        ),
        ({"target_type": "Date"}, timestamp_schema(), TS, date_schema(), dt.date(2024, 3, 5)),
        ({"target_type": "Time"}, timestamp_schema(), TS, time_schema(), dt.time(14, 7, 9, 45_000)),
        ({"target_type": "unix"}, date_schema(), dt.date(1970, 1, 2), INT64_SCHEMA, 86_400_000),
        ({"target_type": "unix"}, OPTIONAL_INT64_SCHEMA, None, OPTIONAL_INT64_SCHEMA, None),
    ],
)
def test_whole_value(
    props: dict[str, str], schema: object, value: object, out_schema: object, expected: object
) -> None:
    out = conv(**props).apply(rec(value, schema))  # type: ignore[arg-type]
    assert out.value_schema == out_schema
    assert out.value == expected


def test_field_with_schema_and_cache() -> None:
    s = struct_schema([("id", INT64_SCHEMA), ("at", OPTIONAL_INT64_SCHEMA)], name="row")
    t = conv(field="at", target_type="string", format="yyyy-MM-dd")
    out = t.apply(rec(Struct(s, {"id": 1, "at": MILLIS}), s))
    assert out.value_schema.field("at").schema.type.name == "STRING"
    assert out.value_schema.field("at").schema.optional
    assert out.value_schema.name == "row"
    assert out.value.values == (1, "2024-03-05")
    again = t.apply(rec(Struct(s, {"id": 2, "at": None}), s))
    assert again.value_schema is out.value_schema and again.value.values == (2, None)


def test_schemaless_infers_input() -> None:
    t = conv(field="at", target_type="unix")
    assert t.apply(rec({"at": TS, "x": 1})).value == {"at": MILLIS, "x": 1}
    k = make(TimestampConverterKey, {"target.type": "string", "format": "yyyyMMdd"})
    assert k.apply(rec(None, key=0)).key == "19700101"
    with pytest.raises(DataError, match="does not support"):
        conv(target_type="unix").apply(rec(1.5))


def test_config_errors() -> None:
    with pytest.raises(ConfigError, match="requires format option"):
        conv(target_type="string")
    with pytest.raises(ConfigError, match=r"target.type"):
        conv(target_type="epoch")
    with pytest.raises(ConfigError, match="SimpleDateFormat-compatible"):
        conv(target_type="string", format="yyyy-qq")
    with pytest.raises(DataError, match="Could not parse timestamp"):
        conv(target_type="unix", format="yyyy").apply(rec("abc", STRING_SCHEMA))
    with pytest.raises(DataError, match="does not correspond to a known timestamp type"):
        conv(target_type="unix").apply(rec(True, struct_schema([])))
