"""The delete ledger: the source positions of what hard deletes and truncates removed, so a replayed older insert or
update cannot bring a removed row back.

The MERGE guard compares an event with the position stored in its row; a hard delete removes the row and the guard
with it. The ledger keeps it instead. It is one Delta table for every table the sink writes
(`<warehouse>/_cdc_ledger`, partitioned by `_cdc_table`), written once per micro-batch by a blind append (no MERGE,
one commit for all the batch's tables, at most once per batch id: Delta's `txnAppId`/`txnVersion` writer options),
and compacted every COMPACT_EVERY batches. Its items:
- `d`: a key was deleted at a position; `c`: a key with a recorded delete came back at a newer position (an insert or
  update newer than the delete, seen by a guard that read the ledger), so the delete no longer guards anything the
  row's own guard does not;
- `t`: the table was truncated at a position (no key).
A key is the JSON text of the table's key columns (`_cdc_key`) with the Spark type it was written with
(`_cdc_key_type`): a key column the table later widens (int → bigint, decimal scale growth, date → timestamp_ntz …)
is read back as its old type and cast to the new one, so older entries keep matching whatever text the new type
prints.

`guard` drops from a batch's changes of a table every insert/update that is not newer than its key's newest delete
(unless the key came back since) and than the newest truncate; deletes always pass (the row guard handles them).
When every change of the batch for a table is newer than everything the ledger holds for it (the steady stream; the
job keeps an upper bound of the ledger's newest position per table, learned once and raised by each append), no
item can supersede any of them: the guard does not read the ledger (no scan and join in the table's MERGE), and nor
does `items`: a key such a batch brings back keeps its delete entry, which guards nothing the row's own position
(newer) does not, until compaction finds the row. The bound is the job's own: it relies on the job being the only
writer of its tables (and so of their ledger rows).
Soft-delete tables keep their rows, so they only ever have truncate items; so do SCD2 tables, whose versions keep
their positions (a replayed change older than a key's newest version adds none), and whose changes older than the
newest truncate `after_truncate` drops (a truncate leaves no version at its position).
Entries of deletes older (by source time) than `sink.delete_ledger_retention` stop guarding at once and are dropped
at the next compaction: a replay older than the retention could then bring such a row back, so choose it longer
than any replay.

Compaction (exact): per key only its newest item is kept, and none when that is a `c`, when the table's newest
truncate is newer, or when the table holds the key's row at a newer position (it came back); per table the newest
truncate; expired entries go. It rewrites the partitions of the tables the
job has written since it started (`replaceWhere`), so jobs that write other tables of the same warehouse never
conflict with it; a failed compaction is logged and tried again COMPACT_EVERY batches later (nothing is lost).

Crash safety: a table's MERGE commits before the batch's ledger append; a batch killed in between is replayed whole
and appends the same items (its deletes pass the guard again). A ledger of the earlier layout (one Delta table per
table at `<warehouse>/_cdc_deletes/<table>`) is imported the first time the job meets its table, then removed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from delta.tables import DeltaTable
from py4j.protocol import Py4JError
from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.delta import order
from spark_sink.delta.tables import (
    IS_DELETE,
    SOURCE_TS,
    IncompatibleTableError,
    create_table,
    position_values,
    q,
    sql_string,
    union_all,
)
from spark_sink.errors import first_line
from spark_sink.position import SourcePosition

log = logging.getLogger("spark_sink")

TABLE, KEY, KEY_TYPE, KIND = "_cdc_table", "_cdc_key", "_cdc_key_type", "_cdc_kind"
DELETED, REVIVED, TRUNCATED = "d", "c", "t"
SCHEMA = T.StructType(
    [
        T.StructField(TABLE, T.StringType(), False),
        T.StructField(KEY, T.StringType(), True),
        T.StructField(KEY_TYPE, T.StringType(), True),
        *[T.StructField(c, T.LongType(), False) for c in order.COLUMNS],
        T.StructField(SOURCE_TS, T.TimestampType(), True),
        T.StructField(KIND, T.StringType(), False),
    ]
)
COMPACT_EVERY = 20  # micro-batches between compactions (by batch id)
REVIVES = "__ledger_revives"  # guard's output: this change brings back a key the ledger holds as deleted
ENTRY, MARK, JOIN_KEY = "__ledger_entry", "__ledger_mark", "__ledger_key"
ROW_TABLE, ROW_KEY, ROW = "__row_table", "__row_key", "__row_position"  # compaction: the tables' rows
# the key's JSON text: exact and the same whatever the session's time zone (microseconds, UTC)
KEY_JSON = {
    "timeZone": "UTC",
    "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX",
    "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
    "dateFormat": "yyyy-MM-dd",
    "ignoreNullFields": "false",
}


def key_struct(key_fields: Sequence[T.StructField]) -> T.StructType:
    return T.StructType([T.StructField(f.name, f.dataType, True) for f in key_fields])


def key_json(key_fields: Sequence[T.StructField]) -> Column:
    """Column: the key columns of a change as the ledger's key text."""
    return F.to_json(F.struct(*[F.col(q(f.name)).cast(f.dataType).alias(f.name) for f in key_fields]), KEY_JSON)


def _position_of(struct: str) -> list[Column]:
    """The position columns from a struct column with epoch, major, seq (order.STRUCT's names)."""
    return [F.col(f"{struct}.{f.name}").alias(c) for f, c in zip(order.STRUCT.fields, order.COLUMNS, strict=True)]


def _fresh(ts: Column, expire_before_ms: int | None) -> Column:
    """An item's or change's source time `ts` is not past the retention (no time counts as fresh)."""
    if expire_before_ms is None:
        return F.lit(True)
    return ts.isNull() | (ts >= F.timestamp_millis(F.lit(expire_before_ms)))


def _newest(*extra: str) -> Column:
    return F.max(order.struct_of(extra=extra))


AFTER_MARK = f"({MARK} IS NULL OR {order.newer(order.columns(), order.fields(MARK))})"  # newer than the truncate


def _truncate_marks(items: DataFrame, *by: str) -> DataFrame:
    """MARK, the newest truncate among the ledger's `items`, per `by` (none: one row, MARK null without any)."""
    return items.where(F.col(KIND) == TRUNCATED).groupBy(*by).agg(_newest().alias(MARK))


@dataclasses.dataclass(frozen=True)
class Guarded:
    """What `guard` hands on: the changes (for the MERGE, and for `items`), and whether the ledger was read for them
    (else every change is newer than all it holds: REVIVES is false, and compaction finds the keys that came back)."""

    frame: DataFrame
    read: bool


class DeleteLedger:
    """The ledger of one job (one per batch processor; the methods are safe to call from its table threads)."""

    def __init__(
        self,
        spark: SparkSession,
        path: str,
        legacy_path: Callable[[str], str] | None = None,
        read_table: Callable[[str], DataFrame] | None = None,
    ) -> None:
        self.spark = spark
        self.path = path
        self.legacy_path = legacy_path  # table → where the earlier layout kept its ledger (imported once)
        self.read_table = read_table  # table → its rows now (compaction drops the deletes of keys that came back)
        self._lock = threading.Lock()
        self._creating = threading.Lock()
        self._exists = False
        self._key_types: dict[str, set[str]] = {}  # table → the key types its stored items were written with
        self._current: dict[str, str] = {}  # table → its key type now (the newest batch's)
        self._newest: dict[str, SourcePosition] = {}  # table → no item of it in the ledger is newer (upper bound)

    # -- shape ------------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        if not self._exists:
            self._exists = bool(DeltaTable.isDeltaTable(self.spark, self.path))
        return self._exists

    def _read(self, tables: Iterable[str]) -> DataFrame:
        names = sorted(set(tables))
        return self.spark.read.format("delta").load(self.path).where(F.col(TABLE).isin(names))

    def prepare(self, table: str, key_fields: Sequence[T.StructField]) -> None:
        """Learn what the ledger holds for `table` (once per job run; the job is the table's only writer, so it
        stays true), importing a ledger of the earlier layout first, and check that the key did not change."""
        current = key_struct(key_fields).json()
        with self._lock:
            known = table in self._key_types
            self._current[table] = current
        if not known:
            self._import_legacy(table, key_fields)
            types: set[str] = set()
            newest: list[SourcePosition] = []
            if self.exists():
                rows = (
                    self._read([table])
                    .groupBy(KEY_TYPE)  # (null for the truncates)
                    .agg(_newest().alias("newest"))
                    .collect()
                )
                types = {r[KEY_TYPE] for r in rows if r[KEY_TYPE] is not None}
                newest = [SourcePosition(*r["newest"]) for r in rows]
            with self._lock:
                self._key_types.setdefault(table, set()).update(types)
                self._raise_newest(table, newest)
        names = [f.name for f in key_fields]
        with self._lock:
            stored = sorted(self._key_types[table])
        for text in stored:
            were = [f.name for f in T.StructType.fromJson(json.loads(text)).fields]
            if names and were != names:
                raise IncompatibleTableError(
                    f"the delete ledger {self.path} holds keys of table {table} by {were} but the events are keyed "
                    f"by {names}: the source key changed; check the table and delete its rows from the ledger "
                    f"({TABLE} = '{table}') to continue"
                )

    def _newer_than_all(self, table: str, oldest: SourcePosition | None) -> bool:
        """Whether a change at `oldest` (the oldest of a batch's changes of `table`) is newer than every item the
        ledger holds for `table`."""
        if oldest is None:
            return False
        with self._lock:
            newest = self._newest.get(table)
        return newest is None or oldest > newest

    def _raise_newest(self, table: str, positions: Iterable[SourcePosition | None]) -> None:
        """(under the lock)"""
        known = [p for p in (self._newest.get(table), *positions) if p is not None]
        if known:
            self._newest[table] = max(known)

    def _normalized(self, table: str, items: DataFrame) -> Column:
        """Column: the key text of `items` as the table's key type prints it now."""
        with self._lock:
            current, stored = self._current[table], sorted(self._key_types.get(table, ()))
        target = T.StructType.fromJson(json.loads(current))
        out: Column = F.col(KEY)
        for text in stored:
            if text != current:
                was = T.StructType.fromJson(json.loads(text))
                cast = F.to_json(F.from_json(F.col(KEY), was, KEY_JSON).cast(target), KEY_JSON)
                out = F.when(F.col(KEY_TYPE) == text, cast).otherwise(out)
        return out

    # -- reading ----------------------------------------------------------------------------------------------
    def guard(
        self,
        table: str,
        changes: DataFrame,
        key_fields: Sequence[T.StructField],
        expire_before_ms: int | None,
        oldest: SourcePosition | None = None,
    ) -> Guarded:
        """`changes` without the inserts/updates that a recorded delete or truncate has superseded, with REVIVES
        marking the changes that bring a deleted key back; as they are, unread, when `oldest` (the oldest of the
        changes) is newer than everything the ledger holds for `table` (REVIVES is then false: the keys they bring
        back are left to compaction).
        `prepare(table, …)` first."""
        if not self.exists() or self._newer_than_all(table, oldest):
            return Guarded(changes.withColumn(REVIVES, F.lit(False)), read=False)
        items = self._read([table])
        guarded = changes.crossJoin(_truncate_marks(items))
        keep = AFTER_MARK
        revives: Column = F.lit(False)
        if key_fields:
            entries = self._entries(table, items, expire_before_ms)
            guarded = guarded.withColumn(JOIN_KEY, key_json(key_fields)).join(entries, on=JOIN_KEY, how="left")
            deleted = f"({ENTRY} IS NOT NULL AND {ENTRY}.{KIND} = '{DELETED}')"
            newer = order.newer(order.columns(), order.fields(ENTRY))
            keep += f" AND (NOT {deleted} OR {newer})"
            revives = F.expr(f"NOT {IS_DELETE} AND {deleted} AND {newer}")
        frame = guarded.where(f"{IS_DELETE} OR ({keep})").withColumn(REVIVES, revives).drop(MARK, ENTRY, JOIN_KEY)
        return Guarded(frame, read=True)

    def after_truncate(self, table: str, changes: DataFrame, oldest: SourcePosition | None) -> DataFrame:
        """`changes` (every kind, deletes too) strictly after the newest truncate the ledger holds for `table`: the
        guard of tables whose rows keep their own history (SCD2), where a truncate removes nothing a row's position
        could recall. Unread, as they are, when `oldest` is newer than everything the ledger holds for `table`.
        `prepare(table, …)` first."""
        if not self.exists() or self._newer_than_all(table, oldest):
            return changes
        return changes.crossJoin(_truncate_marks(self._read([table]))).where(AFTER_MARK).drop(MARK)

    def _entries(self, table: str, items: DataFrame, expire_before_ms: int | None) -> DataFrame:
        """Per key (JOIN_KEY, as the table's key type prints it now) of `items` (the ledger's for `table`), its
        newest delete or come-back still guarding (ENTRY: its position and KIND)."""
        entries = items.where((F.col(KIND) != TRUNCATED) & _fresh(F.col(SOURCE_TS), expire_before_ms))
        return entries.groupBy(self._normalized(table, entries).alias(JOIN_KEY)).agg(_newest(KIND).alias(ENTRY))

    # -- the batch's items ------------------------------------------------------------------------------------
    def items(
        self, table: str, guarded: Guarded, key_fields: Sequence[T.StructField], expire_before_ms: int | None
    ) -> DataFrame:
        """The items a batch's guarded changes of `table` add: its deletes (those not already past the retention)
        and the keys the guard found coming back (none when it did not read the ledger). Without deletes and an
        unread guard there are none: no need to call."""
        with self._lock:
            current = self._current[table]
        fresh = _fresh(F.col(SOURCE_TS), expire_before_ms)
        changes = guarded.frame
        kind = F.when(F.col(IS_DELETE), F.lit(DELETED)).otherwise(F.lit(REVIVED))
        return changes.where((F.col(IS_DELETE) & fresh) | F.col(REVIVES)).select(
            F.lit(table).alias(TABLE),
            key_json(key_fields).alias(KEY),
            F.lit(current).alias(KEY_TYPE),
            *[F.col(c) for c in order.COLUMNS],
            F.col(SOURCE_TS),
            kind.alias(KIND),
        )

    def truncate_item(self, table: str, position: SourcePosition, ts: dt.datetime | None) -> DataFrame:
        row = (table, None, None, *position_values(position), ts, TRUNCATED)
        return self.spark.createDataFrame([row], SCHEMA)

    # -- writing ----------------------------------------------------------------------------------------------
    def append(
        self,
        frames: Sequence[tuple[str, DataFrame]],
        app_id: str,
        batch_id: int,
        newest: Mapping[str, SourcePosition | None],
    ) -> None:
        """Append the items of a batch's tables (table, items) in one commit, at most once per (`app_id`,
        `batch_id`). `newest`: per table, a position no item of its frames is newer than."""
        if not frames:
            return
        self._ensure()
        (
            union_all([frame for _, frame in frames])
            .repartition(1)  # one file per table and batch (the items are few); what they come from in parallel
            .write.format("delta")
            .mode("append")
            .option("txnAppId", app_id)
            .option("txnVersion", batch_id)
            .save(self.path)
        )
        with self._lock:
            for table, _ in frames:
                if table in self._current:
                    self._key_types.setdefault(table, set()).add(self._current[table])
                self._raise_newest(table, [newest.get(table)])

    def _ensure(self) -> None:
        with self._creating:
            if not self.exists():
                create_table(self.spark, self.path, SCHEMA, partition_columns=[TABLE])
                self._exists = True

    def compact(self, expire_before_ms: int | None) -> None:
        """Rewrite the partitions of the tables this job has met: see the module docstring."""
        with self._lock:
            tables = {t: c for t, c in self._current.items() if t in self._key_types}
        if not tables or not self.exists():
            return
        items = self._read(tables)
        key_text: Column = F.col(KEY)
        for table in tables:
            key_text = F.when(F.col(TABLE) == table, self._normalized(table, items)).otherwise(key_text)
        marks = _truncate_marks(items, TABLE)
        entries = (
            items.where(F.col(KIND) != TRUNCATED)
            .groupBy(F.col(TABLE), key_text.alias(KEY))
            .agg(_newest(KIND, SOURCE_TS).alias(ENTRY))
            .join(marks, on=TABLE, how="left")
            .where(f"{ENTRY}.{KIND} = '{DELETED}'")
            .where(f"{MARK} IS NULL OR NOT {order.newer(order.fields(MARK), order.fields(ENTRY))}")
        )
        if expire_before_ms is not None:
            entries = entries.where(_fresh(F.col(f"{ENTRY}.{SOURCE_TS}"), expire_before_ms))
        deletes = items.where(F.col(KIND) == DELETED).groupBy(TABLE).agg(F.min(order.struct_of()).alias("oldest"))
        oldest = {r[TABLE]: SourcePosition(*r["oldest"]) for r in deletes.collect()}  # no read for none to drop
        rows = self._rows_of({t: c for t, c in tables.items() if t in oldest}, oldest)
        if rows is not None:  # a key whose row is back (at a newer position) needs its delete no more
            back = (F.col(TABLE) == F.col(ROW_TABLE)) & (F.col(KEY) == F.col(ROW_KEY))
            newer = F.expr(order.newer(order.fields(ROW), order.fields(ENTRY)))
            entries = entries.join(rows, back & newer, how="left_anti")
        types = F.create_map(*[x for t, c in tables.items() for x in (F.lit(t), F.lit(c))])
        kept = entries.select(TABLE, KEY, types[F.col(TABLE)].alias(KEY_TYPE), *_position_of(ENTRY), f"{ENTRY}.*")
        none = F.lit(None).cast("string")
        truncates = marks.select(TABLE, none.alias(KEY), none.alias(KEY_TYPE), *_position_of(MARK))
        compacted = kept.select(*SCHEMA.names).unionByName(
            truncates.select(
                *truncates.columns, F.lit(None).cast("timestamp").alias(SOURCE_TS), F.lit(TRUNCATED).alias(KIND)
            )
        )
        names = ", ".join(sql_string(t) for t in sorted(tables))
        compacted.repartition(F.col(TABLE)).write.format("delta").mode("overwrite").option(
            "replaceWhere", f"{TABLE} IN ({names})"
        ).save(self.path)
        with self._lock:
            for table, current in tables.items():
                self._key_types[table] = {current}

    def _rows_of(self, tables: Mapping[str, str], since: Mapping[str, SourcePosition]) -> DataFrame | None:
        """The rows the tables hold now (`read_table`) as (ROW_TABLE, ROW_KEY: the key text as the table's key type
        prints it now, ROW: the row's position), of those only the ones that can be newer than a delete at `since`
        (per table): a filter on the position columns, so the table formats skip the files of older rows by their
        column statistics (a table's rows written before its oldest recorded delete are never read)."""
        if self.read_table is None:
            return None
        frames = []
        for table, current in sorted(tables.items()):
            fields = T.StructType.fromJson(json.loads(current)).fields
            if not fields:
                continue
            try:
                frame = self.read_table(table)
            except (PySparkException, Py4JError) as e:  # its deletes stay (they still guard correctly)
                log.warning("compacting the delete ledger: table %s cannot be read (%s)", table, first_line(e))
                continue
            frames.append(
                frame.where(order.not_before(since[table])).select(
                    F.lit(table).alias(ROW_TABLE), key_json(fields).alias(ROW_KEY), order.struct_of().alias(ROW)
                )
            )
        return union_all(frames) if frames else None

    # -- the earlier layout -----------------------------------------------------------------------------------
    def _import_legacy(self, table: str, key_fields: Sequence[T.StructField]) -> None:
        path = None if self.legacy_path is None else self.legacy_path(table)
        if path is None or not DeltaTable.isDeltaTable(self.spark, path):
            return
        legacy = self.spark.read.format("delta").load(path)
        truncate = F.col("_cdc_truncate")
        keys = [f for f in key_fields if f.name in legacy.columns]
        key = key_json(keys) if keys and len(keys) == len(key_fields) else F.lit(None).cast("string")
        current = key_struct(key_fields).json()
        items = legacy.select(
            F.lit(table).alias(TABLE),
            F.when(truncate, F.lit(None).cast("string")).otherwise(key).alias(KEY),
            F.when(truncate, F.lit(None).cast("string")).otherwise(F.lit(current)).alias(KEY_TYPE),
            *[F.col(c) for c in order.COLUMNS],
            F.col(SOURCE_TS),
            F.when(truncate, F.lit(TRUNCATED)).otherwise(F.lit(DELETED)).alias(KIND),
        )
        self._ensure()
        # at most once: a job killed before the removal below imports nothing twice
        items.write.format("delta").mode("append").option("txnAppId", f"import-{table}").option("txnVersion", 0).save(
            self.path
        )
        context: Any = self.spark.sparkContext
        hadoop = context._jvm.org.apache.hadoop.fs.Path(path)
        hadoop.getFileSystem(context._jsc.hadoopConfiguration()).delete(hadoop, True)
        log.info("table %s: imported the delete ledger %s into %s and removed it", table, path, self.path)


def effective(spark: SparkSession, path: str, table: str) -> list[tuple[str | None, tuple[int, int, int], str]]:
    """What guards `table` now, newest item per key and the newest truncate, as (key text or None for the truncate,
    position, kind), sorted by position: for tests and inspection (keys as stored, of any key type)."""
    if not DeltaTable.isDeltaTable(spark, path):
        return []
    items = spark.read.format("delta").load(path).where(F.col(TABLE) == table)
    marks = items.where(F.col(KIND) == TRUNCATED).agg(_newest(KIND).alias(ENTRY)).where(F.col(ENTRY).isNotNull())
    entries = items.where(F.col(KIND) != TRUNCATED).groupBy(KEY).agg(_newest(KIND).alias(ENTRY))
    out = [(r[KEY], r[ENTRY]) for r in entries.collect()] + [(None, r[ENTRY]) for r in marks.collect()]
    rows = [(k, (int(e["epoch"]), int(e["major"]), int(e["seq"])), str(e[KIND])) for k, e in out]
    return sorted(rows, key=lambda r: r[1])
