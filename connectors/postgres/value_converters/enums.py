"""User enums and domains (postgresql.md §6.1, §6.5).

An enum is io.debezium.data.Enum, a string whose schema lists the labels in sort order in `allowed`. A
domain column is mapped as its base type, resolved through the whole domain chain (ColumnType.resolved);
the catalog reader gives it the domain's length/scale when the domain sits directly on a built-in type.
"""

from __future__ import annotations

from connect_worker.api.schema import Schema, Type
from connectors.postgres.value_converters._base import Mapping, TypeSpec
from connectors.postgres.value_converters.text import identity
from connectors.relational.table import ColumnType

ENUM_NAME = "io.debezium.data.Enum"


def is_enum(column_type: ColumnType) -> bool:
    return column_type.enum_labels is not None or column_type.category == "E"


def enum_schema(labels: tuple[str, ...]) -> Schema:
    return Schema(Type.STRING, name=ENUM_NAME, version=1, parameters={"allowed": ",".join(labels)})


def enum_mapping(spec: TypeSpec) -> Mapping:
    return Mapping(enum_schema(spec.type.enum_labels or ()), identity)


def resolve_domain(column_type: ColumnType) -> ColumnType:
    """The type values really have: the end of the domain chain, or the type itself."""
    return column_type.resolved
