"""The pattern buffer and cursor of java.util.regex.Pattern's parser (its peek/read/next/skip/unread, which skip
blanks and `#` comments in comments mode), the flags, `\\Q...\\E` removal, and the error every layer raises."""

from __future__ import annotations

from typing import Final

from connect_worker.api.errors import ConfigError

# java.util.regex.Pattern flag bits
UNIX_LINES: Final = 0x01
CASE_INSENSITIVE: Final = 0x02
COMMENTS: Final = 0x04
MULTILINE: Final = 0x08
DOTALL: Final = 0x20
UNICODE_CASE: Final = 0x40
CANON_EQ: Final = 0x80
UNICODE_CHARACTER_CLASS: Final = 0x100
FLAG_LETTERS: Final = {
    "i": CASE_INSENSITIVE,
    "m": MULTILINE,
    "s": DOTALL,
    "d": UNIX_LINES,
    "u": UNICODE_CASE,
    "c": CANON_EQ,
    "x": COMMENTS,
    "U": UNICODE_CHARACTER_CLASS | UNICODE_CASE,
}


class JavaRegexError(ConfigError):
    """A Java regular expression that is invalid (Java's PatternSyntaxException), or valid in Java but not
    translatable to Python (the message then says which construct is unsupported)."""

    def __init__(self, message: str, pattern: str, index: int | None = None) -> None:
        where = f" near index {index}" if index is not None else ""
        super().__init__(f"{message}{where}: {pattern}")
        self.pattern = pattern
        self.index = index


def unsupported(what: str, pattern: str, index: int | None = None) -> JavaRegexError:
    return JavaRegexError(f"Unsupported Java regex construct: {what}", pattern, index)


def is_space(ch: int) -> bool:  # ASCII.isSpace
    return 0x09 <= ch <= 0x0D or ch == 0x20


def is_digit(ch: int) -> bool:
    return 0x30 <= ch <= 0x39


def is_hex(ch: int) -> bool:
    return is_digit(ch) or 0x41 <= ch <= 0x46 or 0x61 <= ch <= 0x66


def is_alpha(ch: int) -> bool:
    return 0x41 <= ch <= 0x5A or 0x61 <= ch <= 0x7A


def remove_qe_quoting(temp: list[int]) -> list[int]:
    """Pattern.RemoveQEQuoting: `\\Q...\\E` becomes escaped characters before parsing."""
    p_len = len(temp)
    i = 0
    while i < p_len - 1:
        if temp[i] != 0x5C:
            i += 1
        elif temp[i + 1] != 0x51:
            i += 2
        else:
            break
    if i >= p_len - 1:
        return temp
    out = temp[:i]
    i += 2
    in_quote = begin_quote = True
    while i < p_len:
        c = temp[i]
        i += 1
        if c >= 0x80 or is_alpha(c):
            out.append(c)
        elif is_digit(c):
            if begin_quote:
                out += [0x5C, 0x78, 0x33]  # \x3 then the digit: a hex escape the digit cannot extend
            out.append(c)
        elif c != 0x5C:
            if in_quote:
                out.append(0x5C)
            out.append(c)
        elif in_quote:
            if i < p_len and temp[i] == 0x45:
                i += 1
                in_quote = False
            else:
                out += [0x5C, 0x5C]
        elif i < p_len and temp[i] == 0x51:
            i += 1
            in_quote = begin_quote = True
            continue
        else:
            out.append(c)
            if i != p_len:
                out.append(temp[i])
                i += 1
        begin_quote = False
    return out


class Scanner:
    """The code points of a pattern (after `\\Q...\\E` removal, then two zeros, as Java terminates them), a cursor
    and the flags in force."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        codes = remove_qe_quoting([ord(c) for c in pattern])
        self.pattern_length = len(codes)
        self.temp = [*codes, 0, 0, 0, 0]
        self.cursor = 0
        self.flags0 = flags

    def error(self, message: str) -> JavaRegexError:
        return JavaRegexError(message, self.pattern, self.cursor - 1)

    def refuse(self, what: str) -> JavaRegexError:
        return unsupported(what, self.pattern, max(self.cursor - 1, 0))

    def has(self, flag: int) -> bool:
        return bool(self.flags0 & flag)

    def at(self, i: int) -> int:
        if i >= len(self.temp):
            raise self.error("Unexpected internal error")
        return self.temp[i]

    def peek(self) -> int:
        ch = self.at(self.cursor)
        if self.has(COMMENTS):
            ch = self.peek_past_whitespace(ch)
        return ch

    def read(self) -> int:
        ch = self.at(self.cursor)
        self.cursor += 1
        if self.has(COMMENTS):
            ch = self.parse_past_whitespace(ch)
        return ch

    def next(self) -> int:
        self.cursor += 1
        ch = self.at(self.cursor)
        if self.has(COMMENTS):
            ch = self.peek_past_whitespace(ch)
        return ch

    def next_escaped(self) -> int:
        self.cursor += 1
        return self.at(self.cursor)

    def skip(self) -> int:
        ch = self.at(self.cursor + 1)
        self.cursor += 2
        return ch

    def unread(self) -> None:
        self.cursor -= 1

    def mark(self, c: int) -> None:
        self.temp[self.pattern_length] = c

    def peek_past_whitespace(self, ch: int) -> int:
        while is_space(ch) or ch == 0x23:
            while is_space(ch):
                self.cursor += 1
                ch = self.at(self.cursor)
            if ch == 0x23:
                ch = self.peek_past_line()
        return ch

    def parse_past_whitespace(self, ch: int) -> int:
        while is_space(ch) or ch == 0x23:
            while is_space(ch):
                ch = self.at(self.cursor)
                self.cursor += 1
            if ch == 0x23:
                ch = self.parse_past_line()
        return ch

    def parse_past_line(self) -> int:
        ch = self.at(self.cursor)
        self.cursor += 1
        while ch != 0 and not self.is_line_separator(ch):
            ch = self.at(self.cursor)
            self.cursor += 1
        if ch == 0 and self.cursor > self.pattern_length:
            self.cursor = self.pattern_length
            ch = self.at(self.cursor)
            self.cursor += 1
        return ch

    def peek_past_line(self) -> int:
        self.cursor += 1
        ch = self.at(self.cursor)
        while ch != 0 and not self.is_line_separator(ch):
            self.cursor += 1
            ch = self.at(self.cursor)
        if ch == 0 and self.cursor > self.pattern_length:
            self.cursor = self.pattern_length
            ch = self.at(self.cursor)
        return ch

    def is_line_separator(self, ch: int) -> bool:
        if self.has(UNIX_LINES):
            return ch == 0x0A
        return ch in (0x0A, 0x0D, 0x85) or (ch | 1) == 0x2029
