"""connect_worker.api.java_serialization against ObjectOutputStream / ObjectInputStream in a JVM
(tests/java/JavaSerializationGolden.java) on the Object[] chunk keys of Debezium's incremental snapshots.

Edge values and seeded random arrays go both ways: our bytes equal the JVM's, the JVM reads our bytes back to the same
values, we read the JVM's bytes to the same values and write them again byte for byte. Streams whose instance graph
the writer does not model (one instance used twice) and mutated streams check the reader only.
"""

from __future__ import annotations

import math
import random
import struct
import uuid
from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api.java_serialization import (
    JavaFloat,
    JavaInteger,
    JavaLong,
    JavaShort,
    JavaValue,
    decode_key,
    encode_key,
)
from tests.java_golden.conftest import RunJava

pytestmark = pytest.mark.java

PROGRAM = "JavaSerializationGolden.java"
Key = list[JavaValue] | None


# -- the typed JSON elements of JavaSerializationGolden.java --------------------------------------------------------
def to_json(v: JavaValue) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return {"t": "Boolean", "v": v}
    if isinstance(v, float):
        return {"t": "Double", "v": str(struct.unpack(">q", struct.pack(">d", v))[0])}
    if isinstance(v, JavaFloat):
        return {"t": "Float", "v": struct.unpack(">i", struct.pack(">f", v.value))[0]}
    if isinstance(v, JavaInteger):
        return {"t": "Integer", "v": v.value}
    if isinstance(v, JavaLong):
        return {"t": "Long", "v": v.value}
    if isinstance(v, JavaShort):
        return {"t": "Short", "v": v.value}
    if isinstance(v, str):
        units = v.encode("utf-16-be", "surrogatepass")
        return {"t": "String", "v": [int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2)]}
    if isinstance(v, Decimal):
        sign, digits, exponent = v.as_tuple()
        assert isinstance(exponent, int)
        unscaled = int("".join(map(str, digits)))
        return {"t": "BigDecimal", "v": str(-unscaled if sign else unscaled), "s": -exponent}
    if isinstance(v, uuid.UUID):
        return {"t": "UUID", "v": str(v)}
    assert isinstance(v, bytes)
    return {"t": "bytes", "v": v.hex()}


def key_json(key: Key) -> Any:
    return None if key is None else [to_json(v) for v in key]


# -- edge values and random arrays ----------------------------------------------------------------------------------
def _f64(bits: int) -> float:
    return float(struct.unpack(">d", bits.to_bytes(8, "big"))[0])


def _f32(bits: int) -> JavaFloat:
    return JavaFloat(struct.unpack(">f", bits.to_bytes(4, "big"))[0])


def _dec(unscaled: int, scale: int) -> Decimal:
    return Decimal(f"{unscaled}E{-scale}")


EDGE: list[JavaValue] = [
    None,
    *(JavaInteger(v) for v in (0, 1, -1, 127, 128, -128, -129, 2**31 - 1, -(2**31))),
    *(JavaLong(v) for v in (0, 127, 128, -128, -129, 2**31, 2**63 - 1, -(2**63))),
    *(JavaShort(v) for v in (0, 127, 128, -128, -129, 2**15 - 1, -(2**15))),
    True,
    False,
    *(0.0, -0.0, 1.0, -1.5, 0.1, math.nan, math.inf, -math.inf, 5e-324, -5e-324, 2.2250738585072009e-308),
    *(2.2250738585072014e-308, 1.7976931348623157e308, 1e23),
    *(_f32(b) for b in (0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000)),
    *(JavaFloat(v) for v in (math.nan, 1.0, -2.5, 0.1000000014901161193847656)),
    *("", "a", "\x00", "a\x00b", "é", "日本語", "😀", "a😀b\U0010ffff", "\uffff\ud7ff\ue000"),
    "\u2028\x7f\x80\u07ff\u0800",
    *("\ud800", "x\udc00y", "\ud83d\ude00"),  # lone surrogates; a pair spelt as two code points
    *("x" * 65535, "x" * 65536, "é" * 32767 + "x", "é" * 32768, "日" * 21845, "日" * 21846),  # 65535 / 65536 bytes
    *("😀" * 20000, "\x00" * 40000),
    *(Decimal(s) for s in ("0", "0E+5", "0E-5", "0.000", "-1.5", "1E-30", "123456789012345678901234567890.123")),
    *(Decimal(s) for s in ("1", "-1", "16", "-16", "17", "-17", "1.6", "9223372036854775807", "9223372036854775808")),
    *(Decimal(s) for s in ("-9223372036854775808", "-9223372036854775809", "1E+10", "-12E+300", "255", "256")),
    *(_dec(u, s) for u, s in ((1, 2**31 - 1), (-7, -(2**31)), (10**400 + 1, 17), (-(2**521) + 3, -3))),
    uuid.UUID(int=0),
    uuid.UUID(int=2**128 - 1),
    uuid.UUID("01234567-89ab-cdef-fedc-ba9876543210"),
    uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
    *(b"", b"\x00", b"\xff\x80\x7f", bytes(range(256)), b"\x5a" * 70000),
]

_ALPHABET = "abcXYZ019 _-é日\x00\u2028😀\U0010ffff\uffff"


def random_value(rng: random.Random) -> JavaValue:
    kind = rng.randrange(12)
    if kind == 0:
        return None
    if kind == 1:
        return JavaInteger(rng.choice([rng.randint(-200, 200), rng.randint(-(2**31), 2**31 - 1)]))
    if kind == 2:
        return JavaLong(rng.choice([rng.randint(-200, 200), rng.randint(-(2**63), 2**63 - 1)]))
    if kind == 3:
        return JavaShort(rng.choice([rng.randint(-200, 200), rng.randint(-(2**15), 2**15 - 1)]))
    if kind == 4:
        return rng.random() < 0.5
    if kind == 5:
        d = _f64(rng.getrandbits(64)) if rng.random() < 0.7 else rng.uniform(-1e6, 1e6)
        return math.nan if d != d else d  # the JVM writes one NaN
    if kind == 6:
        f = _f32(rng.getrandbits(32))
        return JavaFloat(math.nan) if f.value != f.value else f
    if kind == 7:
        return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 20)))
    if kind in (8, 9):
        size = rng.choice([5, 20, 64, 200, 1000])
        unscaled = rng.choice([rng.randint(-20, 20), rng.randint(-(2**size), 2**size)])
        return _dec(unscaled, rng.choice([0, 0, rng.randint(-40, 40), rng.randint(-(2**31), 2**31 - 1)]))
    if kind == 10:
        return uuid.UUID(int=rng.getrandbits(128))
    return rng.randbytes(rng.randint(0, 20))


def _cases() -> list[Key]:
    rng = random.Random(20260512)
    cases: list[Key] = [None, []]
    cases += [[v] for v in EDGE]
    small = [v for v in EDGE if not (isinstance(v, str | bytes) and len(v) > 100)]
    for n in range(2, 7):  # edge values mixed, with classes repeated
        cases += [[rng.choice(small) for _ in range(n)] for _ in range(40)]
    cases += [[random_value(rng) for _ in range(rng.randint(0, 6))] for _ in range(1500)]
    # the JDK-cached instances, repeated: Integer/Long/Short -128..127, Booleans, BigInteger -16..16 inside BigDecimals
    cases += [
        [JavaInteger(5), JavaInteger(5), JavaLong(5), JavaShort(5), JavaLong(5), JavaShort(5)],
        [JavaInteger(127), JavaInteger(127), JavaInteger(128), JavaInteger(128), JavaInteger(-128), JavaInteger(-128)],
        [True, False, True, False, None, True],
        [Decimal("1.5"), Decimal("0.15"), Decimal("15"), Decimal("1.6"), Decimal("-1.5"), Decimal("1.7")],
        [Decimal("0"), Decimal("0E+5"), Decimal("0.00"), Decimal("16E-3"), Decimal("-16"), Decimal("-17")],
        [Decimal("5"), JavaInteger(5), b"\x05", Decimal("5"), b"\x05", "5"],
        ["a", "a", "a", 1.0, 1.0, JavaFloat(1.0)],
        [uuid.UUID(int=7), uuid.UUID(int=7), b"", b"", Decimal("123456789012345678901234567890"), Decimal("1E-30")],
    ]
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def jvm_hex(run_java: RunJava) -> list[str]:
    answers = run_java(PROGRAM, [{"op": "write", "values": key_json(k)} for k in CASES])
    return [a["hex"] for a in answers]


def _first(bad: list[Any], total: int) -> str:
    return f"{len(bad)}/{total} differ, first: {str(bad[0])[:2000]}" if bad else ""


def test_encode_matches_jvm(jvm_hex: list[str]) -> None:
    bad = [(k, h, encode_key(k)) for k, h in zip(CASES, jvm_hex, strict=True) if encode_key(k) != h]
    assert not bad, _first(bad, len(CASES))


def _cached(v: JavaValue) -> object:
    """The JDK-cached instance reading gives v, if any: Integer/Long/Short.valueOf -128..127 and Boolean.valueOf,
    written as one instance, and "" (ObjectInputStream reads every empty String as the one literal "", so a key
    with two empty Strings that a JVM reads and writes again gains a back-reference)."""
    if isinstance(v, bool):
        return (bool, v)
    if v == "":
        return v
    if isinstance(v, JavaInteger | JavaLong | JavaShort) and -128 <= v.value <= 127:
        return v
    return None


def _expected_same(key: list[JavaValue]) -> list[int]:
    keys = [_cached(v) for v in key]
    return [next((j for j in range(i) if keys[i] is not None and keys[j] == keys[i]), -1) for i in range(len(key))]


def test_jvm_reads_our_bytes(run_java: RunJava) -> None:
    """Same values, and the same elements are one instance in the JVM (back-references resolved as Java does)."""
    answers = run_java(PROGRAM, [{"op": "read", "hex": encode_key(k)} for k in CASES])
    bad = [
        (k, a)
        for k, a in zip(CASES, answers, strict=True)
        if a.get("values", "error") != key_json(k) or (k is not None and a["same"] != _expected_same(k))
    ]
    assert not bad, _first(bad, len(CASES))


def test_we_read_jvm_bytes(jvm_hex: list[str]) -> None:
    bad = []
    for key, h in zip(CASES, jvm_hex, strict=True):
        got = decode_key(h)
        if key_json(got) != key_json(key) or encode_key(got) != h:
            bad.append((key, got))
    assert not bad, _first(bad, len(CASES))


def test_bigdecimal_from_string_writes_the_same(run_java: RunJava) -> None:
    """A compact BigDecimal (new BigDecimal(String) up to 18 characters, as a JDBC driver builds one) is written
    the same as the model: its BigInteger, inflated at write time, is BigInteger.valueOf's (shared for -16..16)."""
    rng = random.Random(5)
    texts = ["0", "1.5", "-1.5", "0E+5", "0.00", "1E-30", "16", "-16", "0.17", "123456789012.345678"]
    keys: list[Key] = [[Decimal(t)] for t in texts]
    keys += [[Decimal(rng.choice(texts)) for _ in range(rng.randint(1, 6))] for _ in range(200)]
    keys += [[_dec(rng.randint(-99, 99), rng.randint(-9, 9)) for _ in range(rng.randint(1, 6))] for _ in range(200)]
    answers = run_java(PROGRAM, [{"op": "write", "values": key_json(k), "bd": "string"} for k in keys])
    bad = [(k, a["hex"]) for k, a in zip(keys, answers, strict=True) if encode_key(k) != a["hex"]]
    assert not bad, _first(bad, len(keys))


def test_shared_instances_are_read(run_java: RunJava) -> None:
    """One Java instance in several slots (a back-reference the writer's model never makes) reads as equal values;
    written again it is the same key for the JVM."""
    rng = random.Random(99)
    plans: list[tuple[list[JavaValue], list[int]]] = []
    shareable = [v for v in EDGE if v is not None and not (isinstance(v, str | bytes) and len(v) > 100)]
    for _ in range(300):
        n = rng.randint(2, 6)
        values: list[JavaValue] = [rng.choice(shareable) for _ in range(n)]
        alias = [-1] * n
        for i in range(1, n):
            if rng.random() < 0.5:
                alias[i] = rng.randrange(i)
                values[i] = values[alias[i]]
        plans.append((values, alias))
    written = run_java(PROGRAM, [{"op": "write", "values": key_json(v), "alias": a} for v, a in plans])
    got = [decode_key(w["hex"]) for w in written]
    bad: list[Any] = [(v, g) for (v, _), g in zip(plans, got, strict=True) if key_json(g) != key_json(v)]
    assert not bad, _first(bad, len(plans))
    reread = run_java(PROGRAM, [{"op": "read", "hex": encode_key(g)} for g in got])
    bad = [(v, r) for (v, _), r in zip(plans, reread, strict=True) if r.get("values") != key_json(v)]
    assert not bad, _first(bad, len(plans))
    assert any(w["hex"] != encode_key(g) for w, g in zip(written, got, strict=True))  # the graph did differ


def _one_nan(values: Any) -> Any:
    """Java's equals() sees one NaN per type; a Float NaN's raw bits do not survive a Python float anyway."""
    if not isinstance(values, list):
        return values
    out = []
    for v in values:
        if isinstance(v, dict) and v["t"] == "Double" and math.isnan(_f64(int(v["v"]) & (2**64 - 1))):
            v = {"t": "Double", "v": "nan"}
        elif isinstance(v, dict) and v["t"] == "Float" and math.isnan(_f32_raw(v["v"])):
            v = {"t": "Float", "v": "nan"}
        out.append(v)
    return out


def _f32_raw(bits: int) -> float:
    return float(struct.unpack(">f", (bits & 0xFFFFFFFF).to_bytes(4, "big"))[0])


def test_mutated_streams_never_misread(run_java: RunJava, jvm_hex: list[str]) -> None:
    """Single-byte changes and cuts of JVM streams: whatever we accept, the JVM reads as the same values."""
    rng = random.Random(4242)
    sources = [bytes.fromhex(h) for h in jvm_hex if len(h) < 4000]
    mutants: list[bytes] = []
    for _ in range(3000):
        data = bytearray(rng.choice(sources))
        if rng.random() < 0.15:
            mutants.append(bytes(data[: rng.randrange(len(data))]))
            continue
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(data))
            data[i] = rng.choice([data[i] ^ (1 << rng.randrange(8)), rng.randrange(256), 0x71, 0x70, 0x78])
        mutants.append(bytes(data))
    ours: list[Any] = []
    for m in mutants:
        try:
            ours.append(_one_nan(key_json(decode_key(m.hex()))))
        except ValueError as e:
            assert str(e).startswith("Java serialization: "), e
            ours.append("rejected")
    answers = run_java(PROGRAM, [{"op": "read", "hex": m.hex()} for m in mutants])
    bad = [
        (m.hex(), o, a)
        for m, o, a in zip(mutants, ours, answers, strict=True)
        if o != "rejected" and ("error" in a or _one_nan(a.get("values")) != o)
    ]
    assert not bad, _first(bad, len(mutants))
    accepted = sum(o != "rejected" for o in ours)
    assert accepted > 100  # the mutations did not all break the stream
