"""java.text.SimpleDateFormat patterns, formatted and parsed in UTC (as TimestampConverter/TimestampRouter do).

Supported letters: G y M L d F E u a H k K h m s S D z Z X. Quoted text ('…', '' for a quote) is literal.
Like Java: `yy` prints two digits and parses a two-digit year into a century window; `S` is the millisecond
number zero-padded to the letter count (so `SSSSSS` prints 000123 for 123 ms); parsing reads from the
start of the text and ignores trailing characters; abutting numeric fields take exactly their width.
Not supported (ConfigError): week-based letters Y w W, and anything Java rejects.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from connect_worker.api.errors import ConfigError, DataError

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_NUMERIC = frozenset("yMLdFuHkKhmsSD")
_SUPPORTED = frozenset("GyMLdFEuaHkKhmsSDzZX")
_ALL_JAVA = frozenset("GyYMLwWDdFEuaHkKhmsSzZX")


@dataclass(frozen=True, slots=True)
class _Field:
    letter: str
    count: int


_Token = _Field | str


def _tokenize(pattern: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(pattern)
    literal: list[str] = []

    def flush() -> None:
        if literal:
            tokens.append("".join(literal))
            literal.clear()

    while i < n:
        c = pattern[i]
        if c == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                literal.append("'")
                i += 2
                continue
            end = i + 1
            while True:
                if end >= n:
                    raise ConfigError(f"Unterminated quote in date format pattern: {pattern}")
                if pattern[end] == "'":
                    if end + 1 < n and pattern[end + 1] == "'":
                        literal.append("'")
                        end += 2
                        continue
                    break
                literal.append(pattern[end])
                end += 1
            i = end + 1
        elif c.isascii() and c.isalpha():
            if c not in _ALL_JAVA:
                raise ConfigError(f"Illegal pattern character '{c}' in date format pattern: {pattern}")
            if c not in _SUPPORTED:
                raise ConfigError(f"Date format letter '{c}' is not supported (pattern {pattern})")
            j = i
            while j < n and pattern[j] == c:
                j += 1
            flush()
            tokens.append(_Field(c, j - i))
            i = j
        else:
            literal.append(c)
            i += 1
    flush()
    return tokens


def _pad(value: int, count: int) -> str:
    return str(value).zfill(count)


class SimpleDateFormat:
    """A compiled SimpleDateFormat pattern; UTC only."""

    __slots__ = ("_parse_re", "_tokens", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokenize(pattern)
        self._parse_re = self._build_parser()

    # -- formatting -------------------------------------------------------------------------------
    def format(self, value: dt.datetime) -> str:
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        out: list[str] = []
        for t in self._tokens:
            if isinstance(t, str):
                out.append(t)
                continue
            c, n = t.letter, t.count
            if c == "G":
                out.append("AD")
            elif c == "y":
                out.append(_pad(value.year % 100, 2) if n == 2 else _pad(value.year, n))
            elif c in "ML":
                if n >= 4:
                    out.append(_MONTHS[value.month - 1])
                elif n == 3:
                    out.append(_MONTHS[value.month - 1][:3])
                else:
                    out.append(_pad(value.month, n))
            elif c == "d":
                out.append(_pad(value.day, n))
            elif c == "F":
                out.append(_pad((value.day - 1) // 7 + 1, n))
            elif c == "E":
                name = _DAYS[value.weekday()]
                out.append(name if n >= 4 else name[:3])
            elif c == "u":
                out.append(_pad(value.isoweekday(), n))
            elif c == "a":
                out.append("AM" if value.hour < 12 else "PM")
            elif c == "H":
                out.append(_pad(value.hour, n))
            elif c == "k":
                out.append(_pad(value.hour or 24, n))
            elif c == "K":
                out.append(_pad(value.hour % 12, n))
            elif c == "h":
                out.append(_pad(value.hour % 12 or 12, n))
            elif c == "m":
                out.append(_pad(value.minute, n))
            elif c == "s":
                out.append(_pad(value.second, n))
            elif c == "S":
                out.append(_pad(value.microsecond // 1000, n))
            elif c == "D":
                out.append(_pad(value.timetuple().tm_yday, n))
            elif c == "z":
                out.append("Coordinated Universal Time" if n >= 4 else "UTC")
            elif c == "Z":
                out.append("+0000")
            elif c == "X":
                out.append("Z")
        return "".join(out)

    # -- parsing ----------------------------------------------------------------------------------
    def _build_parser(self) -> re.Pattern[str]:
        parts: list[str] = []
        toks = self._tokens
        for idx, t in enumerate(toks):
            if isinstance(t, str):
                parts.append(re.escape(t))
                continue
            c, n = t.letter, t.count
            nxt = toks[idx + 1] if idx + 1 < len(toks) else None
            abutting = isinstance(nxt, _Field) and (
                nxt.letter in _NUMERIC and not (nxt.letter in "ML" and nxt.count >= 3)
            )
            if c in "ML" and n >= 3:
                names = "|".join(m for m in _MONTHS) + "|" + "|".join(m[:3] for m in _MONTHS)
                parts.append(f"({names})")
            elif c == "E":
                parts.append("(" + "|".join(_DAYS) + "|" + "|".join(d[:3] for d in _DAYS) + ")")
            elif c == "a":
                parts.append("(AM|PM)")
            elif c == "G":
                parts.append("(AD|BC)")
            elif c in "zZX":
                parts.append(r"(Z|[+-]\d{2}(?::?\d{2})?|UTC|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?)")
            elif abutting:
                parts.append(f"(\\d{{{n}}})")
            else:
                parts.append(r"([+-]?\d+)" if c == "y" else r"(\d+)")
        return re.compile("".join(parts), re.IGNORECASE)

    def parse(self, text: str) -> dt.datetime:
        """The UTC instant `text` denotes; DataError when it does not match (Kafka's message)."""
        m = self._parse_re.match(text)
        if m is None:
            raise self._mismatch(text)
        year, month, day, hour, minute, second, millis = 1970, 1, 1, 0, 0, 0, 0
        pm: bool | None = None
        hour12: int | None = None
        offset_min = 0
        doy: int | None = None
        fields = [t for t in self._tokens if isinstance(t, _Field)]
        for f, raw in zip(fields, m.groups(), strict=True):
            c = f.letter
            if c == "y":
                year = int(raw)
                if f.count <= 2 and len(raw) == 2 and raw.isdigit():
                    year = _two_digit_year(year)
            elif c in "ML":
                if f.count >= 3:
                    month = next(i for i, n in enumerate(_MONTHS, 1) if n.lower().startswith(raw.lower()[:3]))
                else:
                    month = int(raw)
            elif c == "d":
                day = int(raw)
            elif c in "Hk":
                hour = int(raw) % 24 if c == "k" else int(raw)
            elif c in "Kh":
                hour12 = int(raw) % 12
            elif c == "a":
                pm = raw.upper() == "PM"
            elif c == "m":
                minute = int(raw)
            elif c == "s":
                second = int(raw)
            elif c == "S":
                millis = int(raw)
            elif c == "D":
                doy = int(raw)
            elif c in "zZX":
                offset_min = _offset_minutes(raw)
        if hour12 is not None:
            hour = hour12 + (12 if pm else 0)
        elif pm and hour < 12:
            hour += 12
        try:
            base = dt.datetime(year, 1, 1, tzinfo=dt.UTC)
            if doy is not None:
                base += dt.timedelta(days=doy - 1)
            else:
                base = base.replace(month=month, day=day)
            return base + dt.timedelta(hours=hour, minutes=minute - offset_min, seconds=second, milliseconds=millis)
        except (ValueError, OverflowError):
            raise self._mismatch(text) from None

    def _mismatch(self, text: str) -> DataError:
        return DataError(f"Could not parse timestamp: value ({text}) does not match pattern ({self.pattern})")


def _two_digit_year(yy: int, today: dt.date | None = None) -> int:
    """Java's window: the year within 80 years before and 20 years after today."""
    now = (today or dt.datetime.now(dt.UTC).date()).year
    start = now - 80
    year = start - start % 100 + yy
    if year < start:
        year += 100
    return year


def _offset_minutes(raw: str) -> int:
    s = raw.upper()
    if s in ("Z", "UTC", "GMT"):
        return 0
    if s.startswith("GMT"):
        s = s[3:]
    sign = -1 if s[0] == "-" else 1
    digits = s[1:].replace(":", "")
    hours = int(digits[:2]) if len(digits) > 2 else int(digits)
    minutes = int(digits[2:]) if len(digits) > 2 else 0
    return sign * (hours * 60 + minutes)
