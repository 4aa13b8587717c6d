"""Sink types ↔ pyspark DataTypes, and the comparisons used for schema evolution."""

from __future__ import annotations

from pyspark.sql import types as T

from spark_sink.types.model import ArrayT, DecimalT, MapT, Primitive, PrimitiveName, SinkType, StructT

_PRIMITIVES: dict[PrimitiveName, T.DataType] = {
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


def from_spark(t: T.DataType) -> SinkType | None:
    """The sink type a table column of type `t` holds (nullability dropped); None for types the sink never writes
    (char/varchar, intervals, variant …)."""
    for name, spark in _PRIMITIVES.items():
        if t == spark:
            return Primitive(name)
    if isinstance(t, T.DecimalType):
        return DecimalT(t.precision, t.scale)
    if isinstance(t, T.ArrayType):
        element = from_spark(t.elementType)
        return None if element is None else ArrayT(element)
    if isinstance(t, T.MapType):
        key, value = from_spark(t.keyType), from_spark(t.valueType)
        return None if key is None or value is None else MapT(key, value)
    if isinstance(t, T.StructType):
        fields = [(f.name, from_spark(f.dataType)) for f in t.fields]
        if any(ft is None for _, ft in fields):
            return None
        return StructT(tuple((n, ft) for n, ft in fields if ft is not None))
    return None


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
