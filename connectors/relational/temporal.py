"""What every connector's temporal types share: Debezium's io.debezium.time.* schemas and Kafka Connect's
logical ones, proleptic Gregorian day arithmetic on integers (no datetime limits, no host time zone), and
the values of Connect's Date/Time/Timestamp (a datetime object where Python can represent the instant,
else the raw count, as java.util.Date would still hold it)."""

from __future__ import annotations

import datetime as dt
from typing import Final

from connect_worker.api.javacompat import java_long
from connect_worker.api.schema import Schema, Type, date_schema, time_schema, timestamp_schema

MICROS_PER_SECOND: Final = 1_000_000
MICROS_PER_DAY: Final = 86_400 * MICROS_PER_SECOND
MILLIS_PER_DAY: Final = 86_400_000
NANOS_PER_DAY: Final = 86_400_000_000_000
LONG_MAX: Final = 2**63 - 1
LONG_MIN: Final = -(2**63)


def epoch_micros(micros: int) -> int:
    """Conversions.toEpochMicros of an instant `micros` µs from the epoch, as Java computes it: the seconds
    (floor) through TimeUnit.SECONDS.toMicros, which saturates past ±9223372036854 s, then a wrapping long
    addition of the µs within the second. That is `micros` itself from -9223372036854 s to the top of the
    int64 range; past it
    (PostgreSQL timestamps reach 294276 AD) the value Debezium writes, never a number an int64 field cannot
    hold."""
    if _SECONDS_FIT_FROM <= micros <= LONG_MAX:  # no saturation, no wrap: the value itself
        return micros
    seconds, within = divmod(micros, MICROS_PER_SECOND)
    if seconds > _MAX_SECONDS:
        whole = LONG_MAX
    elif seconds < -_MAX_SECONDS:
        whole = LONG_MIN
    else:
        whole = seconds * MICROS_PER_SECOND
    return java_long(whole + within)


_MAX_SECONDS: Final = LONG_MAX // MICROS_PER_SECOND  # 9223372036854: TimeUnit.SECONDS.toMicros saturates past it
_SECONDS_FIT_FROM: Final = -_MAX_SECONDS * MICROS_PER_SECOND


def epoch_nanos(micros: int) -> int | None:
    """NanoTimestamp.toEpochNanos: epoch day x ns per day and the ns of the day with Java's exact arithmetic;
    None where Java's multiplyExact/addExact overflow (before 1677-09-22, after 2262-04-11 23:47:16.854775807),
    which Debezium logs and turns into a null."""
    day, tod = divmod(micros, MICROS_PER_DAY)
    product = day * NANOS_PER_DAY
    if not LONG_MIN <= product <= LONG_MAX:
        return None
    total = product + tod * 1000
    return total if LONG_MIN <= total <= LONG_MAX else None


DATE_SCHEMA: Final = Schema(Type.INT32, name="io.debezium.time.Date", version=1)
TIME_SCHEMA: Final = Schema(Type.INT32, name="io.debezium.time.Time", version=1)
MICRO_TIME_SCHEMA: Final = Schema(Type.INT64, name="io.debezium.time.MicroTime", version=1)
TIMESTAMP_SCHEMA: Final = Schema(Type.INT64, name="io.debezium.time.Timestamp", version=1)
MICRO_TIMESTAMP_SCHEMA: Final = Schema(Type.INT64, name="io.debezium.time.MicroTimestamp", version=1)
ZONED_TIMESTAMP_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.time.ZonedTimestamp", version=1)
ZONED_TIME_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.time.ZonedTime", version=1)
NANO_TIME_SCHEMA: Final = Schema(Type.INT64, name="io.debezium.time.NanoTime", version=1)
NANO_TIMESTAMP_SCHEMA: Final = Schema(Type.INT64, name="io.debezium.time.NanoTimestamp", version=1)
ISO_DATE_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.time.IsoDate", version=1)
ISO_TIME_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.time.IsoTime", version=1)
ISO_TIMESTAMP_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.time.IsoTimestamp", version=1)
CONNECT_DATE_SCHEMA: Final = date_schema()
CONNECT_TIME_SCHEMA: Final = time_schema()
CONNECT_TIMESTAMP_SCHEMA: Final = timestamp_schema()


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (astronomical year numbering: 1 BC = 0)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def civil_from_days(days: int) -> tuple[int, int, int]:
    """The inverse of `days_from_civil`."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


_EPOCH: Final = dt.datetime(1970, 1, 1)
_MIN_DAYS: Final = days_from_civil(1, 1, 1)
_MAX_DAYS: Final = days_from_civil(9999, 12, 31)


def connect_date(days: int) -> dt.date | int:
    if _MIN_DAYS <= days <= _MAX_DAYS:
        return dt.date.fromordinal(days - _MIN_DAYS + 1)
    return days


def connect_time(micros_of_day: int) -> dt.time | int:
    """Milliseconds past midnight as a time of day; a value outside one day stays its millisecond count."""
    millis = micros_of_day // 1000
    if not 0 <= millis < MILLIS_PER_DAY:
        return millis
    seconds, ms = divmod(millis, 1000)
    return dt.time(seconds // 3600, seconds // 60 % 60, seconds % 60, ms * 1000)


def connect_timestamp(micros: int) -> dt.datetime | int:
    millis = micros // 1000
    if _MIN_DAYS <= millis // MILLIS_PER_DAY <= _MAX_DAYS:
        return _EPOCH + dt.timedelta(milliseconds=millis)
    return millis
