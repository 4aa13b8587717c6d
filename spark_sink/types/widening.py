"""Which type changes of a column the sink follows by widening its Delta table (Delta's type widening). Pure.

The rule is Delta 4.4's own list of changes that schema evolution applies to a table with the type widening feature
(`TypeWidening.isTypeChangeSupportedForSchemaEvolution` in delta-spark 4.4; docs.delta.io "Delta type widening"):
byte → short → int → long, float → double, decimal(p, s) → decimal(p + k, s + j) with k ≥ j ≥ 0 (the scale and the
integer digits never shrink), date → timestamp_ntz, and the same for the elements of arrays and maps and the fields
of structs. Delta also supports byte/short/int → double and integers → decimal, but only by an explicit ALTER TABLE
(never during schema evolution, to avoid promoting integers by accident); the sink does not apply those.

A column's values of two types fit the wider one when one type widens to the other: the table widens when the
source's type is the wider, and events of the narrower type (events older than the source's ALTER, replayed or read
late from another partition, or a source narrowing) are written as the table's type. Anything else (int ↔ string,
a decimal losing scale or integer digits, timestamp ↔ timestamp_ntz) has no lossless common type and is refused.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from spark_sink.types.model import (
    BYTE,
    DATE,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    SHORT,
    TIMESTAMP_NTZ,
    ArrayT,
    DecimalT,
    MapT,
    SinkType,
    StructT,
)

_INTEGRAL: tuple[SinkType, ...] = (BYTE, SHORT, INT, LONG)


def widens(old: SinkType, new: SinkType) -> bool:
    """`new` holds every value of `old` exactly, and Delta widens a column of type `old` to `new` (equal included)."""
    if old == new:
        return True
    if old in _INTEGRAL and new in _INTEGRAL:
        return _INTEGRAL.index(old) < _INTEGRAL.index(new)
    if (old, new) in ((FLOAT, DOUBLE), (DATE, TIMESTAMP_NTZ)):
        return True
    if isinstance(old, DecimalT) and isinstance(new, DecimalT):
        return new.scale >= old.scale and new.precision - new.scale >= old.precision - old.scale
    if isinstance(old, ArrayT) and isinstance(new, ArrayT):
        return widens(old.element, new.element)
    if isinstance(old, MapT) and isinstance(new, MapT):
        return widens(old.key, new.key) and widens(old.value, new.value)
    if isinstance(old, StructT) and isinstance(new, StructT):
        return _same_names(old, new) and all(
            widens(a, b) for (_, a), (_, b) in zip(old.fields, new.fields, strict=True)
        )
    return False


def common(a: SinkType, b: SinkType) -> SinkType | None:
    """The type that holds the values of both: the wider one when one widens to the other; for containers element
    by element (struct<x:int,y:long> and struct<x:long,y:int> → struct<x:long,y:long>). None: no such type."""
    if widens(a, b):
        return b
    if widens(b, a):
        return a
    if isinstance(a, ArrayT) and isinstance(b, ArrayT):
        element = common(a.element, b.element)
        return None if element is None else ArrayT(element)
    if isinstance(a, MapT) and isinstance(b, MapT):
        key, value = common(a.key, b.key), common(a.value, b.value)
        return None if key is None or value is None else MapT(key, value)
    if isinstance(a, StructT) and isinstance(b, StructT) and _same_names(a, b):
        fields = [(n, common(x, y)) for (n, x), (_, y) in zip(a.fields, b.fields, strict=True)]
        if any(t is None for _, t in fields):
            return None
        return StructT(tuple((n, t) for n, t in fields if t is not None))
    return None


def converts_values(old: SinkType, new: SinkType) -> bool:
    """Whether a value decoded as `old` must change to be written as `new` (a date becomes a timestamp); the other
    widenings keep the Python value (an int stays an int, a Decimal with fewer digits fits the wider decimal)."""
    if (old, new) == (DATE, TIMESTAMP_NTZ):
        return True
    if isinstance(old, ArrayT) and isinstance(new, ArrayT):
        return converts_values(old.element, new.element)
    if isinstance(old, MapT) and isinstance(new, MapT):
        return converts_values(old.key, new.key) or converts_values(old.value, new.value)
    if isinstance(old, StructT) and isinstance(new, StructT) and _same_names(old, new):
        return any(converts_values(a, b) for (_, a), (_, b) in zip(old.fields, new.fields, strict=True))
    return False


def widen_value(value: Any, old: SinkType, new: SinkType) -> Any:
    """A value decoded as `old` in the form of `new` (`widens(old, new)`): dates become midnight timestamps, containers
    are converted element by element, everything else is returned as it is."""
    if value is None or not converts_values(old, new):
        return value
    if old == DATE:
        return dt.datetime.combine(value, dt.time())
    if isinstance(old, ArrayT) and isinstance(new, ArrayT):
        return [widen_value(v, old.element, new.element) for v in value]
    if isinstance(old, MapT) and isinstance(new, MapT):
        return {widen_value(k, old.key, new.key): widen_value(v, old.value, new.value) for k, v in value.items()}
    if isinstance(old, StructT) and isinstance(new, StructT):
        return tuple(widen_value(v, a, b) for v, (_, a), (_, b) in zip(value, old.fields, new.fields, strict=True))
    return value


def _same_names(a: StructT, b: StructT) -> bool:
    return [n for n, _ in a.fields] == [n for n, _ in b.fields]
