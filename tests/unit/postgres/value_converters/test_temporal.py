"""DATE/TIME/TIMESTAMP/TIMESTAMPTZ/TIMETZ (postgresql.md §6.1, §6.2; §11 items 54-58, 66; Appendix A.1)."""

from __future__ import annotations

import datetime as dt

import pytest

from connect_worker.api.schema import Type
from connectors.postgres.value_converters import ValueConversionError
from connectors.relational.temporal import civil_from_days, days_from_civil

from ._helpers import conv, json_of


def test_timestamp_6_is_micro_timestamp() -> None:  # item 54
    c = conv("timestamp", scale=6)
    assert c.schema.name == "io.debezium.time.MicroTimestamp" and c.schema.type is Type.INT64
    assert c.from_text("2018-06-20 15:13:16.945104") == 1529507596945104


def test_timestamp_3_and_connect_mode() -> None:  # item 55
    c = conv("timestamp", scale=3)
    assert c.schema.name == "io.debezium.time.Timestamp"
    assert c.from_text("2018-06-20 15:13:16.945") == 1529507596945
    k = conv("timestamp", scale=6, time_precision_mode="connect")
    assert k.schema.name == "org.apache.kafka.connect.data.Timestamp"
    value = k.from_text("2018-06-20 15:13:16.945104")
    assert value == dt.datetime(2018, 6, 20, 15, 13, 16, 945000)
    assert '"f":1529507596945' in json_of(k.schema, value)


def test_unconstrained_timestamp_is_micro() -> None:
    assert conv("timestamp").schema.name == "io.debezium.time.MicroTimestamp"
    assert conv("timestamp", scale=0).schema.name == "io.debezium.time.Timestamp"


def test_time() -> None:  # item 56
    c = conv("time", scale=6)
    assert c.schema.name == "io.debezium.time.MicroTime" and c.from_text("10:15:30.123456") == 36930123456
    t3 = conv("time", scale=3)
    assert t3.schema.name == "io.debezium.time.Time" and t3.schema.type is Type.INT32
    assert t3.from_text("10:15:30.123") == 36930123
    atm = conv("time", scale=3, time_precision_mode="adaptive_time_microseconds")
    assert atm.schema.name == "io.debezium.time.MicroTime" and atm.from_text("10:15:30.123") == 36930123000
    k = conv("time", time_precision_mode="connect")
    assert k.schema.name == "org.apache.kafka.connect.data.Time" and k.schema.type is Type.INT32
    assert k.from_text("10:15:30.123456") == dt.time(10, 15, 30, 123000)
    assert conv("time").from_text("24:00:00") == 86_400_000_000


def test_date() -> None:  # item 57, Appendix A.1
    c = conv("date")
    assert c.schema.name == "io.debezium.time.Date" and c.schema.type is Type.INT32
    assert c.from_text("1970-01-10") == 9
    assert c.from_text("2024-01-02") == 19724
    assert c.from_text("1969-12-31") == -1
    assert c.from_text("0001-01-01 BC") == days_from_civil(0, 1, 1)
    assert c.from_text("0044-03-15 BC") == days_from_civil(-43, 3, 15)
    assert c.from_text("infinity") == -2147472692
    assert c.from_text("-infinity") == -2147472691
    k = conv("date", time_precision_mode="connect")
    assert k.schema.name == "org.apache.kafka.connect.data.Date" and k.from_text("2024-01-02") == dt.date(2024, 1, 2)
    assert k.from_text("0044-03-15 BC") == days_from_civil(-43, 3, 15)  # outside datetime.date


def test_calendar_round_trip() -> None:
    for days in (-2_000_000, -719_529, -1, 0, 19_724, 2_932_896, 1_000_000_000):
        assert days_from_civil(*civil_from_days(days)) == days
    assert days_from_civil(2000, 2, 29) == (dt.date(2000, 2, 29) - dt.date(1970, 1, 1)).days


def test_timestamptz_is_zoned_timestamp_in_utc() -> None:  # item 58, Appendix A.1
    c = conv("timestamptz", scale=6)
    assert c.schema.name == "io.debezium.time.ZonedTimestamp" and c.schema.type is Type.STRING
    assert c.from_text("2018-06-20 15:13:16.945104+02") == "2018-06-20T13:13:16.945104Z"
    assert c.from_text("2024-01-02 03:04:05.123456+00") == "2024-01-02T03:04:05.123456Z"
    assert c.from_text("1970-01-01 00:00:00+00") == "1970-01-01T00:00:00.000000Z"
    assert c.from_text("2018-06-20 06:13:16.5-07") == "2018-06-20T13:13:16.500000Z"
    assert c.from_text("2020-01-01 05:30:00+05:30") == "2020-01-01T00:00:00.000000Z"
    assert c.from_text("1849-12-31 16:07:02-07:52:58") == "1850-01-01T00:00:00.000000Z"
    assert c.from_text("0044-03-15 10:00:00-07:52:58 BC") == "-0043-03-15T17:52:58.000000Z"
    assert c.from_text("0001-01-01 00:00:00+00 BC") == "0000-01-01T00:00:00.000000Z"
    assert c.from_text("10000-01-01 00:00:00+00") == "+10000-01-01T00:00:00.000000Z"
    assert c.from_text("infinity") == "infinity"
    assert c.from_text("-infinity") == "-infinity"


def test_timestamptz_fraction_width_follows_precision() -> None:
    assert conv("timestamptz", scale=3).from_text("2020-01-01 10:00:00.12+00") == "2020-01-01T10:00:00.120Z"
    assert conv("timestamptz", scale=0).from_text("2020-01-01 10:00:00+00") == "2020-01-01T10:00:00Z"
    assert conv("timestamptz").from_text("2020-01-01 10:00:00+00") == "2020-01-01T10:00:00.000000Z"


def test_timestamp_infinity() -> None:  # item 66
    assert conv("timestamp").from_text("infinity") == 9223372036825200000
    assert conv("timestamp").from_text("-infinity") == -9223372036832400000
    assert conv("timestamp", scale=3).from_text("infinity") == 9223372036825200
    assert conv("timestamp", time_precision_mode="connect").from_text("infinity") == 9223372036825200


def test_timestamp_bc_and_pre_epoch() -> None:
    c = conv("timestamp")
    assert c.from_text("1969-12-31 23:59:59.999999") == -1
    assert c.from_text("0044-03-15 12:00:00 BC") == days_from_civil(-43, 3, 15) * 86_400_000_000 + 43_200_000_000
    assert conv("timestamp", scale=3).from_text("1969-12-31 23:59:59.999") == -1
    assert conv("timestamp", time_precision_mode="connect").from_text("1969-12-31 23:59:59.9995") == dt.datetime(
        1969, 12, 31, 23, 59, 59, 999000
    )


def test_timetz_is_zoned_time_in_utc() -> None:
    c = conv("timetz")
    assert c.schema.name == "io.debezium.time.ZonedTime"
    assert c.from_text("15:13:16.945104+02") == "13:13:16.945104Z"
    assert c.from_text("10:15:30.5+05:30") == "04:45:30.5Z"
    assert c.from_text("01:00:00+02") == "23:00:00Z"
    assert c.from_text("23:30:00-01") == "00:30:00Z"
    # OffsetTime resolves hour 24 to the next midnight, the day dropped (real Debezium 3.6: 00:00:00Z)
    assert c.from_text("24:00:00+00") == "00:00:00Z"
    assert c.from_text("24:00:00-15:59") == "15:59:00Z"


@pytest.mark.parametrize(
    ("type_name", "text"), [("date", "2024/01/02"), ("time", "ab:cd"), ("timestamptz", "2024-01-02")]
)
def test_garbage_is_a_data_error(type_name: str, text: str) -> None:
    if type_name == "timestamptz":
        assert conv(type_name).from_text(text) == "2024-01-02T00:00:00.000000Z"  # date-only (defaults) is UTC
        return
    with pytest.raises(ValueConversionError):
        conv(type_name).from_text(text)


# Issue 14, item 3: every time.precision.mode as Debezium 3.6.3's JdbcValueConverters (values from running
# Debezium's converters on the same texts), out-of-range values included.
@pytest.mark.parametrize(
    ("mode", "name", "texts", "expected"),
    [
        (
            "adaptive",
            "io.debezium.time.MicroTimestamp",
            ["infinity", "-infinity", "294276-12-31 23:59:59.999999", "294247-01-10 04:00:54.775808", "4713-01-01 BC"],
            [9223372036825200000, -9223372036832400000, -9223372036853775810, -(2**63), -210863520000000000],
        ),
        (
            "microseconds",
            "io.debezium.time.MicroTimestamp",
            ["294247-01-10 04:00:54.775807", "294247-01-10 04:00:55", "1969-12-31 23:59:59.999999"],
            [2**63 - 1, 2**63 - 1, -1],
        ),
        (
            "nanoseconds",
            "io.debezium.time.NanoTimestamp",
            ["infinity", "-infinity", "2262-04-11 23:47:16.854775", "2262-04-11 23:47:16.854776", "1677-09-22 00:00:00",
             "1677-09-21 00:12:43.145225", "1969-12-31 23:59:59.999999"],
            [2**63 - 1, -(2**63), 9223372036854775000, None, -9223286400000000000, None, -1000],
        ),
        (
            "isostring",
            "io.debezium.time.IsoTimestamp",
            ["infinity", "-infinity", "294276-12-31 23:59:59.999999", "0001-01-01 00:00:00 BC", "2024-02-29 12:34:56"],
            ["+294247-01-10T04:00:25.2Z", "-290308-12-21T19:59:27.6Z", "+294276-12-31T23:59:59.999999Z",
             "0000-01-01T00:00:00Z", "2024-02-29T12:34:56Z"],
        ),
    ],
)  # fmt: skip
def test_timestamp_modes_and_overflow(mode: str, name: str, texts: list[str], expected: list[object]) -> None:
    c = conv("timestamp", scale=6, time_precision_mode=mode)
    assert c.schema.name == name
    assert [c.from_text(t) for t in texts] == expected


@pytest.mark.parametrize(
    ("mode", "type_name", "texts", "expected"),
    [
        ("nanoseconds", "time", ["24:00:00", "23:59:59.999999"], [86400000000000, 86399999999000]),
        ("microseconds", "time", ["24:00:00", "00:00:00.000001"], [86400000000, 1]),
        ("isostring", "time", ["24:00:00", "12:34:56.789", "00:00:00"], ["00:00:00Z", "12:34:56.789Z", "00:00:00Z"]),
        ("isostring", "date", ["infinity", "-infinity", "10000-01-01", "4713-01-01 BC", "0001-01-01 BC"],
         ["-5877611-06-21Z", "-5877611-06-22Z", "+10000-01-01Z", "-4712-01-01Z", "0000-01-01Z"]),
        ("nanoseconds", "date", ["5874897-12-31", "infinity"], [2145042905, -2147472692]),
    ],
)  # fmt: skip
def test_time_and_date_modes(mode: str, type_name: str, texts: list[str], expected: list[object]) -> None:
    c = conv(type_name, scale=6, time_precision_mode=mode)
    assert [c.from_text(t) for t in texts] == expected
    names = {"nanoseconds": "io.debezium.time.NanoTime", "microseconds": "io.debezium.time.MicroTime"}
    if type_name == "time":
        assert c.schema.name == names.get(mode, "io.debezium.time.IsoTime")
    else:
        assert c.schema.name == ("io.debezium.time.IsoDate" if mode == "isostring" else "io.debezium.time.Date")
