"""Sets of Unicode code points for the Java regex translator (connectors.relational.java_regex): sorted, merged
ranges with union, complement and intersection, Java's predefined and POSIX classes, Unicode general categories
and binary properties (from Python's unicodedata), and the Python character class that spells a set.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from typing import Final

MAX_CP: Final = 0x10FFFF

Ranges = list[tuple[int, int]]


def _normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def union(a: Ranges, b: Ranges) -> Ranges:
    return _normalize([*a, *b])


def complement(a: Ranges) -> Ranges:
    out: Ranges = []
    nxt = 0
    for lo, hi in _normalize(a):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return out


def intersect(a: Ranges, b: Ranges) -> Ranges:
    a, b = _normalize(a), _normalize(b)
    out: Ranges = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _class_char(cp: int) -> str:
    if cp < 0x80 and chr(cp).isalnum():
        return chr(cp)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def emit_class(ranges: Ranges, negated: bool) -> str:
    ranges = _normalize(ranges)
    if not ranges:
        return "(?s:.)" if negated else "(?!)"
    body = "".join(
        _class_char(lo) if lo == hi else _class_char(lo) + ("-" if hi > lo + 1 else "") + _class_char(hi)
        for lo, hi in ranges
    )
    return ("[^" if negated else "[") + body + "]"


def _chars(text: str) -> Ranges:
    return _normalize((ord(c), ord(c)) for c in text)


_ASCII_SETS: Final[dict[str, Ranges]] = {
    "lower": [(0x61, 0x7A)],
    "upper": [(0x41, 0x5A)],
    "ascii": [(0x00, 0x7F)],
    "alpha": [(0x41, 0x5A), (0x61, 0x7A)],
    "digit": [(0x30, 0x39)],
    "alnum": [(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
    "punct": _chars("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "graph": [(0x21, 0x7E)],
    "print": [(0x20, 0x7E)],
    "blank": [(0x09, 0x09), (0x20, 0x20)],
    "cntrl": [(0x00, 0x1F), (0x7F, 0x7F)],
    "xdigit": [(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
    "space": _chars(" \t\n\x0b\f\r"),
}


def predefined(c: str, unicode_classes: bool) -> Ranges:
    if c == "h":
        return union(_chars(" \t\xa0\u1680\u180e\u202f\u205f\u3000"), [(0x2000, 0x200A)])
    if c == "v":
        return _chars("\n\x0b\f\r\x85\u2028\u2029")
    if not unicode_classes:
        return {"d": _ASCII_SETS["digit"], "w": _chars("_") + _ASCII_SETS["alnum"], "s": _ASCII_SETS["space"]}[c]
    if c == "d":
        return _categories("Nd")
    if c == "s":
        return _white_space()
    return union(_categories("L", "M", "Nd", "Pc", "Nl"), [(0x200C, 0x200D)])


@functools.cache
def _category_table() -> dict[str, Ranges]:
    table: dict[str, Ranges] = {}
    start = 0
    prev = unicodedata.category("\x00")
    for cp in range(1, MAX_CP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_CP else ""
        if cat != prev:
            table.setdefault(prev, []).append((start, cp - 1))
            start, prev = cp, cat
    return table


def _categories(*names: str) -> Ranges:
    table = _category_table()
    out: Ranges = []
    for name in names:
        for cat, ranges in table.items():
            if cat == name or (len(name) == 1 and cat.startswith(name)):
                out.extend(ranges)
    return _normalize(out)


@functools.cache
def _white_space() -> Ranges:
    return _normalize((cp, cp) for cp in range(0x3100) if chr(cp).isspace() and not 0x1C <= cp <= 0x1F)


_GENERAL_CATEGORIES: Final = frozenset(
    [
        *("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps"),
        *("Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co"),
        "Cn",
    ]
)
_POSIX: Final[dict[str, str]] = {
    "ASCII": "ascii",
    "Alnum": "alnum",
    "Alpha": "alpha",
    "Blank": "blank",
    "Cntrl": "cntrl",
    "Digit": "digit",
    "Graph": "graph",
    "Lower": "lower",
    "Print": "print",
    "Punct": "punct",
    "Space": "space",
    "Upper": "upper",
    "XDigit": "xdigit",
}
_POSIX_UNICODE: Final[dict[str, tuple[str, ...]]] = {
    "lower": ("Ll",),
    "upper": ("Lu",),
    "alpha": ("L", "Nl"),
    "digit": ("Nd",),
    "alnum": ("L", "Nl", "Nd"),
    "punct": ("P",),
    "graph": ("L", "M", "N", "P", "S"),
    "print": ("L", "M", "N", "P", "S", "Zs"),
    "cntrl": ("Cc",),
}
_BINARY: Final[dict[str, tuple[str, ...]]] = {
    "ALPHABETIC": ("L", "Nl"),
    "LETTER": ("L",),
    "LOWERCASE": ("Ll",),
    "UPPERCASE": ("Lu",),
    "TITLECASE": ("Lt",),
    "DIGIT": ("Nd",),
    "PUNCTUATION": ("P",),
    "CONTROL": ("Cc",),
    "IDEOGRAPHIC": ("Lo",),
    "ALNUM": ("L", "Nl", "Nd"),
}
_JAVA_CLASSES: Final[dict[str, tuple[str, ...]]] = {
    "javaLowerCase": ("Ll",),
    "javaUpperCase": ("Lu",),
    "javaTitleCase": ("Lt",),
    "javaDigit": ("Nd",),
    "javaLetter": ("L",),
    "javaLetterOrDigit": ("L", "Nd"),
    "javaAlphabetic": ("L", "Nl"),
    "javaSpaceChar": ("Z",),
    "javaISOControl": ("Cc",),
    "javaDefined": ("L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Cs", "Co"),
}


def property_ranges(name: str, unicode_classes: bool) -> Ranges | None:
    """The code points of a `\\p{name}` family (Java's `Pattern.family` lookup order), or None when unknown or
    unsupported (blocks `In..`, scripts, `block=`/`script=` forms)."""
    if "=" in name:
        key, _, value = name.partition("=")
        if key.lower() in ("gc", "general_category"):
            return _java_property(value)
        return None
    if name.startswith("In"):
        return None
    if name.startswith("Is"):
        rest = name[2:]
        binary = _binary_property(rest)
        return binary if binary is not None else _java_property(rest)
    if unicode_classes and name in _POSIX:
        posix = _POSIX[name]
        if posix == "space":
            return _white_space()
        if posix in _POSIX_UNICODE:
            return _categories(*_POSIX_UNICODE[posix])
    return _java_property(name)


def _binary_property(name: str) -> Ranges | None:
    key = name.upper().replace(" ", "")
    if key in ("WHITESPACE", "WHITE_SPACE"):
        return _white_space()
    if key == "ASSIGNED":
        return complement(_categories("Cn"))
    if key in ("HEXDIGIT", "HEX_DIGIT"):
        return union(_ASCII_SETS["xdigit"], [(0xFF10, 0xFF19), (0xFF21, 0xFF26), (0xFF41, 0xFF46)])
    if key in ("JOINCONTROL", "JOIN_CONTROL"):
        return [(0x200C, 0x200D)]
    if key in _BINARY:
        return _categories(*_BINARY[key])
    return None


def _java_property(name: str) -> Ranges | None:
    if name in _GENERAL_CATEGORIES:
        return _categories(name)
    if name == "LC":
        return _categories("Lu", "Ll", "Lt")
    if name == "LD":
        return _categories("L", "Nd")
    if name == "L1":
        return [(0x00, 0xFF)]
    if name == "all":
        return [(0, MAX_CP)]
    if name in _POSIX:
        return _ASCII_SETS[_POSIX[name]]
    if name in _JAVA_CLASSES:
        return _categories(*_JAVA_CLASSES[name])
    if name == "javaWhitespace":
        return union(_chars("\t\n\x0b\f\r\x1c\x1d\x1e\x1f"), _space_separators_except_nbsp())
    return None


def _space_separators_except_nbsp() -> Ranges:
    nbsp = (0xA0, 0x2007, 0x202F)
    return _normalize(
        (cp, cp) for lo, hi in _categories("Zs", "Zl", "Zp") for cp in range(lo, hi + 1) if cp not in nbsp
    )
