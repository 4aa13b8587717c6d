"""TimestampConverter: convert timestamps between unix numbers, strings and the Connect logical types
Date, Time and Timestamp (…transforms.TimestampConverter$Key / $Value).

Values of the logical types are Python `datetime.datetime` (UTC) for Timestamp, `datetime.date` for Date and
`datetime.time` for Time. As in Kafka, conversions go through epoch milliseconds and strings use a
SimpleDateFormat pattern in UTC.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, one_of
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import (
    DATE_NAME,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    Type,
    date_schema,
    time_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._dateformat import SimpleDateFormat
from connect_worker.transforms._util import (
    EPOCH_DATE,
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    MILLIS_PER_DAY,
    SchemaCache,
    Side,
    field_value,
    from_epoch_millis,
    new_record,
    operating_schema,
    operating_value,
    require_map_or_null,
    require_struct_or_null,
    to_epoch_millis,
    type_name,
)

_PURPOSE = "converting timestamp formats"
STRING, UNIX, DATE, TIME, TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
_PRECISION_MILLIS = {"seconds": 1000, "milliseconds": 1, "microseconds": -1000, "nanoseconds": -1_000_000}

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "field",
            ConfigType.STRING,
            "",
            importance=Importance.HIGH,
            documentation="The field holding the timestamp; empty when the whole key/value is the timestamp.",
        ),
        ConfigKey(
            "target.type",
            ConfigType.STRING,
            validator=one_of(STRING, UNIX, DATE, TIME, TIMESTAMP),
            importance=Importance.HIGH,
            documentation="The type to produce: string, unix, Date, Time or Timestamp.",
        ),
        ConfigKey(
            "format",
            ConfigType.STRING,
            "",
            importance=Importance.MEDIUM,
            documentation="java.text.SimpleDateFormat pattern, required when the input or the target is a "
            "string; evaluated in UTC.",
        ),
        ConfigKey(
            "unix.precision",
            ConfigType.STRING,
            "milliseconds",
            validator=one_of("nanoseconds", "microseconds", "milliseconds", "seconds"),
            importance=Importance.LOW,
            documentation="Unit of unix timestamps read or written: seconds, milliseconds, microseconds or "
            "nanoseconds. Precision below a millisecond is lost.",
        ),
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Convert a null field that has a default value as that default.",
        ),
    ]
)


def _truncating_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def _type_schema(kind: str, optional: bool) -> Schema:
    if kind == STRING:
        return OPTIONAL_STRING_SCHEMA if optional else STRING_SCHEMA
    if kind == UNIX:
        return OPTIONAL_INT64_SCHEMA if optional else INT64_SCHEMA
    if kind == DATE:
        return date_schema(optional=optional)
    if kind == TIME:
        return time_schema(optional=optional)
    return timestamp_schema(optional=optional)


def _kind_of_schema(schema: Schema) -> str:
    if schema.name == TIMESTAMP_NAME:
        return TIMESTAMP
    if schema.name == DATE_NAME:
        return DATE
    if schema.name == TIME_NAME:
        return TIME
    if schema.type is Type.STRING:
        return STRING
    if schema.type is Type.INT64:
        return UNIX
    raise DataError(f"Schema {schema!r} does not correspond to a known timestamp type format")


def _kind_of_value(value: Any) -> str:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return TIMESTAMP
    if isinstance(value, int) and not isinstance(value, bool):
        return UNIX
    if isinstance(value, str):
        return STRING
    raise DataError(f"TimestampConverter does not support {type_name(value)} objects as timestamps")


class TimestampConverter(Transformation):
    """Converts a timestamp field (or the whole key/value) to another timestamp representation."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._field: str = cfg["field"]
        self._target: str = cfg["target.type"]
        pattern: str = cfg["format"]
        self._format: SimpleDateFormat | None = None
        if pattern.strip():
            try:
                self._format = SimpleDateFormat(pattern)
            except ConfigError as e:
                raise ConfigError(
                    f"TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: "
                    f"{pattern} ({e})"
                ) from None
        if self._target == STRING and self._format is None:
            raise ConfigError("TimestampConverter requires format option to be specified when using string timestamps")
        self._precision = _PRECISION_MILLIS[cfg["unix.precision"]]
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, Schema] = SchemaCache()
        self._to_target: Callable[[int], Any] = {
            STRING: self._millis_to_string,
            UNIX: self._millis_to_unix,
            DATE: _millis_to_date,
            TIME: _millis_to_time,
            TIMESTAMP: from_epoch_millis,
        }[self._target]

    # -- conversions through epoch milliseconds ------------------------------------------------------
    def _fmt(self) -> SimpleDateFormat:
        if self._format is None:
            raise DataError("TimestampConverter requires format option to be specified when using string timestamps")
        return self._format

    def _millis_to_string(self, millis: int) -> str:
        return self._fmt().format(from_epoch_millis(millis))

    def _millis_to_unix(self, millis: int) -> int:
        p = self._precision
        return millis * -p if p < 0 else _truncating_div(millis, p)

    def _to_millis(self, value: Any, kind: str) -> int:
        if kind == STRING:
            if not isinstance(value, str):
                raise DataError(f"Expected string timestamp to be a String, but found {type_name(value)}")
            return to_epoch_millis(self._fmt().parse(value))
        if kind == UNIX:
            if not isinstance(value, int) or isinstance(value, bool):
                raise DataError(f"Expected Unix timestamp to be a Long, but found {type_name(value)}")
            p = self._precision
            return value * p if p > 0 else _truncating_div(value, -p)
        if isinstance(value, dt.datetime):
            return to_epoch_millis(value)
        if isinstance(value, dt.date):
            return (value - EPOCH_DATE).days * MILLIS_PER_DAY
        if isinstance(value, dt.time):
            return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
        raise DataError(f"Expected {kind} to be a datetime, date or time, but found {type_name(value)}")

    def convert(self, value: Any, kind: str | None) -> Any:
        if value is None:
            return None
        return self._to_target(self._to_millis(value, kind or _kind_of_value(value)))

    # -- record handling ---------------------------------------------------------------------------
    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = operating_schema(record, self.side)
        value = operating_value(record, self.side)
        if schema is None:
            if not self._field:
                return new_record(record, self.side, None, self.convert(value, None))
            data = require_map_or_null(value, _PURPOSE)
            if data is None:
                return new_record(record, self.side, None, None)
            updated = dict(data)
            updated[self._field] = self.convert(data.get(self._field), None)
            return new_record(record, self.side, None, updated)
        if not self._field:
            converted = self.convert(value, _kind_of_schema(schema))
            return new_record(record, self.side, _type_schema(self._target, schema.optional), converted)
        struct = require_struct_or_null(value, _PURPOSE)
        new_schema = self._cache.get(schema, self._updated_schema)
        if struct is None:
            return new_record(record, self.side, new_schema, None)
        return new_record(record, self.side, new_schema, self._convert_struct(struct, new_schema))

    def _convert_struct(self, struct: Struct, new_schema: Schema) -> Struct:
        values: list[Any] = []
        for f in struct.schema.fields:
            v = field_value(struct, f.index, self._replace_null)
            if f.name == self._field:
                v = self.convert(v, _kind_of_schema(f.schema))
            values.append(v)
        return Struct.of(new_schema, values)

    def _updated_schema(self, schema: Schema) -> Schema:
        if schema.type is not Type.STRUCT:
            raise DataError(f"Only Struct objects supported for [{_PURPOSE}], found: {schema.type.name}")
        fields = [
            (f.name, _type_schema(self._target, f.schema.optional) if f.name == self._field else f.schema)
            for f in schema.fields
        ]
        return Schema(
            Type.STRUCT,
            name=schema.name,
            version=schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            optional=schema.optional,
            fields=fields,
        )


def _millis_to_date(millis: int) -> dt.date:
    return EPOCH_DATE + dt.timedelta(days=millis // MILLIS_PER_DAY)


def _millis_to_time(millis: int) -> dt.time:
    of_day = millis % MILLIS_PER_DAY
    return (dt.datetime.min + dt.timedelta(milliseconds=of_day)).time()


class TimestampConverterKey(TimestampConverter):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "TimestampConverter$Key"
    side: ClassVar[Side] = Side.KEY


class TimestampConverterValue(TimestampConverter):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "TimestampConverter$Value"
    side: ClassVar[Side] = Side.VALUE
