"""The Java Object Serialization bytes of an `Object[]`, as Debezium keeps incremental-snapshot chunk keys in offsets.

Debezium stores `incremental_snapshot_primary_key` and `incremental_snapshot_maximum_key` as the lowercase hex of what
`java.io.ObjectOutputStream.writeObject` writes for the key's `Object[]` (or for `null`). To hand offsets over in
either direction this module writes exactly the JVM's bytes and reads anything the JVM writes for the supported
element classes; tests/java_golden/test_java_serialization_golden.py checks both against a real JVM.

Element values and their Java classes:

==========================  =====================================================================
Python value                Java class
==========================  =====================================================================
``None``                    null
``bool``                    java.lang.Boolean
``float``                   java.lang.Double
``str``                     java.lang.String (written in Java's modified UTF-8)
``decimal.Decimal``         java.math.BigDecimal (unscaled digits and scale = -exponent, kept)
``uuid.UUID``               java.util.UUID
``bytes``                   byte[]
``JavaInteger(v)``          java.lang.Integer
``JavaLong(v)``             java.lang.Long
``JavaShort(v)``            java.lang.Short
``JavaFloat(v)``            java.lang.Float (v must be a float32 value)
==========================  =====================================================================

A bare Python ``int`` is refused: its Java class is the caller's choice (Integer, Long or Short). Reading returns the
same kinds of values, so `serialize_object_array(deserialize_object_array(b)) == b` for what the JVM writes for
arrays built as described next.

Which elements share one Java instance matters, because the second occurrence of an instance is written as a
back-reference. The writer reproduces an array built the way boxing and JDBC drivers build it: Integer, Long and
Short values in -128..127 and both Booleans are the JDK's cached instances (`valueOf`), so equal ones are written once
and referenced afterwards; every other element is its own instance (two equal Strings are both written out). A
BigDecimal whose unscaled value fits in a long serializes `BigInteger.valueOf(unscaled)` (what a compact BigDecimal
inflates to), so unscaled values in -16..16 share the JDK's cached BigIntegers across elements. Streams made from
other instance graphs (a String instance used twice, `BigDecimal.ZERO` twice, `new Integer(5)` twice) are read
correctly but written back in the model above, which a JVM reads as the same values. The JVM itself does not keep
the bytes of a key it reads and writes again in every case: ObjectInputStream reads each empty String as the one
literal "", so a second "" comes back out as a back-reference.

Class descriptors are shared the same way the JVM shares them: the first Integer writes the descriptors of Integer and
of java.lang.Number, a later Long writes its own and refers back to Number's.

The reader raises ValueError, naming the problem and the byte offset, for a bad header, truncated or trailing data,
classes other than the ones above, a changed serialVersionUID or field layout, and stream features the JVM does not
write for these classes (class annotations, proxies, enums, block data, resets). That is stricter than
ObjectInputStream, which ignores trailing bytes, the serialVersionUID of array classes, descriptor flags, fields it
does not know (and a negative field count), and a superclass descriptor naming a class it cannot load; none of those
occur in what the JVM writes, and accepting them would break the byte-for-byte round trip.
"""

from __future__ import annotations

import re
import struct
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final, TypeAlias

__all__ = [
    "JavaFloat",
    "JavaInteger",
    "JavaLong",
    "JavaShort",
    "JavaValue",
    "decode_key",
    "deserialize_object_array",
    "encode_key",
    "serialize_object_array",
]


# -- typed wrappers for the Java classes a Python type does not name on its own -------------------------------------
def _check_int(kind: str, value: int, bits: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{kind} needs an int, got {type(value).__name__}")
    limit = 1 << (bits - 1)
    if not -limit <= value < limit:
        raise ValueError(f"{kind}({value}) is out of range [{-limit}, {limit - 1}]")


@dataclass(frozen=True, slots=True)
class JavaInteger:
    """A java.lang.Integer (32-bit signed)."""

    value: int

    def __post_init__(self) -> None:
        _check_int("JavaInteger", self.value, 32)


@dataclass(frozen=True, slots=True)
class JavaLong:
    """A java.lang.Long (64-bit signed)."""

    value: int

    def __post_init__(self) -> None:
        _check_int("JavaLong", self.value, 64)


@dataclass(frozen=True, slots=True)
class JavaShort:
    """A java.lang.Short (16-bit signed)."""

    value: int

    def __post_init__(self) -> None:
        _check_int("JavaShort", self.value, 16)


_F32: Final = struct.Struct(">f")


@dataclass(frozen=True, slots=True)
class JavaFloat:
    """A java.lang.Float; the value must be exactly a float32 (round with javacompat.to_float32 first).

    Equality is by bits as Java's `Float.equals` (NaN equals NaN, 0.0 differs from -0.0)."""

    value: float

    def __post_init__(self) -> None:
        if not isinstance(self.value, float):
            raise TypeError(f"JavaFloat needs a float, got {type(self.value).__name__}")
        v = self.value
        try:
            exact = v != v or _F32.unpack(_F32.pack(v))[0] == v
        except OverflowError:
            exact = False
        if not exact:
            raise ValueError(f"JavaFloat({v!r}) is not a float32 value")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not JavaFloat:
            return NotImplemented
        return _float_bits(self.value) == _float_bits(other.value)

    def __hash__(self) -> int:
        return hash(_float_bits(self.value))


JavaValue: TypeAlias = (
    bool | float | str | Decimal | uuid.UUID | bytes | JavaInteger | JavaLong | JavaShort | JavaFloat | None
)


def _float_bits(v: float) -> bytes:
    return b"\x7f\xc0\x00\x00" if v != v else _F32.pack(v)


# -- stream constants (java.io.ObjectStreamConstants) ---------------------------------------------------------------
_MAGIC: Final = b"\xac\xed\x00\x05"
TC_NULL: Final = 0x70
TC_REFERENCE: Final = 0x71
TC_CLASSDESC: Final = 0x72
TC_OBJECT: Final = 0x73
TC_STRING: Final = 0x74
TC_ARRAY: Final = 0x75
TC_ENDBLOCKDATA: Final = 0x78
TC_LONGSTRING: Final = 0x7C
_BASE_HANDLE: Final = 0x7E0000
_CODE_NAMES: Final = {
    0x70: "TC_NULL",
    0x71: "TC_REFERENCE",
    0x72: "TC_CLASSDESC",
    0x73: "TC_OBJECT",
    0x74: "TC_STRING",
    0x75: "TC_ARRAY",
    0x76: "TC_CLASS",
    0x77: "TC_BLOCKDATA",
    0x78: "TC_ENDBLOCKDATA",
    0x79: "TC_RESET",
    0x7A: "TC_BLOCKDATALONG",
    0x7B: "TC_EXCEPTION",
    0x7C: "TC_LONGSTRING",
    0x7D: "TC_PROXYCLASSDESC",
    0x7E: "TC_ENUM",
}
_SC_SERIALIZABLE: Final = 0x02
_SC_WRITE_METHOD: Final = 0x01


# -- modified UTF-8 (DataOutput.writeUTF): UTF-16 code units, U+0000 as C0 80, each surrogate as 3 bytes ------------
_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(m: re.Match[str]) -> str:
    c = ord(m.group()) - 0x10000
    return chr(0xD800 | (c >> 10)) + chr(0xDC00 | (c & 0x3FF))


def _mutf8(s: str) -> bytes:
    if s.isascii():
        b = s.encode("ascii")
    else:
        b = _ASTRAL.sub(_split_astral, s).encode("utf-8", "surrogatepass")
    return b.replace(b"\x00", b"\xc0\x80") if b"\x00" in b else b


def _from_mutf8(b: bytes, offset: int) -> str:
    if b.isascii():
        return b.decode("ascii")
    try:
        s = b.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as e:
        raise ValueError(f"Java serialization: malformed modified UTF-8 in the string at offset {offset}: {e}") from e
    if _ASTRAL.search(s):
        raise ValueError(f"Java serialization: 4-byte UTF-8 sequence in the string at offset {offset}")
    # join surrogate pairs into code points; lone surrogates stay as they are
    return s.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def _utf(s: str) -> bytes:
    b = _mutf8(s)
    return len(b).to_bytes(2, "big") + b


# -- class descriptors ----------------------------------------------------------------------------------------------
class _Spec:
    """One serializable class: its descriptor exactly as ObjectOutputStream writes it, minus the superclass part."""

    __slots__ = ("fields", "flags", "head", "name", "suid", "super", "type_strings")

    def __init__(
        self, name: str, suid: int, flags: int, fields: tuple[tuple[str, str], ...], super_: _Spec | None
    ) -> None:
        self.name = name
        self.suid = suid
        self.flags = flags
        self.fields = fields  # (type signature, name) in stream order: primitives, then objects, each by name
        self.super = super_
        head = bytearray([TC_CLASSDESC]) + _utf(name) + suid.to_bytes(8, "big") + bytes([flags])
        head += len(fields).to_bytes(2, "big")
        for sig, fname in fields:
            head += sig[0].encode("ascii") + _utf(fname)
            if sig[0] in "L[":
                head += bytes([TC_STRING]) + _utf(sig)  # the field's type, a String with a handle of its own
        head.append(TC_ENDBLOCKDATA)  # no class annotation
        self.head = bytes(head)
        self.type_strings = sum(1 for sig, _ in fields if sig[0] in "L[")


_SER = _SC_SERIALIZABLE
_SER_WM = _SC_SERIALIZABLE | _SC_WRITE_METHOD
_OBJECT_ARRAY: Final = _Spec("[Ljava.lang.Object;", 0x90CE589F1073296C, _SER, (), None)
_BYTE_ARRAY: Final = _Spec("[B", 0xACF317F8060854E0, _SER, (), None)
_NUMBER: Final = _Spec("java.lang.Number", 0x86AC951D0B94E08B, _SER, (), None)
_INTEGER: Final = _Spec("java.lang.Integer", 0x12E2A0A4F7818738, _SER, (("I", "value"),), _NUMBER)
_LONG: Final = _Spec("java.lang.Long", 0x3B8BE490CC8F23DF, _SER, (("J", "value"),), _NUMBER)
_SHORT: Final = _Spec("java.lang.Short", 0x684D37133460DA52, _SER, (("S", "value"),), _NUMBER)
_DOUBLE: Final = _Spec("java.lang.Double", 0x80B3C24A296BFB04, _SER, (("D", "value"),), _NUMBER)
_FLOAT: Final = _Spec("java.lang.Float", 0xDAEDC9A2DB3CF0EC, _SER, (("F", "value"),), _NUMBER)
_BOOLEAN: Final = _Spec("java.lang.Boolean", 0xCD207280D59CFAEE, _SER, (("Z", "value"),), None)
_UUID: Final = _Spec("java.util.UUID", 0xBC9903F7986D852F, _SER, (("J", "leastSigBits"), ("J", "mostSigBits")), None)
_BIG_DECIMAL: Final = _Spec(
    "java.math.BigDecimal", 0x54C71557F981284F, _SER_WM, (("I", "scale"), ("Ljava/math/BigInteger;", "intVal")), _NUMBER
)
# BigInteger's serialPersistentFields; its writeObject puts -1, -1, -2, -2 into the four legacy fields
_BIG_INTEGER: Final = _Spec(
    "java.math.BigInteger",
    0x8CFC9F1FA93BFB1D,
    _SER_WM,
    (
        ("I", "bitCount"),
        ("I", "bitLength"),
        ("I", "firstNonzeroByteNum"),
        ("I", "lowestSetBit"),
        ("I", "signum"),
        ("[B", "magnitude"),
    ),
    _NUMBER,
)
_SPECS: Final = {
    s.name: s
    for s in (
        _OBJECT_ARRAY,
        _BYTE_ARRAY,
        _NUMBER,
        _INTEGER,
        _LONG,
        _SHORT,
        _DOUBLE,
        _FLOAT,
        _BOOLEAN,
        _UUID,
        _BIG_DECIMAL,
        _BIG_INTEGER,
    )
}
# The precomputed heads write each field-type String afresh; that is what the JVM does only while no two of these
# classes name the same field type (the JVM would refer back to the first one).
assert len({sig for s in _SPECS.values() for sig, _ in s.fields if sig[0] in "L["}) == sum(
    s.type_strings for s in _SPECS.values()
)


# -- writer ---------------------------------------------------------------------------------------------------------
_NULL_STREAM: Final = _MAGIC + bytes([TC_NULL])
# magic, TC_ARRAY, Object[]'s descriptor (handle 0, no superclass); the array itself takes handle 1
_ARRAY_HEAD: Final = _MAGIC + bytes([TC_ARRAY]) + _OBJECT_ARRAY.head + bytes([TC_NULL])
_I32: Final = struct.Struct(">i").pack
_I64: Final = struct.Struct(">q").pack
_I16: Final = struct.Struct(">h").pack
_F64: Final = struct.Struct(">d").pack
_BIGINT_FIELDS: Final = {s: struct.pack(">5i", -1, -1, -2, -2, s) for s in (-1, 0, 1)}
_DOUBLE_NAN: Final = b"\x7f\xf8\x00\x00\x00\x00\x00\x00"


def _ref(handle: int) -> bytes:
    return bytes([TC_REFERENCE]) + (_BASE_HANDLE + handle).to_bytes(4, "big")


class _Writer:
    """One stream under construction: the bytes, the next handle, and what already has a handle."""

    __slots__ = ("descs", "next", "out", "shared")

    def __init__(self) -> None:
        self.out = bytearray(_ARRAY_HEAD)
        self.next = 2
        self.descs: dict[str, int] = {}
        self.shared: dict[object, int] = {}  # keys of JDK-cached instances -> their handle

    def desc(self, spec: _Spec) -> None:
        h = self.descs.get(spec.name)
        if h is not None:
            self.out += _ref(h)
            return
        self.descs[spec.name] = self.next
        self.next += 1 + spec.type_strings
        self.out += spec.head
        if spec.super is None:
            self.out.append(TC_NULL)
        else:
            self.desc(spec.super)

    def new_object(self, spec: _Spec) -> int:
        """TC_OBJECT and the class descriptor; returns the object's handle (class data follows)."""
        self.out.append(TC_OBJECT)
        self.desc(spec)
        h = self.next
        self.next += 1
        return h

    def cached(self, key: object) -> bool:
        """Writes a back-reference and answers True when the JDK-cached instance `key` was written already."""
        h = self.shared.get(key)
        if h is None:
            return False
        self.out += _ref(h)
        return True

    def byte_array(self, data: bytes) -> None:
        self.out.append(TC_ARRAY)
        self.desc(_BYTE_ARRAY)
        self.next += 1
        self.out += _I32(len(data))
        self.out += data

    def big_integer(self, u: int) -> None:
        small = -16 <= u <= 16  # BigInteger.valueOf's cached constants
        if small and self.cached(("BigInteger", u)):
            return
        h = self.new_object(_BIG_INTEGER)
        self.out += _BIGINT_FIELDS[(u > 0) - (u < 0)]
        m = abs(u)
        self.byte_array(m.to_bytes((m.bit_length() + 7) >> 3, "big"))
        self.out.append(TC_ENDBLOCKDATA)  # end of writeObject's data
        if small:
            self.shared[("BigInteger", u)] = h


def _boxed(spec: _Spec, pack: Callable[[int], bytes]) -> Callable[[_Writer, int], None]:
    key_tag = spec.name

    def write(w: _Writer, v: int) -> None:
        small = -128 <= v <= 127  # Integer/Long/Short.valueOf's cache
        if small and w.cached((key_tag, v)):
            return
        h = w.new_object(spec)
        w.out += pack(v)
        if small:
            w.shared[(key_tag, v)] = h

    return write


_write_integer = _boxed(_INTEGER, _I32)
_write_long = _boxed(_LONG, _I64)
_write_short = _boxed(_SHORT, _I16)


def _w_none(w: _Writer, v: object) -> None:
    w.out.append(TC_NULL)


def _w_integer(w: _Writer, v: JavaInteger) -> None:
    _write_integer(w, v.value)


def _w_long(w: _Writer, v: JavaLong) -> None:
    _write_long(w, v.value)


def _w_short(w: _Writer, v: JavaShort) -> None:
    _write_short(w, v.value)


def _w_bool(w: _Writer, v: bool) -> None:
    if w.cached(("Boolean", v)):  # Boolean.TRUE / Boolean.FALSE
        return
    w.shared[("Boolean", v)] = w.new_object(_BOOLEAN)
    w.out.append(1 if v else 0)


def _w_double(w: _Writer, v: float) -> None:
    w.new_object(_DOUBLE)
    w.out += _DOUBLE_NAN if v != v else _F64(v)  # doubleToLongBits: one NaN


def _w_float(w: _Writer, v: JavaFloat) -> None:
    w.new_object(_FLOAT)
    w.out += _float_bits(v.value)


def _w_str(w: _Writer, v: str) -> None:
    b = _mutf8(v)
    if len(b) <= 0xFFFF:
        w.out.append(TC_STRING)
        w.out += len(b).to_bytes(2, "big")
    else:
        w.out.append(TC_LONGSTRING)
        w.out += len(b).to_bytes(8, "big")
    w.out += b
    w.next += 1


def _w_decimal(w: _Writer, v: Decimal) -> None:
    sign, digits, exponent = v.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"a Java BigDecimal has no {v}")
    if not -(2**31) < exponent <= 2**31:
        raise ValueError(f"{v}: the scale {-exponent} does not fit a Java int")
    unscaled = int("".join(map(str, digits)))
    w.new_object(_BIG_DECIMAL)
    w.out += _I32(-exponent)  # defaultWriteObject: the primitive field scale, then intVal
    w.big_integer(-unscaled if sign else unscaled)
    w.out.append(TC_ENDBLOCKDATA)


def _w_uuid(w: _Writer, v: uuid.UUID) -> None:
    w.new_object(_UUID)
    b = v.bytes
    w.out += b[8:]  # leastSigBits, then mostSigBits (fields by name)
    w.out += b[:8]


def _w_bytes(w: _Writer, v: bytes) -> None:
    w.byte_array(bytes(v))


_WRITERS: Final[dict[type, Callable[[_Writer, Any], None]]] = {
    type(None): _w_none,
    JavaInteger: _w_integer,
    JavaLong: _w_long,
    JavaShort: _w_short,
    bool: _w_bool,
    float: _w_double,
    JavaFloat: _w_float,
    str: _w_str,
    Decimal: _w_decimal,
    uuid.UUID: _w_uuid,
    bytes: _w_bytes,
    bytearray: _w_bytes,
}


def _writer_for(v: object) -> Callable[[_Writer, Any], None]:
    fn = _WRITERS.get(type(v))
    if fn is not None:
        return fn
    if isinstance(v, int) and not isinstance(v, bool):
        raise TypeError(
            f"the Java class of the int {v} is the caller's choice: wrap it in JavaInteger, JavaLong or JavaShort"
        )
    for cls in (str, float, Decimal, uuid.UUID, bytes, bytearray):  # subclasses
        if isinstance(v, cls):
            return _WRITERS[cls]
    raise TypeError(f"no Java class for a {type(v).__name__} value: {v!r}")


def serialize_object_array(values: Sequence[JavaValue] | None) -> bytes:
    """The bytes `ObjectOutputStream.writeObject` writes for an Object[] holding `values` (or for null)."""
    if values is None:
        return _NULL_STREAM
    w = _Writer()
    w.out += _I32(len(values))
    for v in values:
        _writer_for(v)(w, v)
    return bytes(w.out)


def encode_key(values: Sequence[JavaValue] | None) -> str:
    """A chunk key as Debezium stores it in offsets: the lowercase hex of `serialize_object_array(values)`."""
    return serialize_object_array(values).hex()


# -- reader ---------------------------------------------------------------------------------------------------------
class _BigInt:
    """A java.math.BigInteger met while reading (only valid as a BigDecimal's intVal)."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value


class _Marker:
    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what


_PENDING: Final = _Marker("an object still being read")
_THE_ARRAY: Final = _Marker("the Object[] itself")

_Handle: TypeAlias = "_Spec | _BigInt | _Marker | JavaValue"


class _Reader:
    __slots__ = ("data", "handles", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.handles: list[_Handle] = []

    def fail(self, problem: str, at: int | None = None) -> ValueError:
        return ValueError(f"Java serialization: {problem} (offset {self.pos if at is None else at})")

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise self.fail(f"truncated data: {n} more bytes needed, {len(self.data) - self.pos} left")
        b = self.data[self.pos : end]
        self.pos = end
        return b

    def u1(self) -> int:
        if self.pos >= len(self.data):
            raise self.fail("truncated data: 1 more byte needed, 0 left")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def u2(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def i4(self) -> int:
        return int.from_bytes(self.take(4), "big", signed=True)

    def i8(self) -> int:
        return int.from_bytes(self.take(8), "big", signed=True)

    def utf(self, length: int) -> str:
        at = self.pos
        return _from_mutf8(self.take(length), at)

    def handle(self) -> _Handle:
        at = self.pos - 1
        h = int.from_bytes(self.take(4), "big") - _BASE_HANDLE
        if not 0 <= h < len(self.handles):
            raise self.fail(f"back-reference to unknown handle 0x{h + _BASE_HANDLE:x}", at)
        return self.handles[h]

    def string_after(self, tc: int) -> str:
        """The String after its type code TC_STRING / TC_LONGSTRING (given a handle)."""
        if tc == TC_STRING:
            s = self.utf(self.u2())
        else:
            n = self.i8()
            if n < 0:
                raise self.fail(f"negative string length {n}")
            s = self.utf(n)
        self.handles.append(s)
        return s

    def unexpected(self, tc: int, expected: str) -> ValueError:
        name = _CODE_NAMES.get(tc, f"type code 0x{tc:02x}")
        return self.fail(f"expected {expected}, found {name}", self.pos - 1)

    def class_desc(self) -> _Spec | None:
        at = self.pos
        tc = self.u1()
        if tc == TC_NULL:
            return None
        if tc == TC_REFERENCE:
            obj = self.handle()
            if not isinstance(obj, _Spec):
                raise self.fail("back-reference to a non-class where a class descriptor belongs", at)
            return obj
        if tc != TC_CLASSDESC:
            raise self.unexpected(tc, "a class descriptor")
        name = self.utf(self.u2())
        spec = _SPECS.get(name)
        if spec is None:
            raise self.fail(f"unsupported Java class {name!r}", at)
        self.handles.append(spec)
        suid = self.i8() & 0xFFFFFFFFFFFFFFFF
        flags = self.u1()
        fields = []
        for _ in range(self.u2()):
            code = chr(self.u1())
            fname = self.utf(self.u2())
            if code in "L[":
                t = self.u1()
                if t in (TC_STRING, TC_LONGSTRING):
                    sig: object = self.string_after(t)
                elif t == TC_REFERENCE:
                    sig = self.handle()
                else:
                    raise self.unexpected(t, "a field type string")
            else:
                sig = code
            fields.append((sig, fname))
        if suid != spec.suid:
            raise self.fail(f"{name}: serialVersionUID {suid:#018x} differs from the JDK's {spec.suid:#018x}", at)
        if flags != spec.flags or tuple(fields) != spec.fields:
            raise self.fail(f"{name}: unexpected flags 0x{flags:02x} or fields {fields}", at)
        tc = self.u1()
        if tc != TC_ENDBLOCKDATA:
            raise self.unexpected(tc, f"the end of {name}'s descriptor (class annotations are not supported)")
        super_at = self.pos
        sup = self.class_desc()
        if sup is not spec.super:
            want = spec.super.name if spec.super else "none"
            raise self.fail(f"{name}: superclass {sup.name if sup else 'none'} instead of {want}", super_at)
        return spec

    def content(self) -> _BigInt | JavaValue:
        """One object (element, BigDecimal.intVal, BigInteger.magnitude) with its type code."""
        at = self.pos
        tc = self.u1()
        if tc == TC_NULL:
            return None
        if tc == TC_REFERENCE:
            obj = self.handle()
            if isinstance(obj, _Spec):
                raise self.fail(f"back-reference to the class descriptor {obj.name} where an object belongs", at)
            if isinstance(obj, _Marker):
                raise self.fail(f"back-reference to {obj.what}", at)
            return obj
        if tc in (TC_STRING, TC_LONGSTRING):
            return self.string_after(tc)
        if tc == TC_ARRAY:
            spec = self.class_desc()
            if spec is not _BYTE_ARRAY:
                raise self.fail(f"unsupported array class {spec.name if spec else None!r}", at)
            n = self.i4()
            if n < 0:
                raise self.fail(f"negative array length {n}")
            data = self.take(n)
            self.handles.append(data)
            return data
        if tc == TC_OBJECT:
            spec = self.class_desc()
            read = _READERS.get(spec.name) if spec else None
            if spec is None or read is None:
                raise self.fail(f"cannot instantiate {spec.name if spec else 'a null class'}", at)
            slot = len(self.handles)
            self.handles.append(_PENDING)
            value = read(self)
            self.handles[slot] = value
            return value
        raise self.unexpected(tc, "an object")

    def end_of_custom_data(self, name: str) -> None:
        tc = self.u1()
        if tc != TC_ENDBLOCKDATA:
            raise self.unexpected(tc, f"the end of {name}'s writeObject data")


def _r_big_decimal(r: _Reader) -> Decimal:
    scale = r.i4()
    at = r.pos
    iv = r.content()
    if not isinstance(iv, _BigInt):
        raise r.fail("BigDecimal.intVal is not a BigInteger", at)
    r.end_of_custom_data("BigDecimal")
    return Decimal(f"{iv.value}E{-scale}")


def _r_big_integer(r: _Reader) -> _BigInt:
    at = r.pos
    r.take(16)  # bitCount, bitLength, firstNonzeroByteNum, lowestSetBit: legacy fields, ignored as Java does
    signum = r.i4()
    mag = r.content()
    if not isinstance(mag, bytes):
        raise r.fail("BigInteger.magnitude is not a byte[]", at)
    r.end_of_custom_data("BigInteger")
    m = int.from_bytes(mag, "big")
    if signum not in (-1, 0, 1) or (signum == 0) != (m == 0):
        raise r.fail(f"BigInteger signum {signum} does not fit its magnitude", at)
    return _BigInt(signum * m)


def _r_uuid(r: _Reader) -> uuid.UUID:
    least = r.take(8)
    return uuid.UUID(bytes=r.take(8) + least)


_READERS: Final[dict[str, Callable[[_Reader], _BigInt | JavaValue]]] = {
    _INTEGER.name: lambda r: JavaInteger(r.i4()),
    _LONG.name: lambda r: JavaLong(r.i8()),
    _SHORT.name: lambda r: JavaShort(int.from_bytes(r.take(2), "big", signed=True)),
    _BOOLEAN.name: lambda r: r.u1() != 0,
    _DOUBLE.name: lambda r: struct.unpack(">d", r.take(8))[0],
    _FLOAT.name: lambda r: JavaFloat(_F32.unpack(r.take(4))[0]),
    _UUID.name: _r_uuid,
    _BIG_DECIMAL.name: _r_big_decimal,
    _BIG_INTEGER.name: _r_big_integer,
}


def deserialize_object_array(data: bytes) -> list[JavaValue] | None:
    """What `ObjectInputStream.readObject` reads from `data`, which must hold one Object[] (or null) of the
    supported element classes. ValueError names what is wrong and where."""
    r = _Reader(bytes(data))
    if not r.data.startswith(_MAGIC):
        if _MAGIC.startswith(r.data):
            raise r.fail(f"truncated data: {len(r.data)} of the 4 header bytes")
        raise ValueError(f"Java serialization: bad stream header {r.data[:4].hex()}, expected {_MAGIC.hex()}")
    r.pos = 4
    tc = r.u1()
    result: list[JavaValue] | None
    if tc == TC_NULL:
        result = None
    elif tc == TC_ARRAY:
        at = r.pos - 1
        spec = r.class_desc()
        if spec is not _OBJECT_ARRAY:
            raise r.fail(f"expected an Object[], found {spec.name if spec else None!r}", at)
        r.handles.append(_THE_ARRAY)
        n = r.i4()
        if not 0 <= n <= len(data) - r.pos:
            if n < 0:
                raise r.fail(f"negative Object[] length {n}")
            raise r.fail(f"truncated data: an Object[] of {n} elements in {len(data) - r.pos} bytes")
        result = []
        for i in range(n):
            at = r.pos
            v = r.content()
            if isinstance(v, _BigInt):
                raise r.fail(f"element {i}: unsupported Java class 'java.math.BigInteger'", at)
            result.append(v)
    else:
        raise r.unexpected(tc, "an Object[] or null")
    if r.pos != len(data):
        raise r.fail(f"{len(data) - r.pos} trailing bytes after the object")
    return result


def decode_key(text: str) -> list[JavaValue] | None:
    """A chunk key from its offset form (hex of the serialized Object[]); ValueError if it is not one."""
    try:
        data = bytes.fromhex(text)
    except ValueError as e:
        raise ValueError(f"Java serialization: not a hex string: {text[:40]!r}") from e
    return deserialize_object_array(data)
