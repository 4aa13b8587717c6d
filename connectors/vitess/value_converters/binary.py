"""BINARY, VARBINARY, BLOB and the opaque bytes of unknown types (vitess.md §4.1).

The row decoder hands binary values over as latin-1 text (one character per byte, so every byte survives);
encoding the text back as latin-1 gives the column's exact bytes, which binary.handling.mode then keeps as
BYTES or writes as base64 / URL-safe base64 / hex text. A VARBINARY whose column type says `varchar` is a
character column Vitess reports by its binary collation: it is text (and decoded as UTF-8).
"""

from __future__ import annotations

import base64
from typing import Final

from connect_worker.api.schema import BYTES_SCHEMA, STRING_SCHEMA
from connectors.relational.table import Column
from connectors.vitess.value_converters._base import (
    BinaryHandlingMode,
    Factory,
    Mapping,
    QueryType,
    TextParser,
    VitessTypeOptions,
    identity,
)


def raw_bytes(text: str) -> bytes:
    return text.encode("latin-1")


def _base64(text: str) -> str:
    return base64.b64encode(text.encode("latin-1")).decode("ascii")


def _base64_url_safe(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("latin-1")).decode("ascii")


def _hex(text: str) -> str:
    return text.encode("latin-1").hex()


_ENCODERS: Final[dict[str, TextParser]] = {
    "bytes": raw_bytes,
    "base64": _base64,
    "base64-url-safe": _base64_url_safe,
    "hex": _hex,
}


def bytes_mapping(mode: BinaryHandlingMode) -> Mapping:
    """Bytes (given as latin-1 text) per binary.handling.mode."""
    return Mapping(BYTES_SCHEMA if mode == "bytes" else STRING_SCHEMA, _ENCODERS[mode])


def is_character_varbinary(column: Column) -> bool:
    return "varchar" in column.type.name.lower()


def _binary(column: Column, options: VitessTypeOptions) -> Mapping:
    return bytes_mapping(options.binary_handling_mode)


def _varbinary(column: Column, options: VitessTypeOptions) -> Mapping:
    if is_character_varbinary(column):
        return Mapping(STRING_SCHEMA, identity)
    return bytes_mapping(options.binary_handling_mode)


BUILTIN: Final[dict[int, Factory]] = {
    QueryType.BINARY: _binary,
    QueryType.VARBINARY: _varbinary,
    QueryType.BLOB: _binary,
}
