"""PostgreSQL's part of incremental snapshots (connectors/relational/incremental_snapshot.py): chunk queries
and watermark writes.

Chunks are read with ``COPY (SELECT …) TO STDOUT`` in text format, the initial snapshot's path, so their values
convert exactly as the snapshot's do. Key values are bound as literals of the column's type (``'42'::int4``).

The chunking key's values are kept as the Java objects Debezium's JDBC reads give (they are serialized into the
offsets): ``int2``/``int4`` Integer, ``int8``/``oid`` Long, ``numeric`` BigDecimal (NaN and the infinities a
Double), ``float4`` Float, ``float8`` Double, ``bool`` Boolean, ``uuid`` UUID, ``bytea`` byte[], ``money``
BigDecimal (Debezium's PostgresMoney; Debezium then binds it as a numeric, which PostgreSQL cannot compare with
money, and fails the table after its first chunk: here the literal is cast to money), the text, time, timestamp
and bit types String (Debezium reads those as text). Other key types (``date`` is a
``java.sql.Date`` whose serialized form depends on the JVM's time zone, json, arrays, ...) are refused for
incremental snapshots with a clear reason.
"""

from __future__ import annotations

import contextlib
import dataclasses
import decimal
import uuid
from collections.abc import Awaitable, Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg import sql

from connect_worker.api import RetriableError
from connect_worker.api.java_serialization import JavaFloat, JavaInteger, JavaLong, JavaShort, JavaValue
from connect_worker.api.javacompat import to_float32
from connectors.postgres import catalog
from connectors.postgres.copy_out import copy_text_rows
from connectors.relational.chunk_query import KeyColumn, chunk_condition
from connectors.relational.incremental_context import DataCollection, Key
from connectors.relational.incremental_snapshot import TableScanFailed, WindowRow
from connectors.relational.pipeline import Pipeline
from connectors.relational.schema_builder import RowFn, TableSchema
from connectors.relational.table import Column, TableId

_INTEGER = frozenset({"int2", "int4"})
_LONG = frozenset({"int8", "oid"})
_STRING = frozenset(
    {
        "text",
        "varchar",
        "bpchar",
        "char",
        "name",
        "citext",
        "time",
        "timetz",
        "timestamp",
        "timestamptz",
        "bit",
        "varbit",
    }
)


def java_key_converter(column: Column) -> Callable[[str | None], JavaValue]:
    """How a key column's COPY text becomes the Java object Debezium's JDBC read gives; TableScanFailed for a
    type whose Java object cannot be serialized here."""
    name = column.type.resolved.name
    convert: Callable[[str], JavaValue]
    if name in _INTEGER:
        convert = _integer
    elif name in _LONG:
        convert = _long
    elif name in _STRING or column.type.resolved.category == "E":
        convert = str
    elif name == "numeric":
        convert = _numeric
    elif name == "money":
        convert = _money
    elif name == "float8":
        convert = float
    elif name == "float4":
        convert = _float4
    elif name == "bool":
        convert = _bool
    elif name == "uuid":
        convert = uuid.UUID
    elif name == "bytea":
        convert = _bytea
    else:
        raise TableScanFailed(
            "SQL_EXCEPTION",
            f"Incremental snapshot key column '{column.name}' has type {column.type.name}, which Debezium keeps in "
            "its offsets as a Java object this worker cannot serialize",
        )

    def key_value(text: str | None) -> JavaValue:
        return None if text is None else convert(text)

    return key_value


def _integer(text: str) -> JavaValue:
    return JavaInteger(int(text))


def _long(text: str) -> JavaValue:
    return JavaLong(int(text))


def _numeric(text: str) -> JavaValue:
    if text in ("NaN", "Infinity", "-Infinity"):
        return float(text.replace("Infinity", "inf"))  # Debezium binds these as Double
    return decimal.Decimal(text)


def _money(text: str) -> JavaValue:
    """Debezium's PostgresMoney.parse: a BigDecimal of the text without its currency symbol, parentheses and
    group separators (negative when it started with '-' or '(')."""
    negative = text[:1] in ("(", "-")
    value = f"({text[1:]})" if text.startswith("-") else text
    if value.startswith("(") and value.endswith(")"):
        value = value[1:-1]
    if value and not value[0].isdigit() and value[0] != ".":
        value = value[1:]
    value = value.replace(",", "")
    return decimal.Decimal("-" + value if negative else value)


def _float4(text: str) -> JavaValue:
    return JavaFloat(to_float32(float(text)))


def _bool(text: str) -> JavaValue:
    return text == "t"


def _bytea(text: str) -> JavaValue:
    return bytes.fromhex(text[2:]) if text.startswith("\\x") else text.encode()


def sql_text(value: JavaValue) -> str | None:
    """A Java key value as the text PostgreSQL reads back (None: NULL)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, JavaFloat):
        value = value.value
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, bytes):
        return "\\x" + value.hex()
    if isinstance(value, JavaInteger | JavaLong | JavaShort):
        return str(value.value)
    return str(value)


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkTable:
    id: TableId
    schema: TableSchema
    names: tuple[str, ...]  # the columns read, in order
    key_columns: tuple[Column, ...]  # the chunking key
    key_positions: tuple[int, ...]
    key_converters: tuple[Callable[[str | None], JavaValue], ...]
    key_fn: RowFn | None
    value_fn: RowFn
    from_clause: sql.Composable


class PostgresChunkSource:
    def __init__(
        self,
        pipeline: Pipeline,
        connection: Callable[[], Awaitable[psycopg.AsyncConnection[Any]]],
        streamed_schema: Callable[[TableId], TableSchema | None] = lambda table_id: None,
    ) -> None:
        """``streamed_schema``: the stream's schema of a table, reused when the catalog still says the same (one
        set of schema objects per table keeps the converters' caches warm)."""
        self._pipeline = pipeline
        self._connection = connection
        self._streamed_schema = streamed_schema
        self._prepared: dict[TableId, ChunkTable] = {}

    def known_tables(self) -> Iterable[TableId]:
        return list(self._pipeline.tables_by_id)

    async def prepare(self, collection: DataCollection) -> ChunkTable:
        pipeline = self._pipeline
        table_id = collection.id
        if not pipeline.tables.accepts(table_id):
            raise TableScanFailed(
                "UNKNOWN_SCHEMA", f"Schema not found for table '{table_id}': it is not captured by the connector"
            )
        with sql_errors(f"Reading the table {table_id} failed"):
            conn = await self._connection()
            table = await catalog.read_table(conn, table_id)  # as Debezium refreshes the table from the catalog
        if table is None:
            raise TableScanFailed("UNKNOWN_SCHEMA", f"Schema retrieval failed to populate the schema for {table_id}")
        pipeline.tables_by_id[table_id] = table
        if collection.surrogate_key:
            column = table.column(collection.surrogate_key)
            if column is None:
                raise TableScanFailed(
                    "SQL_EXCEPTION", f'Surrogate key "{collection.surrogate_key}" doesn\'t exist in table "{table_id}"'
                )
            key_columns: tuple[Column, ...] = (column,)
        else:
            names = pipeline.key_columns(table_id) or table.primary_key
            key_columns = tuple(c for n in names if (c := table.column(n)) is not None)
        if not key_columns:
            raise TableScanFailed(
                "NO_PRIMARY_KEY",
                f"Incremental snapshot for table '{table_id}' skipped because the table has no primary keys",
            )
        cached = self._prepared.get(table_id)
        if cached is not None and cached.schema.table == table and cached.key_columns == key_columns:
            return cached  # the same schema objects: converters keep their per-schema caches
        streamed = self._streamed_schema(table_id)
        schema = streamed if streamed is not None and streamed.table == table else TableSchema(table, pipeline.builder)
        names = tuple(
            dict.fromkeys(
                [f.column for f in schema.key_fields]
                + [f.column for f in schema.value_fields]
                + [c.name for c in key_columns]
            )
        )
        key_fn, value_fn = schema.row_converter(names, snapshot=True)
        prepared = self._prepared[table_id] = ChunkTable(
            table_id,
            schema,
            names,
            key_columns,
            tuple(names.index(c.name) for c in key_columns),
            tuple(java_key_converter(c) for c in key_columns),
            key_fn,
            value_fn,
            sql.SQL("{}.{}").format(sql.Identifier(table_id.schema), sql.Identifier(table_id.table)),
        )
        return prepared

    async def maximum_key(self, table: Any, condition: str | None) -> Key | None:
        assert isinstance(table, ChunkTable)
        keys = sql.SQL(", ").join(sql.Identifier(c.name) for c in table.key_columns)
        order = sql.SQL(", ").join(sql.SQL("{} DESC").format(sql.Identifier(c.name)) for c in table.key_columns)
        where = sql.SQL(" WHERE {}").format(sql.SQL(condition)) if condition else sql.SQL("")
        statement = sql.SQL("SELECT {} FROM {}{} ORDER BY {} LIMIT 1").format(keys, table.from_clause, where, order)
        rows = await self._rows(statement)
        if not rows:
            return None
        return tuple(convert(t) for convert, t in zip(table.key_converters, rows[0], strict=True))

    async def chunk(
        self, table: Any, after: Key | None, maximum: Key | None, condition: str | None, limit: int
    ) -> list[WindowRow]:
        assert isinstance(table, ChunkTable)
        conn = await self._connection()
        columns = [
            KeyColumn(sql.Identifier(c.name).as_string(conn), c.optional, _literal(conn, c)) for c in table.key_columns
        ]
        bound = chunk_condition(columns, after, maximum)
        conditions = [part for part in (bound, condition) if part]
        where = sql.SQL(" WHERE {}").format(sql.SQL(" AND ".join(conditions))) if conditions else sql.SQL("")
        statement = sql.SQL("SELECT {} FROM {}{} ORDER BY {} LIMIT {}").format(
            sql.SQL(", ").join(sql.Identifier(n) for n in table.names),
            table.from_clause,
            where,
            sql.SQL(", ").join(sql.Identifier(c.name) for c in table.key_columns),
            sql.Literal(limit),
        )
        out: list[WindowRow] = []
        key_of = table.schema.key_from_value
        key_fn, value_fn = table.key_fn, table.value_fn
        converters = tuple(zip(table.key_converters, table.key_positions, strict=True))
        for row in await self._rows(statement):
            value = value_fn(row)
            key = key_of(value) if key_of is not None else key_fn(row) if key_fn else None
            out.append(WindowRow(key, value, tuple([convert(row[i]) for convert, i in converters])))
        return out

    async def _rows(self, statement: sql.Composable) -> list[tuple[str | None, ...]]:
        out: list[tuple[str | None, ...]] = []
        with sql_errors("Incremental snapshot query failed"):
            conn = await self._connection()
            async for batch in copy_text_rows(conn, statement):
                out.extend(batch)
        return out

    async def table_signature(self, table: Any) -> Hashable:
        """The columns read (name, type, nullability, length, scale), by name: what Debezium compares from the
        chunk query's result-set metadata."""
        assert isinstance(table, ChunkTable)
        with sql_errors(f"Reading the table {table.id} failed"):
            current = await catalog.read_table(await self._connection(), table.id)
        if current is None:
            return None
        return tuple(
            sorted(
                (c.name, c.type.name, c.optional, c.length, c.scale)
                for c in current.columns
                if self._pipeline.columns.includes(table.id, c.name)
            )
        )

    async def write_open(self, signal_table: TableId, chunk_id: str, metadata: str) -> None:
        await self._execute(
            sql.SQL("INSERT INTO {} VALUES (%s, %s, %s)").format(_table(signal_table)),
            (f"{chunk_id}-open", "snapshot-window-open", metadata),
        )

    async def write_close(self, signal_table: TableId, chunk_id: str, metadata: str, *, delete: bool) -> None:
        if delete:
            # Debezium's DeleteWindowCloser names the first column `id`
            await self._execute(
                sql.SQL("DELETE FROM {} WHERE id = %s").format(_table(signal_table)), (f"{chunk_id}-open",)
            )
        else:
            await self._execute(
                sql.SQL("INSERT INTO {} VALUES (%s, %s, %s)").format(_table(signal_table)),
                (f"{chunk_id}-close", "snapshot-window-close", metadata),
            )

    async def _execute(self, statement: sql.Composed, params: Sequence[Any]) -> None:
        with sql_errors("Incremental snapshot watermark not written"):
            conn = await self._connection()
            await conn.execute(statement, params)


@contextlib.contextmanager
def sql_errors(what: str) -> Iterator[None]:
    """A lost connection is retriable (the task resumes from its offsets); any other SQL error fails the current
    table (a TABLE_SCAN_COMPLETED notification with SQL_EXCEPTION, the snapshot goes on with the next one)."""
    try:
        yield
    except psycopg.OperationalError as e:
        raise RetriableError(f"{what}: {e}") from e
    except psycopg.Error as e:
        raise TableScanFailed("SQL_EXCEPTION", f"{what}: {e}") from e


def _table(table_id: TableId) -> sql.Composable:
    return sql.SQL("{}.{}").format(sql.Identifier(table_id.schema), sql.Identifier(table_id.table))


def _literal(conn: psycopg.AsyncConnection[Any], column: Column) -> Callable[[Any], str]:
    type_name = sql.Identifier(column.type.schema, column.type.name).as_string(conn)

    def render(value: Any) -> str:
        text = sql_text(value)
        if text is None:
            return "NULL"
        return f"{sql.Literal(text).as_string(conn)}::{type_name}"

    return render
