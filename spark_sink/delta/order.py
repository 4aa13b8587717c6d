"""The source-position order of spark_sink/position.py in Spark SQL: the MERGE guards, the delete ledger and
truncates all compare positions through `newer`, so the rule (including "order inside the transaction unknown",
seq = -1) lives in one place."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.position import UNKNOWN_ORDER, SourcePosition

EPOCH, POS, SEQ = "_cdc_epoch", "_cdc_pos", "_cdc_seq"
COLUMNS = (EPOCH, POS, SEQ)
STRUCT = T.StructType(  # a position as one value: the carried-TOAST map, the ledger's aggregates
    [
        T.StructField("epoch", T.LongType(), False),
        T.StructField("major", T.LongType(), False),
        T.StructField("seq", T.LongType(), False),
    ]
)

Sql = tuple[str, str, str]


def columns(alias: str = "") -> Sql:
    """The position columns of a row, `alias.` prefixed."""
    prefix = f"{alias}." if alias else ""
    return (f"{prefix}{EPOCH}", f"{prefix}{POS}", f"{prefix}{SEQ}")


def fields(struct: str) -> Sql:
    """The parts of a position struct column (STRUCT)."""
    return (f"{struct}.epoch", f"{struct}.major", f"{struct}.seq")


def literal(pos: SourcePosition) -> Sql:
    return (str(pos.epoch), str(pos.major), str(pos.seq))


def as_struct(pos: Sql) -> str:
    e, p, s = pos
    return f"named_struct('epoch', {e}, 'major', {p}, 'seq', {s})"


def newer(a: Sql, b: Sql) -> str:
    """SQL: position `a` is newer than `b` (SourcePosition.newer_than)."""
    (ae, ap, aq), (be, bp, bq) = a, b
    same_place = f"({aq} > {bq} OR {aq} = {UNKNOWN_ORDER})"
    return f"({ae} > {be} OR ({ae} = {be} AND ({ap} > {bp} OR ({ap} = {bp} AND {same_place}))))"


def strictly_after(pos: SourcePosition, columns: Sequence[str] = COLUMNS) -> Column:
    """Column: the row's position (its `columns`) is strictly after `pos`, in plain tuple order (truncates and
    watermarks: the -1 rule of `newer` does not apply to them)."""
    e, p, s = (F.col(c) for c in columns)
    return (e > pos.epoch) | ((e == pos.epoch) & ((p > pos.major) | ((p == pos.major) & (s > pos.seq))))


def at(pos: SourcePosition, columns: Sequence[str] = COLUMNS) -> Column:
    """Column: the row's position is `pos`."""
    e, p, s = (F.col(c) for c in columns)
    return (e == pos.epoch) & (p == pos.major) & (s == pos.seq)


def struct_of(columns: Sequence[str] = COLUMNS, extra: Sequence[str] = ()) -> Column:
    """Column: the row's position as a STRUCT value (epoch, major, seq), followed by the `extra` columns (ordered
    by position first: what max/min of it pick)."""
    position = [F.col(c).alias(f.name) for c, f in zip(columns, STRUCT.fields, strict=True)]
    return F.struct(*position, *[F.col(c) for c in extra])


def not_before(pos: SourcePosition, columns: Sequence[str] = COLUMNS) -> Column:
    """Column: the row's position can be `newer` than `pos` (its epoch and major are not below `pos`'s: the one
    condition `newer` implies that the table formats' column statistics can skip files by)."""
    e, p, _ = (F.col(c) for c in columns)
    return (e > pos.epoch) | ((e == pos.epoch) & (p >= pos.major))


def row_older_than(pos: SourcePosition, alias: str = "") -> str:
    """SQL: the row (its position columns, maybe NULL) is older than `pos` (a truncate's)."""
    row = columns(alias)
    return f"({row[1]} IS NULL OR {newer(literal(pos), row)})"
