"""Lsn: parsed and printed exactly as PostgreSQL's pg_lsn, ordered, immutable, int-convertible."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from connectors.postgres.lsn import Lsn

u64 = st.integers(min_value=0, max_value=(1 << 64) - 1)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0/0", 0),
        ("16/B374D848", (0x16 << 32) | 0xB374D848),
        ("0/15413B0", 0x15413B0),
        ("FFFFFFFF/FFFFFFFF", (1 << 64) - 1),
        ("1/0", 1 << 32),
    ],
)
def test_parse_and_print_like_postgres(text: str, value: int) -> None:
    lsn = Lsn.parse(text)
    assert lsn.value == value == int(lsn) == lsn.to_int()
    assert str(lsn) == text
    assert repr(lsn) == f"Lsn('{text}')"


def test_parse_accepts_lower_case_and_leading_zeros_like_pg_lsn_in() -> None:
    assert Lsn.parse("16/b374d848") == Lsn.parse("16/B374D848")
    assert str(Lsn.parse("00000016/0000000A")) == "16/A"


@pytest.mark.parametrize(
    "text",
    ["", "/", "0", "0/", "/0", "1/2/3", "G/0", "0/123456789", "123456789/0", " 1/0", "1/0 ", "+1/0", "1_0/0", "-1/0"],
)
def test_parse_rejects_what_pg_lsn_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid LSN"):
        Lsn.parse(text)


def test_range_and_type_checks() -> None:
    with pytest.raises(ValueError):
        Lsn(-1)
    with pytest.raises(ValueError):
        Lsn(1 << 64)
    with pytest.raises(TypeError):
        Lsn(True)
    with pytest.raises(TypeError):
        Lsn("0/0")  # type: ignore[arg-type]


def test_immutable_hashable_and_picklable() -> None:
    lsn = Lsn.parse("1/2")
    with pytest.raises(AttributeError):
        lsn._value = 3
    with pytest.raises(AttributeError):
        lsn.other = 3
    assert {lsn: 1}[Lsn.parse("1/2")] == 1
    assert pickle.loads(pickle.dumps(lsn)) == lsn
    assert copy.deepcopy(lsn) == lsn


def test_zero_is_falsy_and_constants() -> None:
    assert not Lsn.ZERO
    assert Lsn(1)
    assert str(Lsn.MAX) == "FFFFFFFF/FFFFFFFF"


def test_not_equal_to_plain_ints() -> None:
    assert Lsn(5) != 5
    with pytest.raises(TypeError):
        _ = Lsn(5) < 6  # type: ignore[operator]


def test_arithmetic() -> None:
    assert Lsn.parse("0/FFFFFFFF") + 1 == Lsn.parse("1/0")
    assert Lsn.parse("1/0") - Lsn.parse("0/FFFFFFFF") == 1


@given(u64)
def test_text_round_trip(value: int) -> None:
    lsn = Lsn.from_int(value)
    assert Lsn.parse(str(lsn)) == lsn
    assert Lsn.parse(str(lsn).lower()) == lsn
    assert Lsn.from_int(lsn.to_int()) == lsn


@given(u64)
def test_printed_form_matches_postgres_format(value: int) -> None:
    assert str(Lsn(value)) == f"{value >> 32:X}/{value & 0xFFFFFFFF:X}"


@given(u64, u64)
def test_order_matches_the_integers(a: int, b: int) -> None:
    la, lb = Lsn(a), Lsn(b)
    assert (la < lb) == (a < b)
    assert (la <= lb) == (a <= b)
    assert (la > lb) == (a > b)
    assert (la >= lb) == (a >= b)
    assert (la == lb) == (a == b)
    assert (hash(la) == hash(lb)) or a != b
    assert sorted([la, lb]) == [Lsn(x) for x in sorted([a, b])]


def test_a_wire_lsn_is_an_ordinary_lsn() -> None:
    from connectors.postgres.lsn import wire_lsn

    for value in (0, 1, 0x16_B374D848, (1 << 64) - 1):
        lsn = wire_lsn(value)
        assert type(lsn) is Lsn and lsn == Lsn(value) and hash(lsn) == hash(Lsn(value))
        assert int(lsn) == value and str(lsn) == str(Lsn(value))
