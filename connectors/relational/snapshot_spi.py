"""The pluggable snapshot SPI (Debezium's Snapshotter, SnapshotQuery and SnapshotLock), found by name.

`snapshot.mode=custom` names a :class:`Snapshotter` in ``snapshot.mode.custom.name``; ``snapshot.query.mode=custom``
a :class:`SnapshotQuery` in ``snapshot.query.mode.custom.name``; ``snapshot.locking.mode=custom`` a
:class:`SnapshotLock` in ``snapshot.locking.mode.custom.name``. A name is either the name of an entry point in the
group of that kind (``connect_worker.snapshotters``, ``connect_worker.snapshot_queries``,
``connect_worker.snapshot_locks``; the entry point's name is the plug-in's ``name()``), or a ``module:Class`` path.
The class is instantiated without arguments; when it has ``configure(props)``, it receives the connector's config.
A name that resolves to nothing fails the task with Debezium's message.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from connect_worker.api import ConnectError
from connectors.relational.table import TableId

__all__ = [
    "LOCK_GROUP",
    "QUERY_GROUP",
    "SNAPSHOTTER_GROUP",
    "SnapshotLock",
    "SnapshotQuery",
    "Snapshotter",
    "load_snapshot_lock",
    "load_snapshot_query",
    "load_snapshotter",
]

SNAPSHOTTER_GROUP: Final = "connect_worker.snapshotters"
QUERY_GROUP: Final = "connect_worker.snapshot_queries"
LOCK_GROUP: Final = "connect_worker.snapshot_locks"


@runtime_checkable
class Snapshotter(Protocol):
    """When to snapshot and whether to stream. `offset_exists`: an offset is stored; `snapshot_in_progress`: it
    is the offset of an unfinished snapshot."""

    def should_snapshot_data(self, offset_exists: bool, snapshot_in_progress: bool) -> bool: ...

    def should_snapshot_schema(self, offset_exists: bool, snapshot_in_progress: bool) -> bool: ...

    def should_stream(self) -> bool: ...

    def should_snapshot_on_schema_error(self) -> bool: ...

    def should_snapshot_on_data_error(self) -> bool: ...


@runtime_checkable
class SnapshotQuery(Protocol):
    """The SELECT that reads one table in the snapshot; None leaves the table out of the snapshot (it is still
    streamed). `columns` are the captured columns, in table order."""

    def snapshot_query(self, table: TableId, columns: Sequence[str]) -> str | None: ...


@runtime_checkable
class SnapshotLock(Protocol):
    """The statement that locks one table inside the snapshot transaction, or None for no lock."""

    def table_locking_statement(self, timeout_ms: int, table: TableId) -> str | None: ...


def _load(group: str, name: str, kind: type, what: str, props: Mapping[str, Any]) -> Any:
    missing = ConnectError(f"Unable to find {name} {what}. Please check your configuration.")
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as e:
            raise missing from e
    else:
        found = [ep for ep in importlib.metadata.entry_points(group=group) if ep.name == name]
        if not found:
            raise missing
        if len({ep.value for ep in found}) > 1:
            raise ConnectError(f"Found multiple implementation for {name} {what}. Please verify your configuration.")
        cls = found[0].load()
    plugin = cls()
    if not isinstance(plugin, kind):
        raise ConnectError(f"{name} is not a {what}: {type(plugin).__qualname__} lacks the methods of one")
    configure = getattr(plugin, "configure", None)
    if callable(configure):
        configure(dict(props))
    return plugin


def load_snapshotter(name: str, props: Mapping[str, Any]) -> Snapshotter:
    plugin: Snapshotter = _load(SNAPSHOTTER_GROUP, name, Snapshotter, "snapshotter", props)
    return plugin


def load_snapshot_query(name: str, props: Mapping[str, Any]) -> SnapshotQuery:
    plugin: SnapshotQuery = _load(QUERY_GROUP, name, SnapshotQuery, "snapshot query mode", props)
    return plugin


def load_snapshot_lock(name: str, props: Mapping[str, Any]) -> SnapshotLock:
    plugin: SnapshotLock = _load(LOCK_GROUP, name, SnapshotLock, "snapshot lock mode", props)
    return plugin
