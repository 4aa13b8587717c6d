"""Debezium's include/exclude filters: tables, columns, logical-message prefixes (Java regex semantics).

Every list property (`schema.include.list`, `table.exclude.list`, `column.include.list`, ...) is a
comma-separated list of Java regular expressions, split as Debezium's `RegExSplitterByComma` does (a backslash
escapes the next character, so `\\,` is a literal comma; parts are trimmed; empty parts are dropped). Each
expression is **anchored** (`Matcher.matches()`, a full match) and compiled **case-insensitively** (Debezium's
`Predicates.includes` passes `Pattern.CASE_INSENSITIVE`; without UNICODE_CASE that folds ASCII letters only).

Java's regex dialect differs from Python's `re`; `java_regex()` (connect_worker.api.java_regex, the project's one
translator) translates it (see its docstring for what is covered and what is rejected with a `JavaRegexError`).
Translation happens once, at configuration time; decisions are cached per table id / column, since filters are
asked on the hot path.

Filter semantics (Debezium `Selectors.TableSelectionPredicateBuilder`, `RelationalTableFilters`):
a table is captured when its schema passes the schema filter (include list if set, else exclude list),
its `schema.table` name passes the table filter (include list if set, else exclude list), and, with
`table.ignore.builtin=true` (the default), it is not a system table. Include and exclude lists of the same kind
are mutually exclusive (a `ConfigError`, as the connectors' config validation reports it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Final

from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError, java_regex
from connectors.relational.table import TableId

__all__ = [
    "COLUMN_EXCLUDE_LIST",
    "COLUMN_INCLUDE_LIST",
    "MESSAGE_PREFIX_EXCLUDE_LIST",
    "MESSAGE_PREFIX_INCLUDE_LIST",
    "SCHEMA_EXCLUDE_LIST",
    "SCHEMA_INCLUDE_LIST",
    "TABLE_EXCLUDE_LIST",
    "TABLE_IGNORE_BUILTIN",
    "TABLE_INCLUDE_LIST",
    "ColumnFilter",
    "MessagePrefixFilter",
    "RegexList",
    "TableFilter",
    "filter_problems",
    "regex_list_setting",
    "split_regex_list",
]

SCHEMA_INCLUDE_LIST: Final = "schema.include.list"
SCHEMA_EXCLUDE_LIST: Final = "schema.exclude.list"
TABLE_INCLUDE_LIST: Final = "table.include.list"
TABLE_EXCLUDE_LIST: Final = "table.exclude.list"
COLUMN_INCLUDE_LIST: Final = "column.include.list"
COLUMN_EXCLUDE_LIST: Final = "column.exclude.list"
MESSAGE_PREFIX_INCLUDE_LIST: Final = "message.prefix.include.list"
MESSAGE_PREFIX_EXCLUDE_LIST: Final = "message.prefix.exclude.list"
TABLE_IGNORE_BUILTIN: Final = "table.ignore.builtin"

_CACHE_LIMIT: Final = 100_000


# =====================================================================================================
# Comma-separated regex lists
# =====================================================================================================
_JAVA_TRIM: Final = "".join(chr(i) for i in range(0x21))


def java_trim(text: str) -> str:
    """`String.trim()`: strips every char <= U+0020 at both ends."""
    return text.strip(_JAVA_TRIM)


def is_blank(text: str | None) -> bool:
    """Debezium's `Strings.isNullOrBlank`."""
    return text is None or not java_trim(text)


def split_regex_list(text: str) -> list[str]:
    """Split on commas not escaped by a backslash (`RegExSplitterByComma`); trim parts; drop empty ones;
    `\\,` becomes `,`. A trailing lone backslash is an error, as in Debezium."""
    parts: list[str] = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 >= n:
                raise JavaRegexError("Unterminated escape sequence at the end of the string", text, i)
            i += 2
            continue
        if c == ",":
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [java_trim(p).replace("\\,", ",") for p in parts if p]


class RegexList:
    """A set of anchored, case-insensitive Java regexes; `matches(s)` is true when any matches all of `s`."""

    __slots__ = ("patterns", "sources")

    def __init__(self, text: str | Iterable[str], *, case_insensitive: bool = True) -> None:
        sources = split_regex_list(text) if isinstance(text, str) else list(text)
        unique: dict[str, None] = dict.fromkeys(sources)  # Debezium keeps a LinkedHashSet of patterns
        self.sources: tuple[str, ...] = tuple(unique)
        self.patterns: tuple[re.Pattern[str], ...] = tuple(
            java_regex(s, case_insensitive=case_insensitive) for s in self.sources
        )

    def matches(self, value: str) -> bool:
        return any(p.fullmatch(value) is not None for p in self.patterns)

    def first_match(self, value: str) -> int | None:
        """Index of the first pattern that matches, or None."""
        for i, p in enumerate(self.patterns):
            if p.fullmatch(value) is not None:
                return i
        return None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __repr__(self) -> str:
        return f"RegexList({','.join(self.sources)!r})"


# =====================================================================================================
# Filters
# =====================================================================================================
def _get(props: Mapping[str, str | None], key: str) -> str | None:
    value = props.get(key)
    return None if is_blank(value) else value


def regex_list_setting(props: Mapping[str, str | None], key: str) -> tuple[str, ...]:
    """A properties value split as a regex list (what a typed config holds), () when blank or unset;
    ConfigError naming the key when it cannot be split."""
    value = _get(props, key)
    if value is None:
        return ()
    try:
        return tuple(split_regex_list(value))
    except JavaRegexError as e:
        raise ConfigError(f"Invalid value {value} for configuration {key}: {e}", name=key) from e


def _lists_of(props: Mapping[str, str], include: str, exclude: str) -> tuple[RegexList | None, RegexList | None]:
    return exclusive_lists(include, regex_list_setting(props, include), exclude, regex_list_setting(props, exclude))


def filter_problems(props: Mapping[str, str]) -> dict[str, list[str]]:
    """Every problem with the filter properties, by key (for a connector's validate())."""
    problems: dict[str, list[str]] = {}
    pairs = (
        (SCHEMA_INCLUDE_LIST, SCHEMA_EXCLUDE_LIST, "Schema"),
        (TABLE_INCLUDE_LIST, TABLE_EXCLUDE_LIST, "Table"),
        (COLUMN_INCLUDE_LIST, COLUMN_EXCLUDE_LIST, "Column"),
        (MESSAGE_PREFIX_INCLUDE_LIST, MESSAGE_PREFIX_EXCLUDE_LIST, "Message prefix"),
    )
    for include, exclude, what in pairs:
        for key in (include, exclude):
            value = _get(props, key)
            if value is None:
                continue
            try:
                RegexList(value)
            except JavaRegexError as e:
                problems.setdefault(key, []).append(str(e))
        if _get(props, include) is not None and _get(props, exclude) is not None:
            problems.setdefault(exclude, []).append(
                f'"{include}" is already specified; {what.lower()} include and exclude lists are mutually exclusive'
            )
    return problems


def exclusive_lists(
    include_key: str, include: Sequence[str], exclude_key: str, exclude: Sequence[str]
) -> tuple[RegexList | None, RegexList | None]:
    """An include and an exclude list of a typed config (already split) as RegexLists; both set is an error."""
    if include and exclude:
        raise ConfigError(
            f'"{include_key}" is already specified; "{include_key}" and "{exclude_key}" are mutually exclusive',
            name=exclude_key,
        )
    return _compiled(include_key, include), _compiled(exclude_key, exclude)


def _compiled(key: str, patterns: Sequence[str]) -> RegexList | None:
    if not patterns:
        return None
    try:
        return RegexList(patterns)
    except JavaRegexError as e:
        raise ConfigError(f"Invalid value {','.join(patterns)} for configuration {key}: {e}", name=key) from e


def _as_bool(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    return java_trim(value).lower() == "true"


class TableFilter:
    """Which tables are captured. `accepts(table_id)` is cached per table id.

    `system_schemas` are schema names (compared case-insensitively) the connector always skips (PostgreSQL:
    `pg_catalog`, `information_schema`, ...); `is_system` an optional further predicate. Both apply only while
    `table.ignore.builtin` is true (the default).
    """

    def __init__(
        self,
        *,
        schema_include: RegexList | None = None,
        schema_exclude: RegexList | None = None,
        table_include: RegexList | None = None,
        table_exclude: RegexList | None = None,
        system_schemas: Collection[str] = (),
        is_system: Callable[[TableId], bool] | None = None,
        ignore_builtin: bool = True,
        also: Collection[TableId] = (),
    ) -> None:
        """``also``: tables captured whatever the lists say (the signal tables, as in Debezium's
        RelationalTableFilters)."""
        self.schema_include = schema_include
        self.schema_exclude = schema_exclude
        self.table_include = table_include
        self.table_exclude = table_exclude
        self._system = frozenset(s.lower() for s in system_schemas)
        self._is_system = is_system
        self.ignore_builtin = ignore_builtin
        self._also = frozenset(also)
        self._accepts: dict[TableId, bool] = {}
        self._eligible: dict[TableId, bool] = {}

    @classmethod
    def from_config(
        cls,
        props: Mapping[str, str],
        *,
        system_schemas: Collection[str] = (),
        is_system: Callable[[TableId], bool] | None = None,
    ) -> TableFilter:
        schema_include, schema_exclude = _lists_of(props, SCHEMA_INCLUDE_LIST, SCHEMA_EXCLUDE_LIST)
        table_include, table_exclude = _lists_of(props, TABLE_INCLUDE_LIST, TABLE_EXCLUDE_LIST)
        return cls(
            schema_include=schema_include,
            schema_exclude=schema_exclude,
            table_include=table_include,
            table_exclude=table_exclude,
            system_schemas=system_schemas,
            is_system=is_system,
            ignore_builtin=_as_bool(props.get(TABLE_IGNORE_BUILTIN), True),
        )

    def is_system_table(self, table_id: TableId) -> bool:
        if table_id.schema.lower() in self._system:
            return True
        return self._is_system is not None and self._is_system(table_id)

    def _schema_ok(self, schema: str) -> bool:
        if self.schema_include is not None:
            return self.schema_include.matches(schema)
        if self.schema_exclude is not None:
            return not self.schema_exclude.matches(schema)
        return True

    def _table_ok(self, table_id: TableId) -> bool:
        name = str(table_id)
        if self.table_include is not None:
            return self.table_include.matches(name)
        if self.table_exclude is not None:
            return not self.table_exclude.matches(name)
        return True

    def accepts(self, table_id: TableId) -> bool:
        """True when changes of this table are captured."""
        hit = self._accepts.get(table_id)
        if hit is None:
            hit = table_id in self._also or (
                self._schema_ok(table_id.schema)
                and self._table_ok(table_id)
                and not (self.ignore_builtin and self.is_system_table(table_id))
            )
            if len(self._accepts) >= _CACHE_LIMIT:
                self._accepts.clear()
            self._accepts[table_id] = hit
        return hit

    __call__ = accepts

    def eligible(self, table_id: TableId) -> bool:
        """Schema-level filters only (Debezium's eligibleDataCollectionFilter): tables whose schema may be read."""
        hit = self._eligible.get(table_id)
        if hit is None:
            hit = self._schema_ok(table_id.schema) and not (self.ignore_builtin and self.is_system_table(table_id))
            if len(self._eligible) >= _CACHE_LIMIT:
                self._eligible.clear()
            self._eligible[table_id] = hit
        return hit


class ColumnFilter:
    """column.include.list / column.exclude.list over `schema.table.column`. `includes(table_id, name)`
    is cached. Key columns stay in the key whatever this says (the schema builder's rule)."""

    def __init__(self, *, include: RegexList | None = None, exclude: RegexList | None = None) -> None:
        self.include = include
        self.exclude = exclude
        self._cache: dict[tuple[TableId, str], bool] = {}

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> ColumnFilter:
        include, exclude = _lists_of(props, COLUMN_INCLUDE_LIST, COLUMN_EXCLUDE_LIST)
        return cls(include=include, exclude=exclude)

    @property
    def is_noop(self) -> bool:
        return self.include is None and self.exclude is None

    def includes(self, table_id: TableId, column: str) -> bool:
        if self.include is None and self.exclude is None:
            return True
        key = (table_id, column)
        hit = self._cache.get(key)
        if hit is None:
            name = f"{table_id}.{column}"
            if self.include is not None:
                hit = self.include.matches(name)
            else:
                assert self.exclude is not None
                hit = not self.exclude.matches(name)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[key] = hit
        return hit

    __call__ = includes

    def included_columns(self, table_id: TableId, columns: Sequence[str]) -> tuple[str, ...]:
        return tuple(c for c in columns if self.includes(table_id, c))


class MessagePrefixFilter:
    """message.prefix.include.list / message.prefix.exclude.list over logical-decoding message prefixes."""

    def __init__(self, *, include: RegexList | None = None, exclude: RegexList | None = None) -> None:
        self.include = include
        self.exclude = exclude
        self._cache: dict[str, bool] = {}

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> MessagePrefixFilter:
        include, exclude = _lists_of(props, MESSAGE_PREFIX_INCLUDE_LIST, MESSAGE_PREFIX_EXCLUDE_LIST)
        return cls(include=include, exclude=exclude)

    def includes(self, prefix: str) -> bool:
        hit = self._cache.get(prefix)
        if hit is None:
            if self.include is not None:
                hit = self.include.matches(prefix)
            elif self.exclude is not None:
                hit = not self.exclude.matches(prefix)
            else:
                hit = True
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[prefix] = hit
        return hit

    __call__ = includes


def capture_order(tables: Iterable[TableId], include_list: Iterable[str]) -> list[TableId]:
    """The order Debezium snapshots captured tables in (RelationalSnapshotChangeEventSource
    .addSignalingCollectionAndSort): for each pattern of `table.include.list` in turn, the tables it matches in
    `TableId` order, each table once; without an include list, every table in `TableId` order."""
    ordered = sorted(tables, key=str)
    patterns = list(dict.fromkeys(include_list))
    if not patterns:
        return ordered
    out: dict[TableId, None] = {}
    for source in patterns:
        pattern = java_regex(source, case_insensitive=True)
        out.update((t, None) for t in ordered if t not in out and pattern.fullmatch(str(t)) is not None)
    return list(out)
