"""Character types, JSON, ENUM and SET (vitess.md §4.1).

Strings and JSON documents pass through unchanged. ENUM and SET list their labels in the schema's `allowed`
parameter, read once per column from the column type text (`enum('a','b','it''s')`). Their values come in
two forms: the label text (the copy phase, and Vitess streams whose FIELD event says
`enum_set_string_values`) or MySQL's binlog numbers — an ENUM's 1-based index, a SET's bitmask. A value that
is a label is taken as one; a number that is not is resolved through the labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from connect_worker.api.schema import STRING_SCHEMA, Schema, Type
from connectors.relational.table import Column
from connectors.vitess.value_converters._base import (
    Factory,
    Mapping,
    QueryType,
    TextParser,
    VitessTypeOptions,
    identity,
)

JSON_SCHEMA: Final = Schema(Type.STRING, name="io.debezium.data.Json", version=1)
ENUM_NAME: Final = "io.debezium.data.Enum"
ENUM_SET_NAME: Final = "io.debezium.data.EnumSet"


def parse_labels(column_type: str) -> tuple[str, ...]:
    """The labels of `enum('a','b')` / `set('a','b')`: SQL-quoted strings, `''` standing for one quote."""
    labels: list[str] = []
    i = column_type.find("(") + 1
    n = len(column_type)
    if i == 0:
        return ()
    while i < n:
        while i < n and column_type[i] in " ,":
            i += 1
        if i >= n or column_type[i] != "'":
            break  # the closing parenthesis (or text this parser does not know)
        i += 1
        chunk: list[str] = []
        while i < n:
            end = column_type.find("'", i)
            if end < 0:
                chunk.append(column_type[i:])
                i = n
                break
            chunk.append(column_type[i:end])
            if column_type.startswith("''", end):
                chunk.append("'")
                i = end + 2
                continue
            i = end + 1
            break
        labels.append("".join(chunk))
    return tuple(labels)


def _allowed_schema(name: str, labels: Sequence[str]) -> Schema:
    return Schema(Type.STRING, name=name, version=1, parameters={"allowed": ",".join(labels)})


def enum_schema(labels: Sequence[str]) -> Schema:
    return _allowed_schema(ENUM_NAME, labels)


def enum_set_schema(labels: Sequence[str]) -> Schema:
    return _allowed_schema(ENUM_SET_NAME, labels)


def enum_parser(labels: Sequence[str]) -> TextParser:
    """An ENUM value: a label stays itself; an index k becomes the k-th label (0 or out of range: "")."""
    known: dict[str, str] = {str(k): label for k, label in enumerate(labels, start=1)}
    known.setdefault("0", "")
    known.update((label, label) for label in labels)  # a label that looks like an index is a label
    count = len(labels)

    def convert(text: str) -> str:
        value = known.get(text)
        if value is not None:
            return value
        try:
            index = int(text)
        except ValueError:
            return text
        return labels[index - 1] if 1 <= index <= count else ""

    return convert


def set_parser(labels: Sequence[str]) -> TextParser:
    """A SET value: label text stays itself; a decimal bitmask becomes its labels (bit k → k-th) joined by ","."""
    label_set = frozenset(labels)
    names = tuple(labels)
    count = len(names)

    def convert(text: str) -> str:
        if not (text.isascii() and text.isdigit()) or text in label_set:
            return text
        mask = int(text)
        chosen: list[str] = []
        k = 0
        while mask:
            if mask & 1:
                chosen.append(names[k] if k < count else "")  # a bit beyond the labels: an empty member
            mask >>= 1
            k += 1
        return ",".join(chosen)

    return convert


def _string(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(STRING_SCHEMA, identity)


def _json(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(JSON_SCHEMA, identity)


def _enum(column: Column, options: VitessTypeOptions) -> Mapping:
    labels = parse_labels(column.type.name)
    return Mapping(enum_schema(labels), enum_parser(labels))


def _set(column: Column, options: VitessTypeOptions) -> Mapping:
    labels = parse_labels(column.type.name)
    return Mapping(enum_set_schema(labels), set_parser(labels))


BUILTIN: Final[dict[int, Factory]] = {
    QueryType.CHAR: _string,
    QueryType.VARCHAR: _string,
    QueryType.TEXT: _string,
    QueryType.JSON: _json,
    QueryType.ENUM: _enum,
    QueryType.SET: _set,
}
