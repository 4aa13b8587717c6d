"""COPY … TO STDOUT (text format) read many rows per wakeup: the snapshot's row source.

psycopg's `Copy.rows()` goes through the connection's wait machinery once per row. Here every row libpq already
holds is taken at once (up to a limit), and the socket is watched by one reader callback registered for the
whole COPY, so a snapshot pays neither a wait per row nor a reader registration per network read. The rows are
PostgreSQL's COPY text format (postgresql.md: the same text as pgoutput's, so snapshot and stream values convert
identically), parsed by `parse_text_row` (or its C twin for the common row).

The generator runs inside psycopg's own `cursor.copy()` block (which sends the statement and holds the
connection's lock) and reads through the connection's libpq handle; it ends the COPY itself by reading the
final result, so that block's exit has nothing left to do. It uses psycopg's `pgconn` and generator protocol
(`connection.wait`, `generators.fetch_many`): pinned by the project's psycopg range (>=3.3,<3.4).
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import importlib
from collections.abc import AsyncGenerator, Callable
from typing import Any, Final

import psycopg
from psycopg import errors, pq, sql
from psycopg.generators import fetch_many

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


_WAIT, _MORE, _END = 0, 1, 2


def _held_rows(
    pgconn: Any, limit: int, c: Callable[[Any, Callable[[Any], Row]], Row] | None, parse: Callable[[Any], Row]
) -> tuple[list[Row], int]:
    """The rows libpq holds now (at most `limit`), parsed by `c` (with `parse` for what it leaves) or `parse`,
    and what follows: _MORE (the limit was reached), _WAIT (nothing left in libpq's buffer: the socket must be
    read) or _END (the COPY data ended)."""
    rows: list[Row] = []
    append = rows.append
    get = pgconn.get_copy_data
    while True:
        nbytes, data = get(1)
        if nbytes > 0:
            append(c(data, parse) if c is not None else parse(data))
            if len(rows) >= limit:
                return rows, _MORE
            continue
        return rows, _WAIT if nbytes == 0 else _END


def _final_result(pgconn: Any, encoding: str) -> Any:
    """psycopg generator: the result that ends the COPY (or the error that cut it short)."""
    results = yield from fetch_many(pgconn)
    if len(results) != 1 or results[0].status != pq.ExecStatus.COMMAND_OK:
        bad = next((r for r in results if r.status != pq.ExecStatus.COMMAND_OK), None)
        if bad is not None:
            raise errors.error_from_result(bad, encoding=encoding)
        raise DataError(f"COPY ended with {len(results)} results")


async def copy_text_rows(
    conn: psycopg.AsyncConnection[Any], statement: sql.Composable, *, batch: int = 1024
) -> AsyncGenerator[list[Row], None]:
    """Run `COPY (<statement>) TO STDOUT` and yield its rows in batches of up to `batch`."""
    encoding = conn.info.encoding
    parse: Callable[[Any], Row] = functools.partial(parse_text_row, encoding=encoding)
    c = _c_parser if codecs.lookup(encoding).name == "utf-8" else None  # the C parser reads UTF-8 only
    async with conn.cursor().copy(sql.SQL("COPY ({}) TO STDOUT").format(statement)):
        pgconn = conn.pgconn
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        fd = pgconn.socket
        loop.add_reader(fd, readable.set)  # level-triggered: set again while the socket holds unread bytes
        try:
            while True:
                rows, then = _held_rows(pgconn, batch, c, parse)
                if rows:
                    yield rows
                if then == _END:
                    break
                if then == _WAIT:
                    readable.clear()
                    await readable.wait()
                    pgconn.consume_input()
        finally:
            loop.remove_reader(fd)
        await conn.wait(_final_result(pgconn, encoding))
