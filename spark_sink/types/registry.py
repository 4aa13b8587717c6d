"""Connect schema → (sink type, value converter): a registry of small functions keyed by the schema's semantic
name (Debezium / Connect logical types), falling back to the Connect base type. Pure."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_sink.connect_schema import ConnectSchema
from spark_sink.types.model import SinkType

Converter = Callable[[Any], Any]


class ConversionError(ValueError):
    """A payload value that cannot be converted to its column's sink type (the record goes to the dead letter)."""


@dataclass(frozen=True)
class TypeOptions:
    """Knobs of the mapping. `variable_scale` is the scale given to VariableScaleDecimal (PG `numeric` without
    precision); values needing more fractional digits are rejected, never rounded."""

    variable_scale: int = 18
    default_decimal_precision: int = 38


@dataclass(frozen=True)
class TypeMapping:
    sink_type: SinkType
    convert: Converter  # JSON payload value (never None) → Python value for Spark


Rule = Callable[[ConnectSchema, "TypeRegistry"], TypeMapping]


@dataclass
class TypeRegistry:
    options: TypeOptions = field(default_factory=TypeOptions)
    by_name: dict[str, Rule] = field(default_factory=dict)
    by_type: dict[str, Rule] = field(default_factory=dict)

    def mapping_for(self, schema: ConnectSchema) -> TypeMapping:
        rule = self.by_name.get(schema.name or "") or self.by_type.get(schema.type)
        if rule is None:
            raise ConversionError(f"no type mapping for Connect type {schema.type!r} (name {schema.name!r})")
        return rule(schema, self)

    def converter_for(self, schema: ConnectSchema) -> Converter:
        """The mapping's converter, null-safe."""
        convert = self.mapping_for(schema).convert

        def nullable(value: Any) -> Any:
            return None if value is None else convert(value)

        return nullable


def param_int(params: Mapping[str, str], key: str, default: int | None = None) -> int | None:
    raw = params.get(key)
    try:
        return int(raw) if raw is not None else default
    except ValueError:
        return default
