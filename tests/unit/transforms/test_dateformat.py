from __future__ import annotations

import datetime as dt

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.transforms._dateformat import SimpleDateFormat, _two_digit_year

T = dt.datetime(2024, 3, 5, 14, 7, 9, 45_000, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("yyyyMMdd", "20240305"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "2024-03-05T14:07:09.045Z"),
        ("yy/M/d h:mm a", "24/3/5 2:07 PM"),
        ("EEE, d MMM yyyy", "Tue, 5 Mar 2024"),
        ("EEEE MMMM", "Tuesday March"),
        ("D 'day' '''q'''", "65 day 'q'"),
        ("HH''mm", "14'07"),
        ("S SSSSSS", "45 000045"),
        ("k K z Z X", "14 2 UTC +0000 Z"),
    ],
)
def test_format(pattern: str, expected: str) -> None:
    assert SimpleDateFormat(pattern).format(T) == expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("yyyyMMdd", "20240305", dt.datetime(2024, 3, 5, tzinfo=dt.UTC)),
        ("yyyy-MM-dd HH:mm:ss.SSS", "2024-03-05 14:07:09.045", T),
        ("yyyy-MM-dd'T'HH:mm:ssXXX", "2024-03-05T16:07:09+02:00", T.replace(microsecond=0)),
        ("dd MMM yyyy hh:mm a", "05 Mar 2024 02:07 PM", T.replace(second=0, microsecond=0)),
        # Java ignores trailing text
        ("yyyy-MM-dd", "2024-03-05 and more", dt.datetime(2024, 3, 5, tzinfo=dt.UTC)),
    ],
)
def test_parse(pattern: str, text: str, expected: dt.datetime) -> None:
    assert SimpleDateFormat(pattern).parse(text) == expected


def test_parse_mismatch_message() -> None:
    with pytest.raises(DataError, match=r"Could not parse timestamp: value \(x\) does not match pattern \(yyyy\)"):
        SimpleDateFormat("yyyy").parse("x")


def test_two_digit_year_window() -> None:
    today = dt.date(2026, 1, 1)
    assert _two_digit_year(30, today) == 2030
    assert _two_digit_year(45, today) == 2045
    assert _two_digit_year(47, today) == 1947
    assert _two_digit_year(99, today) == 1999


@pytest.mark.parametrize("pattern", ["yyyy-ww", "YYYY", "bad q", "'open"])
def test_unsupported_or_invalid(pattern: str) -> None:
    with pytest.raises(ConfigError):
        SimpleDateFormat(pattern)
