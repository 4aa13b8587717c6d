"""Debezium and Connect temporal types (kafka-connect.md §3.4, postgresql.md §6.2) → DateType, TimestampType
(instants: ZonedTimestamp/IsoTimestamp), TimestampNTZType (PG `timestamp`: Timestamp/MicroTimestamp/NanoTimestamp
and Connect Timestamp), strings for times of day (`HH:MM:SS.ffffff`, Spark/Delta have no TIME type) and ISO
intervals, longs for durations. Values outside Python's datetime range (PG ±infinity) clamp to the range ends.
Pure."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from spark_sink.connect_schema import ConnectSchema
from spark_sink.types.model import DATE, INT, LONG, STRING, TIMESTAMP, TIMESTAMP_NTZ
from spark_sink.types.primitives import to_int, to_str
from spark_sink.types.registry import ConversionError, Rule, TypeMapping, TypeRegistry

EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH_NTZ = dt.datetime(1970, 1, 1)
MAX_NTZ, MIN_NTZ = dt.datetime(9999, 12, 31, 23, 59, 59, 999999), dt.datetime(1, 1, 1)
UTC = dt.UTC


def days_to_date(value: Any) -> dt.date:
    days = to_int(value)
    try:
        return EPOCH_DATE + dt.timedelta(days=days)
    except OverflowError:
        return dt.date.max if days > 0 else dt.date.min


def micros_to_ntz(micros: int) -> dt.datetime:
    try:
        return EPOCH_NTZ + dt.timedelta(microseconds=micros)
    except OverflowError:
        return MAX_NTZ if micros > 0 else MIN_NTZ


def _epoch(divisor_to_micros: Callable[[int], int]) -> Callable[[Any], dt.datetime]:
    return lambda v: micros_to_ntz(divisor_to_micros(to_int(v)))


def parse_instant(value: Any) -> dt.datetime:
    """ISO-8601 text with an offset (`2024-01-02T03:04:05.123456Z`, up to 9 fractional digits) → aware UTC."""
    text = to_str(value).strip()
    # ±infinity, and years Python cannot hold: Java's ISO text writes BC years as -YYYY (1 BC = 0000), years past
    # 9999 as +YYYYY; they clamp like the epoch-based types do
    if text in ("infinity", "+infinity") or text.startswith("+"):
        return MAX_NTZ.replace(tzinfo=UTC)
    if text == "-infinity" or text.startswith(("-", "0000-")):
        return MIN_NTZ.replace(tzinfo=UTC)
    head, dot, rest = text.partition(".")
    if dot:  # trim nanoseconds to microseconds: datetime holds 6 digits
        digits = len(rest) - len(rest.lstrip("0123456789"))
        rest = rest[:digits][:6] + rest[digits:]
        text = f"{head}.{rest}"
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ConversionError(f"not an ISO-8601 timestamp: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def parse_iso_date(value: Any) -> dt.date:
    text = to_str(value).strip().rstrip("Z")
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        raise ConversionError(f"not an ISO-8601 date: {value!r}") from None


def time_of_day(micros: int) -> str:
    """µs since midnight → `HH:MM:SS.ffffff` (PG `time` text, µs precision; 24:00:00 stays 24:00:00)."""
    seconds, frac = divmod(micros, 1_000_000)
    minutes, sec = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours:02d}:{minute:02d}:{sec:02d}.{frac:06d}"


def _time(to_micros: Callable[[int], int]) -> Callable[[Any], str]:
    return lambda v: time_of_day(to_micros(to_int(v)))


def _fixed(sink: Any, conv: Callable[[Any], Any]) -> Callable[[ConnectSchema, TypeRegistry], TypeMapping]:
    return lambda schema, registry: TypeMapping(sink, conv)


def _MS(v: int) -> int:
    return v * 1000


def _US(v: int) -> int:
    return v


def _NS(v: int) -> int:
    return v // 1000


def _names(*pairs: tuple[str | tuple[str, ...], Rule]) -> dict[str, Rule]:
    return {n: rule for names, rule in pairs for n in ((names,) if isinstance(names, str) else names)}


BY_NAME: dict[str, Rule] = _names(
    (("io.debezium.time.Date", "org.apache.kafka.connect.data.Date"), _fixed(DATE, days_to_date)),
    (("io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp"), _fixed(TIMESTAMP_NTZ, _epoch(_MS))),
    ("io.debezium.time.MicroTimestamp", _fixed(TIMESTAMP_NTZ, _epoch(_US))),
    ("io.debezium.time.NanoTimestamp", _fixed(TIMESTAMP_NTZ, _epoch(_NS))),
    (("io.debezium.time.ZonedTimestamp", "io.debezium.time.IsoTimestamp"), _fixed(TIMESTAMP, parse_instant)),
    ("io.debezium.time.IsoDate", _fixed(DATE, parse_iso_date)),
    (("io.debezium.time.Time", "org.apache.kafka.connect.data.Time"), _fixed(STRING, _time(_MS))),
    ("io.debezium.time.MicroTime", _fixed(STRING, _time(_US))),
    ("io.debezium.time.NanoTime", _fixed(STRING, _time(_NS))),
    (("io.debezium.time.ZonedTime", "io.debezium.time.IsoTime"), _fixed(STRING, to_str)),
    ("io.debezium.time.Interval", _fixed(STRING, to_str)),
    ("io.debezium.time.Year", _fixed(INT, to_int)),
    (("io.debezium.time.MicroDuration", "io.debezium.time.NanoDuration"), _fixed(LONG, to_int)),
)
