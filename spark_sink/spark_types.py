"""Sink types → pyspark DataTypes, and the comparison used for schema evolution."""

from __future__ import annotations

from pyspark.sql import types as T

from spark_sink.types.model import ArrayT, DecimalT, MapT, Primitive, SinkType

_PRIMITIVES: dict[str, T.DataType] = {
    "byte": T.ByteType(),
    "short": T.ShortType(),
    "int": T.IntegerType(),
    "long": T.LongType(),
    "float": T.FloatType(),
    "double": T.DoubleType(),
    "boolean": T.BooleanType(),
    "string": T.StringType(),
    "binary": T.BinaryType(),
    "date": T.DateType(),
    "timestamp": T.TimestampType(),
    "timestamp_ntz": T.TimestampNTZType(),
}


def to_spark(t: SinkType) -> T.DataType:
    if isinstance(t, Primitive):
        return _PRIMITIVES[t.name]
    if isinstance(t, DecimalT):
        return T.DecimalType(t.precision, t.scale)
    if isinstance(t, ArrayT):
        return T.ArrayType(to_spark(t.element), True)
    if isinstance(t, MapT):
        return T.MapType(to_spark(t.key), to_spark(t.value), True)
    return T.StructType([T.StructField(n, to_spark(ft), True) for n, ft in t.fields])


def same_type(a: T.DataType, b: T.DataType) -> bool:
    """Equal up to nullability (source optionality never makes a table incompatible)."""
    if isinstance(a, T.StructType) and isinstance(b, T.StructType):
        return len(a.fields) == len(b.fields) and all(
            x.name == y.name and same_type(x.dataType, y.dataType) for x, y in zip(a.fields, b.fields, strict=True)
        )
    if isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType):
        return same_type(a.elementType, b.elementType)
    if isinstance(a, T.MapType) and isinstance(b, T.MapType):
        return same_type(a.keyType, b.keyType) and same_type(a.valueType, b.valueType)
    return bool(a == b)


def evolvable_struct(table: T.DataType, source: T.DataType) -> bool:
    """A struct column whose source gained fields (Delta's mergeSchema can add nested fields)."""
    if not (isinstance(table, T.StructType) and isinstance(source, T.StructType)):
        return False
    have = {f.name: f.dataType for f in table.fields}
    return all(f.name not in have or same_type(have[f.name], f.dataType) for f in source.fields)
