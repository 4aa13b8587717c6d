"""BYTEA, BIT/VARBIT and the opaque binary of unknown types (postgresql.md §6.1, §6.7).

BYTEA text is the server's hex format (`\\x0102`; `bytea_output = hex` is required). Bit strings (`101`)
become Debezium's Bits: bit i of the string counted from the right is bit i of a little-endian byte array
whose length follows the content (java.util.BitSet.toByteArray: the highest set bit decides it, all-zero
is empty), as PostgresValueConverter.convertBits does for text values; BIT(1) / VARBIT(1) are booleans.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Final

from connect_worker.api.schema import BOOLEAN_SCHEMA, BYTES_SCHEMA, STRING_SCHEMA, Schema, Type
from connectors.postgres.value_converters._base import (
    BinaryHandlingMode,
    Factory,
    Mapping,
    TypeOptions,
    TypeSpec,
    bad_value,
)

BITS_NAME: Final = "io.debezium.data.Bits"
UNBOUNDED_VARBIT_LENGTH: Final = 2_147_483_647


def bits_schema(length: int) -> Schema:
    return Schema(Type.BYTES, name=BITS_NAME, version=1, parameters={"length": str(length)})


def binary_schema(mode: BinaryHandlingMode) -> Schema:
    return BYTES_SCHEMA if mode == "bytes" else STRING_SCHEMA


def binary_encoder(mode: BinaryHandlingMode) -> Callable[[bytes], bytes | str]:
    if mode == "base64":
        return lambda raw: base64.b64encode(raw).decode("ascii")
    if mode == "base64-url-safe":
        return lambda raw: base64.urlsafe_b64encode(raw).decode("ascii")
    if mode == "hex":
        return bytes.hex
    return bytes


def parse_bytea(text: str) -> bytes:
    """`\\x0102…` → bytes."""
    if not text.startswith("\\x"):
        raise bad_value("bytea (only bytea_output=hex is supported)", text)
    try:
        return bytes.fromhex(text[2:])
    except ValueError:
        raise bad_value("bytea", text) from None


def _bytea(spec: TypeSpec, options: TypeOptions) -> Mapping:
    mode = options.binary_handling_mode
    if mode == "bytes":
        return Mapping(BYTES_SCHEMA, parse_bytea)
    encode = binary_encoder(mode)
    return Mapping(STRING_SCHEMA, lambda text: encode(parse_bytea(text)))


def parse_bits(text: str) -> bytes:
    """`1011…` (most significant first) → little-endian bytes, length from the highest set bit."""
    try:
        value = int(text, 2) if text else 0
    except ValueError:
        raise bad_value("bit", text) from None
    return value.to_bytes((value.bit_length() + 7) // 8, "little")


def parse_bit_boolean(text: str) -> bool:
    try:
        return int(text, 2) != 0
    except ValueError:
        raise bad_value("bit", text) from None


def _bit(spec: TypeSpec, options: TypeOptions) -> Mapping:
    length = spec.length if spec.length is not None else 1
    if length <= 1:
        return Mapping(BOOLEAN_SCHEMA, parse_bit_boolean)
    return Mapping(bits_schema(length), parse_bits)


def _varbit(spec: TypeSpec, options: TypeOptions) -> Mapping:
    length = spec.length if spec.length is not None else UNBOUNDED_VARBIT_LENGTH
    if length == 1:
        return Mapping(BOOLEAN_SCHEMA, parse_bit_boolean)
    return Mapping(bits_schema(length), parse_bits)


def unknown_mapping(options: TypeOptions) -> Mapping:
    """include.unknown.datatypes: the value's text bytes (UTF-8), encoded per binary.handling.mode."""
    mode = options.binary_handling_mode
    encode = binary_encoder(mode)
    if mode == "bytes":
        return Mapping(BYTES_SCHEMA, lambda text: text.encode("utf-8"))
    return Mapping(STRING_SCHEMA, lambda text: encode(text.encode("utf-8")))


BUILTIN: Final[dict[str, Factory]] = {
    "bytea": _bytea,
    "bit": _bit,
    "varbit": _varbit,
}
