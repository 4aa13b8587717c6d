"""Connect schema → sink type mapping (registry of small functions, one module per type family)."""

from spark_sink.types.model import ArrayT, DecimalT, MapT, Primitive, SinkType, StructT
from spark_sink.types.registry import ConversionError, TypeMapping, TypeOptions, TypeRegistry, default_registry

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
