"""Debezium's include/exclude filters: tables, columns, logical-message prefixes (Java regex semantics).

Every list property (`schema.include.list`, `table.exclude.list`, `column.include.list`, ...) is a
comma-separated list of Java regular expressions, split as Debezium's `RegExSplitterByComma` does (a backslash
escapes the next character, so `\\,` is a literal comma; parts are trimmed; empty parts are dropped). Each
expression is **anchored** (`Matcher.matches()`, a full match) and compiled **case-insensitively** (Debezium's
`Predicates.includes` passes `Pattern.CASE_INSENSITIVE`; without UNICODE_CASE that folds ASCII letters only).

Java's regex dialect differs from Python's `re`; `java_regex()` translates it (see its docstring for what is
covered and what is rejected with a `JavaRegexError`). Translation happens once, at configuration time;
decisions are cached per table id / column, since filters are asked on the hot path.

Filter semantics (Debezium `Selectors.TableSelectionPredicateBuilder`, `RelationalTableFilters`):
a table is captured when its schema passes the schema filter (include list if set, else exclude list),
its `schema.table` name passes the table filter (include list if set, else exclude list), and, with
`table.ignore.builtin=true` (the default), it is not a system table. Include and exclude lists of the same kind
are mutually exclusive (a `ConfigError`, as the connectors' config validation reports it).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Final

from connect_worker.api.errors import ConfigError
from connectors.relational.table import TableId

__all__ = [
    "COLUMN_EXCLUDE_LIST",
    "COLUMN_INCLUDE_LIST",
    "MESSAGE_PREFIX_EXCLUDE_LIST",
    "MESSAGE_PREFIX_INCLUDE_LIST",
    "SCHEMA_EXCLUDE_LIST",
    "SCHEMA_INCLUDE_LIST",
    "TABLE_EXCLUDE_LIST",
    "TABLE_IGNORE_BUILTIN",
    "TABLE_INCLUDE_LIST",
    "ColumnFilter",
    "JavaRegexError",
    "MessagePrefixFilter",
    "RegexList",
    "TableFilter",
    "filter_problems",
    "java_regex",
    "split_regex_list",
]

SCHEMA_INCLUDE_LIST: Final = "schema.include.list"
SCHEMA_EXCLUDE_LIST: Final = "schema.exclude.list"
TABLE_INCLUDE_LIST: Final = "table.include.list"
TABLE_EXCLUDE_LIST: Final = "table.exclude.list"
COLUMN_INCLUDE_LIST: Final = "column.include.list"
COLUMN_EXCLUDE_LIST: Final = "column.exclude.list"
MESSAGE_PREFIX_INCLUDE_LIST: Final = "message.prefix.include.list"
MESSAGE_PREFIX_EXCLUDE_LIST: Final = "message.prefix.exclude.list"
TABLE_IGNORE_BUILTIN: Final = "table.ignore.builtin"

_CACHE_LIMIT: Final = 100_000
_MAX_CP: Final = 0x10FFFF


class JavaRegexError(ValueError):
    """A Java regular expression that is invalid, or valid in Java but not translatable to Python."""

    def __init__(self, message: str, pattern: str, index: int | None = None) -> None:
        where = f" near index {index}" if index is not None else ""
        super().__init__(f"{message}{where}: {pattern}")
        self.pattern = pattern
        self.index = index


# =====================================================================================================
# Comma-separated regex lists
# =====================================================================================================
_JAVA_TRIM: Final = "".join(chr(i) for i in range(0x21))


def java_trim(text: str) -> str:
    """`String.trim()`: strips every char <= U+0020 at both ends."""
    return text.strip(_JAVA_TRIM)


def is_blank(text: str | None) -> bool:
    """Debezium's `Strings.isNullOrBlank`."""
    return text is None or not java_trim(text)


def split_regex_list(text: str) -> list[str]:
    """Split on commas not escaped by a backslash (`RegExSplitterByComma`); trim parts; drop empty ones;
    `\\,` becomes `,`. A trailing lone backslash is an error, as in Debezium."""
    parts: list[str] = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 >= n:
                raise JavaRegexError("Unterminated escape sequence at the end of the string", text, i)
            i += 2
            continue
        if c == ",":
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [java_trim(p).replace("\\,", ",") for p in parts if p]


class RegexList:
    """A set of anchored, case-insensitive Java regexes; `matches(s)` is true when any matches all of `s`."""

    __slots__ = ("patterns", "sources")

    def __init__(self, text: str | Iterable[str], *, case_insensitive: bool = True) -> None:
        sources = split_regex_list(text) if isinstance(text, str) else list(text)
        unique: dict[str, None] = dict.fromkeys(sources)  # Debezium keeps a LinkedHashSet of patterns
        self.sources: tuple[str, ...] = tuple(unique)
        self.patterns: tuple[re.Pattern[str], ...] = tuple(
            java_regex(s, case_insensitive=case_insensitive) for s in self.sources
        )

    def matches(self, value: str) -> bool:
        return any(p.fullmatch(value) is not None for p in self.patterns)

    def first_match(self, value: str) -> int | None:
        """Index of the first pattern that matches, or None."""
        for i, p in enumerate(self.patterns):
            if p.fullmatch(value) is not None:
                return i
        return None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __repr__(self) -> str:
        return f"RegexList({','.join(self.sources)!r})"


# =====================================================================================================
# Java regex → Python re
# =====================================================================================================
# Java flag bits
_I: Final = 0x01  # CASE_INSENSITIVE
_M: Final = 0x02  # MULTILINE
_S: Final = 0x04  # DOTALL
_X: Final = 0x08  # COMMENTS
_u: Final = 0x10  # UNICODE_CASE
_D: Final = 0x20  # UNIX_LINES
_U: Final = 0x40  # UNICODE_CHARACTER_CLASS
_FLAG_LETTERS: Final = {"i": _I, "m": _M, "s": _S, "x": _X, "u": _u, "d": _D, "U": _U | _u}

Ranges = list[tuple[int, int]]


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
                self.out.append(_emit_class(ranges, negated))
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
            self.out.append(_emit_class(item, False))

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
            base = _predefined(c.lower(), unicode_classes)
            return _complement(base) if c.isupper() else base
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
                if value > _MAX_CP:
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
        ranges = _property_ranges(name, bool(self.flags & _U))
        if ranges is None:
            raise self.error(f"Unknown or unsupported character property name {{{name}}}", start)
        return _complement(ranges) if negated else ranges

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
                cur = _union(cur, _complement(sub) if sub_neg else sub)
                cur_items += 1
                continue
            if c == "&" and p.startswith("&&", self.pos):
                self.pos += 2
                if cur_items:
                    acc = cur if acc is None else _intersect(acc, cur)
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
                    cur = _union(cur, [(ord(ch), ord(ch))])
                cur_items += 1
                continue
            lo = self.class_atom()
            cur_items += 1
            if isinstance(lo, list):
                cur = _union(cur, lo)
                continue
            hi = lo
            if p.startswith("-", self.pos) and self.pos + 1 < self.n and p[self.pos + 1] not in "][":
                self.pos += 1
                upper = self.class_atom()
                if isinstance(upper, list) or upper < lo:
                    raise self.error("Illegal character range", self.pos)
                hi = upper
            cur = _union(cur, [(lo, hi)])
        if acc is not None:
            result = _intersect(acc, cur) if cur_items else acc
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


# -- code point sets ----------------------------------------------------------------------------------
def _normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _union(a: Ranges, b: Ranges) -> Ranges:
    return _normalize([*a, *b])


def _complement(a: Ranges) -> Ranges:
    out: Ranges = []
    nxt = 0
    for lo, hi in _normalize(a):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAX_CP:
        out.append((nxt, _MAX_CP))
    return out


def _intersect(a: Ranges, b: Ranges) -> Ranges:
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


def _emit_class(ranges: Ranges, negated: bool) -> str:
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


def _predefined(c: str, unicode_classes: bool) -> Ranges:
    if c == "h":
        return _union(_chars(" \t\xa0\u1680\u180e\u202f\u205f\u3000"), [(0x2000, 0x200A)])
    if c == "v":
        return _chars("\n\x0b\f\r\x85\u2028\u2029")
    if not unicode_classes:
        return {"d": _ASCII_SETS["digit"], "w": _chars("_") + _ASCII_SETS["alnum"], "s": _ASCII_SETS["space"]}[c]
    if c == "d":
        return _categories("Nd")
    if c == "s":
        return _white_space()
    return _union(_categories("L", "M", "Nd", "Pc", "Nl"), [(0x200C, 0x200D)])


@functools.cache
def _category_table() -> dict[str, Ranges]:
    table: dict[str, Ranges] = {}
    start = 0
    prev = unicodedata.category("\x00")
    for cp in range(1, _MAX_CP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= _MAX_CP else ""
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


def _property_ranges(name: str, unicode_classes: bool) -> Ranges | None:
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
        return _complement(_categories("Cn"))
    if key in ("HEXDIGIT", "HEX_DIGIT"):
        return _union(_ASCII_SETS["xdigit"], [(0xFF10, 0xFF19), (0xFF21, 0xFF26), (0xFF41, 0xFF46)])
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
        return [(0, _MAX_CP)]
    if name in _POSIX:
        return _ASCII_SETS[_POSIX[name]]
    if name in _JAVA_CLASSES:
        return _categories(*_JAVA_CLASSES[name])
    if name == "javaWhitespace":
        return _union(_chars("\t\n\x0b\f\r\x1c\x1d\x1e\x1f"), _space_separators_except_nbsp())
    return None


def _space_separators_except_nbsp() -> Ranges:
    nbsp = (0xA0, 0x2007, 0x202F)
    return _normalize(
        (cp, cp) for lo, hi in _categories("Zs", "Zl", "Zp") for cp in range(lo, hi + 1) if cp not in nbsp
    )


# =====================================================================================================
# Filters
# =====================================================================================================
def _get(props: Mapping[str, str], key: str) -> str | None:
    value = props.get(key)
    return None if is_blank(value) else value


def _regex_list(props: Mapping[str, str], key: str) -> RegexList | None:
    value = _get(props, key)
    if value is None:
        return None
    try:
        return RegexList(value)
    except JavaRegexError as e:
        raise ConfigError(f"Invalid value {value} for configuration {key}: {e}", name=key) from e


def filter_problems(props: Mapping[str, str]) -> dict[str, list[str]]:
    """Every problem with the filter properties, by key (for a connector's validate())."""
    problems: dict[str, list[str]] = {}
    pairs = (
        (SCHEMA_INCLUDE_LIST, SCHEMA_EXCLUDE_LIST, "Schema"),
        (TABLE_INCLUDE_LIST, TABLE_EXCLUDE_LIST, "Table"),
        (COLUMN_INCLUDE_LIST, COLUMN_EXCLUDE_LIST, "Column"),
        (MESSAGE_PREFIX_INCLUDE_LIST, MESSAGE_PREFIX_EXCLUDE_LIST, "Message prefix"),
    )
    for include, exclude, what in pairs:
        for key in (include, exclude):
            value = _get(props, key)
            if value is None:
                continue
            try:
                RegexList(value)
            except JavaRegexError as e:
                problems.setdefault(key, []).append(str(e))
        if _get(props, include) is not None and _get(props, exclude) is not None:
            problems.setdefault(exclude, []).append(
                f'"{include}" is already specified; {what.lower()} include and exclude lists are mutually exclusive'
            )
    return problems


def _raise_exclusive(props: Mapping[str, str], include: str, exclude: str) -> None:
    if _get(props, include) is not None and _get(props, exclude) is not None:
        raise ConfigError(
            f'"{include}" is already specified; "{include}" and "{exclude}" are mutually exclusive', name=exclude
        )


def _as_bool(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    return java_trim(value).lower() == "true"


class TableFilter:
    """Which tables are captured. `accepts(table_id)` is cached per table id.

    `system_schemas` are schema names (compared case-insensitively) the connector always skips (PostgreSQL:
    `pg_catalog`, `information_schema`, ...); `is_system` an optional further predicate. Both apply only while
    `table.ignore.builtin` is true (the default).
    """

    def __init__(
        self,
        *,
        schema_include: RegexList | None = None,
        schema_exclude: RegexList | None = None,
        table_include: RegexList | None = None,
        table_exclude: RegexList | None = None,
        system_schemas: Collection[str] = (),
        is_system: Callable[[TableId], bool] | None = None,
        ignore_builtin: bool = True,
    ) -> None:
        self.schema_include = schema_include
        self.schema_exclude = schema_exclude
        self.table_include = table_include
        self.table_exclude = table_exclude
        self._system = frozenset(s.lower() for s in system_schemas)
        self._is_system = is_system
        self.ignore_builtin = ignore_builtin
        self._accepts: dict[TableId, bool] = {}
        self._eligible: dict[TableId, bool] = {}

    @classmethod
    def from_config(
        cls,
        props: Mapping[str, str],
        *,
        system_schemas: Collection[str] = (),
        is_system: Callable[[TableId], bool] | None = None,
    ) -> TableFilter:
        _raise_exclusive(props, SCHEMA_INCLUDE_LIST, SCHEMA_EXCLUDE_LIST)
        _raise_exclusive(props, TABLE_INCLUDE_LIST, TABLE_EXCLUDE_LIST)
        return cls(
            schema_include=_regex_list(props, SCHEMA_INCLUDE_LIST),
            schema_exclude=_regex_list(props, SCHEMA_EXCLUDE_LIST),
            table_include=_regex_list(props, TABLE_INCLUDE_LIST),
            table_exclude=_regex_list(props, TABLE_EXCLUDE_LIST),
            system_schemas=system_schemas,
            is_system=is_system,
            ignore_builtin=_as_bool(props.get(TABLE_IGNORE_BUILTIN), True),
        )

    def is_system_table(self, table_id: TableId) -> bool:
        if table_id.schema.lower() in self._system:
            return True
        return self._is_system is not None and self._is_system(table_id)

    def _schema_ok(self, schema: str) -> bool:
        if self.schema_include is not None:
            return self.schema_include.matches(schema)
        if self.schema_exclude is not None:
            return not self.schema_exclude.matches(schema)
        return True

    def _table_ok(self, table_id: TableId) -> bool:
        name = str(table_id)
        if self.table_include is not None:
            return self.table_include.matches(name)
        if self.table_exclude is not None:
            return not self.table_exclude.matches(name)
        return True

    def accepts(self, table_id: TableId) -> bool:
        """True when changes of this table are captured."""
        hit = self._accepts.get(table_id)
        if hit is None:
            hit = (
                self._schema_ok(table_id.schema)
                and self._table_ok(table_id)
                and not (self.ignore_builtin and self.is_system_table(table_id))
            )
            if len(self._accepts) >= _CACHE_LIMIT:
                self._accepts.clear()
            self._accepts[table_id] = hit
        return hit

    __call__ = accepts

    def eligible(self, table_id: TableId) -> bool:
        """Schema-level filters only (Debezium's eligibleDataCollectionFilter): tables whose schema may be read."""
        hit = self._eligible.get(table_id)
        if hit is None:
            hit = self._schema_ok(table_id.schema) and not (self.ignore_builtin and self.is_system_table(table_id))
            if len(self._eligible) >= _CACHE_LIMIT:
                self._eligible.clear()
            self._eligible[table_id] = hit
        return hit


class ColumnFilter:
    """column.include.list / column.exclude.list over `schema.table.column`. `includes(table_id, name)`
    is cached. Key columns stay in the key whatever this says (the schema builder's rule)."""

    def __init__(self, *, include: RegexList | None = None, exclude: RegexList | None = None) -> None:
        self.include = include
        self.exclude = exclude
        self._cache: dict[tuple[TableId, str], bool] = {}

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> ColumnFilter:
        _raise_exclusive(props, COLUMN_INCLUDE_LIST, COLUMN_EXCLUDE_LIST)
        return cls(include=_regex_list(props, COLUMN_INCLUDE_LIST), exclude=_regex_list(props, COLUMN_EXCLUDE_LIST))

    @property
    def is_noop(self) -> bool:
        return self.include is None and self.exclude is None

    def includes(self, table_id: TableId, column: str) -> bool:
        if self.include is None and self.exclude is None:
            return True
        key = (table_id, column)
        hit = self._cache.get(key)
        if hit is None:
            name = f"{table_id}.{column}"
            if self.include is not None:
                hit = self.include.matches(name)
            else:
                assert self.exclude is not None
                hit = not self.exclude.matches(name)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[key] = hit
        return hit

    __call__ = includes

    def included_columns(self, table_id: TableId, columns: Sequence[str]) -> tuple[str, ...]:
        return tuple(c for c in columns if self.includes(table_id, c))


class MessagePrefixFilter:
    """message.prefix.include.list / message.prefix.exclude.list over logical-decoding message prefixes."""

    def __init__(self, *, include: RegexList | None = None, exclude: RegexList | None = None) -> None:
        self.include = include
        self.exclude = exclude
        self._cache: dict[str, bool] = {}

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> MessagePrefixFilter:
        _raise_exclusive(props, MESSAGE_PREFIX_INCLUDE_LIST, MESSAGE_PREFIX_EXCLUDE_LIST)
        return cls(
            include=_regex_list(props, MESSAGE_PREFIX_INCLUDE_LIST),
            exclude=_regex_list(props, MESSAGE_PREFIX_EXCLUDE_LIST),
        )

    def includes(self, prefix: str) -> bool:
        hit = self._cache.get(prefix)
        if hit is None:
            if self.include is not None:
                hit = self.include.matches(prefix)
            elif self.exclude is not None:
                hit = not self.exclude.matches(prefix)
            else:
                hit = True
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[prefix] = hit
        return hit

    __call__ = includes
