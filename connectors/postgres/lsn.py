"""Lsn: a PostgreSQL WAL position (log sequence number) as an immutable, ordered value.

Inside it is the unsigned 64-bit integer PostgreSQL uses. It prints exactly as PostgreSQL prints a
``pg_lsn`` (``"16/B374D848"``: upper-case hex, high and low 32 bits, no padding) and converts to and
from the decimal integer Debezium stores in its offsets (``lsn``, ``lsn_proc``, ``lsn_commit``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

_MAX: Final = (1 << 64) - 1
_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")


class Lsn:
    """A WAL position. ``Lsn(0)`` is PostgreSQL's ``InvalidXLogRecPtr`` (printed ``0/0``)."""

    __slots__ = ("_value",)

    _value: int
    ZERO: ClassVar[Lsn]
    MAX: ClassVar[Lsn]

    def __init__(self, value: int) -> None:
        if type(value) is not int:  # bool and int subclasses (including Lsn's own int) are refused
            raise TypeError(f"Lsn needs an int, got {type(value).__name__}")
        if value < 0 or value > _MAX:
            raise ValueError(f"LSN {value} is outside the unsigned 64-bit range")
        object.__setattr__(self, "_value", value)

    # -- conversions -------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Lsn:
        """Parse ``"X/Y"`` as PostgreSQL's ``pg_lsn`` input does (1-8 hex digits on each side)."""
        high, sep, low = text.partition("/")
        if not sep or not _is_hex32(high) or not _is_hex32(low):
            raise ValueError(f"invalid LSN {text!r}: expected two groups of 1-8 hex digits like '16/B374D848'")
        return cls((int(high, 16) << 32) | int(low, 16))

    @classmethod
    def from_int(cls, value: int) -> Lsn:
        """The LSN whose Debezium offset value (a decimal long) is ``value``."""
        return cls(value)

    def to_int(self) -> int:
        return self._value

    @property
    def value(self) -> int:
        return self._value

    def __int__(self) -> int:
        return self._value

    def __index__(self) -> int:
        return self._value

    def __str__(self) -> str:
        v = self._value
        return f"{v >> 32:X}/{v & 0xFFFFFFFF:X}"

    def __repr__(self) -> str:
        return f"Lsn('{self}')"

    def __bool__(self) -> bool:
        """False for ``0/0`` (InvalidXLogRecPtr), true for every real position."""
        return self._value != 0

    # -- value semantics ---------------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Lsn is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Lsn is immutable")

    def __reduce__(self) -> tuple[type[Lsn], tuple[int]]:
        return (Lsn, (self._value,))

    def __hash__(self) -> int:
        return hash((Lsn, self._value))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lsn):
            return self._value == other._value
        return NotImplemented

    def __lt__(self, other: Lsn) -> bool:
        if isinstance(other, Lsn):
            return self._value < other._value
        return NotImplemented

    def __le__(self, other: Lsn) -> bool:
        if isinstance(other, Lsn):
            return self._value <= other._value
        return NotImplemented

    def __gt__(self, other: Lsn) -> bool:
        if isinstance(other, Lsn):
            return self._value > other._value
        return NotImplemented

    def __ge__(self, other: Lsn) -> bool:
        if isinstance(other, Lsn):
            return self._value >= other._value
        return NotImplemented

    # -- arithmetic that keeps the type honest -------------------------------------------------------

    def __add__(self, nbytes: int) -> Lsn:
        """The position ``nbytes`` of WAL further on."""
        if type(nbytes) is not int:
            return NotImplemented
        return Lsn(self._value + nbytes)

    def __sub__(self, other: Lsn) -> int:
        """The distance in bytes of WAL between two positions (``pg_wal_lsn_diff``)."""
        if not isinstance(other, Lsn):
            return NotImplemented
        return self._value - other._value


Lsn.ZERO = Lsn(0)
Lsn.MAX = Lsn(_MAX)


def _is_hex32(part: str) -> bool:
    return 0 < len(part) <= 8 and all(c in _HEX_DIGITS for c in part)


_new = object.__new__
_set_value = Lsn.__dict__["_value"].__set__  # the slot's own setter


def wire_lsn(value: int) -> Lsn:
    """The Lsn of an unsigned 64-bit integer read off the replication protocol: in range by construction, so
    without `Lsn()`'s checks (the per-message path)."""
    lsn: Lsn = _new(Lsn)
    _set_value(lsn, value)
    return lsn
