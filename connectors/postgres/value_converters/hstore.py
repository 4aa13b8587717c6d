"""HSTORE (postgresql.md §6.1): a Json string (default) or a MAP<STRING, optional STRING>.

The text is `"k"=>"v", "k2"=>NULL` (keys and values double-quoted with `\\` escapes, NULL bare). Debezium
reads it with the PG JDBC driver's HStoreConverter into a java.util.HashMap, so both the JSON text and the
map iterate in HashMap order; the JSON is written by Jackson's writer-based generator (compact, non-ASCII
raw).
"""

from __future__ import annotations

from typing import Final

from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.api.schema import OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema, Type
from connectors.postgres.value_converters._base import Factory, Mapping, TypeOptions, TypeSpec, bad_value
from connectors.postgres.value_converters.text import JSON_SCHEMA

HSTORE_MAP_SCHEMA: Final = Schema(Type.MAP, key_schema=STRING_SCHEMA, value_schema=OPTIONAL_STRING_SCHEMA)


def _read_quoted(text: str, i: int) -> tuple[str, int]:
    """A double-quoted token starting at text[i] == '"'; returns the unescaped text and the index after."""
    out: list[str] = []
    i += 1
    start = i
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            out.append(text[start:i])
            return "".join(out), i + 1
        if c == "\\":
            out.append(text[start:i])
            i += 1
            start = i
        i += 1
    raise ValueError("unterminated quoted string")


def _read_token(text: str, i: int) -> tuple[str | None, int]:
    if text[i] == '"':
        return _read_quoted(text, i)
    n = len(text)
    start = i
    while i < n and text[i] not in ",=> \t\n":
        i += 1
    token = text[start:i]
    return (None if token.upper() == "NULL" else token), i


def _skip_spaces(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in " \t\n\r":
        i += 1
    return i


def parse_hstore(text: str) -> dict[str, str | None]:
    """The entries in the order they appear in the text."""
    result: dict[str, str | None] = {}
    i = _skip_spaces(text, 0)
    n = len(text)
    try:
        while i < n:
            key, i = _read_token(text, i)
            if key is None:
                raise ValueError("NULL key")
            i = _skip_spaces(text, i)
            if text[i : i + 2] != "=>":
                raise ValueError("expected =>")
            i = _skip_spaces(text, i + 2)
            value, i = _read_token(text, i)
            result[key] = value
            i = _skip_spaces(text, i)
            if i < n:
                if text[i] != ",":
                    raise ValueError("expected ,")
                i = _skip_spaces(text, i + 1)
    except (ValueError, IndexError):
        raise bad_value("hstore", text) from None
    return result


_SHORT_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _json_quote(s: str) -> str:
    """A JSON string as Jackson's writer-based generator writes it (only `"`, `\\` and controls escaped)."""
    if not any(c in _SHORT_ESCAPES or c < " " for c in s):
        return '"' + s + '"'
    out = ['"']
    for c in s:
        short = _SHORT_ESCAPES.get(c)
        if short is not None:
            out.append(short)
        elif c < " ":
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def hstore_map(text: str) -> dict[str, str | None]:
    return java_hashmap_order(parse_hstore(text))


def hstore_json(text: str) -> str:
    entries = hstore_map(text)
    return (
        "{"
        + ",".join(_json_quote(k) + ":" + ("null" if v is None else _json_quote(v)) for k, v in entries.items())
        + "}"
    )


def _hstore(spec: TypeSpec, options: TypeOptions) -> Mapping:
    if options.hstore_handling_mode == "map":
        return Mapping(HSTORE_MAP_SCHEMA, hstore_map)
    return Mapping(JSON_SCHEMA, hstore_json)


EXTENSION: Final[dict[str, Factory]] = {"hstore": _hstore}
