"""Records that flow from a source task through transforms and converters to Kafka."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, NamedTuple

from connect_worker.api.schema import Schema


class SchemaAndValue(NamedTuple):
    schema: Schema | None
    value: Any


@dataclasses.dataclass(frozen=True, slots=True)
class Header:
    """One record header; its value is converted to bytes by the header converter."""

    key: str
    schema: Schema | None
    value: Any


class SourceRecord(NamedTuple):
    """A change to publish (org.apache.kafka.connect.source.SourceRecord).

    `source_partition` / `source_offset` are maps of primitive values: what the offsets topic stores.
    `kafka_partition` None lets the worker pick the partition from the key bytes (Java's murmur2 rule).
    `timestamp` is epoch milliseconds or None (the producer's time).
    A NamedTuple: immutable, and built in C (one is created per change event, on the hot path).
    """

    source_partition: Mapping[str, Any] | None
    source_offset: Mapping[str, Any] | None
    topic: str
    kafka_partition: int | None
    key_schema: Schema | None
    key: Any
    value_schema: Schema | None
    value: Any
    timestamp: int | None = None
    headers: tuple[Header, ...] = ()

    def with_(self, **changes: Any) -> SourceRecord:
        """A copy with some fields replaced (records are immutable)."""
        return self._replace(**changes)

    def header(self, key: str) -> Header | None:
        """The last header with this key, or None."""
        for h in reversed(self.headers):
            if h.key == key:
                return h
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class RecordMetadata:
    """Where Kafka stored a record (given to SourceTask.commit_record)."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None
