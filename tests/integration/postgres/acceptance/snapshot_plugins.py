"""Custom snapshot plug-ins for test_custom_snapshot.py, loaded by `module:Class` path (the worker runs in
process, so the calls they record are visible to the tests)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from connectors.relational.table import TableId


class SnapshotOnceNoStream:
    """Snapshots while no offset is stored (or a snapshot is unfinished) and never streams."""

    calls: ClassVar[list[str]] = []

    def configure(self, props: Mapping[str, Any]) -> None:
        self.calls.append(f"configure:{props['topic.prefix']}")

    def should_snapshot_data(self, offset_exists: bool, snapshot_in_progress: bool) -> bool:
        self.calls.append(f"data:{offset_exists}:{snapshot_in_progress}")
        return not offset_exists or snapshot_in_progress

    def should_snapshot_schema(self, offset_exists: bool, snapshot_in_progress: bool) -> bool:
        return False

    def should_stream(self) -> bool:
        return False

    def should_snapshot_on_schema_error(self) -> bool:
        return False

    def should_snapshot_on_data_error(self) -> bool:
        return False

    def snapshot_completed(self) -> None:
        self.calls.append("completed")


class OddRowsOnly:
    """Snapshots only the rows with odd ids of `customers`; leaves every other table out of the snapshot."""

    seen: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def snapshot_query(self, table: TableId, columns: Sequence[str]) -> str | None:
        self.seen.append((str(table), tuple(columns)))
        if table.table != "customers":
            return None
        return f'SELECT * FROM "{table.schema}"."{table.table}" WHERE id % 2 = 1'


class ExclusiveLock:
    """Locks each table in SHARE mode and records the statements."""

    statements: ClassVar[list[str]] = []

    def table_locking_statement(self, timeout_ms: int, table: TableId) -> str | None:
        statement = f'LOCK TABLE "{table.schema}"."{table.table}" IN SHARE MODE'
        self.statements.append(f"{timeout_ms}:{statement}")
        return statement


class NotASnapshotter:
    """Lacks the Snapshotter methods."""


class PauseBeforeReading:
    """Holds the snapshot transaction for two seconds per table before any row is read: a test changes rows
    then, after the snapshot was taken and before the parallel readers run their first statement."""

    def table_locking_statement(self, timeout_ms: int, table: TableId) -> str | None:
        return "SELECT pg_sleep(2)"
