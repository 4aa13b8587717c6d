"""The C paths of `_fastparse.c` against the Python parsers they stand in for (the reference): on random
PostgreSQL texts, the fast forms and everything near them, both must give the same value or the same error."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.postgres.value_converters import fastparse
from connectors.postgres.value_converters.numeric import numeric_mapping
from connectors.postgres.value_converters.temporal import BUILTIN as TEMPORAL
from tests.unit.postgres.value_converters._helpers import conv


def test_the_extension_is_built() -> None:
    assert fastparse._accel is not None, "_fastparse is not built: run `pip install -e .`"


def _parsers(make: Callable[[], Callable[[str], Any]]) -> tuple[Callable[[str], Any], Callable[[str], Any]]:
    """(C, Python) versions of the same column's parser."""
    c = make()
    saved, fastparse._accel = fastparse._accel, None
    try:
        py = make()
    finally:
        fastparse._accel = saved
    assert c is not py and type(c).__name__ == "FastParser"
    return c, py


def _same(c: Callable[[str], Any], py: Callable[[str], Any], text: str) -> None:
    try:
        expected: Any = py(text)
    except Exception as e:  # noqa: BLE001 - the error is part of the answer
        with pytest.raises(type(e)) as got:
            c(text)
        assert str(got.value) == str(e)
        return
    value = c(text)
    assert type(value) is type(expected)
    if isinstance(value, Decimal):  # the same digits and exponent, not just equal (and NaN is never ==)
        assert value.as_tuple() == expected.as_tuple()
    else:
        assert value == expected


def _timestamptz(precision: int) -> Callable[[str], Any]:
    return conv("timestamptz", scale=precision).from_text


def _pg_text(d: datetime) -> str:
    frac = f".{d.microsecond:06d}".rstrip("0") if d.microsecond else ""
    return d.strftime("%Y-%m-%d %H:%M:%S") + frac.rstrip(".") + "+00"


near_timestamps = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 30)).map(_pg_text),
    st.builds(
        lambda base, suffix: base[:-3] + suffix,
        st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 30)).map(_pg_text),
        st.sampled_from(["+00", "+02", "-05:30", "+00 BC", "+0", "", ".+00", ".1234567+00", "+00:00"]),
    ),
    st.sampled_from(["infinity", "-infinity", "12026-01-01 00:00:00+00", "2026-01-01T00:00:00+00"]),
    st.text(max_size=30),
)


@settings(max_examples=600, deadline=None)
@given(st.integers(min_value=1, max_value=6), near_timestamps)
def test_timestamptz_as_the_python_parser(precision: int, text: str) -> None:
    c, py = _parsers(lambda: _timestamptz(precision))
    _same(c, py, text)


def test_timestamptz_fast_form_examples() -> None:
    c, _ = _parsers(lambda: _timestamptz(3))
    assert c("2026-11-21 11:21:31.000057+00") == "2026-11-21T11:21:31.000Z"
    assert c("2026-11-21 11:21:31+00") == "2026-11-21T11:21:31.000Z"
    assert c("2026-11-21 11:21:31.5+00") == "2026-11-21T11:21:31.500Z"
    assert c("2026-11-21 13:21:31.5+02") == "2026-11-21T11:21:31.500Z"  # another offset: the Python path
    assert datetime(2026, 11, 21, tzinfo=UTC)  # (the fast form is a UTC session's output)


def _numeric(precision: int, scale: int) -> Callable[[str], Any]:
    return conv("numeric", length=precision, scale=scale).from_text


def _decimal_texts(scale: int) -> Iterator[Any]:
    yield st.builds(
        lambda neg, whole, frac: ("-" if neg else "") + whole + "." + frac,
        st.booleans(),
        st.text("0123456789", min_size=1, max_size=20),
        st.text("0123456789", min_size=scale, max_size=scale),
    )
    yield st.builds(
        lambda whole, frac: whole + "." + frac,
        st.text("0123456789-+e.", min_size=0, max_size=6),
        st.text("0123456789", min_size=0, max_size=scale + 2),
    )
    yield st.sampled_from(["NaN", "Infinity", "-Infinity", "1e5", "-", ".", "-.5", "12", "1.2.3", "١٢.٣٤"])
    yield st.text(max_size=12)


@settings(max_examples=600, deadline=None)
@given(st.data(), st.integers(min_value=1, max_value=8))
def test_numeric_as_the_python_parser(data: st.DataObject, scale: int) -> None:
    c, py = _parsers(lambda: _numeric(20, scale))
    text = data.draw(st.one_of(*_decimal_texts(scale)))
    _same(c, py, text)


def test_only_fixed_scale_precise_numerics_get_a_fast_parser() -> None:
    assert type(_numeric(12, 2)).__name__ == "FastParser"
    assert type(conv("numeric").from_text).__name__ != "FastParser"  # variable scale: a struct
    assert type(conv("numeric", length=5, scale=0).from_text).__name__ != "FastParser"
    assert type(conv("numeric", length=12, scale=2, decimal_handling_mode="string").from_text).__name__ != (
        "FastParser"
    )
    assert type(conv("timestamptz", scale=0).from_text).__name__ != "FastParser"
    assert numeric_mapping is not None and "timestamptz" in TEMPORAL
