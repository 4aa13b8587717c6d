"""What the driver knows of a micro-batch: a few aggregates of the decoded rows (spark_sink/stage/decode.py), one
row per kind and table plus one per distinct row schema, from which it plans every table (union schema, key,
truncate, TOAST columns) without seeing a single row of data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_sink.decoding.base import RowSchema
from spark_sink.delta.multiset import refusal
from spark_sink.planning import IncompatibleSchemaError, SchemaSeen, union_of
from spark_sink.position import UNKNOWN_ORDER, SourcePosition
from spark_sink.stage.decode import EVENT, FAILURE, schema_from_text


@dataclass(frozen=True)
class TableSummary:
    table: str
    topics: tuple[str, ...]
    events: int
    schema: RowSchema
    typed: bool
    key_columns: tuple[str, ...]
    keyless: bool
    truncate_at: SourcePosition | None
    truncate_ts_ms: int | None
    max_source_ts_ms: int | None
    newest: SourcePosition | None  # the newest position among the table's events
    oldest: SourcePosition | None  # the oldest position among its data events (all but truncates)
    toast: tuple[str, ...]  # columns that carry the unchanged-TOAST placeholder somewhere in the batch
    first_partition: tuple[str, int]  # a (topic, partition) other than partition 0, else any
    unknown_order: bool  # some event's order inside its transaction is unknown
    deletes: int = 0  # delete events (op d)
    data_events: int = 0  # events that change rows (all but truncates)
    keys: int = 0  # distinct record keys among them (one per source key, while the key's schema stays)
    snapshot_at: SourcePosition | None = None  # the newest position of the table's snapshot rows (op r)
    refusal: str | None = None  # keyless tables: why some change cannot be applied exactly (spark_sink/delta/multiset)
    schema_columns: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (row schema id, its column names) of the events


@dataclass
class BatchSummary:
    records: int = 0
    skipped: int = 0
    failures: int = 0
    first_failure: str | None = None
    tables: list[TableSummary] = field(default_factory=list)
    failed: list[tuple[str, int, str]] = field(default_factory=list)  # (table, events, reason): planning errors


def _position(value: Mapping[str, int] | None) -> SourcePosition | None:
    return None if value is None else SourcePosition(int(value["e"]), int(value["p"]), int(value["s"]))


def summarize(decoded: DataFrame) -> BatchSummary:
    position = F.struct(F.col("epoch").alias("e"), F.col("pos").alias("p"), F.col("seq").alias("s"))
    is_truncate = F.col("op") == "t"
    per_table = (
        decoded.groupBy("kind", "tbl")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.first("reason", ignorenulls=True).alias("reason"),
            F.collect_set("topic").alias("topics"),
            F.max("source_ts").alias("max_ts"),
            F.max(F.when(is_truncate, F.struct(position.alias("at"), F.col("source_ts").alias("ts")))).alias("trunc"),
            F.max(F.when(~is_truncate, position)).alias("newest_data"),
            F.min(F.when(~is_truncate, position)).alias("oldest_data"),
            F.collect_set(F.when(~is_truncate, F.col("key_names"))).alias("key_sets"),
            F.max(F.col("keyless").cast("int")).alias("keyless"),
            F.max((F.col("typed") & ~is_truncate).cast("int")).alias("any_typed"),
            F.max((~F.col("typed") & ~is_truncate).cast("int")).alias("any_untyped"),
            F.array_distinct(F.flatten(F.collect_set("unavailable"))).alias("toast"),
            F.max(F.struct((F.col("partition") != 0).alias("other"), "topic", "partition")).alias("partition"),
            F.max((F.col("seq") == UNKNOWN_ORDER).cast("int")).alias("unknown_order"),
            F.max(F.when(F.col("op") == "r", position)).alias("snapshot_at"),
            F.sum((F.col("op") == "d").cast("int")).alias("deletes"),
            F.sum((~is_truncate).cast("int")).alias("data"),
            F.count_distinct(F.when(~is_truncate, F.col("key"))).alias("keys"),
            F.max(((F.col("op") == "r") & (F.col("snapshot") == "incremental")).cast("int")).alias("incremental"),
            F.max((~F.col("op").isin("r", "t") & F.col("tx_id").isNull()).cast("int")).alias("no_tx"),
        )
        .collect()
    )
    schema_rows = (
        decoded.where((F.col("kind") == EVENT) & F.col("schema").isNotNull())
        .groupBy("tbl", "schema_id")
        .agg(
            F.first("schema").alias("schema"),
            F.min(F.struct("epoch", "pos", "seq", "partition", "offset")).alias("first_seen"),
            F.max(F.col("typed").cast("int")).alias("typed"),
        )
        .collect()
    )
    schemas: dict[str, list[SchemaSeen]] = {}
    ids: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for r in schema_rows:
        first = r["first_seen"]
        seen = SchemaSeen(schema_from_text(r["schema"]), bool(r["typed"]), tuple(first))
        schemas.setdefault(r["tbl"], []).append(seen)
        ids.setdefault(r["tbl"], []).append((r["schema_id"], seen.schema.names))
    summary = BatchSummary()
    for r in per_table:
        summary.records += int(r["n"])
        if r["kind"] == FAILURE:
            summary.failures += int(r["n"])
            summary.first_failure = summary.first_failure or r["reason"]
        elif r["kind"] != EVENT:
            summary.skipped += int(r["n"])
        else:
            _table(summary, r.asDict(), schemas.get(r["tbl"], []), tuple(sorted(ids.get(r["tbl"], []))))
    summary.tables.sort(key=lambda t: t.table)
    return summary


def _keyless_refusal(row: Mapping[str, Any]) -> str | None:
    if row["incremental"]:
        return refusal("r", None, "incremental")
    return refusal("u", None, None) if row["no_tx"] else None


def _table(
    summary: BatchSummary, row: Mapping[str, Any], seen: list[SchemaSeen], ids: tuple[tuple[str, tuple[str, ...]], ...]
) -> None:
    table, n = row["tbl"], int(row["n"])
    key_sets = {tuple(k) for k in row["key_sets"] if k is not None}
    try:
        if len(key_sets) > 1:
            raise IncompatibleSchemaError(f"the key columns change within the batch: {sorted(key_sets)}")
        keyless = bool(row["keyless"])
        if keyless and key_sets:
            raise IncompatibleSchemaError(
                "the batch has changes with and without a primary key: the key was dropped/added"
            )
        schema, typed = union_of(seen)
    except IncompatibleSchemaError as e:
        summary.failed.append((table, n, str(e)))
        return
    trunc = row["trunc"]
    newest = [p for p in (_position(row["newest_data"]), _position(trunc["at"]) if trunc else None) if p]
    _other, topic, partition = row["partition"]
    summary.tables.append(
        TableSummary(
            table=table,
            topics=tuple(sorted(row["topics"])),
            events=n,
            schema=schema,
            typed=typed if seen else not row["any_untyped"],
            key_columns=next(iter(key_sets)) if key_sets else (),
            keyless=keyless,
            truncate_at=_position(trunc["at"]) if trunc else None,
            truncate_ts_ms=trunc["ts"] if trunc else None,
            max_source_ts_ms=row["max_ts"],
            newest=max(newest) if newest else None,
            oldest=_position(row["oldest_data"]),
            toast=tuple(sorted(c for c in row["toast"] or () if c is not None)),
            first_partition=(topic, int(partition)),
            unknown_order=bool(row["unknown_order"]),
            snapshot_at=_position(row["snapshot_at"]),
            deletes=int(row["deletes"] or 0),
            data_events=int(row["data"] or 0),
            keys=int(row["keys"] or 0),
            refusal=_keyless_refusal(row) if keyless else None,
            schema_columns=ids,
        )
    )
