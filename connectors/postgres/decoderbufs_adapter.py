"""decoderbufs → pgoutput: the messages StreamingChangeSource handles, made from decoderbufs RowMessages (pure).

decoderbufs sends no Relation messages, no TRUNCATE and no logical messages; every change carries the
qualified table name, column names and typed datums. The adapter keeps, per stream:

* a synthetic ``pg.Relation`` per table, sent before the table's first change and again whenever its column
  set (names and type OIDs) changes, with a stable relation id (the same id for the table's whole stream);
* the values as PostgreSQL's TEXT output, so the same value converters apply as for pgoutput.
  decoderbufs 2.1.2 sends (checked frame by frame against ``SELECT col::text`` on PostgreSQL 15):

  ======================  ===========================================  =================================
  type                    datum                                        text made here
  ======================  ===========================================  =================================
  int2/int4, int8, oid    int32 / int64                                ``str(n)``
  float4                  float (32-bit)                               shortest text that reads back as
                                                                       the same float4 (float4out)
  float8                  double                                       shortest round-trip (float8out)
  bool                    bool                                         ``t`` / ``f``
  money                   int64 (cents)                                ``-$1,234.56`` (lc_monetary C)
  timestamp               int64 µs since 1970 (wraps past 2^63)        ``2024-02-29 12:34:56.789``, BC
  timestamptz             int64 µs since 1970, UTC                     ``… +00`` (UTC offset form)
  ±infinity timestamps    INT64_MAX / INT64_MIN                        ``infinity`` / ``-infinity``
  date                    int32 days since 1970 (±infinity wrap)       ``2024-02-29``, BC, ``infinity``
  time                    int64 µs of day                              ``HH:MM:SS[.ffffff]``
  timetz                  double: UTC µs of day (the offset is lost)   ``HH:MM:SS[.ffffff]+00``
  bytea                   bytes                                        ``\\x`` + hex
  point                   Point(x, y)                                  ``(x,y)`` (float8 text)
  numeric, text types,    string (the type's output function)          as sent
  json(b), xml, bit,
  uuid, interval
  anything else           bytes of the output function's text          decoded UTF-8
  unchanged TOAST         datum_missing                                :data:`UNCHANGED_TOAST`
  ======================  ===========================================  =================================

Transactions: decoderbufs sends BEGIN/COMMIT for every transaction of the database, BEGIN at the LSN of the
transaction's first WAL record; pgoutput (PG 15) only for those with a published change, its BEGIN at the LSN of
that first change. The adapter hands decoderbufs' on as they are, as Debezium's decoderbufs path takes them
(measured against it): a transaction with no captured change has its BEGIN/END transaction-metadata records
(event_count 0) and moves the commit position (later offsets' ``lsn_commit``, later events' ``sequence``), and a
transaction id's LSN (``txId:lsn``) is the BEGIN's. Changes of
tables that are not captured are dropped (pgoutput's publication does not carry them).

Old tuples: decoderbufs sends the whole old row under REPLICA IDENTITY FULL and, under DEFAULT/INDEX, a row
whose non-identity columns are NULL (for a key change and a DELETE). pgoutput tells them apart ('O' / 'K');
here an old tuple is a key tuple when every column outside the table's identity columns is NULL (when a row
of a FULL table has only NULLs there, both readings give the same events). A table without an identity (no
key under DEFAULT, or NOTHING) gets changes without any tuple from decoderbufs: such changes are dropped
(pgoutput rejects those UPDATE/DELETE statements on the server).

What decoderbufs cannot carry as pgoutput does (the records differ only here):
* timetz arrives as UTC µs of day: the converted ZonedTime is the same, except ``24:00:00+00``, which becomes
  ``00:00:00Z`` (pgoutput: ``24:00:00Z``) — as Debezium's own decoderbufs path gives;
* generated columns: decoderbufs sends their values, pgoutput does not (Debezium with decoderbufs has them too);
* money arrives in minor units: the text assumes two fraction digits (lc_monetary C/en_US), as Debezium does;
* float text is always the shortest round trip (pgoutput follows the server's extra_float_digits, 1 by default);
* timestamptz is printed in UTC, not the walsender's TimeZone (the converted ZonedTimestamp is UTC either way);
* REPLICA IDENTITY INDEX: the identity columns are taken to be the primary key's.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Collection, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import decoderbufs as dbufs
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.protocol.copy_both import PG_EPOCH_OFFSET_US
from connectors.postgres.protocol.toast import UNCHANGED_TOAST
from connectors.relational.table import TableId
from connectors.relational.temporal import MICROS_PER_DAY, MICROS_PER_SECOND, civil_from_days

__all__ = [
    "DecoderbufsAdapter",
    "float4_text",
    "float8_text",
    "parse_qualified_name",
    "text_value",
    "unquote_identifier",
]

_INT64_MAX: Final = 2**63 - 1
_INT64_MIN: Final = -(2**63)
# The earliest PostgreSQL timestamp (4714-11-24 00:00 BC) in µs since 1970: smaller values wrapped past 2^63
_TIMESTAMP_MIN_UNIX_US: Final = -211_813_488_000_000_000 + PG_EPOCH_OFFSET_US
# decoderbufs adds 10957 days to DATEVAL_NOEND / DATEVAL_NOBEGIN in int32 arithmetic
_DATE_POS_INFINITY: Final = -2_147_472_692
_DATE_NEG_INFINITY: Final = -2_147_472_691

_OID_BOOL: Final = 16
_OID_BYTEA: Final = 17
_OID_FLOAT4: Final = 700
_OID_MONEY: Final = 790
_OID_DATE: Final = 1082
_OID_TIME: Final = 1083
_OID_TIMESTAMP: Final = 1114
_OID_TIMESTAMPTZ: Final = 1184
_OID_INTERVAL: Final = 1186
_OID_TIMETZ: Final = 1266

_F32: Final = struct.Struct("<f")
_U32: Final = struct.Struct("<I")

# -- values -------------------------------------------------------------------------------------------


def _shortest_text(digits: str, exp10: int, negative: bool, fixed_below: int) -> str:
    """PostgreSQL's float text for the value ``d.ddd * 10^exp10``: plain for -4 <= exp10 < fixed_below,
    else ``d.ddde±XX`` (at least two exponent digits)."""
    if -4 <= exp10 < fixed_below:
        if exp10 >= 0:
            whole = digits[: exp10 + 1].ljust(exp10 + 1, "0")
            frac = digits[exp10 + 1 :]
        else:
            whole = "0"
            frac = "0" * (-exp10 - 1) + digits
        text = whole + ("." + frac if frac else "")
    else:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        text = f"{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    return "-" + text if negative else text


def _special_float(v: float) -> str | None:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0.0:
        return "-0" if math.copysign(1.0, v) < 0 else "0"
    return None


def _digits(decimal_text: str) -> tuple[str, int, bool]:
    sign, digit_tuple, exponent = Decimal(decimal_text).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    assert isinstance(exponent, int)
    exponent += len(digit_tuple) - len(digits)
    return digits, exponent + len(digits) - 1, bool(sign)


def _next_f32(v: float, up: bool) -> float:
    bits = _U32.unpack(_F32.pack(v))[0]
    away = (v > 0) == up  # towards a larger magnitude
    return float(_F32.unpack(_U32.pack(bits + 1 if away else bits - 1))[0])


def _strictly_nearest(text: str, v: float, neighbour: Callable[[float, bool], float]) -> bool:
    """Whether the decimal ``text`` lies strictly closer to ``v`` than half the gap to the next value on its
    side: PostgreSQL's Ryu (acceptBounds off) never prints a decimal on the rounding boundary."""
    exact = Fraction(text)
    here = Fraction(v)
    if exact == here:
        return True
    up = exact > here
    nearest = neighbour(v, up)
    if math.isinf(nearest):  # beyond the largest finite value: the gap continues as below it
        nearest = neighbour(v, not up)
    gap = abs(Fraction(nearest) - here)
    return abs(exact - here) * 2 < gap


def _next_f64(v: float, up: bool) -> float:
    return math.nextafter(v, math.inf if up else -math.inf)


def float8_text(v: float) -> str:
    """float8out with extra_float_digits >= 1 (the default): the shortest text that reads back exactly."""
    special = _special_float(v)
    if special is not None:
        return special
    text = repr(v)
    if not _strictly_nearest(text, v, _next_f64):  # repr may pick a tie; PostgreSQL takes one digit more
        for precision in range(len(_digits(text)[0]), 18):
            text = f"{v:.{precision - 1}e}"
            if float(text) == v and _strictly_nearest(text, v, _next_f64):
                break
    shortest, exp10, negative = _digits(text)
    return _shortest_text(shortest, exp10, negative, 15)


def float4_text(v: float) -> str:
    """float4out with extra_float_digits >= 1: the shortest text that reads back as the same float4."""
    special = _special_float(v)
    if special is not None:
        return special
    text = f"{v:.8e}"
    for precision in range(1, 10):
        candidate = f"{v:.{precision - 1}e}"
        try:
            back = _F32.unpack(_F32.pack(float(candidate)))[0]
        except OverflowError:  # rounded beyond the largest float4
            continue
        if back == v and _strictly_nearest(candidate, v, _next_f32):
            text = candidate
            break
    digits, exp10, negative = _digits(text)
    return _shortest_text(digits, exp10, negative, 6)


def _fraction(micros: int) -> str:
    return "" if micros == 0 else "." + f"{micros:06d}".rstrip("0")


def _clock(micros_of_day: int) -> str:
    seconds, micros = divmod(micros_of_day, MICROS_PER_SECOND)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{hour:02d}:{minute:02d}:{second:02d}{_fraction(micros)}"


def _date(days: int) -> tuple[str, bool]:
    year, month, day = civil_from_days(days)
    bc = year <= 0
    return f"{1 - year if bc else year:04d}-{month:02d}-{day:02d}", bc


def _timestamp(micros: int, suffix: str) -> str:
    if micros == _INT64_MAX:
        return "infinity"
    if micros == _INT64_MIN:
        return "-infinity"
    if micros < _TIMESTAMP_MIN_UNIX_US:  # decoderbufs' epoch shift overflowed near the upper end
        micros += 2**64
    days, tod = divmod(micros, MICROS_PER_DAY)
    date, bc = _date(days)
    return f"{date} {_clock(tod)}{suffix}{' BC' if bc else ''}"


def _money(cents: int) -> str:
    whole, frac = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}${whole:,}.{frac:02d}"


def _interval(micros: float) -> str:
    """An interval sent as a double (decoderbufs before 2.x; months taken as 30.4375 days) as `H:MM:SS`."""
    total = int(micros)
    sign = "-" if total < 0 else ""
    return sign + _clock(abs(total))


def _int_text(oid: int, n: int) -> str:
    if oid == _OID_TIMESTAMPTZ:
        return _timestamp(n, "+00")
    if oid == _OID_TIMESTAMP:
        return _timestamp(n, "")
    if oid == _OID_DATE:
        if n == _DATE_POS_INFINITY:
            return "infinity"
        if n == _DATE_NEG_INFINITY:
            return "-infinity"
        date, bc = _date(n)
        return date + " BC" if bc else date
    if oid == _OID_TIME:
        return _clock(n)
    if oid == _OID_MONEY:
        return _money(n)
    return str(n)


def _float_text(oid: int, v: float) -> str:
    if oid == _OID_FLOAT4:
        return float4_text(v)
    if oid == _OID_TIMETZ:
        return _clock(int(v) % MICROS_PER_DAY) + "+00"
    if oid == _OID_INTERVAL:
        return _interval(v)
    return float8_text(v)


def text_value(datum: dbufs.Datum) -> pg.TupleValue:
    """One datum as pgoutput would send it: PostgreSQL's text output, None for NULL, UNCHANGED_TOAST."""
    v = datum.value
    if v is None or v is UNCHANGED_TOAST or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, int):
        return _int_text(datum.column_type, v)
    if isinstance(v, float):
        return _float_text(datum.column_type, v)
    if isinstance(v, bytes):
        if datum.column_type == _OID_BYTEA:
            return "\\x" + v.hex()
        return v.decode("utf-8", "replace")
    if isinstance(v, dbufs.Point):
        return f"({float8_text(v.x)},{float8_text(v.y)})"
    raise TypeError(f"unexpected decoderbufs datum {v!r} of column {datum.column_name}")


# -- names --------------------------------------------------------------------------------------------


def unquote_identifier(name: str) -> str:
    """quote_identifier's output back to the name: a quoted name loses its quotes, doubled quotes become one."""
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        return name[1:-1].replace('""', '"')
    return name


def parse_qualified_name(qualified: str) -> TableId:
    """quote_qualified_identifier(schema, table) → TableId; `"a.b"."c"` keeps dots inside quotes."""
    parts: list[str] = []
    i, n = 0, len(qualified)
    while i <= n:
        if i < n and qualified[i] == '"':
            j = i + 1
            buf: list[str] = []
            while j < n:
                if qualified[j] == '"':
                    if j + 1 < n and qualified[j + 1] == '"':
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(qualified[j])
                j += 1
            parts.append("".join(buf))
            i = j + 2  # past the closing quote and the dot
        else:
            dot = qualified.find(".", i)
            end = n if dot < 0 else dot
            parts.append(qualified[i:end])
            i = end + 1
    if len(parts) == 1:
        return TableId("public", parts[0])
    return TableId(parts[-2], parts[-1])


# -- the adapter --------------------------------------------------------------------------------------


class _TableState:
    __slots__ = ("relation_id", "signature", "table_id")

    def __init__(self, relation_id: int, table_id: TableId) -> None:
        self.relation_id = relation_id
        self.table_id = table_id
        self.signature: tuple[tuple[tuple[str, int], ...], tuple[dbufs.TypeInfo, ...]] | None = None


class DecoderbufsAdapter:
    """Turns one replication stream's decoderbufs messages into pgoutput messages, batch by batch.

    ``captured(table_id)``: whether the connector captures the table (others are dropped, as pgoutput's
    publication would not carry them). ``identity_columns(table_id)``: the columns of the table's replica
    identity (DEFAULT: the primary key), or None for REPLICA IDENTITY FULL or a table not known yet (an old
    tuple is then taken as the whole old row).
    """

    def __init__(
        self,
        *,
        captured: Callable[[TableId], bool],
        identity_columns: Callable[[TableId], Collection[str] | None],
    ) -> None:
        self._captured = captured
        self._identity_columns = identity_columns
        self._tables: dict[str, _TableState] = {}
        self._next_relation_id = 1
        self.dropped = 0  # changes dropped: tables not captured, or no tuple at all

    def table_ids(self, batch: Sequence[tuple[Lsn, Any]]) -> set[TableId]:
        """The tables the changes of ``batch`` are about."""
        out: set[TableId] = set()
        for _, msg in batch:
            if msg.__class__ is dbufs.RowChange:
                out.add(self._state(msg.table).table_id)
        return out

    def adapt(self, batch: Sequence[tuple[Lsn, Any]]) -> list[tuple[Lsn, Any]]:
        out: list[tuple[Lsn, Any]] = []
        for lsn, msg in batch:
            kind = msg.__class__
            if kind is dbufs.RowChange:
                self._change(lsn, msg, out)
            elif kind is dbufs.TxBegin:
                out.append((lsn, pg.Begin(Lsn(0), msg.commit_time - PG_EPOCH_OFFSET_US, msg.xid)))
            elif kind is dbufs.TxCommit:
                out.append((lsn, pg.Commit(0, lsn, lsn, msg.commit_time - PG_EPOCH_OFFSET_US)))
        return out

    def _state(self, table: str) -> _TableState:
        state = self._tables.get(table)
        if state is None:
            state = _TableState(self._next_relation_id, parse_qualified_name(table))
            self._next_relation_id += 1
            self._tables[table] = state
        return state

    def _change(self, lsn: Lsn, msg: dbufs.RowChange, out: list[tuple[Lsn, Any]]) -> None:
        state = self._state(msg.table)
        table_id = state.table_id
        datums = msg.new_tuple or msg.old_tuple
        if not datums or not self._captured(table_id):
            self.dropped += 1
            return
        # the column types' modifiers (`numeric(8,3)`) come as text, when the plug-in sends them: a change of one
        # is a new Relation too (its modifier is then read from the catalog)
        typeinfo = msg.new_typeinfo
        if not typeinfo and state.signature is not None:  # a delete's old tuple comes without them
            typeinfo = state.signature[1]
        signature = (tuple((d.column_name, d.column_type) for d in datums), typeinfo)
        relid = state.relation_id
        if signature != state.signature:
            state.signature = signature
            identity = self._identity_columns(table_id) or ()
            columns = []
            for i, (name, oid) in enumerate(signature[0]):
                unquoted = unquote_identifier(name)
                # Debezium takes decoderbufs' word for nullability and the type modifiers
                info = typeinfo[i] if i < len(typeinfo) else None
                flags = 1 if unquoted in identity else 0
                columns.append(
                    pg.Column(
                        flags,
                        unquoted,
                        oid,
                        None,
                        info.value_optional if info is not None else None,
                        info.modifier if info is not None else None,
                    )
                )
            out.append((lsn, pg.Relation(None, relid, table_id.schema, table_id.table, "d", tuple(columns))))
        op = msg.op
        if op is dbufs.Op.INSERT:
            out.append((lsn, pg.Insert(None, relid, _texts(msg.new_tuple))))
            return
        old = _texts(msg.old_tuple) if msg.old_tuple else None
        key: pg.TupleData | None = None
        if old is not None and self._is_key_tuple(table_id, msg.old_tuple):
            key, old = old, None
        if op is dbufs.Op.UPDATE:
            out.append((lsn, pg.Update(None, relid, key, old, _texts(msg.new_tuple))))
        else:
            out.append((lsn, pg.Delete(None, relid, key, old)))

    def _is_key_tuple(self, table_id: TableId, datums: Sequence[dbufs.Datum]) -> bool:
        identity = self._identity_columns(table_id)
        if identity is None:
            return False
        return all(d.value is None for d in datums if unquote_identifier(d.column_name) not in identity)


def _texts(datums: Sequence[dbufs.Datum]) -> pg.TupleData:
    return tuple([text_value(d) for d in datums])
