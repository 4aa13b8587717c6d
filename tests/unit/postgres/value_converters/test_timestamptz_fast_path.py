"""The timestamptz fast path (UTC text re-sliced) gives exactly what the general parse-and-format path gives."""

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.postgres.value_converters.temporal import format_zoned_timestamp, parse_timestamptz_micros
from connectors.relational.table import Column, ColumnType


def _pg_text(dt: datetime) -> str:
    """PostgreSQL's output of a timestamptz in a UTC session (fraction without trailing zeros)."""
    frac = f".{dt.microsecond:06d}".rstrip("0") if dt.microsecond else ""
    return dt.strftime("%Y-%m-%d %H:%M:%S") + frac.rstrip(".") + "+00"


@given(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 30)).map(lambda d: d.replace(tzinfo=UTC)),
    st.integers(min_value=1, max_value=6),
)
def test_fast_path_equals_general_path(dt: datetime, precision: int) -> None:
    column = Column("ts", 1, ColumnType(1184, "timestamptz", "D"), scale=precision)
    conv = converter_for(column, TypeOptions())
    assert conv is not None
    text = _pg_text(dt)
    assert conv.from_text(text) == format_zoned_timestamp(parse_timestamptz_micros(text), precision)  # type: ignore[arg-type]


def test_other_offsets_and_eras_take_the_general_path() -> None:
    column = Column("ts", 1, ColumnType(1184, "timestamptz", "D"), scale=6)
    conv = converter_for(column, TypeOptions())
    assert conv is not None
    assert conv.from_text("2018-06-20 15:13:16.945104+02") == "2018-06-20T13:13:16.945104Z"
    bc = parse_timestamptz_micros("0044-03-15 00:00:00+00 BC")
    assert isinstance(bc, int)
    assert conv.from_text("0044-03-15 00:00:00+00 BC") == format_zoned_timestamp(bc, 6)
    assert conv.from_text("infinity") == "infinity"
