"""Per-batch metrics: what happened to whom, one log line per table and one per batch."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TableMetrics:
    table: str
    events: int = 0
    changes: int = 0  # distinct keys among the changes (SCD2: the changes)
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    truncated: bool = False
    counted: bool = True  # False: the table format reports no MERGE row counts (Iceberg)
    added_columns: list[str] = field(default_factory=list)
    dead_letters: int = 0
    error: str | None = None
    lag_ms: int | None = None  # batch time - newest source commit time (source.ts_ms) of the table's events

    def line(self, batch_id: int) -> str:
        parts = [
            f"batch={batch_id} table={self.table} events={self.events} changes={self.changes}",
        ]
        if self.counted:
            parts.append(f"inserted={self.inserted} updated={self.updated} deleted={self.deleted}")
        if self.truncated:
            parts.append("truncated=true")
        if self.added_columns:
            parts.append("added_columns=" + ",".join(self.added_columns))
        if self.lag_ms is not None:
            parts.append(f"lag_ms={self.lag_ms}")
        if self.error:
            parts.append(f"dead_letters={self.dead_letters} error={self.error!r}")
        return " ".join(parts)


@dataclass
class BatchMetrics:
    batch_id: int
    records: int = 0
    skipped: int = 0  # tombstones, heartbeats, messages, transaction markers
    dead_letters: int = 0
    held: int = 0  # transaction-consistent mode: events waiting for their transaction to complete
    published_tables: int = 0  # transaction-consistent mode: tables in the cut published after the batch
    tables: list[TableMetrics] = field(default_factory=list)
    duration_ms: int = 0
    lag_ms: int | None = None

    def line(self) -> str:
        lag = "" if self.lag_ms is None else f" lag_ms={self.lag_ms}"
        held = f" held={self.held}" if self.held else ""
        cut = f" published_tables={self.published_tables}" if self.published_tables else ""
        return (
            f"batch={self.batch_id} records={self.records} tables={len(self.tables)} skipped={self.skipped}"
            f" dead_letters={self.dead_letters}{held}{cut} duration_ms={self.duration_ms}{lag}"
        )

    def table(self, name: str) -> TableMetrics | None:
        return next((t for t in self.tables if t.table == name), None)
