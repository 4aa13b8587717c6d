"""Java regular expressions (java.util.regex) on Python's `re`.

Users write Java regexes in configs (RegexRouter, TopicNameMatches, ByLogicalTableRouter). The dialects agree
on most syntax; this module rewrites what differs: named groups `(?<n>…)`/`\\k<n>`, `\\Q…\\E` quoting, POSIX
classes `\\p{Alpha}`…, `\\z`/`\\Z`, `\\h`/`\\v`/`\\R`/`\\e`/`\\cX`/`\\0oo`/`\\x{…}`, nested character-class
unions `[a-z[0-9]]`, and inline flags in mid-pattern (`a(?i)b`, scoped to the end of the enclosing group).
Like Java (without UNICODE_CHARACTER_CLASS), `\\d`, `\\w`, `\\s` and case folding are ASCII-only.
Not supported (rejected with a ConfigError): class intersection `&&`, `\\G`, Unicode property classes.

Java replacement strings (`$1`, `${name}`, `\\$`) follow Matcher.appendReplacement: after `$`, digits are
taken greedily while they still name an existing group.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from connect_worker.api.errors import ConfigError

_POSIX: dict[str, str] = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7f",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1f\\x7f",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
    "javaLowerCase": "a-z",
    "javaUpperCase": "A-Z",
    "javaWhitespace": " \\t\\n\\x0b\\f\\r\\x1c-\\x1f",
    "IsAlphabetic": "a-zA-Z",
    "IsDigit": "0-9",
    "IsLetter": "a-zA-Z",
    "IsLowercase": "a-z",
    "IsUppercase": "A-Z",
    "IsWhite_Space": " \\t\\n\\x0b\\f\\r\\x85\\u2028\\u2029",
}
_HSPACE = " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"
_VSPACE = "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"
_FLAG_GROUP = re.compile(r"\(\?([idmsuxU]*)(?:-([idmsuxU]*))?(\)|:)")
_CLASS_SPECIALS = frozenset("&~|")


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.global_flags = re.ASCII

    def fail(self, what: str) -> ConfigError:
        return ConfigError(f"Unsupported Java regex construct {what} in: {self.p}")

    def run(self) -> str:
        p, n = self.p, len(self.p)
        out: list[str] = []
        # per open group: how many scoped-flag groups were opened inside it by mid-pattern flags
        extra: list[int] = [0]
        while self.i < n:
            c = p[self.i]
            if c == "\\":
                out.append(self.escape(in_class=False))
            elif c == "[":
                out.append(self.char_class())
            elif c == "(":
                m = _FLAG_GROUP.match(p, self.i)
                if m is not None:
                    on = "".join(f for f in m.group(1) if f in "imsx")
                    off = "".join(f for f in (m.group(2) or "") if f in "imsx")
                    if "U" in m.group(1):
                        self.global_flags &= ~re.ASCII
                    self.i = m.end()
                    if m.group(3) == ":":
                        out.append(_scoped(on, off))
                        extra.append(0)
                    elif not out and not off:
                        for f in on:
                            self.global_flags |= {
                                "i": re.IGNORECASE,
                                "m": re.MULTILINE,
                                "s": re.DOTALL,
                                "x": re.VERBOSE,
                            }[f]
                    elif on or off:
                        out.append(_scoped(on, off))
                        extra[-1] += 1
                    continue
                if p.startswith("(?<", self.i) and self.i + 3 < n and p[self.i + 3] not in "=!":
                    out.append("(?P<")
                    self.i += 3
                else:
                    out.append("(")
                    self.i += 1
                extra.append(0)
            elif c == ")":
                if len(extra) > 1:
                    out.append(")" * extra.pop())
                out.append(")")
                self.i += 1
            else:
                out.append(c)
                self.i += 1
        out.append(")" * extra[0])
        return "".join(out)

    def escape(self, *, in_class: bool) -> str:
        p = self.p
        if self.i + 1 >= len(p):
            raise ConfigError(f"Unexpected internal error near index {len(p)}: {p}")
        c = p[self.i + 1]
        self.i += 2
        if c == "Q":
            end = p.find("\\E", self.i)
            text = p[self.i :] if end < 0 else p[self.i : end]
            self.i = len(p) if end < 0 else end + 2
            if in_class:
                return "".join("\\" + ch if not ch.isalnum() else ch for ch in text)
            return re.escape(text)
        if c in "pP":
            if self.i < len(p) and p[self.i] == "{":
                end = p.index("}", self.i)
                name = p[self.i + 1 : end]
                self.i = end + 1
            else:
                name = p[self.i : self.i + 1]
                self.i += 1
            name = name[2:] if name.startswith("Is") and name[2:] in _POSIX else name
            chars = _POSIX.get(name)
            if chars is None:
                raise self.fail(f"\\{c}{{{name}}}")
            if c == "p":
                return chars if in_class else f"[{chars}]"
            if in_class:
                raise self.fail(f"\\P{{{name}}} inside a character class")
            return f"[^{chars}]"
        if c == "k" and self.i < len(p) and p[self.i] == "<":
            end = p.index(">", self.i)
            name = p[self.i + 1 : end]
            self.i = end + 1
            return f"(?P={name})"
        if c == "x" and self.i < len(p) and p[self.i] == "{":
            end = p.index("}", self.i)
            code = int(p[self.i + 1 : end], 16)
            self.i = end + 1
            return re.escape(chr(code))
        if c == "0":
            j = self.i
            while j < len(p) and j - self.i < 3 and p[j] in "01234567":
                j += 1
            code = int(p[self.i : j] or "0", 8)
            self.i = j
            return re.escape(chr(code))
        if c == "c" and self.i < len(p):
            ch = p[self.i]
            self.i += 1
            return re.escape(chr(ord(ch) ^ 64))
        if c == "e":
            return "\\x1b"
        if c == "h":
            return _HSPACE if in_class else f"[{_HSPACE}]"
        if c == "H":
            if in_class:
                raise self.fail("\\H inside a character class")
            return f"[^{_HSPACE}]"
        if c == "v":
            return _VSPACE if in_class else f"[{_VSPACE}]"
        if c == "V":
            if in_class:
                raise self.fail("\\V inside a character class")
            return f"[^{_VSPACE}]"
        if not in_class:
            if c == "z":
                return "\\Z"
            if c == "Z":
                return "(?=\\n?\\Z)"
            if c == "R":
                return "(?:\\r\\n|[" + _VSPACE + "])"
            if c == "G":
                raise self.fail("\\G")
        return "\\" + c

    def char_class(self) -> str:
        """Translate `[...]` starting at self.i (Java allows nested unions like `[a-z[0-9]]`)."""
        p = self.p
        self.i += 1
        negated = self.i < len(p) and p[self.i] == "^"
        if negated:
            self.i += 1
        body = self.class_body()
        return "[" + ("^" if negated else "") + body + "]"

    def class_body(self) -> str:
        p = self.p
        parts: list[str] = []
        first = True
        while True:
            if self.i >= len(p):
                raise ConfigError(f"Unclosed character class near index {len(p) - 1}: {p}")
            c = p[self.i]
            if c == "]" and not first:
                self.i += 1
                return "".join(parts)
            if c == "\\":
                parts.append(self.escape(in_class=True))
            elif c == "[":
                self.i += 1
                if self.i < len(p) and p[self.i] == "^":
                    raise self.fail("negated nested character class")
                parts.append(self.class_body())
            elif c == "&" and p.startswith("&&", self.i):
                raise self.fail("character class intersection (&&)")
            elif c in _CLASS_SPECIALS or (c == "]" and first):
                parts.append("\\" + c)
                self.i += 1
            else:
                parts.append(c)
                self.i += 1
            first = False


def _scoped(on: str, off: str) -> str:
    return "(?" + on + ("-" + off if off else "") + ":"


def compile_java_regex(pattern: str) -> re.Pattern[str]:
    """Compile a Java regex; ConfigError (naming the pattern) when it is invalid or uses what we lack."""
    t = _Translator(pattern)
    try:
        translated = t.run()
        return re.compile(translated, t.global_flags)
    except (re.error, ValueError, IndexError, OverflowError) as e:
        raise ConfigError(f"Invalid regex '{pattern}': {e}") from None


class Replacement:
    """A Java replacement string, parsed once against a compiled pattern."""

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
        """Java's Matcher.replaceFirst: the first match found by a search from the start is replaced."""
        m = pattern.search(text)
        if m is None:
            return text
        return text[: m.start()] + self.expand(m) + text[m.end() :]


def _parse_replacement(pattern: re.Pattern[str], r: str) -> list[str | int]:
    parts: list[str | int] = []
    buf: list[str] = []
    i, n, groups = 0, len(r), pattern.groups
    while i < n:
        c = r[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise ConfigError(f"Invalid replacement '{r}': character to be escaped is missing")
            buf.append(r[i])
            i += 1
        elif c == "$":
            i += 1
            if i >= n:
                raise ConfigError(f"Invalid replacement '{r}': Illegal group reference: group index is missing")
            if buf:
                parts.append("".join(buf))
                buf = []
            if r[i] == "{":
                end = r.find("}", i)
                name = r[i + 1 : end] if end > 0 else ""
                if end < 0 or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
                    raise ConfigError(f"Invalid replacement '{r}': named capturing group is missing or invalid")
                if name not in pattern.groupindex:
                    raise ConfigError(f"Invalid replacement '{r}': No group with name {{{name}}}")
                parts.append(pattern.groupindex[name])
                i = end + 1
            else:
                if not r[i].isdigit() or not r[i].isascii():
                    raise ConfigError(f"Invalid replacement '{r}': Illegal group reference")
                ref = int(r[i])
                i += 1
                while i < n and r[i].isascii() and r[i].isdigit():
                    candidate = ref * 10 + int(r[i])
                    if candidate > groups:
                        break
                    ref = candidate
                    i += 1
                if ref > groups:
                    raise ConfigError(f"Invalid replacement '{r}': No group {ref}")
                parts.append(ref)
        else:
            buf.append(c)
            i += 1
    if buf:
        parts.append("".join(buf))
    return parts


def regex_validator(name: str, value: object) -> None:
    """A ConfigDef validator: the value must be a valid (Java) regex."""
    if value is None:
        return
    try:
        compile_java_regex(str(value))
    except ConfigError as e:
        raise ConfigError(f"Invalid value {value} for configuration {name}: {e}", name=name) from None
