"""COPY … TO STDOUT (text format) read many rows per wakeup: the snapshot's row source.

psycopg's `Copy.rows()` goes through the connection's wait machinery once per row. Here one wait takes every
row libpq already holds (up to a limit), so a snapshot pays that cost once per network read instead. The
rows are PostgreSQL's COPY text format (postgresql.md: the same text as pgoutput's, so snapshot and stream
values convert identically), parsed by `parse_text_row`.

The generator runs inside psycopg's own `cursor.copy()` block (which sends the statement and holds the
connection's lock); it ends the COPY itself by reading the final result, so that block's exit has nothing
left to do. It uses psycopg's generator protocol (`connection.wait`, `generators.fetch_many`): pinned by the
project's psycopg range (>=3.3,<3.4).
"""

from __future__ import annotations

import codecs
import functools
import importlib
from collections.abc import AsyncGenerator, Callable
from typing import Any, Final

import psycopg
from psycopg import errors, pq, sql
from psycopg.generators import fetch_many
from psycopg.waiting import Wait

from connect_worker.api import DataError

Row = tuple[str | None, ...]

# What COPY TO writes for a character of a text column (PostgreSQL's CopyAttributeOutText): these six
# control characters, then a backslash before a backslash or the delimiter; \N alone is NULL. Octal and hex
# escapes are accepted by COPY FROM only, so output never has them.
_ESCAPES: Final = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _unescape(field: str) -> str:
    out: list[str] = []
    i = 0
    while (j := field.find("\\", i)) >= 0 and j + 1 < len(field):
        out.append(field[i:j])
        c = field[j + 1]
        out.append(_ESCAPES.get(c, c))
        i = j + 2
    out.append(field[i:])
    return "".join(out)


def parse_text_row(data: Any, encoding: str = "utf-8") -> Row:
    """One COPY text row (with its newline) as its column texts; `\\N` is NULL."""
    text = str(data, encoding)
    if text.endswith("\n"):
        text = text[:-1]
    if "\\" not in text:  # no NULL and nothing escaped: the common row
        return tuple(text.split("\t"))
    return tuple(None if f == "\\N" else _unescape(f) if "\\" in f else f for f in text.split("\t"))


def _load_c_parser() -> Callable[[Any, Callable[[Any], Row]], Row] | None:
    """`copy_text_row(data, fallback)` of `protocol/_tupledata.c`: a UTF-8 row without backslashes in C, any
    other row through `fallback`; None where the extension is not built."""
    try:
        module = importlib.import_module("connectors.postgres.protocol._tupledata")
    except ImportError:  # pragma: no cover - built without a C compiler
        return None
    parse: Callable[[Any, Callable[[Any], Row]], Row] = module.copy_text_row
    return parse


_c_parser: Final = _load_c_parser()


def _batch(pgconn: Any, limit: int, encoding: str) -> Any:
    """psycopg generator: the rows libpq holds (at least one, at most `limit`), and whether COPY ended."""
    rows: list[Row] = []
    append = rows.append
    get = pgconn.get_copy_data
    c = _c_parser
    fallback = functools.partial(parse_text_row, encoding=encoding)
    fast = c is not None and codecs.lookup(encoding).name == "utf-8"
    while True:
        nbytes, data = get(1)
        if nbytes > 0:
            append(c(data, fallback) if c is not None and fast else parse_text_row(data, encoding))
            if len(rows) >= limit:
                return rows, False
            continue
        if nbytes == 0:
            if rows:
                return rows, False
            while not (yield Wait.R):
                pass
            pgconn.consume_input()
            continue
        break
    # the end of the COPY data: its final result (or the error that cut it short)
    results = yield from fetch_many(pgconn)
    if len(results) != 1 or results[0].status != pq.ExecStatus.COMMAND_OK:
        bad = next((r for r in results if r.status != pq.ExecStatus.COMMAND_OK), None)
        if bad is not None:
            raise errors.error_from_result(bad, encoding=encoding)
        raise DataError(f"COPY ended with {len(results)} results")
    return rows, True


async def copy_text_rows(
    conn: psycopg.AsyncConnection[Any], statement: sql.Composable, *, batch: int = 1024
) -> AsyncGenerator[list[Row], None]:
    """Run `COPY (<statement>) TO STDOUT` and yield its rows in batches of up to `batch`."""
    encoding = conn.info.encoding
    async with conn.cursor().copy(sql.SQL("COPY ({}) TO STDOUT").format(statement)):
        pgconn = conn.pgconn
        done = False
        while not done:
            rows, done = await conn.wait(_batch(pgconn, batch, encoding))
            if rows:
                yield rows
