"""Schemaless JSON (JsonConverter schemas.enable=false): infer sink types from payload values. Integers → long,
other numbers → double, objects → structs, arrays → arrays of the merged element type; values of conflicting types
widen (long+double → double) or fall back to their JSON text. Lossy by nature (a Decimal arrives as base64 text,
a date as an int): configure schemas.enable=true on the worker for type fidelity. Pure."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from spark_sink.types.model import BOOLEAN, DOUBLE, LONG, STRING, ArrayT, Primitive, SinkType, StructT


def infer(value: Any) -> SinkType | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return LONG
    if isinstance(value, float | Decimal):
        return DOUBLE
    if isinstance(value, str):
        return STRING
    if isinstance(value, list):
        element: SinkType | None = None
        for v in value:
            element = merge(element, infer(v))
        return ArrayT(element or STRING)
    if isinstance(value, dict):
        return StructT(tuple((str(k), infer(v) or STRING) for k, v in value.items()))
    return STRING


def merge(a: SinkType | None, b: SinkType | None) -> SinkType | None:
    if a is None or a == b:
        return b
    if b is None:
        return a
    if {a, b} == {LONG, DOUBLE}:
        return DOUBLE
    if isinstance(a, ArrayT) and isinstance(b, ArrayT):
        return ArrayT(merge(a.element, b.element) or STRING)
    if isinstance(a, StructT) and isinstance(b, StructT):
        names = list(dict.fromkeys([n for n, _ in a.fields] + [n for n, _ in b.fields]))
        da, db = dict(a.fields), dict(b.fields)
        return StructT(tuple((n, merge(da.get(n), db.get(n)) or STRING) for n in names))
    return STRING


def coerce(value: Any, sink: SinkType) -> Any:
    """A JSON value shaped to an inferred sink type (structs as tuples in field order)."""
    if value is None:
        return None
    if sink == STRING:
        return value if isinstance(value, str) else json.dumps(value, default=str)
    if sink == DOUBLE:
        return float(value)
    if isinstance(sink, ArrayT):
        return [coerce(v, sink.element) for v in value] if isinstance(value, list) else None
    if isinstance(sink, StructT):
        if not isinstance(value, dict):
            return None
        return tuple(coerce(value.get(n), t) for n, t in sink.fields)
    if isinstance(sink, Primitive):
        return value
    return value
