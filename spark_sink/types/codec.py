"""Sink types as JSON-able values and back, so the executors that decode records can tell the driver which row
schemas they saw (a schema travels once per task, as text). Pure."""

from __future__ import annotations

from typing import Any

from spark_sink.types.model import ArrayT, DecimalT, MapT, Primitive, SinkType, StructT


def encode(t: SinkType) -> Any:
    if isinstance(t, Primitive):
        return t.name
    if isinstance(t, DecimalT):
        return ["decimal", t.precision, t.scale]
    if isinstance(t, ArrayT):
        return ["array", encode(t.element)]
    if isinstance(t, MapT):
        return ["map", encode(t.key), encode(t.value)]
    return ["struct", [[n, encode(f)] for n, f in t.fields]]


def decode(obj: Any) -> SinkType:
    if isinstance(obj, str):
        return Primitive(obj)  # type: ignore[arg-type]
    kind = obj[0]
    if kind == "decimal":
        return DecimalT(int(obj[1]), int(obj[2]))
    if kind == "array":
        return ArrayT(decode(obj[1]))
    if kind == "map":
        return MapT(decode(obj[1]), decode(obj[2]))
    if kind == "struct":
        return StructT(tuple((str(n), decode(f)) for n, f in obj[1]))
    raise ValueError(f"not an encoded sink type: {obj!r}")
