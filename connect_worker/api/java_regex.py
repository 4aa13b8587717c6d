"""Java regular expressions (java.util.regex.Pattern) on Python's `re`: the one translator for every regex a user
writes in a config (RegexRouter, TopicNameMatches, ByLogicalTableRouter, Debezium's include/exclude lists, column
mappers, ...), checked against the JVM by tests/java_golden/test_java_regex_golden.py.

The parser is a port of Pattern's own (connect_worker.api.java_regex_parser), so a pattern is valid here exactly when
Java accepts it, and reads the same: `\\Q...\\E`, comments mode, inline flags `(?idmsuxU-idmsuxU)` scoped to the
enclosing group, class unions, intersections `[a-z&&[^aeiou]]` and negation, `\\p{..}`/`\\P{..}` (general categories,
POSIX and `java*` classes, binary properties, with Java's case-insensitive variants), possessive quantifiers, atomic
groups, look-arounds, named groups and back references, octal/hex/Unicode/control/named-character escapes. Classes,
`.`, anchors, word boundaries and case-insensitivity are spelled out as explicit sets and look-arounds, so
Java's line terminators (`\\n \\r \\u0085 \\u2028 \\u2029`), ASCII-only `\\d \\w \\s \\b` and case folding (unless
`(?U)`/`(?u)`) hold whatever Python's defaults are. Use `fullmatch` for Java's `matches()`, `search` for `find()`.

Refused with a JavaRegexError naming the construct, although Java accepts them: `\\G`, `\\X`, `\\b{g}`, Unicode scripts,
blocks and emoji properties (`\\p{IsLatin}`, `\\p{InGreek}`, `\\p{IsEmoji}`), a look-behind whose alternatives are not
each of one fixed length (`(?<=a+)`, `(?<=ab?)`), classes or properties under canonical equivalence `(?c)`, a back
reference to a group not yet closed inside a repetition, and groups that can match the empty string where Java's
repetition of them differs from Python's (`(?:a|){2}`, `((\\b))*`). Approximations: Unicode data is Python's (see
java_regex_sets for the properties Python has no data for); `\\b` sees one combining mark on a letter, not a run;
capturing groups inside look-arounds hold what Python captured, where Java may keep what an earlier failed attempt
captured.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex_nodes import Emit
from connect_worker.api.java_regex_parser import Parser
from connect_worker.api.java_regex_scanner import CASE_INSENSITIVE, JavaRegexError, unsupported

__all__ = ["JavaRegexError", "Replacement", "java_regex", "regex_validator", "translate_java_regex"]


def java_regex(pattern: str, *, case_insensitive: bool = False) -> re.Pattern[str]:
    """Compile a Java regex (as `Pattern.compile(pattern[, CASE_INSENSITIVE])`); JavaRegexError, a ConfigError
    naming the pattern, when Java would refuse it or it uses what cannot be translated. Compilations are cached."""
    return _compile_cached(pattern, case_insensitive)


@functools.lru_cache(maxsize=4096)
def _compile_cached(pattern: str, case_insensitive: bool) -> re.Pattern[str]:
    source = translate_java_regex(pattern, case_insensitive=case_insensitive)
    try:
        return re.compile(source)
    except (re.error, OverflowError, RecursionError) as e:
        raise JavaRegexError(f"Not translatable to Python ({e})", pattern) from None


def translate_java_regex(pattern: str, *, case_insensitive: bool = False) -> str:
    """The Python source `java_regex` compiles (for diagnostics and tests)."""
    try:
        parser = Parser(pattern, CASE_INSENSITIVE if case_insensitive else 0)
        root = parser.compile()
        emit = Emit(parser.group_count)
        source = "(?:" + root.py(emit) + ")"
    except RecursionError:
        raise unsupported("nesting this deep", pattern) from None
    if emit.refusal is not None:
        raise unsupported(emit.refusal, pattern)
    return source


class Replacement:
    """A Java replacement string (Matcher.appendReplacement: `$1`, `${name}`, `\\$`), parsed once against a compiled
    pattern. After `$` the first digit is always a group number and later digits join it while the number still
    names a group. Java checks a replacement only when it is used; this refuses a bad one up front."""

    __slots__ = ("_parts",)

    def __init__(self, pattern: re.Pattern[str], replacement: str) -> None:
        self._parts: Sequence[str | int] = _parse_replacement(pattern, replacement)

    def expand(self, m: re.Match[str]) -> str:
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
            else:
                g = m.group(part)
                if g is not None:
                    out.append(g)
        return "".join(out)

    def replace_first(self, pattern: re.Pattern[str], text: str) -> str:
        """Matcher.replaceFirst: the first match found by a search from the start is replaced."""
        m = pattern.search(text)
        if m is None:
            return text
        return text[: m.start()] + self.expand(m) + text[m.end() :]

    def replace_all(self, pattern: re.Pattern[str], text: str) -> str:
        """Matcher.replaceAll: after an empty match the next search starts one character further."""
        out: list[str] = []
        last = 0
        m = pattern.search(text)
        while m is not None:
            out += (text[last : m.start()], self.expand(m))
            last = m.end()
            start = m.end() + (m.end() == m.start())
            if start > len(text):
                break
            m = pattern.search(text, start)
        out.append(text[last:])
        return "".join(out)


def _parse_replacement(pattern: re.Pattern[str], r: str) -> list[str | int]:
    parts: list[str | int] = []
    buf: list[str] = []
    i, n, groups = 0, len(r), pattern.groups

    def fail(message: str) -> ConfigError:
        return ConfigError(f"Invalid replacement '{r}': {message}")

    while i < n:
        c = r[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise fail("character to be escaped is missing")
            buf.append(r[i])
            i += 1
            continue
        if c != "$":
            buf.append(c)
            i += 1
            continue
        i += 1
        if i >= n:
            raise fail("Illegal group reference: group index is missing")
        if buf:
            parts.append("".join(buf))
            buf = []
        if r[i] == "{":
            m = re.compile(r"[A-Za-z0-9]*").match(r, i + 1)
            assert m is not None
            name = m.group(0)
            if not name:
                raise fail("named capturing group has 0 length name")
            if not r.startswith("}", m.end()):
                raise fail("named capturing group is missing trailing '}'")
            if name[0].isdigit():
                raise fail(f"capturing group name {{{name}}} starts with digit character")
            if name not in pattern.groupindex:
                raise fail(f"No group with name {{{name}}}")
            parts.append(pattern.groupindex[name])
            i = m.end() + 1
            continue
        if not "0" <= r[i] <= "9":
            raise fail("Illegal group reference")
        ref = int(r[i])
        i += 1
        while i < n and "0" <= r[i] <= "9" and ref * 10 + int(r[i]) <= groups:
            ref = ref * 10 + int(r[i])
            i += 1
        if ref > groups:
            raise fail(f"No group {ref}")
        parts.append(ref)
    if buf:
        parts.append("".join(buf))
    return parts


def regex_validator(name: str, value: object) -> None:
    """A ConfigDef validator: the value must be a valid (Java) regex."""
    if value is None:
        return
    try:
        java_regex(str(value))
    except ConfigError as e:
        raise ConfigError(f"Invalid value {value} for configuration {name}: {e}", name=name) from None
