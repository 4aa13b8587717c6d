"""Pure tests of connect_worker.api.javacompat (literal expectations from the spec, §2.1 and §3.2)."""

from __future__ import annotations

import math

from connect_worker.api.javacompat import (
    jackson_quote,
    java_bigdecimal_to_string,
    java_double_to_string,
    java_float_to_string,
    java_hashmap_order,
    java_string_hash,
)


def test_string_hash() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB")
    assert java_string_hash("polygenelubricants") == -2147483648


def test_double_to_string() -> None:
    cases = {
        1.0e10: "1.0E10",
        1.0e-7: "1.0E-7",
        100.0: "100.0",
        1.1: "1.1",
        -0.0: "-0.0",
        0.001: "0.001",
        1e7: "1.0E7",
        5e-324: "4.9E-324",
        math.nan: "NaN",
        math.inf: "Infinity",
        -math.inf: "-Infinity",
    }
    for v, s in cases.items():
        assert java_double_to_string(v) == s


def test_float_to_string() -> None:
    assert java_float_to_string(1.1) == "1.1"
    assert java_float_to_string(1e10) == "1.0E10"
    assert java_float_to_string(-0.0) == "-0.0"
    assert java_float_to_string(0.0) == "0.0"
    assert java_float_to_string(1.401298464324817e-45) == "1.4E-45"


def test_jackson_quote() -> None:
    assert jackson_quote('a"b\\c/') == '"a\\"b\\\\c/"'
    assert jackson_quote("é\u2028") == '"é\u2028"'
    assert jackson_quote("😀") == '"\\uD83D\\uDE00"'
    assert jackson_quote("\x01\x1f\t\n\r\b\f") == '"\\u0001\\u001F\\t\\n\\r\\b\\f"'


def test_bigdecimal_to_string() -> None:
    from decimal import Decimal

    assert java_bigdecimal_to_string(Decimal("1E+3")) == "1E+3"
    assert java_bigdecimal_to_string(Decimal("0.0000001")) == "1E-7"
    assert java_bigdecimal_to_string(Decimal("-0.00")) == "0.00"


def test_hashmap_order() -> None:
    assert list(java_hashmap_order({"server": 1})) == ["server"]
    order = list(java_hashmap_order(dict.fromkeys(["lsn_proc", "messageType", "lsn_commit", "lsn", "txId", "ts_usec"])))
    assert sorted(order) == sorted(["lsn_proc", "messageType", "lsn_commit", "lsn", "txId", "ts_usec"])
