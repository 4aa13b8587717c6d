"""The sink's own type descriptors: what a Connect schema becomes, independent of pyspark (so it is unit-testable
without a JVM). `spark_sink.spark_types` turns them into pyspark DataTypes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PrimitiveName = Literal[
    "byte",
    "short",
    "int",
    "long",
    "float",
    "double",
    "boolean",
    "string",
    "binary",
    "date",
    "timestamp",
    "timestamp_ntz",
]


@dataclass(frozen=True)
class Primitive:
    name: PrimitiveName

    def ddl(self) -> str:
        return self.name


@dataclass(frozen=True)
class DecimalT:
    precision: int
    scale: int

    def ddl(self) -> str:
        return f"decimal({self.precision},{self.scale})"


@dataclass(frozen=True)
class ArrayT:
    element: SinkType

    def ddl(self) -> str:
        return f"array<{self.element.ddl()}>"


@dataclass(frozen=True)
class MapT:
    key: SinkType
    value: SinkType

    def ddl(self) -> str:
        return f"map<{self.key.ddl()},{self.value.ddl()}>"


@dataclass(frozen=True)
class StructT:
    fields: tuple[tuple[str, SinkType], ...]

    def ddl(self) -> str:
        return "struct<" + ",".join(f"{n}:{t.ddl()}" for n, t in self.fields) + ">"


SinkType = Primitive | DecimalT | ArrayT | MapT | StructT

BYTE, SHORT, INT, LONG = Primitive("byte"), Primitive("short"), Primitive("int"), Primitive("long")
FLOAT, DOUBLE, BOOLEAN = Primitive("float"), Primitive("double"), Primitive("boolean")
STRING, BINARY = Primitive("string"), Primitive("binary")
DATE, TIMESTAMP, TIMESTAMP_NTZ = Primitive("date"), Primitive("timestamp"), Primitive("timestamp_ntz")
