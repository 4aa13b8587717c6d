"""Values of the PostgreSQL connector's keys that hold lists of rules, parsed into frozen rules with one message per
malformed entry: replica identities, message key columns, column masks, initial statements, Java regex lists.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

from connectors.relational.filters import JavaRegexError, java_regex, split_regex_list

_REPLICA_IDENTITY = re.compile(
    r"^\s*(?P<table>[^\s:]+):(?P<identity>DEFAULT|(?P<index>INDEX) (?P<index_name>.\w*)|FULL|NOTHING)\s*$",
    re.IGNORECASE,
)
_REPLICA_IDENTITY_JAVA = (
    r"(?i)^\s*(?<tablepredicate>[^\s:]+):(?<replicaidentity>DEFAULT|(INDEX) (?<indexname>.\w*)|FULL|NOTHING)\s*$"
)
_KEY_COLUMNS = re.compile(r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$")
_KEY_COLUMNS_JAVA = r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$"
_TRUNCATE_KEY = re.compile(r"column\.truncate\.to\.(?P<n>[^.]+)\.chars")
_MASK_KEY = re.compile(r"column\.mask\.with\.(?P<n>[^.]+)\.chars")
_HASH_KEY = re.compile(r"column\.mask\.hash\.(?P<v2>v2\.)?(?P<alg>[^.]+)\.with\.salt\.(?P<salt>.+)")
#: MessageDigest names every Java runtime provides (case-insensitive), which column.mask.hash may name.
_HASH_ALGORITHMS: Final = frozenset(
    "MD2 MD5 SHA SHA-1 SHA1 SHA-224 SHA-256 SHA-384 SHA-512 SHA-512/224 SHA-512/256 "
    "SHA3-224 SHA3-256 SHA3-384 SHA3-512".lower().split()
)


def compile_java_regex(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """Compile a Java regular expression (Debezium matches its lists case-insensitively)."""
    return java_regex(pattern, case_insensitive=bool(flags & re.IGNORECASE))


def split_list(value: str) -> list[str]:
    """Kafka's LIST splitting: commas, surrounding blanks trimmed, empty string = empty list."""
    return [] if value.strip() == "" else [p.strip() for p in value.split(",")]


@dataclasses.dataclass(frozen=True, slots=True)
class ReplicaIdentityRule:
    """One ``replica.identity.autoset.values`` entry: tables matching ``table_pattern`` get ``identity``."""

    table_pattern: str
    identity: str  # DEFAULT | FULL | NOTHING | INDEX
    index_name: str | None = None

    def matches(self, table: str) -> bool:
        return compile_java_regex(self.table_pattern).fullmatch(table) is not None

    @property
    def sql(self) -> str:
        """The words after ``REPLICA IDENTITY`` (the index name double-quoted)."""
        if self.identity == "INDEX" and self.index_name is not None:
            return 'USING INDEX "' + self.index_name.replace('"', '""') + '"'
        return self.identity


def parse_replica_identity_rules(text: str) -> tuple[tuple[ReplicaIdentityRule, ...], list[str]]:
    """The rules of a ``replica.identity.autoset.values`` value, and one message per malformed entry."""
    rules: list[ReplicaIdentityRule] = []
    problems: list[str] = []
    if text == "":
        return (), ["Must not be empty"]
    for entry in text.split(","):
        m = _REPLICA_IDENTITY.match(entry)
        if m is None:
            problems.append(f"{entry} has an invalid format (expecting '{_REPLICA_IDENTITY_JAVA}')")
            continue
        identity = "INDEX" if m.group("index") else m.group("identity").upper()
        rules.append(ReplicaIdentityRule(m.group("table"), identity, m.group("index_name")))
    return tuple(rules), problems


@dataclasses.dataclass(frozen=True, slots=True)
class KeyColumnsRule:
    """One ``message.key.columns`` entry: tables matching ``table_pattern`` are keyed by ``columns``."""

    table_pattern: str
    columns: tuple[str, ...]


def parse_key_columns(text: str) -> tuple[tuple[KeyColumnsRule, ...], list[str]]:
    rules: list[KeyColumnsRule] = []
    problems: list[str] = []
    for entry in text.split(";"):
        if entry.strip() == "":
            continue
        m = _KEY_COLUMNS.match(entry)
        if m is None:
            problems.append(f"{entry} has an invalid format (expecting '{_KEY_COLUMNS_JAVA}')")
            continue
        rules.append(KeyColumnsRule(m.group(1).strip(), tuple(c.strip() for c in m.group(2).split(","))))
    return tuple(rules), problems


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnMaskRule:
    """A ``column.truncate.to.<n>.chars`` / ``column.mask.with.<n>.chars`` / ``column.mask.hash...`` key."""

    kind: str  # truncate | mask | hash | hash_v2
    columns: tuple[str, ...]
    length: int | None = None
    algorithm: str | None = None
    salt: str | None = None


def parse_mask_key(key: str, value: str) -> tuple[ColumnMaskRule | None, list[str]]:
    """None (and no problem) when ``key`` is not a column mask/truncate key at all."""
    problems: list[str] = []
    columns = tuple(split_regex_list(value))
    if not columns:
        problems.append("A comma-separated list of valid regular expressions is expected")
    for rx in columns:
        try:
            compile_java_regex(rx)
        except (re.error, JavaRegexError) as e:
            problems.append(f"A comma-separated list of valid regular expressions is expected, but {e}")
    m = _TRUNCATE_KEY.fullmatch(key) or _MASK_KEY.fullmatch(key)
    if m is not None:
        n = m.group("n")
        kind = "truncate" if key.startswith("column.truncate.") else "mask"
        # a mask of 0 characters is the empty string (Debezium's MaskStrings); TruncateColumn refuses 0
        if not n.isdigit() or (int(n) == 0 and kind == "truncate"):
            return None, [f"{n} is not a positive number of characters in '{key}'", *problems]
        return ColumnMaskRule(kind, columns, length=int(n)), problems
    h = _HASH_KEY.fullmatch(key)
    if h is not None:
        if h.group("alg").lower() not in _HASH_ALGORITHMS:
            problems.insert(0, f"Unknown hash algorithm '{h.group('alg')}' in '{key}'")
        kind = "hash_v2" if h.group("v2") else "hash"
        return ColumnMaskRule(kind, columns, algorithm=h.group("alg"), salt=h.group("salt")), problems
    return None, [
        f"'{key}' is not a column masking key: expected column.truncate.to.<n>.chars, column.mask.with.<n>.chars "
        "or column.mask.hash[.v2].<algorithm>.with.salt.<salt>"
    ]


def split_initial_statements(text: str | None) -> tuple[str, ...]:
    """``database.initial.statements``: split on ``;``, where ``;;`` stands for a literal ``;``."""
    if not text:
        return ()
    statements: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == ";":
            if i + 1 < len(text) and text[i + 1] == ";":
                cur.append(";")
                i += 2
                continue
            statements.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    statements.append("".join(cur).strip())
    return tuple(s for s in statements if s)
