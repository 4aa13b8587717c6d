"""pgoutput's TupleData parser in C (`_tupledata.c`) against the Python reference (`_tuple_data_py`).

Both must give the same values and next position for every well-formed TupleData, and the same exception
(type and message) for every malformed or truncated one: random tuples, cut at every length, and random bytes.
"""

from __future__ import annotations

import pickle
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


def _decoded(buf: bytes, in_stream: bool = False) -> Any:
    decoder = pgoutput.PgOutputDecoder()
    decoder._in_stream = in_stream
    try:
        return decoder.decode(buf)
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e)


def _reference(buf: bytes, mp: pytest.MonkeyPatch, in_stream: bool = False) -> Any:
    """The pure-Python decoder's answer: no C row changes, the Python TupleData parser."""
    with mp.context() as m:
        m.setattr(pgoutput, "_tuple_data", pgoutput._tuple_data_py)
        m.setattr(pgoutput, "_load_row_change", lambda: None)
        return _decoded(buf, in_stream)


def _row_messages(tup: bytes, other: bytes, head: bytes) -> list[bytes]:
    """Every shape of Insert, Update and Delete (`head`: the xid when in a stream, then the relation oid)."""
    return [
        b"I" + head + b"N" + tup,
        b"U" + head + b"N" + tup,
        b"U" + head + b"K" + other + b"N" + tup,
        b"U" + head + b"O" + other + b"N" + tup,
        b"D" + head + b"K" + tup,
        b"D" + head + b"O" + tup,
        b"I" + head + b"X" + tup,  # wrong markers and missing parts: errors
        b"U" + head + b"K" + other,
        b"U" + head + b"O" + other + b"X" + tup,
        b"D" + head + b"N" + tup,
    ]


@settings(max_examples=300, deadline=None)
@given(
    values=values,
    others=values,
    cut=st.integers(0, 400),
    noise=st.binary(max_size=3),
    in_stream=st.booleans(),
)
def test_the_decoder_answers_alike_with_either_parser(
    values: list[Any],
    others: list[Any],
    cut: int,
    noise: bytes,
    in_stream: bool,
    monkeypatch_module: pytest.MonkeyPatch,
) -> None:
    """Insert, Update and Delete messages of every shape, whole, cut short or with trailing bytes, in and out of a
    streamed transaction: the C path gives the same message, or leaves it to Python for the same error."""
    head = (struct.pack("!I", 7781) if in_stream else b"") + struct.pack("!I", 16384)
    for msg in _row_messages(_encode(values), _encode(others), head):
        for buf in (msg, msg[: min(cut, len(msg))], msg + noise):
            c = _decoded(buf, in_stream)
            assert c == _reference(buf, monkeypatch_module, in_stream)
            if not isinstance(c, tuple):
                assert type(c) is type(_reference(buf, monkeypatch_module, in_stream))


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from([b"I", b"U", b"D"]), rest=st.binary(max_size=40), in_stream=st.booleans())
def test_random_row_changes_decode_alike(
    kind: bytes, rest: bytes, in_stream: bool, monkeypatch_module: pytest.MonkeyPatch
) -> None:
    buf = kind + rest
    assert _decoded(buf, in_stream) == _reference(buf, monkeypatch_module, in_stream)


def test_c_row_changes_are_ordinary_messages() -> None:
    tup = _encode(["abc", None, UNCHANGED_TOAST, b"\x01"])
    buf = b"U" + struct.pack("!I", 16384) + b"O" + tup + b"N" + tup
    row_change = pgoutput._load_row_change()
    assert row_change is not None, "_tupledata is not built: run `pip install -e .`"
    msg = row_change(buf, False)
    assert msg == pgoutput.Update(None, 16384, None, ("abc", None, UNCHANGED_TOAST, b"\x01"), msg.new)  # type: ignore[union-attr]
    assert type(msg) is pgoutput.Update and hash(msg) == hash(pickle.loads(pickle.dumps(msg)))
    assert pickle.loads(pickle.dumps(msg)) == msg
    assert row_change(b"B" + bytes(20), False) is None  # not a row change: the Python decoder's
    not_utf8 = struct.pack("!h", 1) + b"t" + struct.pack("!I", 1) + b"\xff"
    assert row_change(b"I" + struct.pack("!I", 1) + b"N" + not_utf8, False) is None


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
