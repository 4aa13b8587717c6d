"""Sets of code points for the Java regex translator (connect_worker.api.java_regex): immutable sorted ranges with
union, complement and intersection; the Python character class that spells a set; Java's predefined, POSIX and
`java*` classes, Unicode general categories and binary properties (`CharPredicates` of java.util.regex, from
Python's `unicodedata`); and the case-insensitive closures Java applies to literals, ranges and class members.

Approximations (Python has no data for them): `Alphabetic` is the letters, letter numbers and every cased character
(the Other_Alphabetic vowel signs are missing); `Ideographic` is a fixed table of the ideograph blocks; Unicode
data is Python's version, not the JVM's; simple case mappings are derived from Python's full ones.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable
from typing import Final

MAX_CP: Final = 0x10FFFF
#: Sorted, disjoint, non-adjacent inclusive ranges of code points.
Ranges = tuple[tuple[int, int], ...]
EVERYTHING: Final[Ranges] = ((0, MAX_CP),)
_BMP: Final[Ranges] = ((0, 0xFFFF),)
_ASTRAL: Final[Ranges] = ((0x10000, MAX_CP),)


# -- the algebra -------------------------------------------------------------------------------------------------------
def normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def of(*cps: int) -> Ranges:
    return normalize((cp, cp) for cp in cps)


def union(*sets: Ranges) -> Ranges:
    return normalize(r for s in sets for r in s)


def complement(a: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in a:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return tuple(out)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def contains(a: Ranges, cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in a)


# -- Python source -----------------------------------------------------------------------------------------------------
def py_char(cp: int) -> str:
    """One code point as Python regex source, valid inside and outside a character class."""
    if cp < 0x80 and chr(cp).isalnum():
        return chr(cp)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _class_body(ranges: Ranges) -> str:
    return "".join(
        py_char(lo) if lo == hi else py_char(lo) + ("-" if hi > lo + 1 else "") + py_char(hi) for lo, hi in ranges
    )


def py_class(ranges: Ranges) -> str:
    """Python source matching exactly one code point of the set (and nothing else, whatever the flags)."""
    if not ranges:
        return "(?!)"
    if ranges == EVERYTHING:
        return "(?s:.)"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return py_char(ranges[0][0])
    bmp, astral = intersect(ranges, _BMP), intersect(ranges, _ASTRAL)
    if len(astral) > 4 and bmp and len(complement(ranges)) >= len(ranges):
        # Python tests a class's code points above U+FFFF one range after another: guard them, so that a BMP
        # character (nearly every one) costs a bitmap lookup and one range
        return f"(?:{py_class(bmp)}|(?=[\\U00010000-\\U0010ffff]){py_class(astral)})"
    negated = complement(ranges)
    if len(negated) < len(ranges):
        return "[^" + _class_body(negated) + "]"
    return "[" + _class_body(ranges) + "]"


# -- Unicode data ------------------------------------------------------------------------------------------------------
@functools.cache
def _category_table() -> dict[str, Ranges]:
    table: dict[str, list[tuple[int, int]]] = {}
    start, prev = 0, unicodedata.category("\x00")
    for cp in range(1, MAX_CP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_CP else ""
        if cat != prev:
            table.setdefault(prev, []).append((start, cp - 1))
            start, prev = cp, cat
    return {k: tuple(v) for k, v in table.items()}


def categories(*names: str) -> Ranges:
    """General categories by two-letter name (`Lu`) or major class (`L`)."""
    table = _category_table()
    return union(*(r for cat, r in table.items() for n in names if cat == n or (len(n) == 1 and cat[0] == n)))


def _scan(pred: Callable[[str], bool], limit: int = MAX_CP) -> Ranges:
    out: list[tuple[int, int]] = []
    start = -1
    for cp in range(limit + 2):
        ok = cp <= limit and pred(chr(cp))
        if ok and start < 0:
            start = cp
        elif not ok and start >= 0:
            out.append((start, cp - 1))
            start = -1
    return tuple(out)


@functools.cache
def java_predicate(name: str) -> Ranges:
    """`Character.isXxx` and the `CharPredicates` built on them, by name."""
    if name == "lowercase":  # Ll + Other_Lowercase: Python's islower() on one character is exactly that
        return _scan(str.islower)
    if name == "uppercase":
        return _scan(str.isupper)
    if name == "titlecase":
        return categories("Lt")
    if name == "alphabetic":
        return union(categories("L", "Nl"), java_predicate("lowercase"), java_predicate("uppercase"))
    if name == "ideographic":
        return intersect(_IDEOGRAPHIC, complement(categories("Cn")))
    if name == "white_space":
        return union(categories("Zs", "Zl", "Zp"), ((0x09, 0x0D), (0x85, 0x85)))
    if name == "word":
        return union(java_predicate("alphabetic"), categories("Mn", "Me", "Mc", "Nd", "Pc"), ((0x200C, 0x200D),))
    if name == "hex_digit":
        return union(categories("Nd"), normalize(((0x30, 0x39), (0x41, 0x46), (0x61, 0x66))), _FULLWIDTH_HEX)
    if name == "graph":
        return complement(categories("Zs", "Zl", "Zp", "Cc", "Cs", "Cn"))
    if name == "blank":
        return union(categories("Zs"), of(0x09))
    if name == "print":
        return intersect(union(java_predicate("graph"), java_predicate("blank")), complement(categories("Cc")))
    if name == "java_whitespace":
        spaces = intersect(categories("Zs", "Zl", "Zp"), complement(of(0xA0, 0x2007, 0x202F)))
        return union(spaces, ((0x09, 0x0D), (0x1C, 0x1F)))
    if name == "identifier_ignorable":
        return union(((0x00, 0x08), (0x0E, 0x1B), (0x7F, 0x9F)), categories("Cf"))
    if name == "mirrored":
        return _scan(lambda c: unicodedata.mirrored(c) == 1)
    raise KeyError(name)


_FULLWIDTH_HEX: Final[Ranges] = ((0xFF10, 0xFF19), (0xFF21, 0xFF26), (0xFF41, 0xFF46))
_IDEOGRAPHIC: Final[Ranges] = normalize(
    [
        (0x3006, 0x3007), (0x3021, 0x3029), (0x3038, 0x303A), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
        (0xF900, 0xFA6D), (0xFA70, 0xFAD9), (0x16FE4, 0x16FE4), (0x17000, 0x187F7), (0x18800, 0x18CD5),
        (0x18D00, 0x18D08), (0x1B170, 0x1B2FB), (0x20000, 0x2A6DF), (0x2A700, 0x2B739), (0x2B740, 0x2B81D),
        (0x2B820, 0x2CEA1), (0x2CEB0, 0x2EBE0), (0x2F800, 0x2FA1D), (0x30000, 0x3134A),
    ]
)  # fmt: skip

# -- java.util.regex.ASCII ---------------------------------------------------------------------------------------------
ASCII_DIGIT: Final[Ranges] = ((0x30, 0x39),)
ASCII_ALPHA: Final[Ranges] = ((0x41, 0x5A), (0x61, 0x7A))
ASCII_ALNUM: Final[Ranges] = ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A))
ASCII_WORD: Final[Ranges] = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
ASCII_SPACE: Final[Ranges] = ((0x09, 0x0D), (0x20, 0x20))
ASCII_PUNCT: Final[Ranges] = ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E))
HORIZONTAL_SPACE: Final[Ranges] = normalize(
    [
        (0x09, 0x09), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x180E, 0x180E), (0x2000, 0x200A),
        (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
    ]
)  # fmt: skip
VERTICAL_SPACE: Final[Ranges] = ((0x0A, 0x0D), (0x85, 0x85), (0x2028, 0x2029))
LINE_TERMINATORS: Final[Ranges] = ((0x0A, 0x0A), (0x0D, 0x0D), (0x85, 0x85), (0x2028, 0x2029))

_POSIX_ASCII: Final[dict[str, Ranges]] = {
    "ASCII": ((0x00, 0x7F),),
    "Alnum": ASCII_ALNUM,
    "Alpha": ASCII_ALPHA,
    "Blank": ((0x09, 0x09), (0x20, 0x20)),
    "Cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "Digit": ASCII_DIGIT,
    "Graph": ((0x21, 0x7E),),
    "Print": ((0x20, 0x7E),),
    "Punct": ASCII_PUNCT,
    "Space": ASCII_SPACE,
    "XDigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}


def predefined(letter: str, unicode_classes: bool) -> Ranges:
    """`\\d \\s \\w \\h \\v` (lower-case letter; the caller complements for upper case)."""
    if letter == "h":
        return HORIZONTAL_SPACE
    if letter == "v":
        return VERTICAL_SPACE
    if not unicode_classes:
        return {"d": ASCII_DIGIT, "s": ASCII_SPACE, "w": ASCII_WORD}[letter]
    return {"d": categories("Nd"), "s": java_predicate("white_space"), "w": java_predicate("word")}[letter]


# -- \p{...} -----------------------------------------------------------------------------------------------------------
class UnknownProperty(LookupError):
    """Java does not know the property name either."""


class UnsupportedProperty(LookupError):
    """Valid in Java, but Python has no data for it (scripts, blocks, emoji)."""


def _cased(ci: bool, own: str) -> Ranges:
    if ci:
        return union(java_predicate("lowercase"), java_predicate("uppercase"), java_predicate("titlecase"))
    return java_predicate(own)


_Lookup = dict[str, Callable[[bool], Ranges]]  # by name; the argument says whether CASE_INSENSITIVE is on

#: CharPredicates.getPosixPredicate (upper-case names)
_POSIX: Final[_Lookup] = {
    "ALPHA": lambda ci: java_predicate("alphabetic"),
    "LOWER": lambda ci: _cased(ci, "lowercase"),
    "UPPER": lambda ci: _cased(ci, "uppercase"),
    "SPACE": lambda ci: java_predicate("white_space"),
    "PUNCT": lambda ci: categories("P"),
    "XDIGIT": lambda ci: java_predicate("hex_digit"),
    "ALNUM": lambda ci: union(java_predicate("alphabetic"), categories("Nd")),
    "CNTRL": lambda ci: categories("Cc"),
    "DIGIT": lambda ci: categories("Nd"),
    "BLANK": lambda ci: java_predicate("blank"),
    "GRAPH": lambda ci: java_predicate("graph"),
    "PRINT": lambda ci: java_predicate("print"),
}
#: CharPredicates.getUnicodePredicate (upper-case names)
_UNICODE: Final[_Lookup] = {
    "ALPHABETIC": lambda ci: java_predicate("alphabetic"),
    "ASSIGNED": lambda ci: complement(categories("Cn")),
    "CONTROL": lambda ci: categories("Cc"),
    "HEXDIGIT": lambda ci: java_predicate("hex_digit"),
    "HEX_DIGIT": lambda ci: java_predicate("hex_digit"),
    "IDEOGRAPHIC": lambda ci: java_predicate("ideographic"),
    "JOINCONTROL": lambda ci: ((0x200C, 0x200D),),
    "JOIN_CONTROL": lambda ci: ((0x200C, 0x200D),),
    "LETTER": lambda ci: categories("L"),
    "LOWERCASE": lambda ci: _cased(ci, "lowercase"),
    "NONCHARACTERCODEPOINT": lambda ci: _NONCHARACTERS,
    "NONCHARACTER_CODE_POINT": lambda ci: _NONCHARACTERS,
    "TITLECASE": lambda ci: _cased(ci, "titlecase"),
    "PUNCTUATION": lambda ci: categories("P"),
    "UPPERCASE": lambda ci: _cased(ci, "uppercase"),
    "WHITESPACE": lambda ci: java_predicate("white_space"),
    "WHITE_SPACE": lambda ci: java_predicate("white_space"),
    "WORD": lambda ci: java_predicate("word"),
}
_EMOJI: Final = frozenset(
    ("EMOJI", "EMOJI_PRESENTATION", "EMOJI_MODIFIER", "EMOJI_MODIFIER_BASE", "EMOJI_COMPONENT", "EXTENDED_PICTOGRAPHIC")
)
_NONCHARACTERS: Final[Ranges] = union(
    ((0xFDD0, 0xFDEF),), normalize((p << 16 | 0xFFFE, p << 16 | 0xFFFF) for p in range(17))
)


def _lookup(table: _Lookup, name: str, ci: bool) -> Ranges | None:
    found = table.get(name)
    return None if found is None else found(ci)


_CATEGORIES: Final = frozenset(
    [
        "Cn", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl", "Zp", "Cc", "Cf", "Co", "Cs", "Pd", "Ps",
        "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi", "Pf", "L", "M", "N", "Z", "C", "P", "S",
    ]
)  # fmt: skip
_JAVA_CLASSES: Final[dict[str, Callable[[], Ranges]]] = {
    "javaAlphabetic": lambda: java_predicate("alphabetic"),
    "javaIdeographic": lambda: java_predicate("ideographic"),
    "javaDigit": lambda: categories("Nd"),
    "javaDefined": lambda: complement(categories("Cn")),
    "javaLetter": lambda: categories("L"),
    "javaLetterOrDigit": lambda: categories("L", "Nd"),
    "javaJavaIdentifierStart": lambda: categories("L", "Nl", "Sc", "Pc"),
    "javaJavaIdentifierPart": lambda: union(
        categories("L", "Sc", "Pc", "Nd", "Nl", "Mc", "Mn"), java_predicate("identifier_ignorable")
    ),
    "javaUnicodeIdentifierStart": lambda: union(categories("L", "Nl"), _OTHER_ID_START),
    "javaUnicodeIdentifierPart": lambda: union(
        categories("L", "Pc", "Nd", "Nl", "Mc", "Mn"),
        java_predicate("identifier_ignorable"),
        _OTHER_ID_START,
        of(0xB7, 0x387, 0x1369, 0x136A, 0x136B, 0x136C, 0x136D, 0x136E, 0x136F, 0x1370, 0x1371, 0x19DA),
    ),
    "javaIdentifierIgnorable": lambda: java_predicate("identifier_ignorable"),
    "javaSpaceChar": lambda: categories("Zs", "Zl", "Zp"),
    "javaWhitespace": lambda: java_predicate("java_whitespace"),
    "javaISOControl": lambda: ((0x00, 0x1F), (0x7F, 0x9F)),
    "javaMirrored": lambda: java_predicate("mirrored"),
}
_OTHER_ID_START: Final[Ranges] = of(0x1885, 0x1886, 0x2118, 0x212E, 0x309B, 0x309C)


def _for_property(name: str, ci: bool) -> Ranges | None:
    """CharPredicates.forProperty (case-sensitive name)."""
    if name in ("Lu", "Ll", "Lt"):
        return categories("Lu", "Ll", "Lt") if ci else categories(name)
    if name in _CATEGORIES:
        return categories(name)
    if name == "LC":
        return categories("Lu", "Ll", "Lt")
    if name == "LD":
        return categories("L", "Nd")
    if name == "L1":
        return ((0x00, 0xFF),)
    if name == "all":
        return EVERYTHING
    if name in ("Lower", "Upper"):
        return ASCII_ALPHA if ci else (((0x61, 0x7A),) if name == "Lower" else ((0x41, 0x5A),))
    if name in _POSIX_ASCII:
        return _POSIX_ASCII[name]
    if name in ("javaLowerCase", "javaUpperCase", "javaTitleCase"):
        return _cased(ci, name[4:].lower())
    if name in _JAVA_CLASSES:
        return _JAVA_CLASSES[name]()
    return None


def property_ranges(name: str, *, unicode_classes: bool, case_insensitive: bool) -> Ranges:
    """The code points of `\\p{name}` as Pattern.family looks the name up. Raises UnknownProperty (Java refuses it
    too) or UnsupportedProperty (Java knows it, Python has no data: scripts, blocks, emoji)."""
    ci = case_insensitive
    if "=" in name:
        key, _, value = name.partition("=")
        key = key.lower()
        if key in ("gc", "general_category"):
            found = _for_property(value, ci)
            if found is None:
                raise UnknownProperty(name)
            return found
        if key in ("sc", "script", "blk", "block"):
            raise UnsupportedProperty(name)
        raise UnknownProperty(name)
    if name.startswith("In"):
        raise UnsupportedProperty(name)
    if name.startswith("Is"):
        short = name[2:]
        if short.upper() in _EMOJI:
            raise UnsupportedProperty(name)
        found = _lookup(_UNICODE, short.upper(), ci)
        if found is None:
            found = _lookup(_POSIX, short.upper(), ci)
        if found is None:
            found = _for_property(short, ci)
        if found is None:
            raise UnsupportedProperty(name)  # Java would try a Unicode script next
        return found
    found = _lookup(_POSIX, name.upper(), ci) if unicode_classes else None
    if found is None:
        found = _for_property(name, ci)
    if found is None:
        raise UnknownProperty(name)
    return found


# -- case-insensitive closures -----------------------------------------------------------------------------------------
def ascii_lower(cp: int) -> int:
    return cp + 0x20 if 0x41 <= cp <= 0x5A else cp


def ascii_upper(cp: int) -> int:
    return cp - 0x20 if 0x61 <= cp <= 0x7A else cp


def simple_upper(cp: int) -> int:
    """Character.toUpperCase(int): the simple (one-to-one) mapping."""
    c = chr(cp)
    up = c.upper()
    if len(up) == 1:
        return ord(up)
    title = c.title()  # ᾳ -> ᾼ: the simple upper-case mapping of the iota-subscript letters is their title case
    return ord(title) if len(title) == 1 else cp


def simple_lower(cp: int) -> int:
    """Character.toLowerCase(int): the simple (one-to-one) mapping."""
    if cp == 0x130:
        return 0x69
    low = chr(cp).lower()
    return ord(low) if len(low) == 1 else cp


_CASED_LIMIT: Final = 0x1FFFF  # no code point above has a case mapping


@functools.cache
def _cased_code_points() -> tuple[tuple[int, int, int], ...]:
    """(cp, upper, lower) for every code point with a simple case mapping."""
    out = []
    for cp in range(_CASED_LIMIT + 1):
        up, low = simple_upper(cp), simple_lower(cp)
        if up != cp or low != cp:
            out.append((cp, up, low))
    return tuple(out)


@functools.cache
def _fold_classes() -> dict[int, tuple[int, ...]]:
    """toLowerCase(toUpperCase(c)) -> every cased c that folds to it."""
    table: dict[int, list[int]] = {}
    for cp, up, _ in _cased_code_points():
        table.setdefault(simple_lower(up), []).append(cp)
    return {k: tuple(v) for k, v in table.items()}


def fold(cp: int) -> int:
    return simple_lower(simple_upper(cp))


def ci_single(cp: int, unicode_case: bool) -> Ranges:
    """Pattern.single() under CASE_INSENSITIVE: SingleI (ASCII letters) or SingleU (with UNICODE_CASE)."""
    if unicode_case:
        upper = simple_upper(cp)
        lower = simple_lower(upper)
        if upper == lower:
            return of(cp)
        return union(of(lower), of(*_fold_classes().get(lower, ())))
    if cp < 0x80 and ascii_lower(cp) != ascii_upper(cp):
        return of(ascii_lower(cp), ascii_upper(cp))
    return of(cp)


def ci_slice_char(cp: int, unicode_case: bool) -> Ranges:
    """One character of a case-insensitive Slice (SliceI / SliceU)."""
    if unicode_case:
        key = fold(cp)
        return union(of(*_fold_classes().get(key, ())), of(key) if fold(key) == key else ())
    low = ascii_lower(cp)
    return of(low, ascii_upper(low)) if cp < 0x80 else of(cp)


def ci_bits(cp: int, unicode_case: bool) -> Ranges:
    """BitClass.add under CASE_INSENSITIVE (code points below 256)."""
    if cp < 0x80:
        return of(cp, ascii_lower(cp), ascii_upper(cp))
    if unicode_case:
        return of(cp, simple_lower(cp), simple_upper(cp))
    return of(cp)


def ci_range(lo: int, hi: int, unicode_case: bool) -> Ranges:
    """CIRange / CIRangeU: c matches when it, its upper case or the lower case of that is in [lo, hi]."""
    extra: list[int]
    if unicode_case:
        extra = [cp for cp, up, _ in _cased_code_points() if lo <= up <= hi or lo <= simple_lower(up) <= hi]
    else:
        extra = [cp for cp in range(0x80) if lo <= ascii_upper(cp) <= hi or lo <= ascii_lower(cp) <= hi]
    return union(((lo, hi),), of(*extra))
