"""Character, JSON, XML, UUID and other types emitted as their PostgreSQL text (postgresql.md §6.1).

All of them pass the text through unchanged (bpchar keeps its blank padding, json/jsonb stay as PG prints
them: `{"k": 1}`); only the schema differs. Extension types (citext, ltree, isbn) are matched by name
because their OIDs differ per database.
"""

from __future__ import annotations

from typing import Final

from connect_worker.api.schema import STRING_SCHEMA, Schema, Type
from connectors.postgres.value_converters._base import Factory, Mapping, TypeOptions, TypeSpec

JSON_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.data.Json", version=1)
XML_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.data.Xml", version=1)
UUID_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.data.Uuid", version=1)
LTREE_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.data.Ltree", version=1)
TSVECTOR_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.data.Tsvector", version=1)


def identity(text: str) -> str:
    return text


identity.is_identity = True  # type: ignore[attr-defined]  # row converters inline it away


def _fixed(schema: Schema) -> Factory:
    mapping = Mapping(schema, identity)

    def factory(spec: TypeSpec, options: TypeOptions) -> Mapping:
        return mapping

    return factory


_string: Final = _fixed(STRING_SCHEMA)

BUILTIN: Final[dict[str, Factory]] = {
    "text": _string,
    "varchar": _string,
    "bpchar": _string,
    "char": _string,
    "name": _string,
    "json": _fixed(JSON_SCHEMA),
    "jsonb": _fixed(JSON_SCHEMA),
    "xml": _fixed(XML_SCHEMA),
    "uuid": _fixed(UUID_SCHEMA),
    "tsvector": _fixed(TSVECTOR_SCHEMA),
}

EXTENSION: Final[dict[str, Factory]] = {
    "citext": _string,
    "ltree": _fixed(LTREE_SCHEMA),
    "isbn": _string,
}
