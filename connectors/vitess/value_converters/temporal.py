"""DATE, TIME, DATETIME, TIMESTAMP and YEAR (vitess.md §4.1, §4.2).

VStream prints temporal values as MySQL does: `2024-01-02`, `[-]838:59:59[.ffffff]`,
`2018-06-20 06:37:03[.ffffff]`; DATETIME has no zone and TIMESTAMP text is UTC, so both are read as UTC
wall-clock times, never through a host time zone. Plain valid values go through datetime's C parsers; the
rest (zero dates, out-of-calendar dates, durations beyond a day) through regexes and proleptic Gregorian
integer arithmetic, which give the same numbers.
MySQL's zero and partly-zero dates (`0000-00-00`, `2024-00-10`) have no instant: they give null, or for a
NOT NULL column the epoch, the value Debezium falls back to for a required column.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any, Final

from connect_worker.api.schema import Schema, Type
from connectors.relational.table import Column
from connectors.relational.temporal import (
    CONNECT_DATE_SCHEMA,
    CONNECT_TIME_SCHEMA,
    CONNECT_TIMESTAMP_SCHEMA,
    DATE_SCHEMA,
    MICRO_TIME_SCHEMA,
    MICRO_TIMESTAMP_SCHEMA,
    MICROS_PER_SECOND,
    TIMESTAMP_SCHEMA,
    ZONED_TIMESTAMP_SCHEMA,
    connect_date,
    connect_time,
    connect_timestamp,
    days_from_civil,
)
from connectors.vitess.value_converters._base import (
    Factory,
    Mapping,
    QueryType,
    TextParser,
    VitessTypeOptions,
    bad_value,
)
from connectors.vitess.value_converters.numeric import parse_int

YEAR_SCHEMA: Final = Schema(Type.INT32, name="io.debezium.time.Year", version=1)

_DATE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATETIME: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?")
_TIME: Final = re.compile(r"(-?)(\d+):(\d{2}):(\d{2})(?:\.(\d{1,9}))?")
_date_from_iso: Final = dt.date.fromisoformat
_time_from_iso: Final = dt.time.fromisoformat
_datetime_from_iso: Final = dt.datetime.fromisoformat
_EPOCH: Final = dt.datetime(1970, 1, 1)
_EPOCH_ORDINAL: Final = _EPOCH.toordinal()


def _micros(fraction: str | None) -> int:
    """Fraction-of-second digits as microseconds (digits beyond the sixth are dropped)."""
    return int((fraction + "000000")[:6]) if fraction else 0


def parse_date_days(text: str) -> int | None:
    """`YYYY-MM-DD` → days since the epoch; None for a zero or partly-zero date."""
    if len(text) == 10:
        try:  # the common case, parsed in C; zero and out-of-calendar dates take the general path
            return _date_from_iso(text).toordinal() - _EPOCH_ORDINAL
        except ValueError:
            pass
    m = _DATE.fullmatch(text)
    if m is None:
        raise bad_value("DATE", text)
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if year == 0 or month == 0 or day == 0:
        return None
    return days_from_civil(year, month, day)


def parse_time_micros(text: str) -> int:
    """`[-]H…H:MM:SS[.ffffff]` → signed microseconds (hours may pass 24, as MySQL's TIME is a duration)."""
    if text[2:3] == ":" and len(text) >= 8:
        try:  # a time of day, parsed in C; negative and longer durations take the general path
            t = _time_from_iso(text)
        except ValueError:
            t = None
        if t is not None and t.tzinfo is None:
            return ((t.hour * 60 + t.minute) * 60 + t.second) * MICROS_PER_SECOND + t.microsecond
    m = _TIME.fullmatch(text)
    if m is None:
        raise bad_value("TIME", text)
    micros = ((int(m[2]) * 60 + int(m[3])) * 60 + int(m[4])) * MICROS_PER_SECOND + _micros(m[5])
    return -micros if m[1] else micros


def _iso_datetime(text: str) -> dt.datetime | None:
    """`YYYY-MM-DD HH:MM:SS[.f]` parsed in C, or None when it is not a plain valid calendar date-time."""
    if len(text) < 19 or text[10] != " " or text[13] != ":" or text[16] != ":":
        return None
    try:
        value = _datetime_from_iso(text)
    except ValueError:
        return None
    return value if value.tzinfo is None else None


def parse_datetime_micros(text: str) -> int | None:
    """`YYYY-MM-DD HH:MM:SS[.ffffff]` read as UTC → microseconds since the epoch; None for a zero date."""
    d = _iso_datetime(text)
    if d is not None:
        seconds = (d.toordinal() - _EPOCH_ORDINAL) * 86_400 + d.hour * 3600 + d.minute * 60 + d.second
        return seconds * MICROS_PER_SECOND + d.microsecond
    m = _DATETIME.fullmatch(text)
    if m is None:
        raise bad_value("DATETIME", text)
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if year == 0 or month == 0 or day == 0:
        return None
    seconds = (days_from_civil(year, month, day) * 24 + int(m[4])) * 3600 + int(m[5]) * 60 + int(m[6])
    return seconds * MICROS_PER_SECOND + _micros(m[7])


def zoned_timestamp_parser(width: int | None, *, optional: bool) -> TextParser:
    """TIMESTAMP text (UTC) → ZonedTimestamp's ISO-8601 text, `2018-06-20T13:37:03[.fff]Z`.

    The fraction follows the column's precision: `width` digits (1-6), padded or cut; with no precision
    (0 or unknown) only the digits needed, none for a whole second."""
    fixed = width is not None and 1 <= width <= 6

    def fraction(digits: str | None) -> str:
        if fixed:
            return "." + ((digits or "") + "000000")[:width]
        kept = (digits or "")[:6].rstrip("0")
        return "." + kept if kept else ""

    zero = None if optional else "1970-01-01T00:00:00" + fraction(None) + "Z"

    def convert(text: str) -> str | None:
        if _iso_datetime(text) is not None:  # a valid UTC date-time: only re-cut
            return text[:10] + "T" + text[11:19] + fraction(text[20:]) + "Z"
        m = _DATETIME.fullmatch(text)
        if m is None:
            raise bad_value("TIMESTAMP", text)
        if m[1] == "0000" or m[2] == "00" or m[3] == "00":
            return zero
        return f"{text[:10]}T{text[11:19]}{fraction(m[7])}Z"

    return convert


# -- factories -------------------------------------------------------------------------------------------
def _nullable(parse: Callable[[str], int | None], finish: Callable[[int], Any], zero: Any) -> TextParser:
    """`parse`, then `finish` on an instant; a zero date gives `zero`."""

    def convert(text: str) -> Any:
        value = parse(text)
        return zero if value is None else finish(value)

    return convert


def _date(column: Column, options: VitessTypeOptions) -> Mapping:
    if options.time_precision_mode == "connect":
        zero = None if column.optional else connect_date(0)
        return Mapping(CONNECT_DATE_SCHEMA, _nullable(parse_date_days, connect_date, zero))
    zero = None if column.optional else 0

    def to_days(text: str) -> int | None:
        days = parse_date_days(text)
        return zero if days is None else days

    return Mapping(DATE_SCHEMA, to_days)


def _time(column: Column, options: VitessTypeOptions) -> Mapping:
    if options.time_precision_mode == "connect":
        return Mapping(CONNECT_TIME_SCHEMA, lambda text: connect_time(parse_time_micros(text)))
    return Mapping(MICRO_TIME_SCHEMA, parse_time_micros)


def _datetime(column: Column, options: VitessTypeOptions) -> Mapping:
    if options.time_precision_mode == "connect":
        zero = None if column.optional else connect_timestamp(0)
        general = _nullable(parse_datetime_micros, connect_timestamp, zero)

        def to_datetime(text: str) -> Any:
            d = _iso_datetime(text)
            if d is None:
                return general(text)
            sub_milli = d.microsecond % 1000  # Connect's Timestamp holds milliseconds
            return d.replace(microsecond=d.microsecond - sub_milli) if sub_milli else d

        return Mapping(CONNECT_TIMESTAMP_SCHEMA, to_datetime)
    zero = None if column.optional else 0
    if (column.scale or 0) <= 3:
        return Mapping(TIMESTAMP_SCHEMA, _nullable(parse_datetime_micros, lambda micros: micros // 1000, zero))

    def to_micros(text: str) -> int | None:
        micros = parse_datetime_micros(text)
        return zero if micros is None else micros

    return Mapping(MICRO_TIMESTAMP_SCHEMA, to_micros)


def _timestamp(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(ZONED_TIMESTAMP_SCHEMA, zoned_timestamp_parser(column.scale, optional=column.optional))


def _year(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(YEAR_SCHEMA, parse_int)


BUILTIN: Final[dict[int, Factory]] = {
    QueryType.DATE: _date,
    QueryType.TIME: _time,
    QueryType.DATETIME: _datetime,
    QueryType.TIMESTAMP: _timestamp,
    QueryType.YEAR: _year,
}
