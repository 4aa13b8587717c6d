"""The relational model every connector shares: table ids, columns, tables (Debezium's Table/Column).

Immutable values. A connector's catalog reader builds them; the schema builder turns them into Connect
schemas and precompiled row converters once per table (not per event).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class TableId:
    """`schema.table` (catalog-less, as Debezium's PostgreSQL connector names tables)."""

    schema: str
    table: str

    def __str__(self) -> str:
        return f"{self.schema}.{self.table}"

    @classmethod
    def parse(cls, text: str) -> TableId:
        """`schema.table`; each part may be double-quoted to contain dots (`"public"."My.Table"`)."""
        parts = _split_quoted(text)
        if len(parts) != 2:
            raise ValueError(f"expected schema.table, got {text!r}")
        return cls(parts[0], parts[1])


def _split_quoted(text: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            if quoted and i + 1 < len(text) and text[i + 1] == '"':
                cur.append('"')
                i += 2
                continue
            quoted = not quoted
        elif c == "." and not quoted:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnType:
    """A column's data type as the source database describes it.

    For PostgreSQL: `oid` and `name` from pg_type (`int4`, `numeric`, `_int4` for int4[], a user enum's
    name); `category` is pg_type.typcategory (`A` array, `E` enum, `N` numeric, `S` string, `D` date/time,
    `U` user-defined, …); `element` is the element type of an array; `base` the resolved base type of a
    domain (after walking the whole domain chain); `enum_labels` the labels of an enum in sort order;
    `schema` the type's namespace (`pg_catalog`, `public`, …).
    """

    oid: int
    name: str
    category: str = "U"
    schema: str = "pg_catalog"
    element: ColumnType | None = None
    base: ColumnType | None = None
    enum_labels: tuple[str, ...] | None = None

    @property
    def resolved(self) -> ColumnType:
        """The type values are really of: the domain's base type, else itself."""
        return self.base if self.base is not None else self


@dataclasses.dataclass(frozen=True, slots=True)
class Column:
    """One column. `position` is 1-based in table order. `length`/`scale` follow JDBC's meaning as Debezium
    reports them: varchar(n) → length n; numeric(p,s) → length p, scale s; bit(n) → length n;
    time(p)/timestamp(p) → scale p (fractional digits); absent → None. `typmod` is the raw type modifier
    (-1 when none). `default_expression` is the column default's SQL text (pg_get_expr), or None."""

    name: str
    position: int
    type: ColumnType
    typmod: int = -1
    length: int | None = None
    scale: int | None = None
    optional: bool = True
    default_expression: str | None = None
    generated: bool = False
    comment: str | None = None
    #: Debezium's Column.length()/scale() where the connector's driver reports them otherwise than `length`/`scale`
    #: (PostgreSQL: pgjdbc's sizes, see postgres/jdbc_sizes.py); what column propagation, truncation and hash
    #: lengths use. None: the same as `length`/`scale`.
    reported_length: int | None = None
    reported_scale: int | None = None
    #: the type name Debezium's Column.typeName() gives where it is not the type's own (pgjdbc reports an int4
    #: column whose default calls nextval() as `serial`); None: `type.name`
    reported_type_name: str | None = None

    @property
    def source_length(self) -> int | None:
        """The length Debezium's column mappers see."""
        return self.length if self.reported_length is None else self.reported_length

    @property
    def source_scale(self) -> int | None:
        """The scale Debezium's column mappers see (None: no scale)."""
        return self.scale if self.reported_length is None else self.reported_scale

    @property
    def type_name(self) -> str:
        """The name column.propagate / datatype.propagate match and report (upper case, e.g. VARCHAR)."""
        return (self.reported_type_name or self.type.name).upper()


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """A captured table: columns in table order, primary-key column names in key order, and the replica
    identity the server uses (`d` default, `f` full, `i` index, `n` nothing)."""

    id: TableId
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    replica_identity: str = "d"
    comment: str | None = None

    def column(self, name: str) -> Column | None:
        for c in self.columns:
            if c.name == name:
                return c
        return None
