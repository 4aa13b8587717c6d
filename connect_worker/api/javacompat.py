"""Pure helpers that reproduce Java / Jackson behaviour byte for byte.

Where Kafka Connect's bytes depend on a Java detail, the rule lives here:

* `java_string_hash` - `String.hashCode()` over UTF-16 code units, int32 wrap-around.
* `java_hashmap_order` - the iteration order of a `java.util.HashMap` built by `put`s (or by the copy
  constructor), which decides the key order of maps JsonConverter writes (offsets-topic keys!).
* `java_double_to_string` / `java_float_to_string` - `Double.toString` / `Float.toString` as specified since
  JDK 19 (shortest decimal that rounds back; JDK 17's older algorithm occasionally prints one more digit).
* `jackson_quote` - a JSON string literal as Jackson's UTF-8 generator writes it.

No I/O, no state beyond small caches; safe to call from any thread.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final, TypeVar

__all__ = [
    "jackson_quote",
    "java_bigdecimal_to_plain_string",
    "java_bigdecimal_to_string",
    "java_double_to_long",
    "java_double_to_string",
    "java_float_to_string",
    "java_hash",
    "java_hashmap_order",
    "java_hashset_order",
    "java_int",
    "java_long",
    "java_map_text",
    "java_math_round",
    "java_string_hash",
    "to_float32",
]

#: the JDK whose HashMap copy-constructor sizing the copies Kafka Connect's own code makes follow here (Connect 4
#: runs on 17+, its images ship 21; the differential tests run it on the newest JDK 21+ installed)
CONNECT_JDK = 21

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# -- Java integer arithmetic -------------------------------------------------------------------------
_LONG_MAX: Final = 2**63 - 1
_LONG_MIN: Final = -(2**63)
_TWO_63: Final = float(2**63)


def java_int(h: int) -> int:
    """The int a Java int expression yields: the low 32 bits, signed (int arithmetic wraps)."""
    h &= 0xFFFFFFFF
    return h - 0x100000000 if h & 0x80000000 else h


_int32 = java_int


def java_long(v: int) -> int:
    """The long a Java long expression yields: the low 64 bits, signed (long arithmetic wraps)."""
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >> 63 else v


def java_double_to_long(x: float) -> int:
    """Java's `(long)` cast of a double: truncation toward zero, saturation at the long range, NaN to 0."""
    if x != x:
        return 0
    if x >= _TWO_63:
        return _LONG_MAX
    if x <= -_TWO_63:
        return _LONG_MIN
    return int(x)


def java_math_round(x: float) -> int:
    """`Math.round(double)`: floor(x + 1/2) computed exactly, saturating; NaN to 0. `x - floor(x)` is exact for
    any double, so no rounding of the sum `x + 0.5` can move the result."""
    if x != x:
        return 0
    if x in (math.inf, -math.inf):
        return _LONG_MAX if x > 0 else _LONG_MIN
    whole = math.floor(x)
    return max(_LONG_MIN, min(_LONG_MAX, whole + (1 if x - whole >= 0.5 else 0)))


# -- hashing -----------------------------------------------------------------------------------------


def java_string_hash(s: str) -> int:
    """`String.hashCode()`: s[0]*31^(n-1) + ... over UTF-16 code units, as a signed int32."""
    h = 0
    if s.isascii():
        for c in s.encode("ascii"):
            h = (31 * h + c) & 0xFFFFFFFF
    else:
        units = s.encode("utf-16-be", "surrogatepass")
        for i in range(0, len(units), 2):
            h = (31 * h + ((units[i] << 8) | units[i + 1])) & 0xFFFFFFFF
    return _int32(h)


def java_hash(key: object) -> int:
    """`hashCode()` of the Java object a Python value stands for (str, int as Long, bool, float as Double, a
    mapping as a java.util.Map: the sum of its entries' `key.hashCode() ^ value.hashCode()`)."""
    if key is None:
        return 0
    if isinstance(key, Mapping):
        return _int32(sum(java_hash(k) ^ java_hash(v) for k, v in key.items()) & 0xFFFFFFFF)
    if isinstance(key, str):
        return java_string_hash(key)
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, int):
        v = key & 0xFFFFFFFFFFFFFFFF
        return _int32(v ^ (v >> 32))
    if isinstance(key, float):
        bits = 0x7FF8000000000000 if key != key else struct.unpack(">q", struct.pack(">d", key))[0]
        bits &= 0xFFFFFFFFFFFFFFFF
        return _int32(bits ^ (bits >> 32))
    raise TypeError(f"no Java hashCode rule for {type(key).__name__}")


_TREEIFY_THRESHOLD: Final = 8
_MIN_TREEIFY_CAPACITY: Final = 64


def _table_size_for(cap: int) -> int:
    n = 1
    while n < cap:
        n <<= 1
    return max(1, min(n, 1 << 30))


def java_hashmap_order(
    mapping: Mapping[K, V],
    *,
    copy_constructor: bool = False,
    jdk: int = 17,
    hash_fn: Callable[[Any], int] = java_hash,
    capacity: int | None = None,
) -> dict[K, V]:
    """The mapping re-ordered as a `java.util.HashMap` holding the same entries would iterate.

    The map is taken to be built by `new HashMap<>()` followed by `put` of each entry in the mapping's order
    (how Debezium builds source partitions and JsonConverter builds maps when reading), or, with
    `copy_constructor=True`, by `new HashMap<>(linkedMap)` (pre-sized table: `tableSizeFor(n/0.75 + 1)` up to
    JDK 18, `tableSizeFor(ceil(n/0.75))` from JDK 19 on, so the copy order depends on `jdk`).

    Rules: table capacity 16 (or pre-sized, copy constructor), doubled when the size
    passes 0.75 * capacity; bucket = (h ^ (h >>> 16)) & (capacity - 1); buckets iterate in ascending index,
    entries of a bucket in insertion order (resizes keep that order). A bucket that grows past 8 entries
    makes Java resize instead while capacity < 64, which is simulated. Past that Java turns the bucket into a
    red-black tree whose iteration order puts the tree root first; that case (9+ keys sharing a bucket in a
    table of 64+, i.e. deliberately colliding keys) is not reproduced: such buckets keep insertion order.
    """
    n = len(mapping)
    if n <= 1:
        return dict(mapping)
    keys = list(mapping)
    spread = []
    for k in keys:
        h = hash_fn(k) & 0xFFFFFFFF
        spread.append(h ^ (h >> 16))
    if capacity is not None:
        cap = _table_size_for(capacity)
    elif copy_constructor:
        cap = _table_size_for(math.ceil(n / 0.75) if jdk >= 19 else int(n / 0.75 + 1.0))
    else:
        cap = 16
    # Simulate the puts only for the resize decisions (sizes and per-bucket chain lengths).
    chains: dict[int, int] = {}
    for size, h in enumerate(spread, start=1):
        b = h & (cap - 1)
        length = chains.get(b, 0)
        chains[b] = length + 1
        resized = False
        if length >= _TREEIFY_THRESHOLD and cap < _MIN_TREEIFY_CAPACITY:
            cap <<= 1  # treeifyBin() resizes a small table instead of building a tree
            resized = True
        if size > cap * 3 // 4:
            cap <<= 1
            resized = True
        if resized:
            chains = {}
            for h2 in spread[:size]:
                b2 = h2 & (cap - 1)
                chains[b2] = chains.get(b2, 0) + 1
    mask = cap - 1
    order = sorted(range(n), key=lambda i: (spread[i] & mask, i))
    return {keys[i]: mapping[keys[i]] for i in order}


def java_map_text(mapping: Mapping[Any, Any]) -> str:
    """A map as Java's AbstractMap.toString prints it, in the mapping's order: ``{k=v, k2=null, b=true}``."""
    return "{" + ", ".join(f"{k}={_java_scalar_text(v)}" for k, v in mapping.items()) + "}"


def _java_scalar_text(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    return str(value)


def java_added_order(names: Iterable[str]) -> list[str]:
    """Names as a java.util.HashMap's keys or a HashSet iterate when they were put / added one at a time from
    the default table (Connect's herders keep connector configs so; Collectors.toSet() collects so). The order
    they were added in is not known here: sorted stands in for it (it decides only among names sharing a bucket)."""
    return list(java_hashmap_order(dict.fromkeys(sorted(names))))


def java_hashset_order(items: Sequence[K], *, hash_fn: Callable[[Any], int] = java_hash) -> list[K]:
    """The iteration order of ``new HashSet<>(collection)`` over these items (a table of
    ``max(n / 0.75 + 1, 16)`` slots, then an add of each item in order)."""
    unique = dict.fromkeys(items)
    capacity = max(int(len(unique) / 0.75) + 1, 16)
    return list(java_hashmap_order(unique, hash_fn=hash_fn, capacity=capacity))


# -- numbers -----------------------------------------------------------------------------------------
_F32: Final = struct.Struct("<f")
_F32_BITS: Final = struct.Struct("<I")
_MIN_NORMAL_DOUBLE: Final = 2.2250738585072014e-308


def _f32_from_bits(bits: int) -> float:
    return float(_F32.unpack(_F32_BITS.pack(bits & 0xFFFFFFFF))[0])


def to_float32(x: float | Fraction | Decimal | int) -> float:
    """The float32 nearest to x (round half to even), returned as a Python float (exactly representable)."""
    if isinstance(x, float):
        if x != x or x in (math.inf, -math.inf):
            return x
        try:
            return float(_F32.unpack(_F32.pack(x))[0])  # a single rounding from the double: exact
        except OverflowError:
            return math.copysign(math.inf, x)
    exact = Fraction(x)
    if exact == 0:
        return -0.0 if isinstance(x, Decimal) and x.is_signed() else 0.0
    try:
        approx = float(exact)  # nearest double; may double-round, so check the float32 neighbours exactly
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    guess = to_float32(approx)
    if math.isinf(guess):
        limit = Fraction(_f32_from_bits(0x7F7FFFFF)) + Fraction(2) ** 103  # MAX + half ulp
        if abs(exact) < limit:
            return math.copysign(_f32_from_bits(0x7F7FFFFF), approx)
        if abs(exact) == limit:
            return math.copysign(math.inf, approx)
        return guess
    bits = _F32_BITS.unpack(_F32.pack(guess))[0]
    best = guess
    best_d = abs(Fraction(guess) - exact)
    for nb in (bits - 1, bits + 1):
        if nb < 0 or (nb & 0x7F800000) == 0x7F800000:
            continue
        cand = _f32_from_bits(nb)
        d = abs(Fraction(cand) - exact)
        if d < best_d or (d == best_d and nb % 2 == 0):
            best, best_d = cand, d
    return best


def _format_java(negative: bool, digits: str, exp: int) -> str:
    """Java's layout of the decimal 0.d1d2... * 10^exp (digits without leading/trailing zeros)."""
    sign = "-" if negative else ""
    # value = d1.d2... * 10^(exp-1)
    e = exp - 1
    if -3 <= e < 7:
        if e >= 0:
            if len(digits) <= e + 1:
                return sign + digits + "0" * (e + 1 - len(digits)) + ".0"
            return sign + digits[: e + 1] + "." + digits[e + 1 :]
        return sign + "0." + "0" * (-e - 1) + digits
    return sign + digits[0] + "." + (digits[1:] or "0") + "E" + str(e)


def _decompose(r: str) -> tuple[bool, str, int]:
    """(negative, significant digits, exp) of a Python repr/%e string with value 0.digits * 10^exp."""
    negative = r.startswith("-")
    if negative:
        r = r[1:]
    mant, _, ex = r.partition("e")
    exp10 = int(ex) if ex else 0
    ip, _, fp = mant.partition(".")
    raw = ip + fp
    stripped = raw.lstrip("0")
    lead = len(raw) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    return negative, digits, exp10 + len(ip) - lead


def _shortest_digits(exact: Fraction, rounds_back: Callable[[Fraction], bool], max_digits: int) -> tuple[str, int]:
    """Digits/exponent Java's toString picks for |x| (JDK 19+ spec): the shortest decimal that rounds back;
    if that has one digit, the closest among 1- and 2-digit ones; ties to the even digit."""
    x = abs(exact)
    e10 = math.floor(math.log10(x)) if x > 0 else 0
    # fix e10 so that 10^e10 <= x < 10^(e10+1)
    while Fraction(10) ** e10 > x:
        e10 -= 1
    while Fraction(10) ** (e10 + 1) <= x:
        e10 += 1

    def candidates(k: int) -> list[tuple[int, int]]:
        unit = Fraction(10) ** (e10 - k + 1)
        n0 = math.floor(x / unit)
        out = []
        for n in (n0, n0 + 1):
            if n > 0:
                out.append((n, e10 - k + 1))
        return out

    for k in range(1, max_digits + 1):
        ks = [1, 2] if k == 1 else [k]
        valid: list[tuple[Fraction, int, int]] = []
        for kk in ks:
            for n, scale in candidates(kk):
                value = Fraction(n) * Fraction(10) ** scale
                if rounds_back(value):
                    valid.append((abs(value - x), n, scale))
        if valid:
            valid.sort(key=lambda t: (t[0], (t[1] % 2)))
            _, n, scale = valid[0]
            s = str(n)
            exp = scale + len(s)
            return s.rstrip("0"), exp
    raise AssertionError("no decimal rounds back")  # pragma: no cover


def java_double_to_string(v: float) -> str:
    """`Double.toString(v)` (JDK 19+ semantics): `1.0E10`, `1.0E-7`, `100.0`, `-0.0`, `NaN`, `Infinity`."""
    r = repr(v)
    a = abs(v)
    if 1e-3 <= a < 1e7:
        return r  # Python's repr is plain in this range, with the same shortest digits
    if v != v:
        return "NaN"
    if a == math.inf:
        return "Infinity" if v > 0 else "-Infinity"
    if a == 0.0:
        return "-0.0" if r[0] == "-" else "0.0"
    if a < _MIN_NORMAL_DOUBLE:
        return _double_subnormal(v)
    negative, digits, exp = _decompose(r)
    return _format_java(negative, digits, exp)


def _double_subnormal(v: float) -> str:
    exact = Fraction(v)
    digits, exp = _shortest_digits(exact, lambda d: float(d) == abs(v), 17)
    return _format_java(v < 0, digits, exp)


_FLOAT_STRINGS: dict[int, str] = {}


def java_float_to_string(v: float) -> str:
    """`Float.toString((float) v)` (JDK 19+ semantics); v is first rounded to float32."""
    f = to_float32(v)
    bits = _F32_BITS.unpack(_F32.pack(f))[0]
    cached = _FLOAT_STRINGS.get(bits)
    if cached is None:
        cached = _float_to_string(f)
        if len(_FLOAT_STRINGS) >= 4096:
            _FLOAT_STRINGS.clear()
        _FLOAT_STRINGS[bits] = cached
    return cached


def _float_to_string(f: float) -> str:
    if f != f:
        return "NaN"
    if f in (math.inf, -math.inf):
        return "Infinity" if f > 0 else "-Infinity"
    if f == 0.0:
        return "-0.0" if math.copysign(1.0, f) < 0 else "0.0"
    target = abs(f)

    def rounds_back(m: int, scale: int) -> bool:
        return m > 0 and to_float32(Fraction(m) * Fraction(10) ** scale) == target

    for k in range(1, 10):
        # the k-digit decimal nearest to the value, then its neighbours (asymmetric rounding intervals)
        _, digits, exp = _decompose(f"{target:.{k - 1}e}")
        scale = exp - k
        n = int(digits.ljust(k, "0"))
        valid = [m for m in (n, n - 1, n + 1) if rounds_back(m, scale)]
        if not valid:
            continue
        if k == 1:  # the 1-or-2-digit closest rule: let the exact search decide
            digits, exp = _shortest_digits(Fraction(target), lambda d: to_float32(d) == target, 9)
            return _format_java(f < 0, digits, exp)
        x = Fraction(target)
        best = min(valid, key=lambda m: (abs(Fraction(m) * Fraction(10) ** scale - x), m % 2))
        text = str(best)
        return _format_java(f < 0, text.rstrip("0"), scale + len(text))
    raise AssertionError("no decimal rounds back")  # pragma: no cover


def java_bigdecimal_to_string(d: Decimal) -> str:
    """`BigDecimal.toString()` of the same unscaled value and scale (no negative zero in Java)."""
    if not d.is_finite():
        raise ValueError(f"{d} has no BigDecimal form")
    if d.is_zero() and d.is_signed():
        d = d.copy_abs()
    # Python's to-scientific-string uses Java's rule: plain when exponent <= 0 and adjusted >= -6.
    return str(d)


def java_bigdecimal_to_plain_string(d: Decimal) -> str:
    """`BigDecimal.toPlainString()`: never an exponent; the scale's fraction digits kept (`1E+3` is `1000`,
    `-1E-9` is `-0.000000001`, `1.500` stays); no negative zero. Exact for any number of digits."""
    if not d.is_finite():
        raise ValueError(f"{d} has no BigDecimal form")
    if d.is_zero() and d.is_signed():
        d = d.copy_abs()
    return format(d, "f")  # `f` without a precision prints the digits and exponent as they are, no context


# -- Jackson string escaping -------------------------------------------------------------------------
_NEEDS_ESCAPE: Final = re.compile('[\x00-\x1f"\\\\\ud800-\udfff\U00010000-\U0010ffff]')
#: Matches the characters Jackson writes escaped (a string without any is written between quotes as is).
NEEDS_ESCAPE: Final = _NEEDS_ESCAPE
_SHORT_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    short = _SHORT_ESCAPES.get(c)
    if short is not None:
        return short
    cp = ord(c)
    if cp >= 0x10000:
        cp -= 0x10000
        return f"\\u{0xD800 + (cp >> 10):04X}\\u{0xDC00 + (cp & 0x3FF):04X}"
    return f"\\u{cp:04X}"


# The common escapes (quote, backslash, control characters) in one C-level pass; only strings with
# characters outside the BMP or lone surrogates take the per-character path.
_BMP_CONTROL: Final = {
    **{cp: f"\\u{cp:04X}" for cp in range(0x20)},
    **{ord(c): e for c, e in _SHORT_ESCAPES.items() if ord(c) < 0x20},
}
_CONTROL: Final = re.compile("[\x00-\x1f]")
_ASTRAL: Final = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")


def jackson_quote(s: str) -> str:
    """A JSON string literal as Jackson writes it to UTF-8.

    `"` and `\\` escaped; control characters as `\\b \\t \\n \\f \\r` or `\\u00XX` (uppercase hex); `/` and
    DEL raw; other BMP characters raw; characters outside the BMP (and lone surrogates) as `\\uXXXX`
    surrogate escapes with uppercase hex. The result encodes to UTF-8 without errors.
    """
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    if s.isascii() or _ASTRAL.search(s) is None:
        escaped = s.replace("\\", "\\\\").replace('"', '\\"')
        if _CONTROL.search(escaped) is not None:
            escaped = escaped.translate(_BMP_CONTROL)
        return '"' + escaped + '"'
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


# -- compact JSON of plain values, as Jackson's ObjectMapper writes it ---------------------------
class JavaFloat(float):
    """A float that stands for a Java `float` (Jackson writes it with Float.toString, not Double.toString)."""

    __slots__ = ()


def _jackson_encode(v: Any, out: list[str], quote: Callable[[str], str]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        text = java_float_to_string(v) if isinstance(v, JavaFloat) else java_double_to_string(v)
        out.append('"' + text + '"' if math.isnan(v) or math.isinf(v) else text)
    elif isinstance(v, str):
        out.append(quote(v))
    elif isinstance(v, Mapping):
        out.append("{")
        for i, (k, x) in enumerate(v.items()):
            if i:
                out.append(",")
            out.append(quote(str(k)))
            out.append(":")
            _jackson_encode(x, out, quote)
        out.append("}")
    elif isinstance(v, list | tuple):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _jackson_encode(x, out, quote)
        out.append("]")
    else:
        raise TypeError(f"cannot write {type(v).__name__} as JSON")


def jackson_text(value: Any, quote: Callable[[str], str] = jackson_quote) -> str:
    """Compact JSON of plain values (None, bool, int, float, str, mappings, lists) as Jackson writes it; `quote`
    writes the strings (jackson_quote: Jackson's UTF-8 generator)."""
    out: list[str] = []
    _jackson_encode(value, out, quote)
    return "".join(out)


def jackson_dumps(value: Any) -> bytes:
    """Compact JSON of plain values as Jackson's ObjectMapper writes it, in UTF-8."""
    return jackson_text(value).encode("utf-8")
