"""The atoms of java.util.regex.Pattern's parser, ported method by method: escapes (`escape`, `o`, `x`, `u`, `N`,
back references) and character classes (`clazz`, `range`, `family`), with Java's precedence of unions and
intersections and its case-insensitive closures of literals, ranges and properties."""

from __future__ import annotations

import unicodedata
from typing import Final, TypeAlias

from connect_worker.api.java_regex_nodes import Assertion, BackRef, Char, LineEnding, Node, boundary, dollar
from connect_worker.api.java_regex_scanner import (
    CASE_INSENSITIVE,
    UNICODE_CASE,
    UNICODE_CHARACTER_CLASS,
    UNIX_LINES,
    Scanner,
    is_alpha,
    is_digit,
    is_hex,
)
from connect_worker.api.java_regex_sets import (
    Ranges,
    UnknownProperty,
    UnsupportedProperty,
    ci_bits,
    ci_range,
    ci_single,
    ci_slice_char,
    complement,
    intersect,
    of,
    predefined,
    property_ranges,
    union,
)

_CONTROLS: Final = {"a": 0x07, "e": 0x1B, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09}
#: Under CASE_INSENSITIVE | UNICODE_CASE these code points below 256 have case partners above it (not in BitClass)
_UNICODE_CASE_SINGLES: Final = frozenset((0xFF, 0xB5, 0x49, 0x69, 0x53, 0x73, 0x4B, 0x6B, 0xC5, 0xE5))


class _Bits:
    """Pattern.BitClass: mutable, and shared by reference (Java's class predicates see later additions)."""

    __slots__ = ("cps",)

    def __init__(self) -> None:
        self.cps: set[int] = set()


class _Op:
    """A union ("or"), intersection ("and") or complement ("not") of class predicates, evaluated once the whole
    class is parsed, as Java's lambdas are when they match."""

    __slots__ = ("kind", "left", "right")

    def __init__(self, kind: str, left: _Pred, right: _Pred | None = None) -> None:
        self.kind, self.left, self.right = kind, left, right


_Pred: TypeAlias = "Ranges | _Bits | _Op"


def _evaluate(p: _Pred) -> Ranges:
    if isinstance(p, _Bits):
        return of(*p.cps)
    if isinstance(p, _Op):
        left = _evaluate(p.left)
        if p.right is None:
            return complement(left)
        right = _evaluate(p.right)
        return union(left, right) if p.kind == "or" else intersect(left, right)
    return p


class AtomParser(Scanner):
    """Escapes and character classes: the layer of Pattern's parser that reads one atom (Parser builds on it)."""

    def __init__(self, pattern: str, flags: int) -> None:
        super().__init__(pattern, flags)
        self.group_count = 1  # capturingGroupCount: group 0 is the whole match
        self.named: dict[str, int] = {}
        self.root: Node | None = None  # escape()'s "double return" of a node
        self.predicate: Ranges = ()

    # -- escapes -------------------------------------------------------------------------------------------------------
    def ref(self, ref_num: int) -> Node:
        while True:
            ch = self.peek()
            if not is_digit(ch):
                break
            new_ref = ref_num * 10 + (ch - 0x30)
            if self.group_count - 1 < new_ref:
                break
            ref_num = new_ref
            self.read()
        return BackRef(ref_num, self.has(CASE_INSENSITIVE), self.has(UNICODE_CASE))

    def escape(self, inclass: bool, create: bool, isrange: bool) -> int:
        """A code point, or -1 with the node in self.root (outside a class) and the set in self.predicate."""
        ch = self.skip()
        c = chr(ch) if ch else "\0"
        uc = self.has(UNICODE_CHARACTER_CLASS)
        if c == "0":
            return self.octal()
        if "1" <= c <= "9":
            if not inclass:
                if create:
                    self.root = self.ref(ch - 0x30)
                return -1
        elif c in "dDsSwWhH" or (c in "vV" and not (c == "v" and isrange)):
            if create:
                base = predefined(c.lower(), uc)
                self.predicate = complement(base) if c.isupper() else base
                if not inclass:
                    self.root = Char(self.predicate)
            return -1
        elif c == "v":
            return 0x0B
        elif c in "ABGRXZbz" and not inclass:
            if create:
                self.root = self.escape_node(c)
            return -1
        elif c == "N":
            return self.named_char()
        elif c == "k" and not inclass:
            if self.read() != 0x3C:
                raise self.error("\\k is not followed by '<' for named capturing group")
            name = self.groupname(self.read())
            if name not in self.named:
                raise self.error(f"named capturing group <{name}> does not exist")
            if create:
                self.root = BackRef(self.named[name], self.has(CASE_INSENSITIVE), self.has(UNICODE_CASE))
            return -1
        elif c in _CONTROLS:
            return _CONTROLS[c]
        elif c == "c":
            if self.cursor < self.pattern_length:
                return self.read() ^ 64
            raise self.error("Illegal control escape sequence")
        elif c == "u":
            return self.unicode_escape()
        elif c == "x":
            return self.hex_escape()
        elif not (c.isascii() and c.isalpha()):
            return ch
        raise self.error("Illegal/unsupported escape sequence")

    def escape_node(self, c: str) -> Node:
        if c == "A":
            return Assertion("\\A")
        if c == "z":
            return Assertion("\\Z")
        if c == "Z":
            return Assertion(dollar(False, self.has(UNIX_LINES)))
        if c == "R":
            return LineEnding()
        if c == "B":
            return Assertion(boundary(False, self.has(UNICODE_CHARACTER_CLASS)))
        if c == "b":
            if self.peek() == 0x7B:
                if self.skip() == 0x67:  # \b{g}
                    if self.read() == 0x7D:
                        raise self.refuse("\\b{g} (grapheme cluster boundary)")
                    raise self.error("Illegal/unsupported escape sequence")
                self.unread()
                self.unread()
            return Assertion(boundary(True, self.has(UNICODE_CHARACTER_CLASS)))
        if c == "G":
            raise self.refuse("\\G (end of the previous match)")
        raise self.refuse("\\X (grapheme cluster)")

    def octal(self) -> int:
        n = self.read()
        if 0x30 <= n <= 0x37:
            m = self.read()
            if 0x30 <= m <= 0x37:
                o = self.read()
                if 0x30 <= o <= 0x37 and 0x30 <= n <= 0x33:
                    return (n - 0x30) * 64 + (m - 0x30) * 8 + (o - 0x30)
                self.unread()
                return (n - 0x30) * 8 + (m - 0x30)
            self.unread()
            return n - 0x30
        raise self.error("Illegal octal escape sequence")

    def hex_escape(self) -> int:
        n = self.read()
        if is_hex(n):
            m = self.read()
            if is_hex(m):
                return int(chr(n) + chr(m), 16)
        elif n == 0x7B and is_hex(self.peek()):
            value = 0
            while is_hex(n := self.read()):
                value = value * 16 + int(chr(n), 16)
                if value > 0x10FFFF:
                    raise self.error("Hexadecimal codepoint is too big")
            if n != 0x7D:
                raise self.error("Unclosed hexadecimal escape sequence")
            return value
        raise self.error("Illegal hexadecimal escape sequence")

    def uxxxx(self) -> int:
        value = 0
        for _ in range(4):
            ch = self.read()
            if not is_hex(ch):
                raise self.error("Illegal Unicode escape sequence")
            value = value * 16 + int(chr(ch), 16)
        return value

    def unicode_escape(self) -> int:
        n = self.uxxxx()
        if 0xD800 <= n <= 0xDBFF:
            cur = self.cursor
            if self.read() == 0x5C and self.read() == 0x75:
                n2 = self.uxxxx()
                if 0xDC00 <= n2 <= 0xDFFF:
                    return 0x10000 + ((n - 0xD800) << 10) + (n2 - 0xDC00)
            self.cursor = cur
        return n

    def named_char(self) -> int:
        if self.read() != 0x7B:
            raise self.error("Illegal character name escape sequence")
        i = self.cursor
        while self.read() != 0x7D:
            if self.cursor >= self.pattern_length:
                raise self.error("Unclosed character name escape sequence")
        name = "".join(map(chr, self.temp[i : self.cursor - 1])).strip().upper()
        try:
            found = unicodedata.lookup(name)
        except KeyError:
            found = ""
        if len(found) != 1 or unicodedata.name(found, "") != name:
            raise self.error(f"Unknown character name [{name}]")
        return ord(found)

    # -- character classes ---------------------------------------------------------------------------------------------
    def clazz(self, consume: bool) -> Ranges:
        return _evaluate(self.clazz_pred(consume))

    def clazz_pred(self, consume: bool) -> _Pred:
        prev: _Pred | None = None
        curr: _Pred | None = None
        bits = _Bits()
        has_bits = is_neg = False
        ch = self.next()
        if ch == 0x5E and self.temp[self.cursor - 1] == 0x5B:
            ch = self.next()
            is_neg = True
        while True:
            if ch == 0x5B:
                curr = self.clazz_pred(True)
                prev = curr if prev is None else _Op("or", prev, curr)
                ch = self.peek()
                continue
            if ch == 0x26:  # &
                ch = self.next()
                if ch == 0x26:
                    ch = self.next()
                    right: _Pred | None = None
                    while ch not in (0x5D, 0x26):
                        if ch == 0x5B:
                            part = self.clazz_pred(True)
                        else:
                            self.unread()
                            part = self.clazz_pred(False)
                        right = part if right is None else _Op("or", right, part)
                        ch = self.peek()
                    if has_bits:
                        if prev is None:
                            prev = curr = bits
                        else:
                            prev = _Op("or", prev, bits)
                        has_bits = False
                    if right is not None:
                        curr = right
                    if prev is None:
                        if right is None:
                            raise self.error("Bad class syntax")
                        prev = right
                    else:
                        if curr is None:
                            raise self.error("Bad intersection syntax")
                        prev = _Op("and", prev, curr)
                    continue
                self.unread()  # a literal '&'
            elif ch == 0 and self.cursor >= self.pattern_length:
                raise self.error("Unclosed character class")
            elif ch == 0x5D and (prev is not None or has_bits):
                if consume:
                    self.next()
                if prev is None:
                    prev = bits
                elif has_bits:
                    prev = _Op("or", prev, bits)
                return _Op("not", prev) if is_neg else prev
            curr = self.range(bits)
            if curr is None:
                has_bits = True
            elif prev is None:
                prev = curr
            elif prev is not curr:
                prev = _Op("or", prev, curr)
            ch = self.peek()

    def range(self, bits: _Bits) -> _Pred | None:
        ch = self.peek()
        if ch == 0x5C:
            ch = self.next_escaped()
            if ch in (0x70, 0x50):
                one_letter = True
                if self.next() != 0x7B:
                    self.unread()
                else:
                    one_letter = False
                return self.family(one_letter, ch == 0x50)
            isrange = self.at(self.cursor + 1) == 0x2D
            self.unread()
            ch = self.escape(True, True, isrange)
            if ch == -1:
                return self.predicate
        else:
            self.next()
        if ch >= 0:
            if self.peek() == 0x2D:
                end_range = self.at(self.cursor + 1)
                if end_range == 0x5B:
                    return self.bits_or_single(bits, ch)
                if end_range != 0x5D:
                    self.next()
                    m = self.peek()
                    if m == 0x5C:
                        m = self.escape(True, False, True)
                    else:
                        self.next()
                    if m < ch:
                        raise self.error("Illegal character range")
                    if self.has(CASE_INSENSITIVE):
                        return ci_range(ch, m, self.has(UNICODE_CASE))
                    return ((ch, m),)
            return self.bits_or_single(bits, ch)
        raise self.error(f"Unexpected character '{chr(ch)}'")

    def bits_or_single(self, bits: _Bits, ch: int) -> Ranges | None:
        ci = self.has(CASE_INSENSITIVE)
        if ch < 256 and not (ci and self.has(UNICODE_CASE) and ch in _UNICODE_CASE_SINGLES):
            members = ci_bits(ch, self.has(UNICODE_CASE)) if ci else of(ch)
            bits.cps.update(c for lo, hi in members for c in range(lo, hi + 1))
            return None
        return self.single(ch)

    def single(self, ch: int) -> Ranges:
        if self.has(CASE_INSENSITIVE):
            return ci_single(ch, self.has(UNICODE_CASE))
        return of(ch)

    def slice_char(self, ch: int) -> Ranges:
        if self.has(CASE_INSENSITIVE):
            return ci_slice_char(ch, self.has(UNICODE_CASE))
        return of(ch)

    def family(self, single_letter: bool, is_complement: bool) -> Ranges:
        self.next()
        if single_letter:
            name = chr(self.temp[self.cursor])
            self.read()
        else:
            i = self.cursor
            self.mark(0x7D)
            while self.read() != 0x7D:
                pass
            self.mark(0)
            j = self.cursor
            if j > self.pattern_length:
                raise self.error("Unclosed character family")
            if i + 1 >= j:
                raise self.error("Empty character family")
            name = "".join(map(chr, self.temp[i : j - 1]))
        try:
            ranges = property_ranges(
                name,
                unicode_classes=self.has(UNICODE_CHARACTER_CLASS),
                case_insensitive=self.has(CASE_INSENSITIVE),
            )
        except UnknownProperty:
            raise self.error(f"Unknown character property name {{{name}}}") from None
        except UnsupportedProperty:
            raise self.refuse(f"\\p{{{name}}} (Unicode scripts, blocks and emoji properties)") from None
        return complement(ranges) if is_complement else ranges

    def groupname(self, ch: int) -> str:
        if not is_alpha(ch):
            raise self.error("capturing group name does not start with a Latin letter")
        name = []
        while True:
            name.append(chr(ch))
            ch = self.read()
            if not (is_alpha(ch) or is_digit(ch)):
                break
        if ch != 0x3E:
            raise self.error("named capturing group is missing trailing '>'")
        return "".join(name)
