"""Connect schema → sink type mapping (registry of small functions, one module per type family)."""

from spark_sink.types import decimals, primitives, temporal
from spark_sink.types.model import ArrayT, DecimalT, MapT, Primitive, SinkType, StructT
from spark_sink.types.registry import ConversionError, TypeMapping, TypeOptions, TypeRegistry


def default_registry(options: TypeOptions | None = None) -> TypeRegistry:
    """Every family's mappings, merged: Connect types by primitives, logical names by decimals and temporal."""
    return TypeRegistry(
        options or TypeOptions(),
        by_name={**decimals.BY_NAME, **temporal.BY_NAME},
        by_type=dict(primitives.BY_TYPE),
    )


__all__ = [
    "ArrayT",
    "ConversionError",
    "DecimalT",
    "MapT",
    "Primitive",
    "SinkType",
    "StructT",
    "TypeMapping",
    "TypeOptions",
    "TypeRegistry",
    "default_registry",
]
