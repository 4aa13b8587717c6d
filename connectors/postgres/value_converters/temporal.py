"""DATE, TIME, TIMETZ, TIMESTAMP and TIMESTAMPTZ (postgresql.md §6.1, §6.2).

Text forms parsed (PostgreSQL's ISO DateStyle, any session TimeZone): `2024-01-02`, `0044-03-15 BC`,
`infinity`; `10:15:30.123456`, `24:00:00`; `2018-06-20 15:13:16.945104[ BC]`; timestamptz with an offset
`±HH[:MM[:SS]]` before the optional ` BC`; timetz `10:15:30.5+05:30`. Calendar arithmetic is proleptic
Gregorian on integers (no datetime, no host time zone), so BC and far-future values are exact. TIMESTAMP is
taken as UTC; TIMESTAMPTZ and TIMETZ are shifted to UTC by their own offset.
"""

from __future__ import annotations

from typing import Final

from connectors.postgres.value_converters import fastparse
from connectors.postgres.value_converters._base import Factory, Mapping, TypeOptions, TypeSpec, bad_value
from connectors.relational.temporal import (
    CONNECT_DATE_SCHEMA,
    CONNECT_TIME_SCHEMA,
    CONNECT_TIMESTAMP_SCHEMA,
    DATE_SCHEMA,
    ISO_DATE_SCHEMA,
    ISO_TIME_SCHEMA,
    ISO_TIMESTAMP_SCHEMA,
    LONG_MAX,
    LONG_MIN,
    MICRO_TIME_SCHEMA,
    MICRO_TIMESTAMP_SCHEMA,
    MICROS_PER_DAY,
    MICROS_PER_SECOND,
    NANO_TIME_SCHEMA,
    NANO_TIMESTAMP_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    ZONED_TIME_SCHEMA,
    ZONED_TIMESTAMP_SCHEMA,
    civil_from_days,
    connect_date,
    connect_time,
    connect_timestamp,
    days_from_civil,
    epoch_micros,
    epoch_nanos,
)

# PostgreSQL's ±infinity as the PG JDBC driver (and so Debezium) represents them.
TIMESTAMP_POS_INFINITY_MICROS: Final = 9_223_372_036_825_200_000
TIMESTAMP_NEG_INFINITY_MICROS: Final = -9_223_372_036_832_400_000
# Debezium maps date 'infinity' / '-infinity' to LocalDate -5877611-06-21 / -5877611-06-22.
DATE_POS_INFINITY_DAYS: Final = -2_147_472_692
DATE_NEG_INFINITY_DAYS: Final = -2_147_472_691

DEFAULT_TIME_PRECISION: Final = 6


def _split_era(text: str) -> tuple[str, bool]:
    if text.endswith(" BC"):
        return text[:-3], True
    return text, False


def _date_days(text: str, bc: bool) -> int:
    first = text.find("-", 1)
    second = text.find("-", first + 1)
    if first < 0 or second < 0:
        raise bad_value("date", text)
    year = int(text[:first])
    if bc:
        year = 1 - year
    return days_from_civil(year, int(text[first + 1 : second]), int(text[second + 1 :]))


def parse_date_days(text: str) -> int:
    """`2024-01-02` / `0044-03-15 BC` / `±infinity` → days since the epoch."""
    if text == "infinity":
        return DATE_POS_INFINITY_DAYS
    if text == "-infinity":
        return DATE_NEG_INFINITY_DAYS
    body, bc = _split_era(text)
    try:
        return _date_days(body, bc)
    except ValueError:
        raise bad_value("date", text) from None


def _fraction_micros(frac: str) -> int:
    """Digits after the decimal point as microseconds (truncated beyond 6 digits)."""
    if not frac:
        return 0
    return int((frac + "000000")[:6])


def parse_time_micros(text: str) -> int:
    """`HH:MM[:SS[.ffffff]]` (hour up to 24) → microseconds past midnight."""
    try:
        hour = int(text[0:2])
        minute = int(text[3:5])
        second = int(text[6:8]) if len(text) > 5 else 0
        micros = _fraction_micros(text[9:]) if len(text) > 9 else 0
    except ValueError:
        raise bad_value("time", text) from None
    if text[2] != ":":
        raise bad_value("time", text)
    return ((hour * 60 + minute) * 60 + second) * MICROS_PER_SECOND + micros


def parse_timestamp_micros(text: str) -> int:
    """A TIMESTAMP's text as microseconds since the epoch, the wall-clock time taken as UTC."""
    if text == "infinity":
        return TIMESTAMP_POS_INFINITY_MICROS
    if text == "-infinity":
        return TIMESTAMP_NEG_INFINITY_MICROS
    body, bc = _split_era(text)
    space = body.find(" ")
    try:
        if space < 0:
            return _date_days(body, bc) * MICROS_PER_DAY
        days = _date_days(body[:space], bc)
    except ValueError:
        raise bad_value("timestamp", text) from None
    return days * MICROS_PER_DAY + parse_time_micros(body[space + 1 :])


def _offset_seconds(text: str) -> int:
    """`+HH`, `-HH:MM`, `+HH:MM:SS` or `+HHMM` → seconds east of UTC."""
    sign = -1 if text[0] == "-" else 1
    body = text[1:]
    if ":" in body:
        parts = body.split(":")
        seconds = int(parts[0]) * 3600 + int(parts[1]) * 60
        if len(parts) > 2:
            seconds += int(parts[2])
    elif len(body) == 4:
        seconds = int(body[:2]) * 3600 + int(body[2:]) * 60
    else:
        seconds = int(body) * 3600
    return sign * seconds


def _split_time_offset(text: str) -> tuple[str, int]:
    """Split `HH:MM:SS[.ffffff]±offset` (offset optional, then UTC) into the time and the offset seconds."""
    i = 8
    n = len(text)
    if i < n and text[i] == ".":
        i += 1
        while i < n and text[i].isdigit():
            i += 1
    if i >= n:
        return text, 0
    if text[i] == "Z":
        return text[:i], 0
    return text[:i], _offset_seconds(text[i:])


def parse_timestamptz_micros(text: str) -> int | str:
    """A TIMESTAMPTZ's text as UTC microseconds since the epoch, or `infinity` / `-infinity` unchanged."""
    if text == "infinity" or text == "-infinity":
        return text
    body, bc = _split_era(text)
    space = body.find(" ")
    try:
        if space < 0:
            return _date_days(body, bc) * MICROS_PER_DAY
        days = _date_days(body[:space], bc)
        clock, offset = _split_time_offset(body[space + 1 :])
    except (ValueError, IndexError):
        raise bad_value("timestamptz", text) from None
    return days * MICROS_PER_DAY + parse_time_micros(clock) - offset * MICROS_PER_SECOND


def _iso_year(year: int) -> str:
    """ISO_LOCAL_DATE's year: 4 digits zero-padded, `+` beyond 9999, `-` before year 0."""
    if 0 <= year <= 9999:
        return f"{year:04d}"
    if year > 9999:
        return f"+{year}"
    return f"-{-year:04d}"


def _fraction(micros: int, width: int | None) -> str:
    if width is not None and 0 < width <= 9:
        digits = f"{micros:06d}"
        return "." + (digits[:width] if width <= 6 else digits + "0" * (width - 6))
    if micros == 0:
        return ""
    return "." + f"{micros:06d}".rstrip("0")


def format_zoned_timestamp(utc_micros: int, width: int | None) -> str:
    """ZonedTimestamp.toIsoString of a UTC instant with `width` fractional digits (None/0: 0-9 as needed)."""
    days, tod = divmod(utc_micros, MICROS_PER_DAY)
    year, month, day = civil_from_days(days)
    seconds, micros = divmod(tod, MICROS_PER_SECOND)
    hour, rest = divmod(seconds, 3600)
    minute, second = divmod(rest, 60)
    return f"{_iso_year(year)}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{_fraction(micros, width)}Z"


def format_iso_date(days: int) -> str:
    """IsoDate.toIsoString: ISO_OFFSET_DATE at UTC, `2024-02-29Z`, `+10000-01-01Z`, `-4712-01-01Z` (year 0 is 1 BC)."""
    year, month, day = civil_from_days(days)
    return f"{_iso_year(year)}-{month:02d}-{day:02d}Z"


def format_zoned_time(micros_of_day: int) -> str:
    """ISO_OFFSET_TIME of a UTC time: `HH:MM:SS[.f]Z`, fraction without trailing zeros."""
    seconds, micros = divmod(micros_of_day, MICROS_PER_SECOND)
    hour, rest = divmod(seconds, 3600)
    minute, second = divmod(rest, 60)
    return f"{hour:02d}:{minute:02d}:{second:02d}{_fraction(micros, None)}Z"


def parse_timetz(text: str) -> str:
    """A TIMETZ's text → ZonedTime string in UTC. Hour 24 is the next midnight with the day dropped, as Java's
    OffsetTime parsing resolves it: `24:00:00+00` is `00:00:00Z`."""
    try:
        clock, offset = _split_time_offset(text)
        local = parse_time_micros(clock)
    except (ValueError, IndexError):
        raise bad_value("timetz", text) from None
    return format_zoned_time((local - offset * MICROS_PER_SECOND) % MICROS_PER_DAY)


# -- factories -------------------------------------------------------------------------------------
def time_precision(spec: TypeSpec) -> int:
    return spec.scale if spec.scale is not None else DEFAULT_TIME_PRECISION


def _date(spec: TypeSpec, options: TypeOptions) -> Mapping:
    mode = options.time_precision_mode
    if mode == "connect":
        return Mapping(CONNECT_DATE_SCHEMA, lambda text: connect_date(parse_date_days(text)))
    if mode == "isostring":
        return Mapping(ISO_DATE_SCHEMA, lambda text: format_iso_date(parse_date_days(text)))
    return Mapping(DATE_SCHEMA, parse_date_days)


def _time(spec: TypeSpec, options: TypeOptions) -> Mapping:
    """JdbcValueConverters.convertTime by time.precision.mode (the precision matters in `adaptive` only)."""
    mode = options.time_precision_mode
    if mode == "connect":
        return Mapping(CONNECT_TIME_SCHEMA, lambda text: connect_time(parse_time_micros(text)))
    if mode == "isostring":  # LocalTime.MIDNIGHT plus the duration: 24:00:00 is 00:00:00Z
        return Mapping(ISO_TIME_SCHEMA, lambda text: format_zoned_time(parse_time_micros(text) % MICROS_PER_DAY))
    if mode == "nanoseconds":
        return Mapping(NANO_TIME_SCHEMA, lambda text: parse_time_micros(text) * 1000)
    if mode == "adaptive" and time_precision(spec) <= 3:
        return Mapping(TIME_SCHEMA, lambda text: parse_time_micros(text) // 1000)
    return Mapping(MICRO_TIME_SCHEMA, parse_time_micros)


def _nano_timestamp(text: str) -> int | None:
    if text == "infinity":
        return LONG_MAX
    if text == "-infinity":
        return LONG_MIN
    return epoch_nanos(parse_timestamp_micros(text))


def _timestamp(spec: TypeSpec, options: TypeOptions) -> Mapping:
    """JdbcValueConverters.convertTimestamp by time.precision.mode; ±infinity are pgjdbc's sentinels (read as µs)."""
    mode = options.time_precision_mode
    if mode == "connect":
        return Mapping(CONNECT_TIMESTAMP_SCHEMA, lambda text: connect_timestamp(parse_timestamp_micros(text)))
    if mode == "isostring":
        return Mapping(ISO_TIMESTAMP_SCHEMA, lambda text: format_zoned_timestamp(parse_timestamp_micros(text), None))
    if mode == "nanoseconds":
        return Mapping(NANO_TIMESTAMP_SCHEMA, _nano_timestamp)
    if mode != "microseconds" and time_precision(spec) <= 3:
        return Mapping(TIMESTAMP_SCHEMA, lambda text: parse_timestamp_micros(text) // 1000)
    return Mapping(MICRO_TIMESTAMP_SCHEMA, lambda text: epoch_micros(parse_timestamp_micros(text)))


def _timestamptz(spec: TypeSpec, options: TypeOptions) -> Mapping:
    width = time_precision(spec)
    pad = "0" * width if width and width <= 6 else None

    def convert(text: str) -> str:
        # Fast path for what a UTC session prints: `YYYY-MM-DD HH:MM:SS[.f]+00` (4-digit year, AD): the ISO
        # form is a re-slicing, the fraction padded to the column's precision.
        if pad is not None and text[-3:] == "+00" and text[10:11] == " " and text[4:5] == "-":
            frac = text[19:-3]
            if not frac or frac[0] == ".":
                digits = (frac[1:] + pad)[: len(pad)]
                return text[:10] + "T" + text[11:19] + "." + digits + "Z"
        micros = parse_timestamptz_micros(text)
        if isinstance(micros, str):
            return micros
        return format_zoned_timestamp(micros, width)

    # the fast path above in C, this function for everything else
    return Mapping(ZONED_TIMESTAMP_SCHEMA, fastparse.zoned_timestamp(width, convert) if pad is not None else convert)


def _timetz(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(ZONED_TIME_SCHEMA, parse_timetz)


BUILTIN: Final[dict[str, Factory]] = {
    "date": _date,
    "time": _time,
    "timetz": _timetz,
    "timestamp": _timestamp,
    "timestamptz": _timestamptz,
}
