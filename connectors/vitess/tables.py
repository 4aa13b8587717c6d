"""Tables as VStream's FIELD events describe them (spec vitess.md §1.5, §3.3): pure.

A FIELD event carries a table's columns (name, query.Type, the MySQL column type text, decimals, flags);
it replaces what was known of that table, so schema changes take effect at the next FIELD event (there is
no schema history). The key is the primary key (PRI_KEY flags) or, without one, the first unique-key column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from connect_worker.api.errors import RetriableError
from connectors.relational.table import Column, ColumnType, Table, TableId

NOT_NULL_FLAG: Final = 1
PRI_KEY_FLAG: Final = 2
UNIQUE_KEY_FLAG: Final = 4


class IllegalColumnNameError(RetriableError):
    """A column named ``@…`` (vstreamer's anonymous names after some DDL): transient, retried after back-off."""


def table_id(qualified: str, keyspace: str) -> TableId:
    """``keyspace.table`` (VStream's table_name) as a TableId; a bare name belongs to `keyspace`."""
    ks, dot, name = qualified.partition(".")
    return TableId(ks, name) if dot else TableId(keyspace, qualified)


def table_from_fields(tid: TableId, fields: Any) -> Table:
    """The table of a FIELD event's ``fields`` (query.Field messages)."""
    columns: list[Column] = []
    primary: list[str] = []
    unique: list[str] = []
    for position, f in enumerate(fields, start=1):
        name = f.name
        if name.startswith("@"):
            raise IllegalColumnNameError(
                f"Illegal prefix '@' for column: {name}, from schema: {tid.schema}, table: {tid.table}"
            )
        columns.append(
            Column(
                name,
                position,
                ColumnType(int(f.type), f.column_type or "", "V"),
                length=int(f.column_length) or None,
                scale=int(f.decimals),
                optional=not f.flags & NOT_NULL_FLAG,
            )
        )
        if f.flags & PRI_KEY_FLAG:
            primary.append(name)
        elif f.flags & UNIQUE_KEY_FLAG:
            unique.append(name)
    key = tuple(primary) if primary else tuple(unique[:1])
    return Table(tid, tuple(columns), primary_key=key)


def row_values(row: Any, binary: Sequence[bool]) -> tuple[str | None, ...]:
    """A query.Row's values: `lengths[i]` bytes each out of `values` (-1: NULL). Binary columns keep their bytes
    (as latin-1 text); the others are UTF-8 text, invalid bytes becoming U+FFFD as Java's String gives."""
    data: bytes = row.values
    out: list[str | None] = []
    pos = 0
    for n, is_binary in zip(row.lengths, binary, strict=True):
        if n < 0:
            out.append(None)
            continue
        chunk = data[pos : pos + n]
        pos += n
        out.append(chunk.decode("latin-1") if is_binary else chunk.decode("utf-8", "replace"))
    return tuple(out)
