"""MaskField: replace field values with a type-appropriate empty value or a replacement
(…transforms.MaskField$Key / $Value)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, invalid
from connect_worker.api.errors import DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    EPOCH,
    EPOCH_DATE,
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    Side,
    new_record,
    non_empty_list,
    operating_schema,
    operating_value,
    require_map,
    require_struct,
    type_name,
)

_PURPOSE = "mask fields"


def _replacement_check(name: str, value: Any) -> None:
    if value is not None and value == "":
        raise invalid(name, value, "String may not be empty")


_CONFIG = ConfigDef(
    [
        ConfigKey(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Names of the fields to mask.",
        ),
        ConfigKey(
            "replacement",
            ConfigType.STRING,
            None,
            validator=_replacement_check,
            importance=Importance.LOW,
            documentation="Value written instead of the masked one, converted to the field's type "
            "(numbers and strings only). By default each type's empty value is used: 0, false, '', "
            "the epoch, an empty list or map.",
        ),
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Copy a null field that has a default value as that default.",
        ),
    ]
)

_INT_RE = re.compile(r"[+-]?\d+")
_INT_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}


def _empty_for(value: Any, schema: Schema | None) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, Decimal):
        return Decimal(0)
    if isinstance(value, str):
        return ""
    if isinstance(value, dt.datetime):
        return EPOCH
    if isinstance(value, dt.date):
        return EPOCH_DATE
    if isinstance(value, dt.time):
        return dt.time(0)
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, Mapping):
        return {}
    raise DataError(f"Cannot mask value of type: {type_name(value)}")


def _parse_java_int(text: str, bits: int) -> int:
    if not _INT_RE.fullmatch(text):
        raise ValueError(text)
    n = int(text)
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        raise ValueError(text)
    return n


def _replacement_for(value: Any, schema: Schema | None, replacement: str) -> Any:
    try:
        if isinstance(value, bool):
            raise DataError(f"Cannot mask value of type {type_name(value)} with custom replacement.")
        if isinstance(value, int):
            bits = _INT_BITS.get(schema.type, 64) if schema is not None else 64
            return _parse_java_int(replacement, bits)
        if isinstance(value, float):
            return float(replacement)
        if isinstance(value, Decimal):
            return Decimal(replacement)
        if isinstance(value, str):
            return replacement
    except (ValueError, InvalidOperation):
        raise DataError(f"Unable to mask value of type {type_name(value)} with replacement {replacement}") from None
    raise DataError(f"Cannot mask value of type {type_name(value)} with custom replacement.")


class MaskField(Transformation):
    """Masks the listed fields of a Struct or map."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._fields: tuple[str, ...] = tuple(cfg["fields"])
        replacement: str | None = cfg["replacement"]
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._mask: Callable[[Any, Schema | None], Any]
        if replacement is None:
            self._mask = _empty_for
        else:
            self._mask = lambda v, s: _replacement_for(v, s, replacement)

    def _masked(self, value: Any, schema: Schema | None) -> Any:
        return None if value is None else self._mask(value, schema)

    def apply(self, record: SourceRecord) -> SourceRecord:
        value = operating_value(record, self.side)
        if value is None:
            return record
        schema = operating_schema(record, self.side)
        if schema is None:
            updated = dict(require_map(value, _PURPOSE))
            for name in self._fields:
                updated[name] = self._masked(updated.get(name), None)
            return new_record(record, self.side, None, updated)
        struct = require_struct(value, _PURPOSE)
        values = list(struct.values)
        for name in self._fields:
            f = struct.schema.field(name)
            if f is None:
                raise DataError(f"{name} is not a valid field name")
            v = values[f.index]
            if v is None and self._replace_null and f.schema.has_default:
                v = f.schema.default
            values[f.index] = self._masked(v, f.schema)
        return new_record(record, self.side, schema, Struct.of(struct.schema, values))


class MaskFieldKey(MaskField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "MaskField$Key"
    side: ClassVar[Side] = Side.KEY


class MaskFieldValue(MaskField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "MaskField$Value"
    side: ClassVar[Side] = Side.VALUE
