"""Cast: change the type of fields or of the whole key/value (…transforms.Cast$Key / $Value).

Numbers narrow the way Java's Number.xxxValue() does (integers wrap, doubles saturate at int/long first),
booleans become 1/0, strings are parsed strictly; casting to string writes Java's text (Double.toString,
"true", ISO-8601 for Date/Time/Timestamp values, base64 for bytes).
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, Type
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
    non_empty_list,
    operating_schema,
    operating_value,
    require_map,
    require_struct,
    to_epoch_millis,
    type_name,
)
from connect_worker.transforms._values import java_double_to_string, java_float_to_string, to_float32

_PURPOSE = "cast types"
_WHOLE = ""
_OUTPUT_TYPES = frozenset(
    {Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64, Type.BOOLEAN, Type.STRING}
)
_INPUT_TYPES = _OUTPUT_TYPES | {Type.BYTES}
_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_LOGICAL = frozenset({DATE_NAME, TIME_NAME, TIMESTAMP_NAME, DECIMAL_NAME})
_INT_TEXT = re.compile(r"[+-]?\d+")
_TIME_FORMAT = SimpleDateFormat("HH:mm:ss.SSS'Z'")
_DATE_FORMAT = SimpleDateFormat("yyyy-MM-dd")
_TIMESTAMP_FORMAT = SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "spec",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Either field:type pairs (e.g. foo:int32,bar:string) or one type for the whole "
            "key/value. Types: int8, int16, int32, int64, float32, float64, boolean, string.",
        ),
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Cast a null field that has a default value as that default.",
        ),
    ]
)


def _type_named(text: str) -> Type:
    try:
        return Type[text.strip().upper()]
    except KeyError:
        raise ConfigError(f"Invalid type found in casting spec: {text.strip()}") from None


def _output_type(t: Type) -> Type:
    if t not in _OUTPUT_TYPES:
        raise ConfigError(f"Cast transformation does not support casting to/from {t.name}")
    return t


def parse_spec(spec: list[str]) -> dict[str, Type]:
    casts: dict[str, Type] = {}
    whole = False
    for mapping in spec:
        parts = mapping.split(":")
        if len(parts) > 2:
            raise ConfigError(f"Invalid value {','.join(spec)} for configuration spec: Invalid cast mapping: {mapping}")
        if len(parts) == 1:
            casts[_WHOLE] = _output_type(_type_named(parts[0]))
            whole = True
        else:
            casts[parts[0].strip()] = _output_type(_type_named(parts[1]))
    if whole and len(spec) > 1:
        raise ConfigError(
            "Cast transformations that specify a type to cast the entire value to may only specify a single "
            "cast in their spec"
        )
    return casts


def _infer_type(value: Any) -> Type:
    if isinstance(value, bool):
        return Type.BOOLEAN
    if isinstance(value, int):
        return Type.INT64
    if isinstance(value, float):
        return Type.FLOAT64
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, bytes | bytearray):
        return Type.BYTES
    if isinstance(value, Decimal | dt.date | dt.time):
        return Type.BYTES if isinstance(value, Decimal) else Type.INT64
    if isinstance(value, list | tuple):
        return Type.ARRAY
    if isinstance(value, Mapping):
        return Type.MAP
    if isinstance(value, Struct):
        return Type.STRUCT
    raise DataError(
        f"Cast transformation was passed a value of type {type_name(value)} which is not supported by "
        "Connect's data API"
    )


def _wrap(n: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return ((n + half) % (1 << bits)) - half


def _encode_logical(schema: Schema, value: Any) -> Any:
    """Date/Time/Timestamp values as their int encoding (days, ms of day, epoch ms)."""
    if schema.name == TIMESTAMP_NAME and isinstance(value, dt.datetime):
        return to_epoch_millis(value)
    if schema.name == DATE_NAME and isinstance(value, dt.date):
        d = value.date() if isinstance(value, dt.datetime) else value
        return (d - EPOCH_DATE).days
    if schema.name == TIME_NAME and isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return value


def _to_integer(value: Any, t: Type) -> int:
    bits = _BITS[t]
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int):
        return _wrap(value, bits)
    if isinstance(value, float):
        if math.isnan(value):
            return 0
        limit = 32 if bits <= 32 else 64
        lo, hi = -(1 << (limit - 1)), (1 << (limit - 1)) - 1
        n = hi if value >= hi else lo if value <= lo else int(value)
        return _wrap(n, bits)
    if isinstance(value, Decimal):
        return _wrap(_wrap(int(value), 32 if bits <= 32 else 64), bits)
    if isinstance(value, str):
        if _INT_TEXT.fullmatch(value):
            n = int(value)
            if -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
                return n
        raise DataError(f'For input string: "{value}" (cannot cast to {t.name})')
    raise DataError(f"Unexpected type in Cast transformation: {type_name(value)}")


def _parse_java_float(text: str) -> float:
    s = text.strip()
    if s.endswith(("f", "F", "d", "D")):
        s = s[:-1]
    if s in ("NaN", "+NaN", "-NaN"):
        return math.nan
    if s.lstrip("+-") == "Infinity":
        return -math.inf if s.startswith("-") else math.inf
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s):
        raise DataError(f'For input string: "{text}"')
    return float(s)


def _to_float(value: Any, t: Type) -> float:
    if isinstance(value, bool):
        f = 1.0 if value else 0.0
    elif isinstance(value, int | float | Decimal):
        f = float(value)
    elif isinstance(value, str):
        f = _parse_java_float(value)
    else:
        raise DataError(f"Unexpected type in Cast transformation: {type_name(value)}")
    return to_float32(f) if t is Type.FLOAT32 else f


def _to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | Decimal):
        return _to_integer(value, Type.INT64) != 0
    if isinstance(value, str):
        return value.lower() == "true"
    raise DataError(f"Unexpected type in Cast transformation: {type_name(value)}")


def _to_string(value: Any, schema: Schema | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if schema is not None and schema.type is Type.FLOAT32:
            return java_float_to_string(value)
        return java_double_to_string(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return _date_text(value)
    return str(value)


def _date_text(value: dt.datetime | dt.date | dt.time) -> str:
    """Values.dateFormatFor: a time of day, a date, or a timestamp, chosen by the millisecond value."""
    if isinstance(value, dt.datetime):
        instant = value
    elif isinstance(value, dt.date):
        instant = dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    else:
        instant = dt.datetime.combine(EPOCH_DATE, value, tzinfo=dt.UTC)
    millis = to_epoch_millis(instant)
    if 0 <= millis < MILLIS_PER_DAY:
        fmt = _TIME_FORMAT
    elif millis % MILLIS_PER_DAY == 0:
        fmt = _DATE_FORMAT
    else:
        fmt = _TIMESTAMP_FORMAT
    return fmt.format(from_epoch_millis(millis))


def cast_value(schema: Schema | None, value: Any, target: Type) -> Any:
    if value is None:
        return None
    source = schema.type if schema is not None else _infer_type(value)
    if source not in _INPUT_TYPES:
        raise DataError(f"Cast transformation does not support casting to/from {source.name}")
    if schema is not None and schema.name is not None and target is not Type.STRING:
        value = _encode_logical(schema, value)
    if target in _BITS:
        return _to_integer(value, target)
    if target in (Type.FLOAT32, Type.FLOAT64):
        return _to_float(value, target)
    if target is Type.BOOLEAN:
        return _to_boolean(value)
    return _to_string(value, schema)


def _target_schema(source: Schema, target: Type, *, keep_basics: bool) -> Schema:
    attrs: dict[str, Any] = {"optional": source.optional}
    if keep_basics and source.name not in _LOGICAL:
        attrs.update(name=source.name, version=source.version, doc=source.doc, parameters=source.parameters)
    if source.has_default and source.default is not None:
        attrs["default"] = cast_value(source, source.default, target)
    return Schema(target, **attrs)


class Cast(Transformation):
    """Casts listed fields (or the whole key/value) to primitive types."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._casts = parse_spec(cfg["spec"])
        self._whole = self._casts.get(_WHOLE)
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, Schema] = SchemaCache()

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = operating_schema(record, self.side)
        value = operating_value(record, self.side)
        if schema is None:
            if self._whole is not None:
                return new_record(record, self.side, None, cast_value(None, value, self._whole))
            data = dict(require_map(value, _PURPOSE))
            for name, target in self._casts.items():
                data[name] = cast_value(None, data.get(name), target)
            return new_record(record, self.side, None, data)
        new_schema = self._cache.get(schema, self._updated_schema)
        if self._whole is not None:
            return new_record(record, self.side, new_schema, cast_value(schema, value, self._whole))
        if value is None:
            return new_record(record, self.side, new_schema, None)
        struct = require_struct(value, _PURPOSE)
        values: list[Any] = []
        for f in struct.schema.fields:
            v = field_value(struct, f.index, self._replace_null)
            cast_to = self._casts.get(f.name)
            values.append(v if cast_to is None else cast_value(f.schema, v, cast_to))
        return new_record(record, self.side, new_schema, Struct.of(new_schema, values))

    def _updated_schema(self, schema: Schema) -> Schema:
        if self._whole is not None:
            if schema.type not in _INPUT_TYPES:
                raise DataError(f"Cast transformation does not support casting to/from {schema.type.name}")
            return _target_schema(schema, self._whole, keep_basics=True)
        if schema.type is not Type.STRUCT:
            raise DataError(f"Only Struct objects supported for [{_PURPOSE}], found: {schema.type.name}")
        fields: list[tuple[str, Schema]] = []
        for f in schema.fields:
            field_target = self._casts.get(f.name)
            if field_target is None:
                fields.append((f.name, f.schema))
                continue
            if f.schema.type not in _INPUT_TYPES:
                raise DataError(f"Cast transformation does not support casting to/from {f.schema.type.name}")
            fields.append((f.name, _target_schema(f.schema, field_target, keep_basics=False)))
        return Schema(
            Type.STRUCT,
            name=schema.name,
            version=schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            optional=schema.optional,
            fields=fields,
        )


class CastKey(Cast):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "Cast$Key"
    side: ClassVar[Side] = Side.KEY


class CastValue(Cast):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "Cast$Value"
    side: ClassVar[Side] = Side.VALUE
