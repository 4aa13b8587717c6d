"""Values of the PostgreSQL connector's keys that hold lists of rules, parsed into frozen rules with one message per
malformed entry: replica identities, message key columns, initial statements, Java regex lists. Column rules
(truncate, mask, hash, propagate) are parsed by connectors/relational/column_mappers.py, for every connector.
"""

from __future__ import annotations

import dataclasses
import re

from connect_worker.api.java_regex import java_regex

_REPLICA_IDENTITY = re.compile(
    r"^\s*(?P<table>[^\s:]+):(?P<identity>DEFAULT|(?P<index>INDEX) (?P<index_name>.\w*)|FULL|NOTHING)\s*$",
    re.IGNORECASE,
)
_REPLICA_IDENTITY_JAVA = (
    r"(?i)^\s*(?<tablepredicate>[^\s:]+):(?<replicaidentity>DEFAULT|(INDEX) (?<indexname>.\w*)|FULL|NOTHING)\s*$"
)
_KEY_COLUMNS = re.compile(r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$")
_KEY_COLUMNS_JAVA = r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$"


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
        return java_regex(self.table_pattern, case_insensitive=True).fullmatch(table) is not None

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
