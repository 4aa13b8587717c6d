"""Arrays (postgresql.md §6.4): ARRAY of the element's schema, made optional (enum elements stay required,
as Debezium builds them), each non-NULL element converted by the element type's text parser.

PostgreSQL's array text: `{1,NULL,3}`, elements double-quoted when they hold delimiters, quotes,
backslashes, braces, blanks, are empty or spell NULL (`{"a b","\\"q\\"","NULL",NULL,""}`), an optional
`[lo:hi]=` dimension prefix, and nested braces for more dimensions. A sub-array where the schema expects an
element becomes null: Debezium's element converters cannot read one and yield null for it.
"""

from __future__ import annotations

from typing import Any, Final

from connect_worker.api.schema import Schema, Type
from connectors.postgres.value_converters._base import Mapping, TextParser, bad_value

# Element types whose arrays Debezium leaves unmapped (the column is omitted, whatever
# include.unknown.datatypes says). `bit[]` gets a scalar Bits schema in Debezium, so it is left out too.
UNSUPPORTED_ELEMENTS: Final = frozenset({"money", "name", "interval", "varbit", "xml", "point", "refcursor", "bit"})

ArrayItem = str | None | list[Any]


def _parse_items(text: str, i: int) -> tuple[list[ArrayItem], int]:
    """Parse `{…}` starting at text[i] == '{'; returns the items and the index after the closing brace."""
    items: list[ArrayItem] = []
    n = len(text)
    i += 1
    if i < n and text[i] == "}":
        return items, i + 1
    while True:
        while text[i] in " \t\n\r":
            i += 1
        c = text[i]
        if c == "{":
            sub, i = _parse_items(text, i)
            items.append(sub)
        elif c == '"':
            out: list[str] = []
            i += 1
            start = i
            while True:
                c = text[i]
                if c == '"':
                    break
                if c == "\\":
                    out.append(text[start:i])
                    i += 1
                    start = i
                i += 1
            out.append(text[start:i])
            items.append("".join(out))
            i += 1
        else:
            start = i
            has_escape = False
            while text[i] not in ",}":
                if text[i] == "\\":
                    has_escape = True
                    i += 1
                i += 1
            raw = text[start:i].rstrip()
            if raw.upper() == "NULL":
                items.append(None)
            elif has_escape:
                items.append(_unescape(raw))
            else:
                items.append(raw)
        while text[i] in " \t\n\r":
            i += 1
        if text[i] == ",":
            i += 1
            continue
        if text[i] == "}":
            return items, i + 1
        raise ValueError("expected , or }")


def _unescape(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            i += 1
        out.append(raw[i])
        i += 1
    return "".join(out)


def parse_array(text: str) -> list[ArrayItem]:
    """PostgreSQL array text → nested lists of element texts (None for NULL)."""
    start = 0
    if text.startswith("["):
        start = text.find("=") + 1
        if start == 0:
            raise bad_value("array", text)
    if (
        '"' not in text
        and "\\" not in text
        and " " not in text
        and text.find("{", start + 1) < 0
        and text.endswith("}")
    ):
        body = text[start + 1 : -1]
        if not body:
            return []
        return [None if item == "NULL" else item for item in body.split(",")]
    try:
        items, end = _parse_items(text, start)
    except (ValueError, IndexError):
        raise bad_value("array", text) from None
    if text[end:].strip():
        raise bad_value("array", text)
    return items


def array_mapping(element: Mapping, *, optional_elements: bool = True) -> Mapping:
    item_schema = element.schema.with_(optional=True) if optional_elements else element.schema
    convert: TextParser = element.parser_for(item_schema)

    def from_text(text: str) -> list[Any]:
        return [None if item is None or isinstance(item, list) else convert(item) for item in parse_array(text)]

    return Mapping(Schema(Type.ARRAY, value_schema=item_schema), from_text)
