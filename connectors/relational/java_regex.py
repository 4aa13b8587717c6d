"""Java regular expressions (java.util.regex.Pattern) translated into Python `re` patterns, as Debezium's include
and exclude lists and other regex-valued keys are written. `java_regex` documents what is covered and what is
refused with a JavaRegexError; translations are cached.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final

from connectors.relational.java_regex_sets import (
    MAX_CP,
    Ranges,
    complement,
    emit_class,
    intersect,
    predefined,
    property_ranges,
    union,
)


class JavaRegexError(ValueError):
    """A Java regular expression that is invalid, or valid in Java but not translatable to Python."""

    def __init__(self, message: str, pattern: str, index: int | None = None) -> None:
        where = f" near index {index}" if index is not None else ""
        super().__init__(f"{message}{where}: {pattern}")
        self.pattern = pattern
        self.index = index


# Java flag bits
_I: Final = 0x01  # CASE_INSENSITIVE
_M: Final = 0x02  # MULTILINE
_S: Final = 0x04  # DOTALL
_X: Final = 0x08  # COMMENTS
_u: Final = 0x10  # UNICODE_CASE
_D: Final = 0x20  # UNIX_LINES
_U: Final = 0x40  # UNICODE_CHARACTER_CLASS
_FLAG_LETTERS: Final = {"i": _I, "m": _M, "s": _S, "x": _X, "u": _u, "d": _D, "U": _U | _u}


def java_regex(pattern: str, *, case_insensitive: bool = False) -> re.Pattern[str]:
    """Compile a Java `java.util.regex.Pattern` source as an equivalent Python pattern (use `fullmatch` for
    Java's `matches()`).

    Translated: literals and escapes (`\\t \\n \\r \\f \\a \\e \\0ooo \\xhh \\x{h..} \\uhhhh` incl. surrogate
    pairs, `\\cX`, `\\N{name}`, `\\Q...\\E`); `.` `^` `$` with Java's line terminators (`\\n \\r \\u0085
    \\u2028 \\u2029`) and the `d`/`s`/`m` flags; `\\A \\z \\Z \\b \\B \\R`; predefined classes `\\d \\D \\w \\W
    \\s \\S \\h \\H \\v \\V` (ASCII unless `(?U)`); `\\p{..}`/`\\P{..}` for the POSIX classes (`Lower`, `Alpha`,
    `Punct`, ...), `java*` classes, Unicode general categories (`L`, `Lu`, `IsL`, `gc=Lu`,
    `general_category=Lu`) and common binary properties (`IsAlphabetic`, `IsLetter`, `IsDigit`, ...);
    character classes with ranges, nesting (union), `&&` (intersection) and Java 9+ negation of the whole
    class; groups (capturing, `(?<name>..)`, `(?:..)`, look-ahead/behind, atomic `(?>..)`), back references
    (`\\n`, `\\k<name>`), greedy/lazy/possessive quantifiers; embedded flags `(?idmsuxU-idmsuxU)` and
    `(?flags:..)` anywhere in the pattern, scoped to the enclosing group as in Java (comments mode is
    handled by the translator, inside classes too).

    Rejected with JavaRegexError: `\\G`, `\\X`, `\\b{g}`, Unicode scripts and blocks (`\\p{IsLatin}`,
    `\\p{InGreek}`), unknown properties, malformed patterns, and what Python cannot express (e.g. variable-width
    look-behind). Approximations: case folding follows Python's (ASCII-only unless `(?u)`/`(?U)`); in
    multiline mode `^`/`$` recognise `\\n` only; Unicode data is Python's `unicodedata` version.
    """
    try:
        return _compile_cached(pattern, case_insensitive)
    except JavaRegexError:
        raise
    except re.error as e:
        raise JavaRegexError(f"Not a valid or supported regular expression ({e.msg})", pattern) from e


@functools.lru_cache(maxsize=4096)
def _compile_cached(pattern: str, case_insensitive: bool) -> re.Pattern[str]:
    translated = _Translator(pattern, _I if case_insensitive else 0).translate()
    flags = re.ASCII | (re.IGNORECASE if case_insensitive else 0)
    return re.compile(translated, flags)


def translate_java_regex(pattern: str, *, case_insensitive: bool = False) -> str:
    """The Python source `java_regex` compiles (for diagnostics and tests)."""
    return _Translator(pattern, _I if case_insensitive else 0).translate()


class _Frame:
    __slots__ = ("saved", "scoped")

    def __init__(self, saved: int) -> None:
        self.saved = saved
        self.scoped: list[str] = []  # python scoped-flag openers emitted at this level, for `|` and `)`


def _py_flag_change(old: int, new: int) -> str:
    """The Python scoped-flag opener for a Java flag change, or '' when Python needs no change."""
    on: list[str] = []
    off: list[str] = []
    if new & _I and not old & _I:
        on.append("i")
    elif old & _I and not new & _I:
        off.append("i")
    old_u = bool(old & (_u | _U))
    new_u = bool(new & (_u | _U))
    if new_u != old_u:
        on.insert(0, "u" if new_u else "a")
    if not on and not off:
        return ""
    return "(?" + "".join(on) + ("-" + "".join(off) if off else "") + ":"


_JAVA_WS: Final = " \t\n\x0b\f\r"
_LINE_TERMINATORS: Final = "\n\r\x85\u2028\u2029"


class _Translator:
    def __init__(self, pattern: str, flags: int) -> None:
        self.p = pattern
        self.n = len(pattern)
        self.pos = 0
        self.flags = flags
        self.out: list[str] = []
        self.stack: list[_Frame] = [_Frame(flags)]
        self.groups = 0
        self.group_names: set[str] = set()

    # -- errors / scanning --------------------------------------------------------------------------
    def error(self, message: str, index: int | None = None) -> JavaRegexError:
        return JavaRegexError(message, self.p, self.pos if index is None else index)

    def skip_comments(self) -> None:
        if not self.flags & _X:
            return
        p, n = self.p, self.n
        while self.pos < n:
            c = p[self.pos]
            if c in _JAVA_WS:
                self.pos += 1
            elif c == "#":
                while self.pos < n and p[self.pos] not in _LINE_TERMINATORS:
                    self.pos += 1
            else:
                break

    # -- main loop --------------------------------------------------------------------------------
    def translate(self) -> str:
        p = self.p
        while True:
            self.skip_comments()
            if self.pos >= self.n:
                break
            c = p[self.pos]
            if c == "(":
                self.open_group()
            elif c == ")":
                self.close_group()
            elif c == "|":
                self.pos += 1
                frame = self.stack[-1]
                self.out.append(")" * len(frame.scoped) + "|" + "".join(frame.scoped))
            elif c in "*+?":
                self.pos += 1
                self.out.append(c + self.quantifier_suffix())
            elif c == "{":
                self.repetition()
            elif c == "[":
                self.pos += 1
                ranges, negated = self.parse_class()
                self.out.append(emit_class(ranges, negated))
            elif c == "\\":
                self.escape_outside_class()
            elif c == ".":
                self.pos += 1
                self.out.append(self.dot())
            elif c == "^":
                self.pos += 1
                self.out.append("(?m:^)" if self.flags & _M else "^")
            elif c == "$":
                self.pos += 1
                self.out.append(self.dollar())
            else:
                self.pos += 1
                self.out.append(_literal(c))
        if len(self.stack) > 1:
            raise self.error("Unclosed group", self.n)
        self.out.append(")" * len(self.stack[0].scoped))
        return "(?:" + "".join(self.out) + ")"

    def dot(self) -> str:
        if self.flags & _S:
            return "(?s:.)"
        if self.flags & _D:
            return "[^\\n]"
        return "[^\\n\\r\\x85\\u2028\\u2029]"

    def dollar(self) -> str:
        if self.flags & _M:
            return "(?m:$)"
        if self.flags & _D:
            return "(?=\\n?\\Z)"
        return "(?=(?:\\r\\n|[\\n\\r\\x85\\u2028\\u2029])?\\Z)"

    def quantifier_suffix(self) -> str:
        self.skip_comments()
        if self.pos < self.n and self.p[self.pos] in "?+":
            self.pos += 1
            return self.p[self.pos - 1]
        return ""

    def repetition(self) -> None:
        m = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.p, self.pos)
        if m is None:
            raise self.error("Illegal repetition")
        lo = int(m.group(1))
        hi = m.group(3)
        if hi and int(hi) < lo:
            raise self.error("Illegal repetition range")
        self.pos = m.end()
        self.out.append(m.group(0) + self.quantifier_suffix())

    # -- groups ---------------------------------------------------------------------------------------
    def open_group(self) -> None:
        p = self.p
        start = self.pos
        self.pos += 1
        if not p.startswith("?", self.pos):
            self.groups += 1
            self.push("(")
            return
        self.pos += 1
        if self.pos >= self.n:
            raise self.error("Unknown inline modifier", start)
        c = p[self.pos]
        if c == ":":
            self.pos += 1
            self.push("(?:")
        elif c in "=!>":
            self.pos += 1
            self.push("(?" + c)
        elif c == "<":
            self.pos += 1
            if p.startswith("=", self.pos) or p.startswith("!", self.pos):
                self.pos += 1
                self.push("(?<" + p[self.pos - 1])
                return
            m = re.compile(r"([A-Za-z][A-Za-z0-9]*)>").match(p, self.pos)
            if m is None:
                raise self.error("named capturing group is missing trailing '>' or has a bad name", start)
            name = m.group(1)
            if name in self.group_names:
                raise self.error(f"Named capturing group <{name}> is already defined", start)
            self.group_names.add(name)
            self.pos = m.end()
            self.groups += 1
            self.push(f"(?P<{name}>")
        else:
            self.inline_flags(start)

    def inline_flags(self, start: int) -> None:
        p = self.p
        new = self.flags
        negate = False
        while self.pos < self.n:
            c = p[self.pos]
            if c == "-" and not negate:
                negate = True
            elif c in _FLAG_LETTERS:
                bit = _FLAG_LETTERS[c]
                new = new & ~bit if negate else new | bit
            elif c == ")":
                self.pos += 1
                opener = _py_flag_change(self.flags, new)
                self.flags = new
                if opener:
                    self.out.append(opener)
                    self.stack[-1].scoped.append(opener)
                return
            elif c == ":":
                self.pos += 1
                opener = _py_flag_change(self.flags, new) or "(?:"
                self.push(opener)
                self.flags = new
                return
            else:
                raise self.error("Unknown inline modifier", self.pos)
            self.pos += 1
        raise self.error("Unclosed group", start)

    def push(self, opener: str) -> None:
        self.out.append(opener)
        self.stack.append(_Frame(self.flags))

    def close_group(self) -> None:
        if len(self.stack) == 1:
            raise self.error("Unmatched closing ')'")
        self.pos += 1
        frame = self.stack.pop()
        self.out.append(")" * len(frame.scoped) + ")")
        self.flags = frame.saved

    # -- escapes ----------------------------------------------------------------------------------
    def escape_outside_class(self) -> None:
        start = self.pos
        self.pos += 1
        if self.pos >= self.n:
            raise self.error("Unexpected internal error", start)
        c = self.p[self.pos]
        simple = {"A": "\\A", "z": "\\Z", "Z": self._end_z(), "b": "\\b", "B": "\\B"}
        if c in simple:
            self.pos += 1
            if c == "b" and self.p.startswith("{", self.pos):
                raise self.error("\\b{g} (grapheme boundaries) is not supported", start)
            self.out.append(simple[c])
            return
        if c == "G":
            raise self.error("\\G (end of previous match) is not supported", start)
        if c == "X":
            raise self.error("\\X (grapheme clusters) is not supported", start)
        if c == "R":
            self.pos += 1
            self.out.append("(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])")
            return
        if c == "Q":
            self.pos += 1
            end = self.p.find("\\E", self.pos)
            literal = self.p[self.pos :] if end < 0 else self.p[self.pos : end]
            self.pos = self.n if end < 0 else end + 2
            self.out.append("".join(_literal(ch) for ch in literal))
            return
        if c == "k":
            m = re.compile(r"k<([A-Za-z][A-Za-z0-9]*)>").match(self.p, self.pos)
            if m is None:
                raise self.error("\\k is not followed by '<' for named capturing group", start)
            if m.group(1) not in self.group_names:
                raise self.error(f"named capturing group <{m.group(1)}> does not exist", start)
            self.pos = m.end()
            self.out.append(f"(?P={m.group(1)})")
            return
        if "1" <= c <= "9":
            self.backref()
            return
        item = self.escape_item(start)
        if isinstance(item, int):
            self.out.append(_literal(chr(item)))
        else:
            self.out.append(emit_class(item, False))

    def _end_z(self) -> str:
        return "(?=\\n?\\Z)" if self.flags & _D else "(?=(?:\\r\\n|[\\n\\r\\x85\\u2028\\u2029])?\\Z)"

    def backref(self) -> None:
        p = self.p
        num = int(p[self.pos])
        self.pos += 1
        while self.pos < self.n and p[self.pos].isdigit() and p[self.pos].isascii():
            candidate = num * 10 + int(p[self.pos])
            if candidate > self.groups:
                break
            num = candidate
            self.pos += 1
        if num > self.groups:
            # Java: a reference to a group that does not exist (yet) never matches
            self.out.append("(?!)")
        else:
            self.out.append(f"(?:\\{num})")

    def escape_item(self, start: int) -> int | Ranges:
        """After the backslash (at self.pos): a code point or a set of ranges. Shared by both contexts."""
        p = self.p
        c = p[self.pos]
        self.pos += 1
        unicode_classes = bool(self.flags & _U)
        if c in "dDwWsShHvV":
            base = predefined(c.lower(), unicode_classes)
            return complement(base) if c.isupper() else base
        if c in "pP":
            return self.property(c == "P", start)
        controls = {"t": 9, "n": 10, "r": 13, "f": 12, "a": 7, "e": 27}
        if c in controls:
            return controls[c]
        if c == "0":
            m = re.compile(r"[0-3][0-7]{2}|[0-7]{1,2}").match(p, self.pos)
            if m is None:
                raise self.error("Illegal octal escape sequence", start)
            self.pos = m.end()
            return int(m.group(0), 8)
        if c == "x":
            if p.startswith("{", self.pos):
                end = p.find("}", self.pos)
                digits = p[self.pos + 1 : end] if end > 0 else ""
                if not digits or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
                    raise self.error("Illegal hexadecimal escape sequence", start)
                value = int(digits, 16)
                if value > MAX_CP:
                    raise self.error("Hexadecimal codepoint is too big", start)
                self.pos = end + 1
                return value
            return self.hex_digits(2, start)
        if c == "u":
            value = self.hex_digits(4, start)
            if 0xD800 <= value <= 0xDBFF and p.startswith("\\u", self.pos):
                save = self.pos
                self.pos += 2
                low = self.hex_digits(4, start)
                if 0xDC00 <= low <= 0xDFFF:
                    return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                self.pos = save
            return value
        if c == "c":
            if self.pos >= self.n:
                raise self.error("Illegal control escape sequence", start)
            self.pos += 1
            return ord(p[self.pos - 1]) ^ 64
        if c == "N":
            m = re.compile(r"\{([^}]*)\}").match(p, self.pos)
            if m is None:
                raise self.error("Unknown character name", start)
            try:
                value = ord(unicodedata.lookup(m.group(1)))
            except KeyError:
                raise self.error(f"Unknown character name [{m.group(1)}]", start) from None
            self.pos = m.end()
            return value
        if c.isascii() and c.isalnum():
            raise self.error(f"Illegal/unsupported escape sequence \\{c}", start)
        return ord(c)

    def hex_digits(self, count: int, start: int) -> int:
        digits = self.p[self.pos : self.pos + count]
        if len(digits) != count or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
            raise self.error("Illegal hexadecimal escape sequence", start)
        self.pos += count
        return int(digits, 16)

    def property(self, negated: bool, start: int) -> Ranges:
        p = self.p
        if p.startswith("{", self.pos):
            end = p.find("}", self.pos)
            if end < 0:
                raise self.error("Unclosed character family", start)
            name = p[self.pos + 1 : end]
            self.pos = end + 1
        elif self.pos < self.n:
            name = p[self.pos]
            self.pos += 1
        else:
            raise self.error("Illegal character family", start)
        ranges = property_ranges(name, bool(self.flags & _U))
        if ranges is None:
            raise self.error(f"Unknown or unsupported character property name {{{name}}}", start)
        return complement(ranges) if negated else ranges

    # -- character classes ------------------------------------------------------------------------------
    def parse_class(self) -> tuple[Ranges, bool]:
        """At the char after '['. Returns (ranges, negated) with negation applying to the whole class."""
        p = self.p
        start = self.pos - 1
        negated = False
        if self.pos < self.n and p[self.pos] == "^":
            negated = True
            self.pos += 1
        acc: Ranges | None = None  # intersection so far
        cur: Ranges = []
        cur_items = 0
        first = True
        while True:
            self.skip_comments()
            if self.pos >= self.n:
                raise self.error("Unclosed character class", start)
            c = p[self.pos]
            if c == "]" and not first:
                self.pos += 1
                break
            first = False
            if c == "[":
                self.pos += 1
                sub, sub_neg = self.parse_class()
                cur = union(cur, complement(sub) if sub_neg else sub)
                cur_items += 1
                continue
            if c == "&" and p.startswith("&&", self.pos):
                self.pos += 2
                if cur_items:
                    acc = cur if acc is None else intersect(acc, cur)
                elif acc is None:
                    acc = []
                cur, cur_items = [], 0
                continue
            if c == "\\" and p.startswith("\\Q", self.pos):
                self.pos += 2
                end = p.find("\\E", self.pos)
                literal = p[self.pos :] if end < 0 else p[self.pos : end]
                self.pos = self.n if end < 0 else end + 2
                for ch in literal:
                    cur = union(cur, [(ord(ch), ord(ch))])
                cur_items += 1
                continue
            lo = self.class_atom()
            cur_items += 1
            if isinstance(lo, list):
                cur = union(cur, lo)
                continue
            hi = lo
            if p.startswith("-", self.pos) and self.pos + 1 < self.n and p[self.pos + 1] not in "][":
                self.pos += 1
                upper = self.class_atom()
                if isinstance(upper, list) or upper < lo:
                    raise self.error("Illegal character range", self.pos)
                hi = upper
            cur = union(cur, [(lo, hi)])
        if acc is not None:
            result = intersect(acc, cur) if cur_items else acc
        else:
            result = cur
        return result, negated

    def class_atom(self) -> int | Ranges:
        c = self.p[self.pos]
        if c != "\\":
            self.pos += 1
            return ord(c)
        start = self.pos
        self.pos += 1
        if self.pos >= self.n:
            raise self.error("Unclosed character class", start)
        if self.p[self.pos] in "bBAzZGRXk" or "1" <= self.p[self.pos] <= "9":
            raise self.error(f"Illegal/unsupported escape sequence \\{self.p[self.pos]} inside a class", start)
        return self.escape_item(start)


def _literal(ch: str) -> str:
    cp = ord(ch)
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02x}"
    return re.escape(ch)
