"""Kafka's protocol primitive types (INT8-64 big-endian, STRING with an INT16 length, BYTES and ARRAY with INT32
lengths, -1 for null, and the flexible versions' compact forms with unsigned varints), written and read. Shared by
the group requests (group_wire.py) and Connect's group payloads (runtime/connect_protocol.py). Pure."""

from __future__ import annotations

import struct
from typing import Final

from connect_worker.api import ConnectError

I8: Final = struct.Struct(">b")
I16: Final = struct.Struct(">h")
I32: Final = struct.Struct(">i")
I64: Final = struct.Struct(">q")


class MalformedData(ConnectError):
    """Bytes that do not parse by their schema (truncated, a null where none is allowed, bytes left over)."""


# -- writing ------------------------------------------------------------------------------------------------------


def string(value: str) -> bytes:
    raw = value.encode()
    if len(raw) > 0x7FFF:
        raise ValueError(f"string of {len(raw)} bytes is longer than an int16-length string can be")
    return I16.pack(len(raw)) + raw


def nullable_string(value: str | None) -> bytes:
    return I16.pack(-1) if value is None else string(value)


def bytes_(value: bytes) -> bytes:
    return I32.pack(len(value)) + value


def uvarint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def compact_nullable_string(value: str | None) -> bytes:
    if value is None:
        return b"\x00"
    raw = value.encode()
    return uvarint(len(raw) + 1) + raw


def compact_string(value: str) -> bytes:
    return compact_nullable_string(value)


def compact_bytes(value: bytes) -> bytes:
    return uvarint(len(value) + 1) + value


def nullable_bytes(value: bytes | None) -> bytes:
    return I32.pack(-1) if value is None else bytes_(value)


# -- reading ------------------------------------------------------------------------------------------------------


class Reader:
    """A cursor over one payload; every read checks the bytes are there, and raises `error` (a ConnectError class,
    the caller's name for "does not parse by its schema") when they are not."""

    __slots__ = ("_data", "_error", "_pos")

    def __init__(self, data: bytes, error: type[ConnectError] = MalformedData) -> None:
        self._data = data
        self._error = error
        self._pos = 0

    def _take(self, n: int) -> bytes:
        end = self._pos + n
        if n < 0 or end > len(self._data):
            raise self._error(f"truncated: {n} bytes wanted at offset {self._pos} of {len(self._data)}")
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def int8(self) -> int:
        return int(I8.unpack(self._take(1))[0])

    def int16(self) -> int:
        return int(I16.unpack(self._take(2))[0])

    def int32(self) -> int:
        return int(I32.unpack(self._take(4))[0])

    def int64(self) -> int:
        return int(I64.unpack(self._take(8))[0])

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self._take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise self._error("unsigned varint longer than 5 bytes")

    def nullable_string(self) -> str | None:
        n = self.int16()
        return None if n == -1 else self._utf8(self._take(n))

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise self._error("null where the schema has a non-nullable string")
        return value

    def bytes_(self) -> bytes:
        n = self.int32()
        if n == -1:
            raise self._error("null where the schema has non-nullable bytes")
        return self._take(n)

    def nullable_bytes(self) -> bytes | None:
        n = self.int32()
        return None if n == -1 else self._take(n)

    def nullable_array_length(self) -> int:
        """An array's length, a null array read as empty."""
        return max(self.int32(), 0)

    @property
    def at_end(self) -> bool:
        return self._pos >= len(self._data)

    def array_length(self) -> int:
        n = self.int32()
        if n == -1:
            raise self._error("null where the schema has a non-nullable array")
        return n

    def compact_nullable_string(self) -> str | None:
        n = self.uvarint()
        return None if n == 0 else self._utf8(self._take(n - 1))

    def compact_bytes(self) -> bytes:
        n = self.uvarint()
        if n == 0:
            raise self._error("null where the schema has non-nullable bytes")
        return self._take(n - 1)

    def skip_tagged_fields(self) -> None:
        """Tagged fields this client has no use for (none of its versions defines one): skipped by their size."""
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self._take(self.uvarint())

    def rest(self) -> bytes:
        return self._data[self._pos :]

    def end(self) -> None:
        if self._pos != len(self._data):
            raise self._error(f"{len(self._data) - self._pos} bytes left after the data")

    def _utf8(self, raw: bytes) -> str:
        try:
            return raw.decode()
        except UnicodeDecodeError as e:
            raise self._error(f"string is not UTF-8: {e}") from e
