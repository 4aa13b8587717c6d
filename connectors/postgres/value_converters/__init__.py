"""The PostgreSQL type registry: which Connect schema a column gets and how its text values convert.

`converter_for(column, options)` resolves a column once (per table schema, not per event) to a
`ColumnConverter`: the field schema exactly as Debezium 3.6's PostgresConnector declares it (type, name,
version, parameters, optional, default) and `from_text`, the precompiled parser of the PostgreSQL *text*
output of one non-NULL value — what pgoutput sends and what `COPY … TO STDOUT` / `::text` yield — into the
Connect value. Both text routes produce identical values, so snapshot and stream agree.

The registry is one dict per type family (numeric, temporal, interval, text, binary, network, hstore,
geometric), merged here; arrays, enums and domains are resolved around it and defaults applied last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from connect_worker.api.schema import Schema
from connectors.postgres.value_converters import (
    binary,
    geometric,
    hstore,
    interval,
    network,
    numeric,
    temporal,
    text,
)
from connectors.postgres.value_converters._base import (
    Factory,
    Mapping,
    TextParser,
    TypeOptions,
    TypeSpec,
    ValueConversionError,
)
from connectors.postgres.value_converters.arrays import UNSUPPORTED_ELEMENTS, array_mapping
from connectors.postgres.value_converters.defaults import default_value
from connectors.postgres.value_converters.enums import enum_mapping, is_enum
from connectors.relational.table import Column, ColumnType

__all__ = [
    "BUILTIN_TYPES",
    "EXTENSION_TYPES",
    "ColumnConverter",
    "TypeOptions",
    "ValueConversionError",
    "converter_for",
    "mapping_for",
]

BUILTIN_TYPES: Final[dict[str, Factory]] = {
    **numeric.BUILTIN,
    **temporal.BUILTIN,
    **interval.BUILTIN,
    **text.BUILTIN,
    **binary.BUILTIN,
    **network.BUILTIN,
    **geometric.BUILTIN,
}
"""pg_catalog types by pg_type.typname."""

EXTENSION_TYPES: Final[dict[str, Factory]] = {
    **text.EXTENSION,
    **hstore.EXTENSION,
    **geometric.EXTENSION,
}
"""Extension types (any schema) by pg_type.typname."""


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnConverter:
    """A column's field schema and the converter of its non-NULL text values."""

    schema: Schema
    from_text: TextParser
    from_snapshot_text: TextParser | None = None
    """The parser of values read by the snapshot when it differs from the streamed one (else None)."""
    rebind: Callable[[Schema], ColumnConverter] | None = None
    """For struct values (which carry their exact schema): the converter whose values fit another variant of the
    schema, e.g. one a column mapper added parameters to."""


class _Omit:
    """Marker: Debezium leaves the column unmapped even with include.unknown.datatypes."""


_OMIT: Final = _Omit()


def _scalar(spec: TypeSpec, options: TypeOptions) -> Mapping | None:
    column_type = spec.type
    if is_enum(column_type):
        return enum_mapping(spec)
    factory: Factory | None = None
    if column_type.schema == "pg_catalog":
        factory = BUILTIN_TYPES.get(column_type.name)
    if factory is None:
        factory = EXTENSION_TYPES.get(column_type.name)
    return factory(spec, options) if factory is not None else None


def _is_array(column_type: ColumnType) -> bool:
    return column_type.element is not None and (column_type.category == "A" or column_type.name.startswith("_"))


def _resolve(spec: TypeSpec, options: TypeOptions) -> Mapping | _Omit | None:
    column_type = spec.type
    if not _is_array(column_type):
        return _scalar(spec, options)
    element = column_type.element
    assert element is not None
    if element.base is not None or _is_array(element):
        return _OMIT  # arrays of domains: no element converter in Debezium
    if element.schema == "pg_catalog" and element.name in UNSUPPORTED_ELEMENTS:
        return _OMIT
    element_spec = TypeSpec(element, spec.length, spec.scale)
    if is_enum(element):
        return array_mapping(enum_mapping(element_spec), optional_elements=False)
    mapping = _scalar(element_spec, options)
    return array_mapping(mapping) if mapping is not None else _OMIT


def mapping_for(
    column_type: ColumnType, options: TypeOptions, *, length: int | None = None, scale: int | None = None
) -> Mapping | None:
    """The mapping of a type (domains resolved), or None when Debezium has none (no unknown-type fallback)."""
    resolved = _resolve(TypeSpec(column_type.resolved, length, scale), options)
    return resolved if isinstance(resolved, Mapping) else None


def converter_for(column: Column, options: TypeOptions) -> ColumnConverter | None:
    """The column's converter, or None when the column is omitted (an unsupported type)."""
    resolved = _resolve(TypeSpec(column.type.resolved, column.length, column.scale), options)
    if isinstance(resolved, _Omit):
        return None
    if resolved is None:
        if not options.include_unknown_datatypes:
            return None
        resolved = binary.unknown_mapping(options)
    default: Any = default_value(column, resolved)
    mapping = resolved

    def bound(schema: Schema) -> ColumnConverter:
        parser = mapping.parser_for(schema)
        specials = _specials_null(parser) if mapping.snapshot_specials_null else None
        return ColumnConverter(schema, parser, specials, bound if mapping.rebind is not None else None)

    return bound(resolved.schema.with_(optional=column.optional, default=default))


_SPECIAL_NUMERICS: Final = frozenset({"NaN", "Infinity", "-Infinity"})


def _specials_null(parser: TextParser) -> TextParser:
    def parse(text: str) -> Any:
        return None if text in _SPECIAL_NUMERICS else parser(text)

    return parse
