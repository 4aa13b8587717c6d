"""Change records in Debezium's shape: c/u/d/r/t envelopes, tombstones, primary-key changes as
delete + tombstone + create with __debezium.oldkey/newkey headers, and the context headers."""

from __future__ import annotations

import operator
import time
from collections.abc import Mapping
from typing import Any

from connect_worker.api import Header, SourceRecord, Struct
from connect_worker.api.schema import STRING_SCHEMA
from connectors.relational.schema_builder import EnvelopeLayout, TableSchema

_time_ns = time.time_ns
_of = Struct.of

OLDKEY_HEADER = "__debezium.oldkey"
NEWKEY_HEADER = "__debezium.newkey"


def context_headers(logical_name: str, task_id: str, connector: str, run_id: str) -> tuple[Header, ...]:
    """The `__debezium.context.*` headers every data record carries (extended.headers.enabled)."""
    return (
        Header("__debezium.context.connectorLogicalName", STRING_SCHEMA, logical_name),
        Header("__debezium.context.taskId", STRING_SCHEMA, task_id),
        Header("__debezium.context.connectorName", STRING_SCHEMA, connector),
        Header("__debezium.context.runId", STRING_SCHEMA, run_id),
    )


class RecordFactory:
    """Builds the SourceRecords of one connector task."""

    def __init__(
        self,
        *,
        partition: Mapping[str, Any],
        headers: tuple[Header, ...],
        tombstones_on_delete: bool,
    ) -> None:
        self.partition = partition
        self.headers = headers
        self.tombstones = tombstones_on_delete

    @staticmethod
    def _now() -> tuple[int, int, int]:
        ns = time.time_ns()
        return ns // 1_000_000, ns // 1000, ns

    def _envelope(
        self, ts: TableSchema, before: Struct | None, after: Struct | None, source: Struct, tx: Struct | None, op: str
    ) -> Struct:
        ms, us, ns = self._now()
        return Struct.of(ts.envelope_schema, (before, after, source, tx, op, ms, us, ns))

    def _record(
        self,
        ts: TableSchema,
        topic: str,
        key: Struct | None,
        value: Struct | None,
        offset: Mapping[str, Any],
        headers: tuple[Header, ...] | None = None,
    ) -> SourceRecord:
        return SourceRecord(
            self.partition,
            offset,
            topic,
            None,
            ts.key_schema if key is not None else None,
            key,
            ts.envelope_schema if value is not None else None,
            value,
            None,
            self.headers if headers is None else headers,
        )

    def read_or_create(
        self,
        ts: TableSchema,
        topic: str,
        op: str,
        key: Struct | None,
        after: Struct,
        source: Struct,
        tx: Struct | None,
        offset: Mapping[str, Any],
    ) -> SourceRecord:
        # the one record of most events: _envelope and _record written out (two calls fewer per event)
        ns = _time_ns()
        envelope = ts.envelope_schema
        value = _of(envelope, (None, after, source, tx, op, ns // 1_000_000, ns // 1000, ns))
        key_schema = ts.key_schema if key is not None else None
        return SourceRecord(self.partition, offset, topic, None, key_schema, key, envelope, value, None, self.headers)

    def update(
        self,
        ts: TableSchema,
        topic: str,
        old_key: Struct | None,
        key: Struct | None,
        before: Struct | None,
        after: Struct,
        source: Struct,
        tx: Struct | None,
        offset: Mapping[str, Any],
        *,
        create_tx: Struct | None = None,
        create_offset: Mapping[str, Any] | None = None,
    ) -> list[SourceRecord]:
        """An update; when the key changed, a delete (+ tombstone) on the old key and a create on the new
        one, which is a second event of the transaction (`create_tx`, `create_offset`)."""
        if not self.key_changed(old_key, key):
            return [self._record(ts, topic, key, self._envelope(ts, before, after, source, tx, "u"), offset)]
        out = self.delete(
            ts, topic, old_key, before, source, tx, offset, first=(Header(NEWKEY_HEADER, ts.key_schema, key),)
        )
        out.append(
            self._record(
                ts,
                topic,
                key,
                self._envelope(ts, None, after, source, create_tx if create_tx is not None else tx, "c"),
                create_offset if create_offset is not None else offset,
                (Header(OLDKEY_HEADER, ts.key_schema, old_key), *self.headers),
            )
        )
        return out

    @staticmethod
    def key_changed(old_key: Struct | None, key: Struct | None) -> bool:
        return old_key is not None and old_key != key

    def delete(
        self,
        ts: TableSchema,
        topic: str,
        key: Struct | None,
        before: Struct | None,
        source: Struct,
        tx: Struct | None,
        offset: Mapping[str, Any],
        *,
        first: tuple[Header, ...] = (),
    ) -> list[SourceRecord]:
        headers = (*first, *self.headers) if first else self.headers  # Debezium puts key headers first
        out = [self._record(ts, topic, key, self._envelope(ts, before, None, source, tx, "d"), offset, headers)]
        if self.tombstones:  # as Debezium's EventDispatcher: after every delete, a null key included (no key)
            out.append(self._record(ts, topic, key, None, offset, headers))
        return out

    def truncate(
        self, ts: TableSchema, topic: str, source: Struct, tx: Struct | None, offset: Mapping[str, Any]
    ) -> SourceRecord:
        return self._record(ts, topic, None, self._envelope(ts, None, None, source, tx, "t"), offset)


class LayoutRecordFactory(RecordFactory):
    """Records whose envelope follows an older Debezium layout (EnvelopeLayout.V2_7, V2_5), its fields filled in
    the layout's order: the YugabyteDB connector reproduces Debezium 2.5, the Vitess connector 2.7."""

    def __init__(self, *, layout: EnvelopeLayout, **settings: Any) -> None:
        super().__init__(**settings)
        # the layout's fields picked, in its order, from the values in Debezium 3.x's order
        self._pick = operator.itemgetter(*(EnvelopeLayout.V3.fields.index(n) for n in layout.fields))

    def _envelope(
        self, ts: TableSchema, before: Struct | None, after: Struct | None, source: Struct, tx: Struct | None, op: str
    ) -> Struct:
        ns = _time_ns()
        return _of(ts.envelope_schema, self._pick((before, after, source, tx, op, ns // 1_000_000, ns // 1000, ns)))

    def read_or_create(
        self,
        ts: TableSchema,
        topic: str,
        op: str,
        key: Struct | None,
        after: Struct,
        source: Struct,
        tx: Struct | None,
        offset: Mapping[str, Any],
    ) -> SourceRecord:
        return self._record(ts, topic, key, self._envelope(ts, None, after, source, tx, op), offset)


def record_factory(layout: EnvelopeLayout, **settings: Any) -> RecordFactory:
    """The factory of records with this envelope layout (Debezium 3.x's has the hot path of its own)."""
    if layout is EnvelopeLayout.V3:
        return RecordFactory(**settings)
    return LayoutRecordFactory(layout=layout, **settings)
