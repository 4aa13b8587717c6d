"""Reading PostgreSQL's catalog into the relational model (TableId, Table, Column, ColumnType).

Three bulk queries, whatever the number of tables: tables with their columns (attnum order, dropped
columns skipped, defaults through pg_get_expr, comments), keys (the primary key in key order, else the first
unique index by name, as Debezium), and the closure of the column types (array elements, the whole domain
chain, enum labels). Values are always passed as query parameters. Type modifiers become `length` / `scale` as
Debezium's columns carry them (Column's docstring); a domain without a modifier of its own takes the nearest
one of its chain (real Debezium 3.6.3 does, where postgresql.md §6.5 says a domain over a domain does not).
Unconstrained time/timestamp/interval types report the scale 6 the
PG JDBC driver reports.

Runs on a normal (non-replication) psycopg connection; psycopg errors are classified by SQLSTATE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import psycopg

from connectors.postgres import jdbc_sizes
from connectors.postgres.errors import from_psycopg
from connectors.relational.table import Column, ColumnType, Table, TableId

__all__ = ["SYSTEM_SCHEMAS", "length_and_scale", "read_relation", "read_table", "read_tables", "read_type"]

SYSTEM_SCHEMAS: Final = ("pg_catalog", "information_schema")
"""Always excluded, with every pg_toast* and pg_temp* schema."""

_COLUMNS_SQL: Final = """
SELECT n.nspname, c.relname, c.oid, c.relreplident, obj_description(c.oid, 'pg_class'),
       a.attnum, a.attname, a.atttypid, a.atttypmod,
       a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), a.attgenerated,
       pg_get_expr(d.adbin, d.adrelid), col_description(c.oid, a.attnum)
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE c.relkind IN ('r', 'p')
  AND n.nspname <> ALL(%(system)s)
  AND n.nspname NOT LIKE 'pg\\_toast%%' AND n.nspname NOT LIKE 'pg\\_temp\\_%%'
  {filter}
ORDER BY n.nspname, c.relname, a.attnum
"""

# The primary key, else the first unique index (by name) made only of columns: Debezium's
# readPrimaryKeyOrUniqueIndexNames over pgjdbc's getIndexInfo (ordered by index name), whose
# isTableUniqueIndexIncluded leaves out indexes on expressions. Key columns only (not INCLUDE ones).
_PRIMARY_KEYS_SQL: Final = """
SELECT DISTINCT ON (i.indrelid) i.indrelid, array_agg(a.attname ORDER BY k.ord)
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE (i.indisprimary OR i.indisunique) AND i.indrelid = ANY(%(relids)s) AND k.ord <= i.indnkeyatts
GROUP BY i.indrelid, i.indisprimary, ic.relname
HAVING bool_and(k.attnum > 0) AND (i.indisprimary OR bool_and(i.indexprs IS NULL))
ORDER BY i.indrelid, i.indisprimary DESC, ic.relname COLLATE "C"
"""

_TYPES_SQL: Final = """
WITH RECURSIVE closure(oid) AS (
    SELECT unnest(%(oids)s::oid[])
  UNION
    SELECT x.oid
    FROM pg_catalog.pg_type t
    JOIN closure ON t.oid = closure.oid
    CROSS JOIN LATERAL (VALUES (CASE WHEN t.typcategory = 'A' THEN t.typelem END),
                               (NULLIF(t.typbasetype, 0))) AS x(oid)
    WHERE x.oid IS NOT NULL AND x.oid <> 0
)
SELECT t.oid, t.typname, n.nspname, t.typcategory, t.typtype, t.typelem, t.typbasetype, t.typtypmod,
       CASE WHEN t.typtype = 'e' THEN
         (SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid)
       END
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE t.oid IN (SELECT oid FROM closure)
"""

_VARHDRSZ: Final = 4
_TEMPORAL_WITH_PRECISION: Final = frozenset({"time", "timetz", "timestamp", "timestamptz"})
_DEFAULT_FRACTIONAL_DIGITS: Final = 6


class _TypeRow:
    __slots__ = ("base", "category", "element", "enum_labels", "name", "oid", "schema", "typmod", "typtype")

    def __init__(self, row: Sequence[Any]) -> None:
        self.oid: int = row[0]
        self.name: str = row[1]
        self.schema: str = row[2]
        self.category: str = row[3]
        self.typtype: str = row[4]
        self.element: int = row[5]
        self.base: int = row[6]
        self.typmod: int = row[7]
        self.enum_labels: tuple[str, ...] | None = tuple(row[8]) if row[8] is not None else None


class _TypeResolver:
    """Builds ColumnTypes from the fetched pg_type rows (memoised; the rows form a closed set)."""

    def __init__(self, rows: Iterable[Sequence[Any]]) -> None:
        self._rows = {r.oid: r for r in map(_TypeRow, rows)}
        self._built: dict[int, ColumnType] = {}

    def row(self, oid: int) -> _TypeRow | None:
        return self._rows.get(oid)

    def get(self, oid: int) -> ColumnType:
        built = self._built.get(oid)
        if built is not None:
            return built
        row = self._rows.get(oid)
        if row is None:
            built = ColumnType(oid, f"oid:{oid}")
        else:
            element = self.get(row.element) if row.category == "A" and row.element else None
            base = None
            if row.typtype == "d" and row.base:
                base = self.get(row.base)
                base = base.base if base.base is not None else base
            built = ColumnType(
                oid=row.oid,
                name=row.name,
                category=row.category,
                schema=row.schema,
                element=element,
                base=base,
                enum_labels=row.enum_labels,
            )
        self._built[oid] = built
        return built

    def chain(self, oid: int) -> list[tuple[int, int]]:
        """(oid, typtypmod) from the type up its domain chain, an array as its element (jdbc_sizes.Chain)."""
        out: list[tuple[int, int]] = []
        row = self._rows.get(oid)
        while row is not None and row.typtype == "d" and all(o != oid for o, _ in out):
            out.append((oid, row.typmod))
            oid = row.base
            row = self._rows.get(oid)
        if row is not None and row.category == "A" and row.element:
            oid = row.element
        out.append((oid, -1))
        return out

    def effective_typmod(self, oid: int, typmod: int) -> int:
        """The column's modifier, else that of the nearest domain in its chain that declares one (Debezium's
        PostgresType.getDefaultLength/Scale ask the base type while a domain has no modifier of its own)."""
        if typmod != -1:
            return typmod
        row = self._rows.get(oid)
        seen: set[int] = set()
        while row is not None and row.typtype == "d" and oid not in seen:
            if row.typmod != -1:
                return row.typmod
            seen.add(oid)
            oid = row.base
            row = self._rows.get(oid)
        return -1


def length_and_scale(column_type: ColumnType, typmod: int) -> tuple[int | None, int | None]:
    """JDBC-style length and scale of a type with a modifier (arrays: of their element type)."""
    resolved = column_type.resolved
    if resolved.element is not None:
        resolved = resolved.element.resolved
    name = resolved.name if resolved.schema == "pg_catalog" else ""
    if name in ("varchar", "bpchar"):
        # the PG JDBC driver reports DECIMAL_DIGITS 0 for them: Debezium 3.6.3 propagates scale "0"
        return (typmod - _VARHDRSZ if typmod >= _VARHDRSZ else None), 0
    if name == "numeric":
        if typmod < _VARHDRSZ:
            return None, None
        packed = typmod - _VARHDRSZ
        # pgjdbc reads the scale as the low 16 bits, unsigned: PostgreSQL 15's negative scales (11-bit two's
        # complement) come out as 2048 - |s| (numeric(5,-2) has scale 2046), and Debezium's Decimal carries that
        # scale (the value itself stays exact: 12300 is 12300 x 10^2046 / 10^2046)
        return (packed >> 16) & 0xFFFF, packed & 0xFFFF
    if name in ("bit", "varbit"):
        return (typmod if typmod >= 0 else (1 if name == "bit" else None)), None
    if name in _TEMPORAL_WITH_PRECISION:
        return None, (typmod if typmod >= 0 else _DEFAULT_FRACTIONAL_DIGITS)
    if name == "interval":
        precision = typmod & 0xFFFF if typmod >= 0 else 0xFFFF
        return None, (precision if precision != 0xFFFF else _DEFAULT_FRACTIONAL_DIGITS)
    return None, None


async def _fetch(conn: psycopg.AsyncConnection[Any], sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    try:
        async with conn.cursor() as cur:
            await cur.execute(sql, params)
            return await cur.fetchall()
    except psycopg.Error as e:
        raise from_psycopg(e, action="reading the PostgreSQL catalog") from e


async def _read_types(conn: psycopg.AsyncConnection[Any], oids: Iterable[int]) -> _TypeResolver:
    """Fetch the closure of the given types (elements, domain chains) in one query."""
    wanted = sorted({int(o) for o in oids})
    rows = await _fetch(conn, _TYPES_SQL, {"oids": wanted}) if wanted else []
    return _TypeResolver(rows)


async def read_type(conn: psycopg.AsyncConnection[Any], oid: int) -> ColumnType:
    """One type (for types first seen in a stream), with its element, domain base and enum labels."""
    return (await _read_types(conn, [oid])).get(oid)


async def _load(
    conn: psycopg.AsyncConnection[Any],
    table_filter: str,
    params: dict[str, Any],
    include: Callable[[TableId], bool],
    extra_oids: Iterable[int] = (),
) -> tuple[dict[TableId, Table], _TypeResolver]:
    """The tables, and the resolver of their column types and of `extra_oids` (one types query for both)."""
    rows = await _fetch(conn, _COLUMNS_SQL.format(filter=table_filter), {"system": list(SYSTEM_SCHEMAS), **params})
    by_table: dict[TableId, list[tuple[Any, ...]]] = {}
    relids: dict[TableId, int] = {}
    table_rows: dict[TableId, tuple[Any, ...]] = {}
    excluded: set[TableId] = set()
    for row in rows:
        table_id = TableId(row[0], row[1])
        if table_id in excluded:
            continue
        if table_id not in by_table:
            if not include(table_id):
                excluded.add(table_id)
                continue
            by_table[table_id] = []
            relids[table_id] = row[2]
            table_rows[table_id] = row
        if row[5] is not None:
            by_table[table_id].append(row)
    resolver = await _read_types(conn, [*extra_oids, *(r[7] for rs in by_table.values() for r in rs)])
    if not by_table:
        return {}, resolver
    pk_rows = await _fetch(conn, _PRIMARY_KEYS_SQL, {"relids": list(relids.values())})
    primary_keys = {relid: tuple(names) for relid, names in pk_rows}
    tables: dict[TableId, Table] = {}
    for table_id, column_rows in by_table.items():
        columns = tuple(_column(resolver, r) for r in column_rows)
        first = table_rows[table_id]
        tables[table_id] = Table(
            id=table_id,
            columns=columns,
            primary_key=primary_keys.get(relids[table_id], ()),
            replica_identity=first[3],
            comment=first[4],
        )
    return tables, resolver


def _column(resolver: _TypeResolver, row: Sequence[Any]) -> Column:
    (_, _, _, _, _, attnum, name, type_oid, typmod, not_null, generated, default, comment) = row
    column_type = resolver.get(type_oid)
    effective = resolver.effective_typmod(type_oid, typmod)
    length, scale = length_and_scale(column_type, effective)
    reported_length, reported_scale = jdbc_sizes.catalog_length_scale(
        resolver.chain(type_oid), typmod, array=column_type.category == "A"
    )
    return Column(
        name=name,
        position=attnum,
        type=column_type,
        typmod=typmod,
        length=length,
        scale=scale,
        optional=not not_null,
        default_expression=default,
        generated=bool(generated),
        comment=comment,
        reported_length=reported_length,
        reported_scale=reported_scale,
        reported_type_name=_serial_name(column_type, default),
    )


_SERIALS: Final = {"int4": "serial", "int8": "bigserial", "int2": "smallserial"}


def _serial_name(column_type: ColumnType, default: str | None) -> str | None:
    """pgjdbc's getColumns names an integer column whose default calls nextval() serial/bigserial/smallserial."""
    if default is None or "nextval(" not in default or column_type.schema != "pg_catalog":
        return None
    return _SERIALS.get(column_type.name)


async def read_tables(conn: psycopg.AsyncConnection[Any], include: Callable[[TableId], bool]) -> dict[TableId, Table]:
    """Every ordinary and partitioned table outside the system schemas that `include` accepts."""
    return (await _load(conn, "", {}, include))[0]


async def read_relation(
    conn: psycopg.AsyncConnection[Any],
    table_id: TableId,
    columns: Sequence[tuple[str, int, int | None, bool | None, str | None]],
    previous: Table | None,
) -> Table | None:
    """A table as a Relation message describes it, as Debezium's PgOutputMessageDecoder builds it: the message's
    columns with their types and modifiers (so later DDL already in the catalog does not leak into earlier
    changes), nullability, defaults and comments from the catalog as it is now (a column it no longer has is
    optional without a default), the key from the catalog restricted to the message's columns (else the known
    table's). `columns` are (name, type oid, atttypmod or None when the source sends none, nullability or None when
    the source does not say, the type's text when the source sends it). None when the table is gone and was never
    known. One catalog read: the table, its key and the types of both."""
    tables, resolver = await _load(conn, _ONE_TABLE, _one_table(table_id), lambda _: True, (c[1] for c in columns))
    current = tables.get(table_id)
    base = current or previous
    if base is None:
        return None
    names = {c[0] for c in columns}
    out = []
    for position, (name, type_oid, typmod, optional, type_text) in enumerate(columns, start=1):
        known = current.column(name) if current is not None else None
        column_type = resolver.get(type_oid)
        chain = resolver.chain(type_oid)
        reported: tuple[int, int | None]
        from_catalog = typmod is None
        if typmod is None:  # decoderbufs: the catalog's modifier while the type is the same
            typmod = known.typmod if known is not None and known.type.oid == type_oid else -1
            if type_text is not None:  # sized from its type text, as PostgresChangeRecordEmitter does
                reported = jdbc_sizes.typeinfo_length_scale(chain, type_text)
            else:
                reported = jdbc_sizes.catalog_length_scale(chain, typmod, array=column_type.category == "A")
        else:
            reported = jdbc_sizes.relation_length_scale(chain, typmod)
        reported_length, reported_scale = reported
        length, scale = length_and_scale(column_type, resolver.effective_typmod(type_oid, typmod))
        if type_text is not None and column_type.resolved.name == "numeric" and column_type.category != "A":
            # decoderbufs' numeric(p, s) text: Debezium's Decimal takes p and s as written (a negative s included)
            length, scale = (length, scale) if typmod < 0 else (reported_length, reported_scale)
        out.append(
            Column(
                name=name,
                position=known.position if known is not None else position,
                type=column_type,
                typmod=typmod,
                length=length,
                scale=scale,
                optional=optional if optional is not None else known.optional if known is not None else True,
                default_expression=known.default_expression if known is not None else None,
                generated=known.generated if known is not None else False,
                comment=known.comment if known is not None else None,
                reported_length=reported_length,
                reported_scale=reported_scale,
                reported_type_name=known.reported_type_name if from_catalog and type_text is None and known else None,
            )
        )
    if previous is not None and all(c[4] is not None for c in columns) and not _typeinfo_changed(previous, out):
        return previous  # decoderbufs: Debezium keeps its table while the message agrees with it
    key = tuple(n for n in (current.primary_key if current is not None else ()) if n in names)
    if not key and previous is not None:
        key = tuple(n for n in previous.primary_key if n in names)
    return Table(
        id=table_id,
        columns=tuple(out),
        primary_key=key,
        replica_identity=base.replica_identity,
        comment=base.comment,
    )


def _typeinfo_changed(known: Table, columns: Sequence[Column]) -> bool:
    """PostgresChangeRecordEmitter.schemaChanged for decoderbufs: other columns, or a column whose type, length,
    scale or nullability (as decoderbufs' type info gives them) differs from the known table's."""
    if len(columns) != len(known.columns):
        return True
    for c in columns:
        k = known.column(c.name)
        if k is None or k.type.oid != c.type.oid or k.optional != c.optional:
            return True
        if (k.source_length, k.source_scale or 0) != (c.source_length, c.source_scale or 0):
            return True
    return False


async def read_table(conn: psycopg.AsyncConnection[Any], table_id: TableId) -> Table | None:
    """One table (for schema refreshes), or None when it does not exist (or is not a table)."""
    tables, _ = await _load(conn, _ONE_TABLE, _one_table(table_id), lambda _: True)
    return tables.get(table_id)


_ONE_TABLE: Final = "AND n.nspname = %(schema)s AND c.relname = %(table)s"


def _one_table(table_id: TableId) -> dict[str, Any]:
    return {"schema": table_id.schema, "table": table_id.table}
