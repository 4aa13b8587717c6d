"""MERGE INTO as Spark SQL text, the one form both table formats take: the clauses of a MERGE as data, rendered
against a table's SQL name and run in the session of its source DataFrame (a micro-batch's DataFrame belongs to the
streaming query's own session, where its temporary view must be registered)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame

MATCHED, NOT_MATCHED, NOT_MATCHED_BY_SOURCE = "MATCHED", "NOT MATCHED", "NOT MATCHED BY SOURCE"


@dataclass(frozen=True)
class MergeCounts:
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    exact: bool = True  # False: the table format reports no row counts (Iceberg), the numbers are not known


@dataclass(frozen=True)
class Clause:
    when: str  # MATCHED | NOT MATCHED | NOT MATCHED BY SOURCE
    action: str  # UPDATE | DELETE | INSERT
    condition: str | None = None
    assignments: Mapping[str, str] = field(default_factory=dict)  # column (SQL) → expression

    def sql(self) -> str:
        head = f"WHEN {self.when}" + (f" AND {self.condition}" if self.condition else "") + " THEN "
        if self.action == "DELETE":
            return head + "DELETE"
        if self.action == "UPDATE":
            return head + "UPDATE SET " + ", ".join(f"{c} = {e}" for c, e in self.assignments.items())
        columns = ", ".join(self.assignments)
        return head + f"INSERT ({columns}) VALUES ({', '.join(self.assignments.values())})"


def update(condition: str | None, assignments: Mapping[str, Any]) -> Clause:
    return Clause(MATCHED, "UPDATE", condition, dict(assignments))


def delete(condition: str | None) -> Clause:
    return Clause(MATCHED, "DELETE", condition)


def insert(condition: str | None, assignments: Mapping[str, Any]) -> Clause:
    return Clause(NOT_MATCHED, "INSERT", condition, dict(assignments))


def merge(target: str, source: DataFrame, on: str, clauses: Sequence[Clause]) -> MergeCounts:
    """MERGE `source` (alias s) into the table `target` (alias t); the counts the table format reports (Delta does,
    Iceberg reports none: MergeCounts.exact is False then)."""
    session = source.sparkSession
    view = f"cdc_merge_source_{uuid.uuid4().hex}"
    source.createOrReplaceTempView(view)
    try:
        text = f"MERGE INTO {target} t USING {view} s ON {on} " + " ".join(c.sql() for c in clauses)
        rows = session.sql(text).collect()
    finally:
        session.catalog.dropTempView(view)
    if not rows or "num_inserted_rows" not in rows[0].asDict():
        return MergeCounts(exact=False)
    d = rows[0].asDict()
    return MergeCounts(
        inserted=int(d.get("num_inserted_rows") or 0),
        updated=int(d.get("num_updated_rows") or 0),
        deleted=int(d.get("num_deleted_rows") or 0),
    )
