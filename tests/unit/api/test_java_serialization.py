"""connect_worker.api.java_serialization without a JVM: bytes the JVM wrote (copied from
tests/java/JavaSerializationGolden.java runs), round trips, the instance-sharing model, refusals."""

from __future__ import annotations

import math
import re
import uuid
from decimal import Decimal

import pytest

from connect_worker.api.java_serialization import (
    JavaFloat,
    JavaInteger,
    JavaLong,
    JavaShort,
    JavaValue,
    decode_key,
    deserialize_object_array,
    encode_key,
    serialize_object_array,
)

HEAD = "aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c0200007870"  # Object[] up to its length
INTEGER_DESC = (
    "737200116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c756578"  # TC_OBJECT, Integer
    "7200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b0200007870"  # java.lang.Number
)

# written by the JVM (ObjectOutputStream.writeObject)
JVM_BYTES: list[tuple[list[JavaValue] | None, str]] = [
    (None, "aced000570"),
    ([], HEAD + "00000000"),
    ([JavaInteger(5)], HEAD + "00000001" + INTEGER_DESC + "00000005"),
    (
        [JavaInteger(5), JavaInteger(5), JavaInteger(500), JavaInteger(500), JavaLong(7)],
        HEAD
        + "00000005"
        + INTEGER_DESC
        + "00000005"
        + "71007e0004"  # the same cached Integer 5
        + "7371007e0002000001f4"  # a new Integer 500 (descriptor by reference)
        + "7371007e0002000001f4"  # and another
        + "7372000e6a6176612e6c616e672e4c6f6e673b8be490cc8f23df0200014a000576616c75657871007e0003"  # Long, Number ref
        + "0000000000000007",
    ),
    (["a", "a"], HEAD + "00000002" + "7400016174000161"),
    (
        [uuid.UUID("01234567-89ab-cdef-0123-456789abcdef"), b"\x01\x02", b""],
        HEAD
        + "000000037372000e6a6176612e7574696c2e55554944bc9903f7986d852f0200024a000c6c65617374536967426974734a000b"
        + "6d6f73745369674269747378700123456789abcdef0123456789abcdef757200025b42acf317f8060854e00200007870000000"
        + "0201027571007e000400000000",
    ),
    (
        [True, True, JavaShort(3), 0.0, JavaFloat(0.0)],
        HEAD
        + "00000005737200116a6176612e6c616e672e426f6f6c65616ecd207280d59cfaee0200015a000576616c756578700171007e0003"
        + "7372000f6a6176612e6c616e672e53686f7274684d37133460da5202000153000576616c7565787200106a6176612e6c616e672e"
        + "4e756d62657286ac951d0b94e08b02000078700003737200106a6176612e6c616e672e446f75626c6580b3c24a296bfb04020001"
        + "44000576616c75657871007e000500000000000000007372000f6a6176612e6c616e672e466c6f6174daedc9a2db3cf0ec020001"
        + "46000576616c75657871007e000500000000",
    ),
    (
        [Decimal("1.5"), Decimal("0.15")],
        HEAD
        + "00000002737200146a6176612e6d6174682e426967446563696d616c54c71557f981284f0300024900057363616c654c0006696e"
        + "7456616c7400164c6a6176612f6d6174682f426967496e74656765723b787200106a6176612e6c616e672e4e756d62657286ac95"
        + "1d0b94e08b020000787000000001737200146a6176612e6d6174682e426967496e74656765728cfc9f1fa93bfb1d030006490008"
        + "626974436f756e744900096269744c656e67746849001366697273744e6f6e7a65726f427974654e756d49000c6c6f7765737453"
        + "65744269744900067369676e756d5b00096d61676e69747564657400025b427871007e0004fffffffffffffffffffffffeffffff"
        + "fe00000001757200025b42acf317f8060854e00200007870000000010f78787371007e00020000000271007e000878",
    ),
]


def _same(a: list[JavaValue] | None, b: list[JavaValue] | None) -> bool:
    """Typed equality that tells -0.0 from 0.0 and equates NaNs (as Java's equals)."""
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(
        type(x) is type(y) and (repr(x) == repr(y) if isinstance(x, float) else x == y)
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize(("values", "hex_"), JVM_BYTES, ids=range(len(JVM_BYTES)))
def test_jvm_bytes(values: list[JavaValue] | None, hex_: str) -> None:
    assert encode_key(values) == hex_
    assert _same(decode_key(hex_), values)


ROUND_TRIP: list[list[JavaValue] | None] = [
    None,
    [],
    [None, None],
    [JavaInteger(-(2**31)), JavaInteger(2**31 - 1), JavaLong(-(2**63)), JavaLong(2**63 - 1), JavaShort(-32768)],
    [True, False, True, False],
    [0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, 1.7976931348623157e308],
    [JavaFloat(-0.0), JavaFloat(math.nan), JavaFloat(math.inf), JavaFloat(1.401298464324817e-45)],
    ["", "\x00", "é日", "😀", "\ud800", "x" * 70000, "\x00" * 40000],
    [Decimal("0"), Decimal("0E+5"), Decimal("-1.5"), Decimal("1E-30"), Decimal("123456789012345678901234567890.123")],
    [Decimal("-16"), Decimal("-1.6"), Decimal("17"), Decimal("1.7"), Decimal(f"{10**500}E-2147483647")],
    [Decimal("-7E+2147483648"), Decimal("9223372036854775808"), Decimal("-9223372036854775809")],
    [uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.UUID(int=1), uuid.UUID(int=2**127)],
    [b"", b"", bytes(range(256)), b"\x00" * 70000],
    [JavaInteger(1), JavaLong(1), JavaShort(1), Decimal(1), "1", b"\x01", 1.0, JavaFloat(1.0), True],
]


@pytest.mark.parametrize("values", ROUND_TRIP, ids=range(len(ROUND_TRIP)))
def test_round_trip(values: list[JavaValue] | None) -> None:
    data = serialize_object_array(values)
    back = deserialize_object_array(data)
    assert _same(back, values)
    assert serialize_object_array(back) == data


def test_values_are_typed() -> None:
    assert len({JavaInteger(1), JavaLong(1), JavaShort(1)}) == 3
    assert JavaFloat(math.nan) == JavaFloat(math.nan)
    assert JavaFloat(0.0) != JavaFloat(-0.0)
    got = decode_key(encode_key([JavaLong(3), JavaShort(3), JavaInteger(3)]))
    assert got is not None
    assert [type(v) for v in got] == [JavaLong, JavaShort, JavaInteger]


def test_cached_instances_are_shared() -> None:
    """Integer/Long/Short -128..127 and Booleans are the JDK's cached instances: written once, then referenced."""

    def tail(values: list[JavaValue], n: int) -> str:
        return encode_key(values)[-2 * n :]

    # handles: 0 Object[]'s descriptor, 1 the array, 2 the element class, 3 java.lang.Number, 4 the first element
    assert tail([JavaInteger(127), JavaInteger(127)], 5) == "71007e0004"
    assert tail([JavaInteger(128), JavaInteger(128)], 10) == "7371007e000200000080"  # a second Integer
    assert tail([JavaLong(-128), JavaLong(-128)], 5) == "71007e0004"
    assert tail([JavaShort(-129), JavaShort(-129)], 8) == "7371007e0002ff7f"
    assert tail([True, True], 5) == "71007e0003"  # Boolean has no Number superclass
    assert tail([True, False], 7) == "7371007e000200"
    assert tail([1.0, 1.0], 14) == "7371007e00023ff0000000000000"  # Double.valueOf caches nothing
    # BigDecimal: unscaled 15 is BigInteger.valueOf's cached instance, 17 a new BigInteger each time
    shared = serialize_object_array([Decimal("1.5"), Decimal("0.15")])
    assert shared.endswith(bytes.fromhex("0000000271007e000878"))
    assert len(serialize_object_array([Decimal("1.7"), Decimal("0.17")])) > len(shared) + 20


def test_modified_utf8() -> None:
    def body(s: str) -> bytes:
        return serialize_object_array([s])[len(HEAD) // 2 + 4 :]

    assert body("") == b"\x74\x00\x00"
    assert body("\x00") == b"\x74\x00\x02\xc0\x80"
    assert body("😀") == b"\x74\x00\x06\xed\xa0\xbd\xed\xb8\x80"  # each surrogate as three bytes
    assert body("x" * 65535)[:3] == b"\x74\xff\xff"
    assert body("x" * 65536)[:9] == b"\x7c\x00\x00\x00\x00\x00\x01\x00\x00"  # TC_LONGSTRING
    assert body("é" * 32768)[:9] == b"\x7c" + (65536).to_bytes(8, "big")
    assert decode_key(encode_key(["\ud83d\ude00"])) == ["😀"]  # the same Java string


def test_reader_is_as_lenient_as_java_on_values() -> None:
    boolean = encode_key([True])
    assert boolean.endswith("01")
    assert decode_key(boolean[:-2] + "02") == [True]  # readBoolean: any non-zero byte


def test_refuses_untyped_and_out_of_range() -> None:
    with pytest.raises(TypeError, match="JavaInteger, JavaLong or JavaShort"):
        serialize_object_array([5])  # mypy lets an int pass for a float; the writer does not
    with pytest.raises(TypeError, match="no Java class for a object"):
        serialize_object_array([object()])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="out of range"):
        JavaInteger(2**31)
    with pytest.raises(ValueError, match="out of range"):
        JavaShort(40000)
    with pytest.raises(ValueError, match="out of range"):
        JavaLong(-(2**63) - 1)
    with pytest.raises(TypeError):
        JavaInteger(True)
    with pytest.raises(ValueError, match="not a float32"):
        JavaFloat(0.1)
    with pytest.raises(ValueError, match="not a float32"):
        JavaFloat(1e300)
    for bad in ("NaN", "Infinity", "-sNaN"):
        with pytest.raises(ValueError, match="BigDecimal"):
            serialize_object_array([Decimal(bad)])
    with pytest.raises(ValueError, match="scale"):
        serialize_object_array([Decimal("1E-2147483648")])


ONE_DECIMAL = encode_key([Decimal("1.5"), None])
BAD: list[tuple[str, str]] = [
    ("", "truncated data"),
    ("aced00", "truncated data"),
    ("deadbeef70", "bad stream header deadbeef"),
    ("aced0004" + "70", "bad stream header aced0004"),
    ("zz", "not a hex string"),
    ("aced000570" + "00", "1 trailing bytes"),
    ("aced0005" + "7400016174", "expected an Object[] or null, found TC_STRING"),
    ("aced0005" + "7e", "found TC_ENUM"),
    ("aced0005757200025b42acf317f8060854e0020000787000000000", "expected an Object[], found '[B'"),
    (
        encode_key([JavaInteger(5)]).replace("496e7465676572", "496e7465676578"),
        "unsupported Java class 'java.lang.Integex'",
    ),
    (encode_key([uuid.UUID(int=1)]).replace("55554944", "44617465"), "unsupported Java class 'java.util.Date'"),
    (encode_key([JavaInteger(5)]).replace("12e2a0a4", "12e2a0a5"), "serialVersionUID 0x12e2a0a5f7818738 differs"),
    (encode_key([JavaInteger(5)]).replace("49000576616c7565", "49000576616c7566"), "java.lang.Integer: unexpected"),
    (HEAD + "00000001" + "75" + "71007e0000" + "00000000", "unsupported array class '[Ljava.lang.Object;'"),
    (HEAD + "00000001" + "71007e0001", "back-reference to the Object[] itself"),
    (HEAD + "00000001" + "71007e0000", "back-reference to the class descriptor [Ljava.lang.Object;"),
    (HEAD + "00000001" + "71007e0009", "back-reference to unknown handle 0x7e0009"),
    (ONE_DECIMAL[:-2] + "71007e0008", "element 1: unsupported Java class 'java.math.BigInteger'"),
    (HEAD + "00000001" + "760000", "expected an object, found TC_CLASS"),
    (HEAD + "00000001" + "770100", "expected an object, found TC_BLOCKDATA"),
    (HEAD + "00000002" + "70", "truncated data: an Object[] of 2 elements in 1 bytes"),
    (HEAD + "ffffffff", "negative Object[] length -1"),
    (HEAD + "00000001" + "740001ff", "malformed modified UTF-8"),
    (HEAD + "00000001" + "740004f09f9880", "4-byte UTF-8 sequence"),
    (HEAD + "00000001" + "7c" + "8000000000000000", "negative string length"),
    (ONE_DECIMAL.replace("fffffffe0000000175", "fffffffe0000000075"), "signum 0 does not fit its magnitude"),
    (ONE_DECIMAL.replace("0f787870", "0f7870"), "expected the end of BigDecimal's writeObject data, found TC_NULL"),
    (encode_key([JavaInteger(5)]).replace("4e756d626572", "4e756d626573"), "unsupported Java class 'java.lang.Numbes'"),
    (encode_key([1.5]).replace("787200106a617661", "787000106a617661"), "superclass none instead of java.lang.Number"),
]


@pytest.mark.parametrize(("hex_", "message"), BAD, ids=range(len(BAD)))
def test_refusals(hex_: str, message: str) -> None:
    with pytest.raises(ValueError, match="Java serialization: .*" + re.escape(message)) as info:
        decode_key(hex_)
    assert "offset" in str(info.value) or "header" in str(info.value) or "hex" in str(info.value)


@pytest.mark.parametrize("values", ROUND_TRIP[1:], ids=range(len(ROUND_TRIP) - 1))
def test_every_cut_is_truncated(values: list[JavaValue]) -> None:
    data = serialize_object_array(values)
    step = max(1, len(data) // 300)
    for n in range(0, len(data), step):
        with pytest.raises(ValueError, match="truncated data"):
            deserialize_object_array(data[:n])
