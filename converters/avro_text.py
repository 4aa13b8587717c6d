"""Avro schemas as the text Java's `org.apache.avro.Schema.toString()` writes (the text a Confluent converter
registers).

`written(node)` turns avro_schema's full definitions into what toString writes: a named type (record, enum, fixed)
in full the first time, then by name, relative to the enclosing namespace (`Name.getQualified`); a namespace only
where it differs from the enclosing one, and `""` for a type without one inside a namespace (`Name.writeName`). A
second, different definition under a name already written is Avro's SchemaParseException ("Can't redefine").

`schema_text(avro)` is the compact JSON of it by Jackson's writer-based generator (toString writes to a
StringWriter): control characters, `"` and `\\` escaped as Jackson escapes them, every other character as it is
(characters outside the BMP included, unlike the UTF-8 generator of connect_worker.api.javacompat.jackson_dumps),
floats by Double.toString and Java floats by Float.toString.
"""

from __future__ import annotations

import re
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import jackson_quote, jackson_text

_NAMED: Final = frozenset(("record", "enum", "fixed"))


def written(node: Any) -> Any:
    """The schema as toString writes it (see the module doc); `node` itself is left as it is."""
    return _Writer().schema(node, None)


class _Writer:
    def __init__(self) -> None:
        self.names: dict[str, dict[str, Any]] = {}  # full name -> the definition written under it

    def schema(self, node: Any, space: str | None) -> Any:
        if isinstance(node, list):
            return [self.schema(member, space) for member in node]
        if not isinstance(node, dict):
            return node
        t = node["type"]
        if t in _NAMED:
            return self.named(node, space)
        if t == "array":
            return {**node, "items": self.schema(node["items"], space)}
        if t == "map":
            return {**node, "values": self.schema(node["values"], space)}
        return node

    def named(self, node: dict[str, Any], space: str | None) -> Any:
        ns = node["namespace"]
        name = node["name"]
        full = f"{ns}.{name}" if ns else name
        seen = self.names.get(full)
        if seen is not None:
            if seen is node or _same_type(seen, node):
                return name if ns is None or ns == space else full
            raise DataError(f"Can't redefine: {full}")
        self.names[full] = node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "namespace":
                if ns is not None and ns != space:
                    out[key] = ns
                elif ns is None and space is not None:
                    out[key] = ""
            elif key == "fields":
                out[key] = [{**f, "type": self.schema(f["type"], ns)} for f in value]
            else:
                out[key] = value
        return out


def _same_type(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Avro's Schema.equals of two definitions: docs do not count."""
    return a == b or _without_docs(a) == _without_docs(b)


def _without_docs(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_docs(x) for x in node]
    if isinstance(node, dict):
        return {k: _without_docs(v) for k, v in node.items() if k != "doc"}
    return node


# -- the text ------------------------------------------------------------------------------------------------
_ASTRAL: Final = re.compile("([\U00010000-\U0010ffff]+)")


def _quote(s: str) -> str:
    if _ASTRAL.search(s) is None:
        return jackson_quote(s)
    parts = _ASTRAL.split(s)  # text, astral run, text, ...
    return '"' + "".join(p if i % 2 else jackson_quote(p)[1:-1] for i, p in enumerate(parts)) + '"'


def schema_text(avro: Any) -> str:
    """The compact JSON text of an Avro schema (JSON data) as Java's Schema.toString writes it."""
    return jackson_text(avro, _quote)
