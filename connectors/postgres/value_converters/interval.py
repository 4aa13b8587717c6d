"""INTERVAL (postgresql.md §6.1): MicroDuration (approximate µs) or the ISO-8601 Interval string.

The text is PostgreSQL's default IntervalStyle `postgres` (`1 year 2 mons 3 days 04:05:06.78`,
`-1 days +02:00:00`, `-1 years -2 mons +3 days -04:05:06`), read the way the PG JDBC driver's PGInterval
reads it: alternating `<number> <unit>` tokens, an `[-]H:MM[:SS.ffffff]` clock token whose sign applies to
hours, minutes and seconds; `@ … ago` (postgres_verbose) is accepted too. Debezium then computes
`MicroDuration.durationMicros` in double precision with 365.25/12 days per month and casts it to long, which
saturates. (pgjdbc refuses clock hours beyond int32, ~245,000 years, and Debezium fails the task; here they
convert like any other interval.)
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import Final, NamedTuple

from connect_worker.api.javacompat import java_double_to_long, java_double_to_string, java_int, java_math_round
from connect_worker.api.schema import Schema, Type
from connectors.postgres.value_converters._base import Factory, Mapping, TypeOptions, TypeSpec, bad_value

MICRO_DURATION_SCHEMA: Final = Schema(Type.INT64, name="io.debezium.time.MicroDuration", version=1)
INTERVAL_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.time.Interval", version=1)
DAYS_PER_MONTH_AVG: Final = 365.25 / 12.0
_NANO: Final = Decimal("0.000000001")


class IntervalParts(NamedTuple):
    years: int
    months: int
    days: int
    hours: int
    minutes: int
    seconds: float


def _java_seconds(value: float) -> float:
    """PGInterval.setSeconds then getSeconds: the µs rounded once (Math.round), split into whole seconds and µs
    with Java's truncating division, added back as a double."""
    total = java_math_round(value * 1_000_000)
    whole = abs(total) // 1_000_000 * (1 if total >= 0 else -1)
    return float(whole) + float(total - whole * 1_000_000) / 1_000_000.0


def parse_interval(text: str) -> IntervalParts:
    years = months = days = hours = minutes = 0
    seconds = 0.0
    verbose = text.startswith("@")
    tokens = text.replace("+", " ").replace("@", " ").split()
    pending: str | None = None
    try:
        for index, token in enumerate(tokens):
            if index % 2 == 0:
                colon = token.find(":")
                if colon < 0:
                    pending = token
                    continue
                negative = token[0] == "-"
                start = 1 if negative else 0
                hours = int(token[start:colon])
                minutes = int(token[colon + 1 : colon + 3])
                second_colon = token.find(":", colon + 1)
                seconds = float(token[second_colon + 1 :]) if second_colon >= 0 else 0.0
                if negative:
                    hours, minutes, seconds = -hours, -minutes, -seconds
                pending = None
            elif pending is not None:
                if token.startswith("year"):
                    years = int(pending)
                elif token.startswith("mon"):
                    months = int(pending)
                elif token.startswith("day"):
                    days = int(pending)
                elif token.startswith("hour"):
                    hours = int(pending)
                elif token.startswith("min"):
                    minutes = int(pending)
                elif token.startswith("sec"):
                    seconds = float(pending)
    except ValueError:
        raise bad_value("interval", text) from None
    if verbose and text.endswith("ago"):
        years, months, days, hours, minutes, seconds = -years, -months, -days, -hours, -minutes, -seconds
    return IntervalParts(years, months, days, hours, minutes, _java_seconds(seconds))


def duration_micros(parts: IntervalParts) -> int:
    """MicroDuration.durationMicros: int months, then double arithmetic left to right, then Java's `(long)` cast,
    which saturates: '-178000000 years' is Long.MIN_VALUE, never a number an int64 field cannot hold."""
    days = float(java_int(java_int(parts.years * 12) + parts.months)) * DAYS_PER_MONTH_AVG + float(parts.days)
    seconds = ((days * 24 + parts.hours) * 60 + parts.minutes) * 60 + parts.seconds
    return java_double_to_long(seconds * 1e6 + 0)


def iso_string(parts: IntervalParts) -> str:
    """Interval.toIsoString: `P<y>Y<m>M<d>DT<h>H<mi>M<s>S`, seconds as BigDecimal.valueOf(double)."""
    seconds = Decimal(java_double_to_string(parts.seconds))
    exponent = seconds.as_tuple().exponent
    assert isinstance(exponent, int)
    if -exponent > 9:  # setScale(9, DOWN)
        seconds = seconds.quantize(_NANO, rounding=ROUND_DOWN)
    text = "0" if seconds.is_zero() else format(seconds.normalize(), "f")
    return f"P{parts.years}Y{parts.months}M{parts.days}DT{parts.hours}H{parts.minutes}M{text}S"


def interval_micros(text: str) -> int:
    return duration_micros(parse_interval(text))


def interval_iso(text: str) -> str:
    return iso_string(parse_interval(text))


def _interval(spec: TypeSpec, options: TypeOptions) -> Mapping:
    if options.interval_handling_mode == "string":
        return Mapping(INTERVAL_SCHEMA, interval_iso)
    return Mapping(MICRO_DURATION_SCHEMA, interval_micros)


BUILTIN: Final[dict[str, Factory]] = {"interval": _interval}
