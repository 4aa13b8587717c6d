"""pgoutput's TupleData parser in C (`_tupledata.c`) against the Python reference (`_tuple_data_py`).

Both must give the same values and next position for every well-formed TupleData, and the same exception
(type and message) for every malformed or truncated one: random tuples, cut at every length, and random bytes.
"""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.postgres.protocol import pgoutput
from connectors.postgres.protocol.toast import UNCHANGED_TOAST


def test_the_extension_is_built() -> None:
    assert pgoutput._tuple_data is not pgoutput._tuple_data_py, "_tupledata is not built: run `pip install -e .`"


values = st.lists(
    st.one_of(st.none(), st.just(UNCHANGED_TOAST), st.text(max_size=30), st.binary(max_size=30)), max_size=12
)


def _encode(values: list[Any]) -> bytes:
    out = [struct.pack("!h", len(values))]
    for v in values:
        if v is None:
            out.append(b"n")
        elif v is UNCHANGED_TOAST:
            out.append(b"u")
        elif isinstance(v, str):
            data = v.encode("utf-8")
            out.append(b"t" + struct.pack("!I", len(data)) + data)
        else:
            out.append(b"b" + struct.pack("!I", len(v)) + v)
    return b"".join(out)


def _outcome(parse: Any, buf: bytes, pos: int, size: int) -> Any:
    try:
        return parse(buf, pos, size)
    except (IndexError, struct.error):
        return "truncated"  # the Python reference raises either; the decoder reports both as one error
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e)


def _decoded(buf: bytes) -> Any:
    try:
        return pgoutput.PgOutputDecoder().decode(buf)
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e)


@settings(max_examples=300, deadline=None)
@given(values=values, cut=st.integers(0, 400), noise=st.binary(max_size=3))
def test_the_decoder_answers_alike_with_either_parser(
    values: list[Any], cut: int, noise: bytes, monkeypatch_module: pytest.MonkeyPatch
) -> None:
    """Insert, Update and Delete messages, whole, cut short or with trailing bytes: same message or error."""
    tup = _encode(values)
    oid = struct.pack("!I", 16384)
    for msg in (b"I" + oid + b"N" + tup, b"U" + oid + b"O" + tup + b"N" + tup, b"D" + oid + b"K" + tup):
        for buf in (msg, msg[: min(cut, len(msg))], msg + noise):
            c = _decoded(buf)
            with monkeypatch_module.context() as mp:
                mp.setattr(pgoutput, "_tuple_data", pgoutput._tuple_data_py)
                assert _decoded(buf) == c


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


@settings(max_examples=300, deadline=None)
@given(values=values, prefix=st.binary(max_size=5), suffix=st.binary(max_size=5))
def test_well_formed_tuples_parse_alike(values: list[Any], prefix: bytes, suffix: bytes) -> None:
    buf = prefix + _encode(values) + suffix
    got = pgoutput._tuple_data(buf, len(prefix), len(buf))
    assert got == pgoutput._tuple_data_py(buf, len(prefix), len(buf))
    assert got == (tuple(values), len(buf) - len(suffix))


@settings(max_examples=150, deadline=None)
@given(values=values)
def test_every_truncation_fails_alike(values: list[Any]) -> None:
    full = _encode(values)
    for cut in range(len(full)):
        buf = full[:cut]
        assert _outcome(pgoutput._tuple_data, buf, 0, len(buf)) == _outcome(pgoutput._tuple_data_py, buf, 0, len(buf))


@settings(max_examples=500, deadline=None)
@given(buf=st.binary(max_size=40), pos=st.integers(0, 6))
def test_random_bytes_fail_or_parse_alike(buf: bytes, pos: int) -> None:
    got = _outcome(pgoutput._tuple_data, buf, pos, len(buf))
    assert got == _outcome(pgoutput._tuple_data_py, buf, pos, len(buf))


def test_errors_name_what_is_wrong() -> None:
    bad_kind = struct.pack("!h", 1) + b"z"
    assert _outcome(pgoutput._tuple_data, bad_kind, 0, 3)[1] == "unknown TupleData kind 0x7a"
    too_long = struct.pack("!h", 1) + b"t" + struct.pack("!I", 9) + b"abc"
    assert _outcome(pgoutput._tuple_data, too_long, 0, len(too_long))[1] == (
        "text value of 9 bytes runs past the end of the message"
    )
    negative = struct.pack("!h", -2)
    assert _outcome(pgoutput._tuple_data, negative, 0, 2)[1] == "negative column count -2 in TupleData"
    not_utf8 = struct.pack("!h", 1) + b"t" + struct.pack("!I", 1) + b"\xff"
    assert _outcome(pgoutput._tuple_data, not_utf8, 0, len(not_utf8))[0] is UnicodeDecodeError
