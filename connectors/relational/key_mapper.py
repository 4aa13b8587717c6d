"""`message.key.columns`: custom message keys (Debezium's `Key.CustomKeyMapper`).

Format: `<table regex>:<col>,<col>;<table regex>:<col>...`,
e.g. `inventory.customers:pk1,pk2;(.*).purchaseorders:pk3,pk4`.
As in Debezium, every `table:col` pair becomes one regex `<table regex>.<col>` matched (anchored,
case-insensitively, Java syntax) against `schema.table.column`; the column part is a regex as well. For a table,
the key columns are, pattern by pattern in configuration order, the table's columns (in table order) that the
pattern matches. When nothing matches, the table keeps its primary key (`key_columns` returns None).

Decision: a column matched by two patterns is listed once (Debezium would list it twice and then fail to build
the key schema with a duplicate field).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError
from connectors.relational.filters import RegexList, is_blank
from connectors.relational.table import Table, TableId

__all__ = ["MESSAGE_KEY_COLUMNS", "KeyMapper", "message_key_columns_problems"]

MESSAGE_KEY_COLUMNS: Final = "message.key.columns"
# Debezium's CustomKeyMapper.MSG_KEY_COLUMNS_PATTERN (Java \s = [ \t\n\x0B\f\r])
_ENTRY: Final = re.compile(r"^[ \t\n\x0b\f\r]*([^ \t\n\x0b\f\r:]+):([^: \t\n\x0b\f\r]+)[ \t\n\x0b\f\r]*$")
_CACHE_LIMIT: Final = 100_000


def _java_split(text: str, sep: str) -> list[str]:
    """`String.split(sep)` for a one-char literal separator: trailing empty strings are removed."""
    parts = text.split(sep)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if parts == [""] and text:
        return []
    return parts


def message_key_columns_problems(spec: str | None) -> list[str]:
    """Problems with a `message.key.columns` value (Debezium's validation), empty when it is valid."""
    if spec is None:
        return []
    if spec == "":
        return ["Must not be empty"]
    problems = [
        f"{part} has an invalid format (expecting '{_ENTRY.pattern}')"
        for part in _java_split(spec, ";")
        if _ENTRY.search(part) is None
    ]
    if not problems:
        for table_part, columns in _entries(spec):
            for column in columns:
                try:
                    RegexList(f"{table_part}.{column}")
                except JavaRegexError as e:
                    problems.append(str(e))
    return problems


def _entries(spec: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for part in _java_split(spec, ";"):
        pieces = _java_split(part, ":")
        if len(pieces) < 2:
            continue
        out.append((pieces[0], _java_split(pieces[1], ",")))
    return out


class KeyMapper:
    """The custom key columns of each table, or None to keep the primary key. Cached per table and columns."""

    def __init__(self, spec: str | None) -> None:
        self.spec = spec
        self._patterns: tuple[RegexList, ...] = ()
        if spec is not None and not is_blank(spec):
            problems = message_key_columns_problems(spec)
            if problems:
                raise ConfigError(
                    f"Invalid value {spec} for configuration {MESSAGE_KEY_COLUMNS}: {problems[0]}",
                    name=MESSAGE_KEY_COLUMNS,
                )
            self._patterns = tuple(
                RegexList(f"{table_part}.{column}") for table_part, columns in _entries(spec) for column in columns
            )
        self._cache: dict[tuple[TableId, tuple[str, ...]], tuple[str, ...] | None] = {}

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> KeyMapper:
        return cls(props.get(MESSAGE_KEY_COLUMNS))

    @property
    def is_empty(self) -> bool:
        return not self._patterns

    def key_columns(self, table_id: TableId, column_names: Sequence[str]) -> tuple[str, ...] | None:
        """The key columns of a table whose columns are `column_names` (in table order), or None when no
        pattern matches (then the primary key is the key)."""
        if not self._patterns:
            return None
        key = (table_id, tuple(column_names))
        try:
            return self._cache[key]
        except KeyError:
            pass
        prefix = f"{table_id}."
        chosen: dict[str, None] = {}
        for pattern in self._patterns:
            for name in column_names:
                if name not in chosen and pattern.matches(prefix + name):
                    chosen[name] = None
        result = tuple(chosen) if chosen else None
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = result
        return result

    def for_table(self, table: Table) -> tuple[str, ...] | None:
        return self.key_columns(table.id, [c.name for c in table.columns])

    __call__ = for_table
