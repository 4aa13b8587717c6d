"""Per-batch planning, pure: which events of a micro-batch reach which table, and in what form.

For each target table: the truncate position (the latest `t` event), the last change per key ordered by source
position (events at or before the truncate are dropped; unchanged-TOAST columns are filled from earlier events of
the same key in the batch), the union of the row schemas seen, and the key columns. The Delta layer then applies
the plan with a MERGE guarded by the position stored in the table, so replays never move a row backwards.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from spark_sink.decoding.base import ChangeEvent, RowSchema
from spark_sink.position import SourcePosition
from spark_sink.types import infer, widening
from spark_sink.types.model import SinkType


class IncompatibleSchemaError(ValueError):
    """Events of one table disagree with each other or with the table (type change, different key)."""


@dataclass(frozen=True)
class TablePlan:
    table: str
    topics: tuple[str, ...]
    events: tuple[ChangeEvent, ...]  # every event of the batch for this table, in source order
    changes: tuple[ChangeEvent, ...]  # the last change per key after the truncate, TOAST filled in
    truncate_at: SourcePosition | None
    schema: RowSchema
    key_columns: tuple[str, ...]
    typed: bool = True
    errors: tuple[str, ...] = field(default_factory=tuple)
    keyless: bool = False  # a table without a primary key: `changes` holds every change, whole rows identify them

    @property
    def max_source_ts_ms(self) -> int | None:
        stamps = [e.source_ts_ms for e in self.events if e.source_ts_ms is not None]
        return max(stamps) if stamps else None


def key_tuple(event: ChangeEvent) -> tuple[tuple[str, Any], ...]:
    assert event.key is not None
    return tuple((k, _hashable(v)) for k, v in event.key.items())


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def merge_toast(earlier: ChangeEvent | None, later: ChangeEvent) -> ChangeEvent:
    """`later` completed from `earlier` (same key, earlier in the batch): unchanged-TOAST columns take the earlier
    value, and a delete keeps the last values seen (its `before` image is unreliable beyond the key columns:
    REPLICA IDENTITY DEFAULT sends only the key, the rest is null or a type default)."""
    if later.op == "d":
        key = dict(later.key or {})
        if earlier is None or earlier.op == "d" or earlier.row is None:
            return replace(later, row=key)
        return replace(later, row={**earlier.row, **key}, unavailable=earlier.unavailable)
    if not later.unavailable or earlier is None or earlier.op == "d" or earlier.row is None or later.row is None:
        return later
    known = {c for c in later.unavailable if c in earlier.row and c not in earlier.unavailable}
    if not known:
        return later
    row = dict(later.row)
    carried = dict(later.carried)
    for c in known:
        row[c] = earlier.row[c]
        carried[c] = earlier.carried.get(c, earlier.position)
    return replace(later, row=row, unavailable=later.unavailable - known, carried=carried)


def last_per_key(events: Iterable[ChangeEvent]) -> list[ChangeEvent]:
    """The newest event per key by source position (ties: Kafka coordinates, one key = one partition)."""
    by_key: dict[tuple[tuple[str, Any], ...], list[ChangeEvent]] = defaultdict(list)
    for e in events:
        by_key[key_tuple(e)].append(e)
    out = []
    for group in by_key.values():
        group.sort(key=lambda e: e.order)
        state: ChangeEvent | None = None
        for e in group:
            state = merge_toast(state, e)
        assert state is not None
        out.append(state)
    out.sort(key=lambda e: e.order)
    return out


@dataclass(frozen=True)
class SchemaSeen:
    """A row schema as the driver learns it from the executors (spark_sink/stage/summary.py): its events' order is
    the first position it was seen at."""

    schema: RowSchema
    typed: bool
    order: tuple[int, ...]


def union_of(seen: Iterable[SchemaSeen]) -> tuple[RowSchema, bool]:
    """`union_schema` of schemas seen (first-seen order by their `order`), for the executors' parse
    (spark_sink/stage/reduce.py), which reads every event's values as the union's types: a date as a timestamp is
    midnight there, so widenings that convert values are taken within a batch too."""
    return union_schema(seen, converted=True)


def union_schema(events: Iterable[ChangeEvent | SchemaSeen], converted: bool = False) -> tuple[RowSchema, bool]:
    """All columns seen, in first-seen order. A column whose typed schemas differ takes the wider type when one
    widens to the other (spark_sink/types/widening.py: int → long, decimal(10,2) → decimal(14,2) …; the events of the
    narrower type keep their values, which fit); any other type change raises. Inferred (schemaless) types are
    merged. A column missing from some events' schemas (added or dropped at the source) is still in the union.
    `converted`: the caller reads the older events' values as the wider type (date → timestamp); otherwise such a
    widening within the events raises (their Python values keep their own type)."""
    columns: dict[str, SinkType] = {}
    seen: dict[str, set[SinkType]] = defaultdict(set)  # the typed schemas' types of each column
    typed_seen = untyped_seen = False
    for e in sorted(events, key=lambda e: e.order):
        typed_seen |= e.typed
        untyped_seen |= not e.typed
        for name, t in e.schema.columns:
            if e.typed:
                seen[name].add(t)
            have = columns.get(name)
            if have is None:
                columns[name] = t
            elif have != t:
                if not e.typed:
                    columns[name] = infer.merge(have, t) or have
                    continue
                wider = widening.common(have, t)
                if wider is None:
                    raise IncompatibleSchemaError(
                        f"column {name!r} changes type within the batch: {have.ddl()} → {t.ddl()} "
                        "(not a type widening: a change that loses or reinterprets values is not followed)"
                    )
                columns[name] = wider
    for name, types in seen.items():
        # the events carry Python values of their own type, and a date is no timestamp: the older events would
        # have to be converted (widening.widen_value) before the table is written, which this plan does not do
        older = sorted(t.ddl() for t in types if widening.converts_values(t, columns[name]))
        if older and not converted:
            raise IncompatibleSchemaError(
                f"column {name!r} changes type within the batch: {', '.join(older)} → {columns[name].ddl()}; this "
                "widening is applied across batches only (a batch without events of the older type widens the "
                "table; the older events' values are not converted within a batch yet)"
            )
    return RowSchema(tuple(columns.items())), typed_seen or not untyped_seen


def plan_table(table: str, events: list[ChangeEvent]) -> TablePlan:
    events = sorted(events, key=lambda e: e.order)
    topics = tuple(sorted({e.raw.topic for e in events}))
    truncates = [e.position for e in events if e.op == "t"]
    truncate_at = max(truncates) if truncates else None
    data = [e for e in events if e.op != "t" and (truncate_at is None or e.position > truncate_at)]
    key_sets = {tuple(e.key) for e in data if e.key is not None}
    if len(key_sets) > 1:
        raise IncompatibleSchemaError(f"the key columns change within the batch: {sorted(key_sets)}")
    keyless = any(e.keyless for e in data)
    if keyless and key_sets:
        raise IncompatibleSchemaError("the batch has changes with and without a primary key: the key was dropped/added")
    key_columns = next(iter(key_sets)) if key_sets else ()
    schema, typed = union_schema(data)
    return TablePlan(
        table=table,
        topics=topics,
        events=tuple(events),
        changes=tuple(data) if keyless else tuple(last_per_key(data)),
        truncate_at=truncate_at,
        schema=schema,
        key_columns=key_columns,
        typed=typed,
        keyless=keyless,
    )


@dataclass(frozen=True)
class BatchPlan:
    tables: tuple[TablePlan, ...]
    failed: tuple[tuple[str, tuple[ChangeEvent, ...], str], ...]  # (table, events, reason): planning errors


def plan_batch(events: Iterable[ChangeEvent], table_for_topic: Callable[[str], str]) -> BatchPlan:
    by_table: dict[str, list[ChangeEvent]] = defaultdict(list)
    for e in events:
        by_table[table_for_topic(e.raw.topic)].append(e)
    plans, failed = [], []
    for table, group in sorted(by_table.items()):
        try:
            plans.append(plan_table(table, group))
        except IncompatibleSchemaError as err:
            failed.append((table, tuple(group), str(err)))
    return BatchPlan(tuple(plans), tuple(failed))


@dataclass(frozen=True)
class Version:
    """One SCD2 history row: the state of a key from `valid_from_ms` until `valid_to_ms` (None = still valid)."""

    event: ChangeEvent
    valid_from_ms: int | None
    valid_to_ms: int | None
    is_current: bool


@dataclass(frozen=True)
class KeyHistory:
    key: tuple[tuple[str, Any], ...]
    first: ChangeEvent  # the first change of the key in the batch: closes the table's current version
    versions: tuple[Version, ...]  # deletes close versions but add none


def scd2_histories(plan: TablePlan, after: Callable[[ChangeEvent], bool] | None = None) -> list[KeyHistory]:
    """Per key, the batch's versions in source order (TOAST filled from earlier versions of the batch).
    `after(event)` filters out what the table already holds (the position guard)."""
    by_key: dict[tuple[tuple[str, Any], ...], list[ChangeEvent]] = defaultdict(list)
    for e in plan.events:
        if e.op != "t" and (plan.truncate_at is None or e.position > plan.truncate_at) and (after is None or after(e)):
            by_key[key_tuple(e)].append(e)
    out = []
    for key, group in by_key.items():
        group.sort(key=lambda e: e.order)
        filled: list[ChangeEvent] = []
        state: ChangeEvent | None = None
        for e in group:
            state = merge_toast(state, e)
            filled.append(state)
        versions = []
        for i, e in enumerate(filled):
            if e.op == "d":
                continue
            nxt = filled[i + 1] if i + 1 < len(filled) else None
            versions.append(Version(e, e.source_ts_ms, nxt.source_ts_ms if nxt else None, nxt is None))
        out.append(KeyHistory(key, filled[0], tuple(versions)))
    return out
