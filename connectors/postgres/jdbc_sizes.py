"""A column's length and scale as Debezium's PostgreSQL connector knows them (its `Column.length()`/`scale()`).

Debezium takes them from the PostgreSQL JDBC driver, and they decide what `column.propagate.source.type` and
`datatype.propagate.source.type` report (`__debezium.source.column.length/scale`), whether
`column.truncate.to.N.chars` applies and how long a `column.mask.hash…` digest may be. They differ by path:

* tables read from the catalog (start, snapshot): pgjdbc's `DatabaseMetaData.getColumns`, i.e. `COLUMN_SIZE` =
  TypeInfoCache.getPrecision (its display size where that is 0, but for numeric), `DECIMAL_DIGITS` = getScale
  (none for a numeric without modifier); a domain column asks Debezium's PostgresType chain instead;
* tables described by a pgoutput Relation message (streaming): with a modifier, getPrecision/getScale of the
  column's type; without, PostgresType.getDefaultLength/Scale (precision, else display size; a domain without a
  modifier of its own asks its base type).

Pure functions over type oids and modifiers; the catalog supplies the domain chain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from connect_worker.api.javacompat import java_int

UNKNOWN_LENGTH: Final = 2**31 - 1  # pgjdbc's unknownLength default, Integer.MAX_VALUE

INT2, INT4, OID, INT8 = 21, 23, 26, 20
FLOAT4, FLOAT8, NUMERIC = 700, 701, 1700
CHAR, BOOL, BPCHAR, VARCHAR = 18, 16, 1042, 1043
DATE, TIME, TIMETZ, TIMESTAMP, TIMESTAMPTZ, INTERVAL = 1082, 1083, 1266, 1114, 1184, 1186
BIT, VARBIT = 1560, 1562


def precision(oid: int, typmod: int) -> int:
    """TypeInfoCache.getPrecision (`oid` already the element's for an array)."""
    if oid == INT2:
        return 5
    if oid in (OID, INT4):
        return 10
    if oid == INT8:
        return 19
    if oid == FLOAT4:
        return 8
    if oid == FLOAT8:
        return 17
    if oid == NUMERIC:
        return 0 if typmod == -1 else ((typmod - 4) & 0xFFFF0000) >> 16
    if oid in (CHAR, BOOL):
        return 1
    if oid in (BPCHAR, VARCHAR):
        return UNKNOWN_LENGTH if typmod == -1 else typmod - 4
    if oid in (DATE, TIME, TIMETZ, INTERVAL, TIMESTAMP, TIMESTAMPTZ):
        return display_size(oid, typmod)
    if oid == BIT:
        return typmod
    if oid == VARBIT:
        return UNKNOWN_LENGTH if typmod == -1 else typmod
    return UNKNOWN_LENGTH


def scale(oid: int, typmod: int) -> int:
    """TypeInfoCache.getScale."""
    if oid == FLOAT4:
        return 8
    if oid == FLOAT8:
        return 17
    if oid == NUMERIC:
        return 0 if typmod == -1 else (typmod - 4) & 0xFFFF
    if oid in (TIME, TIMETZ, TIMESTAMP, TIMESTAMPTZ):
        return 6 if typmod == -1 else typmod
    if oid == INTERVAL:
        return 6 if typmod == -1 else typmod & 0xFFFF
    return 0


_FIXED_DISPLAY_SIZES: Final = {
    INT2: 6, INT4: 11, OID: 10, INT8: 20, FLOAT4: 15, FLOAT8: 25, CHAR: 1, BOOL: 1, DATE: 13, INTERVAL: 49
}  # fmt: skip


def display_size(oid: int, typmod: int) -> int:
    """TypeInfoCache.getDisplaySize."""
    fixed = _FIXED_DISPLAY_SIZES.get(oid)
    if fixed is not None:
        return fixed
    if oid in (TIME, TIMETZ, TIMESTAMP, TIMESTAMPTZ):
        second = {-1: 7, 0: 0, 1: 3}.get(typmod, typmod + 1)
        return {TIME: 8, TIMETZ: 14, TIMESTAMP: 22, TIMESTAMPTZ: 28}[oid] + second
    if oid in (VARCHAR, BPCHAR):
        return UNKNOWN_LENGTH if typmod == -1 else typmod - 4
    if oid == NUMERIC:
        if typmod == -1:
            return 131089
        p, s = ((typmod - 4) >> 16) & 0xFFFF, (typmod - 4) & 0xFFFF
        return 1 + p + (1 if s != 0 else 0)
    if oid == BIT:
        return typmod
    if oid == VARBIT:
        return UNKNOWN_LENGTH if typmod == -1 else typmod
    return UNKNOWN_LENGTH


# A type as PostgresType sees it: (oid, typtypmod) from the column's own type up its domain chain to the base
# type, arrays already replaced by their element types.
Chain = Sequence[tuple[int, int]]


def default_length(chain: Chain) -> int:
    """PostgresType.getDefaultLength of chain[0]."""
    oid, modifiers = chain[0]
    if len(chain) > 1:
        if modifiers == -1:
            return default_length(chain[1:])
        parent = chain[1][0]
        size = precision(parent, modifiers) or display_size(parent, modifiers)
        if size not in (0, UNKNOWN_LENGTH):
            return java_int(size)
    return java_int(precision(oid, modifiers) or display_size(oid, modifiers))


def default_scale(chain: Chain) -> int:
    """PostgresType.getDefaultScale of chain[0]."""
    oid, modifiers = chain[0]
    if len(chain) > 1:
        if modifiers == -1:
            return default_scale(chain[1:])
        return scale(chain[1][0], modifiers)
    return scale(oid, modifiers)


def catalog_length_scale(chain: Chain, typmod: int, *, array: bool = False) -> tuple[int, int | None]:
    """(COLUMN_SIZE, DECIMAL_DIGITS or None) of a column read from the catalog (getColumns; domains by their
    PostgresType, as Debezium's PostgresConnection overrides them). `array`: the column is an array of chain[0]
    (its JDBC type is ARRAY, not NUMERIC, whatever the element)."""
    oid = chain[0][0]
    if len(chain) > 1:  # a domain
        return default_length(chain), default_scale(chain)
    numeric = oid == NUMERIC and not array
    size = precision(oid, typmod)
    if size == 0 and not numeric:
        size = display_size(oid, typmod)
    return java_int(size), (None if numeric and typmod == -1 else scale(oid, typmod))


_TYPE_TEXT: Final = re.compile(r"^(?:[^.(]+\.)?[^(\[]+(?:\((?P<mod>.+)\))?.*?(?:\[\])?$")


def text_modifiers(type_text: str) -> list[str]:
    """The modifiers of a type's text (`numeric(12,3)` → ["12", "3"]), as TypeMetadataImpl.parseModifiers."""
    m = _TYPE_TEXT.match(type_text)
    return [] if m is None or m.group("mod") is None else re.split(r"\s*,\s*", m.group("mod"))


def _parse_java_int(text: str) -> int | None:
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit() or not -(2**31) <= int(text) < 2**31:
        return None
    return int(text)


def typeinfo_length_scale(chain: Chain, type_text: str) -> tuple[int, int]:
    """(length, scale) of a column decoderbufs describes by its type text (TypeMetadataImpl): the type's defaults,
    the first modifier as the length (through getPrecision/getScale for temporal types), the second as the scale."""
    oid = chain[0][0]
    size, digits = default_length(chain), default_scale(chain)
    mods = text_modifiers(type_text)
    first = _parse_java_int(mods[0]) if mods else None
    if first is not None and oid in (TIMESTAMP, TIMESTAMPTZ, TIME, TIMETZ, INTERVAL):
        size, digits = java_int(precision(oid, first)), scale(oid, first)
    elif first is not None:
        size = first
    second = _parse_java_int(mods[1]) if len(mods) > 1 else None
    return size, (digits if second is None else second)


def relation_length_scale(chain: Chain, typmod: int) -> tuple[int, int]:
    """(length, scale) of a column described by a pgoutput Relation message (pgoutput's ColumnMetaData)."""
    if typmod != -1:
        oid = chain[0][0]
        return java_int(precision(oid, typmod)), scale(oid, typmod)
    return default_length(chain), default_scale(chain)
