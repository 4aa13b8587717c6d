"""Record builders shared by the transform tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_worker.api.record import Header, SourceRecord
from connect_worker.api.schema import Schema
from connect_worker.api.transform import Predicate, Transformation


def make(cls: type[Transformation] | type[Predicate], props: Mapping[str, Any] | None = None, /, **kw: Any) -> Any:
    """An instance of `cls` configured with props and/or keyword keys (typed Any: tests inspect results freely)."""
    config = dict(props or {})
    config.update({k.replace("__", "."): v for k, v in kw.items()})
    instance = cls()
    instance.configure(config)
    return instance


def rec(
    value: Any = None,
    value_schema: Schema | None = None,
    *,
    key: Any = None,
    key_schema: Schema | None = None,
    topic: str = "test",
    partition: int | None = 0,
    timestamp: int | None = None,
    headers: tuple[Header, ...] = (),
) -> SourceRecord:
    return SourceRecord(
        source_partition={"server": "s"},
        source_offset={"lsn": 1},
        topic=topic,
        kafka_partition=partition,
        key_schema=key_schema,
        key=key,
        value_schema=value_schema,
        value=value,
        timestamp=timestamp,
        headers=headers,
    )
