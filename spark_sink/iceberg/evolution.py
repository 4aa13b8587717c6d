"""Iceberg schema evolution as `ALTER TABLE` statements, and which type changes Iceberg applies (its type
promotions: int → long, float → double, decimal(p, s) → decimal(p', s) with p' ≥ p; the Iceberg spec's "Schema
Evolution" section), also inside structs, arrays and maps."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import types as T

from spark_sink.table_format import q

RULE = "Iceberg widens only int → bigint, float → double and a decimal's precision at the same scale"


def promotion_problem(old: T.DataType, new: T.DataType) -> str | None:
    """Why Iceberg cannot change a column from `old` to `new` (None: it can, or nothing changes)."""
    if isinstance(old, T.StructType) and isinstance(new, T.StructType):
        have = {f.name: f.dataType for f in old.fields}
        for f in new.fields:
            problem = promotion_problem(have[f.name], f.dataType) if f.name in have else None
            if problem:
                return problem
        return None
    if isinstance(old, T.ArrayType) and isinstance(new, T.ArrayType):
        return promotion_problem(old.elementType, new.elementType)
    if isinstance(old, T.MapType) and isinstance(new, T.MapType):
        return promotion_problem(old.keyType, new.keyType) or promotion_problem(old.valueType, new.valueType)
    if _promotes(old, new):
        return None
    return f"{RULE}, not {old.simpleString()} → {new.simpleString()}"


def _promotes(old: T.DataType, new: T.DataType) -> bool:
    if old == new:
        return True
    if isinstance(old, T.IntegerType) and isinstance(new, T.LongType):
        return True
    if isinstance(old, T.FloatType) and isinstance(new, T.DoubleType):
        return True
    if isinstance(old, T.DecimalType) and isinstance(new, T.DecimalType):
        return old.scale == new.scale and new.precision >= old.precision
    return False


def ddl(spark: SparkSession, t: T.DataType) -> str:
    """A Spark type in SQL (`STRUCT<`a b`: INT>`), names quoted, as the JVM writes it."""
    jvm: Any = spark._jvm
    return str(jvm.org.apache.spark.sql.types.DataType.fromJson(t.json()).sql())


def statements(spark: SparkSession, table: str, schema: T.StructType, wanted: Sequence[T.StructField]) -> list[str]:
    """The ALTER TABLE statements that give `table` (now `schema`) the columns `wanted`: added columns and struct
    fields first, then the type promotions."""
    have = {f.name: f.dataType for f in schema.fields}
    adds: list[str] = []
    alters: list[tuple[str, str]] = []
    for f in wanted:
        if f.name not in have:
            adds.append(f"{q(f.name)} {ddl(spark, f.dataType)}")
            continue
        for kind, path, t in _changes(have[f.name], f.dataType, [q(f.name)]):
            if kind == "add":
                adds.append(f"{'.'.join(path)} {ddl(spark, t)}")
            else:
                alters.append((".".join(path), ddl(spark, t)))
    out = []
    if adds:
        out.append(f"ALTER TABLE {table} ADD COLUMNS ({', '.join(adds)})")
    out.extend(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE {type_sql}" for column, type_sql in alters)
    return out


def _changes(old: T.DataType, new: T.DataType, path: list[str]) -> Iterator[tuple[str, list[str], T.DataType]]:
    """("add" | "type", column path, type) for what `new` has beyond `old`."""
    if isinstance(old, T.StructType) and isinstance(new, T.StructType):
        have = {f.name: f.dataType for f in old.fields}
        for f in new.fields:
            if f.name not in have:
                yield "add", [*path, q(f.name)], f.dataType
            else:
                yield from _changes(have[f.name], f.dataType, [*path, q(f.name)])
    elif isinstance(old, T.ArrayType) and isinstance(new, T.ArrayType):
        yield from _changes(old.elementType, new.elementType, [*path, "element"])
    elif isinstance(old, T.MapType) and isinstance(new, T.MapType):
        yield from _changes(old.keyType, new.keyType, [*path, "key"])
        yield from _changes(old.valueType, new.valueType, [*path, "value"])
    elif old != new:
        yield "type", path, new
