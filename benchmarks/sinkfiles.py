"""What Spark and Delta leave on disk, read back for the Spark sink phase without Spark: a Structured Streaming
checkpoint (batch start and end times, end offsets per topic) and a Delta table's log (versions with the time each
became visible, and the data files each added).

Every time here is a file's modification time: `offsets/<n>` is written when batch n is planned, `commits/<n>` when
it has finished, and `_delta_log/<version>.json` when a Delta commit becomes visible (it is what Delta's own history
reports as the version's timestamp). These formats belong to Spark and Delta, not to spark_sink, so the phase does
not depend on the job's logs, metrics or own columns.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote


@dataclasses.dataclass(frozen=True)
class Batch:
    id: int
    planned: float  # mtime of offsets/<id>
    committed: float | None  # mtime of commits/<id>, None while it runs (or when it failed)
    ends: dict[str, int]  # topic → end offset (summed over partitions) once the batch is done


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    started: float | None  # mtime of `metadata`: the query was created (session and job set up)
    batches: tuple[Batch, ...]

    def committed(self, after: int = -1) -> list[Batch]:
        return [b for b in self.batches if b.id > after and b.committed is not None]

    def last_id(self) -> int:
        return max((b.id for b in self.batches), default=-1)

    def ends(self) -> dict[str, int]:
        """The end offsets of the last committed batch (what the query has fully processed)."""
        done = self.committed()
        return done[-1].ends if done else {}


def parse_offsets(text: str) -> dict[str, int]:
    """A Kafka source's line of an `offsets/<n>` file (`v1`, the batch metadata, then one JSON line per source:
    {"topic": {"partition": next offset}}) → topic → end offset summed over partitions."""
    ends: dict[str, int] = {}
    for line in text.splitlines()[2:]:
        line = line.strip()
        if not line.startswith("{"):
            continue
        doc = json.loads(line)
        for topic, parts in doc.items():
            if isinstance(parts, dict):
                ends[topic] = ends.get(topic, 0) + sum(int(v) for v in parts.values())
    return ends


def _numbered(folder: Path) -> dict[int, Path]:
    if not folder.is_dir():
        return {}
    return {int(p.name): p for p in folder.iterdir() if p.name.isdigit()}


def read_checkpoint(path: Path) -> Checkpoint:
    meta = path / "metadata"
    offsets, commits = _numbered(path / "offsets"), _numbered(path / "commits")
    batches = []
    for n in sorted(offsets):
        try:
            planned, text = offsets[n].stat().st_mtime, offsets[n].read_text()
        except OSError:  # being written
            continue
        committed = commits[n].stat().st_mtime if n in commits else None
        batches.append(Batch(n, planned, committed, parse_offsets(text)))
    return Checkpoint(meta.stat().st_mtime if meta.exists() else None, tuple(batches))


def query_window(checkpoints: Iterable[Checkpoint], after: int = -1) -> tuple[float, float, int] | None:
    """(first batch planned, last batch committed, batches) over one or more queries' checkpoints, counting the
    batches after id `after`; None when no batch was committed."""
    done = [b for c in checkpoints for b in c.committed(after)]
    if not done:
        return None
    last = max(b.committed for b in done if b.committed is not None)
    return min(b.planned for b in done), last, len(done)


# --------------------------------------------------------------------------------------------------------------------
# Delta


@dataclasses.dataclass(frozen=True)
class Version:
    version: int
    visible: float  # mtime of _delta_log/<version>.json
    added: tuple[str, ...]  # data files added, relative to the table (URL-decoded)
    columns: dict[str, str] | None  # logical → physical column names when this version set the metadata


def parse_commit(version: int, visible: float, text: str) -> Version:
    added: list[str] = []
    columns: dict[str, str] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        action = json.loads(line)
        if "add" in action:
            added.append(unquote(action["add"]["path"]))
        elif "metaData" in action:
            columns = physical_names(action["metaData"])
    return Version(version, visible, tuple(added), columns)


def physical_names(meta: dict[str, Any]) -> dict[str, str]:
    """Top-level column names as the Parquet files hold them: the same, unless column mapping renamed them."""
    fields = json.loads(meta.get("schemaString") or '{"fields": []}').get("fields", [])
    mapped = (meta.get("configuration") or {}).get("delta.columnMapping.mode", "none") != "none"
    out = {}
    for f in fields:
        physical = (f.get("metadata") or {}).get("delta.columnMapping.physicalName") if mapped else None
        out[f["name"]] = physical or f["name"]
    return out


def read_versions(table: Path, after: int = -1) -> list[Version]:
    """The versions of the Delta table at `table` after `after`, in order (none when it does not exist yet)."""
    log = table / "_delta_log"
    if not log.is_dir():
        return []
    out = []
    for p in sorted(log.glob("*.json")):
        stem = p.name.removesuffix(".json")
        if not stem.isdigit() or int(stem) <= after:
            continue
        try:
            out.append(parse_commit(int(stem), p.stat().st_mtime, p.read_text()))
        except (OSError, json.JSONDecodeError):  # being written: the next read has it
            break
    return out


@dataclasses.dataclass
class FirstSeen:
    """Per row (by key) the time the first Delta version holding it became visible, read version by version."""

    table: Path
    key: str
    stamp: str  # a column carried along (the row's commit time in ms)
    seen: dict[int, tuple[int, float]] = dataclasses.field(default_factory=dict)  # key → (stamp, visible)
    _after: int = -1
    _files: set[str] = dataclasses.field(default_factory=set)
    _columns: dict[str, str] = dataclasses.field(default_factory=dict)

    def skip_to(self, version: int) -> None:
        """Ignore the versions up to `version` (rows already there count as seen before the window)."""
        for v in read_versions(self.table, -1):
            if v.columns is not None:
                self._columns = v.columns
            if v.version <= version:
                self._files.update(v.added)
        self._after = version

    def update(self) -> int:
        """Read the versions that appeared since the last call; returns the number of keys newly seen."""
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        found = 0
        for v in read_versions(self.table, self._after):
            if v.columns is not None:
                self._columns = v.columns
            key, stamp = self._columns.get(self.key, self.key), self._columns.get(self.stamp, self.stamp)
            for rel in v.added:
                if rel in self._files:  # a file re-added (a deletion vector): its rows were seen before
                    continue
                self._files.add(rel)
                data = pq.read_table(self.table / rel, columns=[key, stamp]).to_pydict()
                for k, s in zip(data[key], data[stamp], strict=True):
                    if k is not None and k not in self.seen:
                        self.seen[int(k)] = (int(s), v.visible)
                        found += 1
            self._after = v.version
        return found


def last_version(table: Path) -> int:
    versions = read_versions(table)
    return versions[-1].version if versions else -1


# --------------------------------------------------------------------------------------------------------------------
# windows and distributions


@dataclasses.dataclass(frozen=True)
class Sample:
    at: float  # wall time
    busy: float  # machine busy jiffies
    total: float  # machine total jiffies
    cpu_s: float  # CPU seconds of the process group so far


def window_usage(samples: Sequence[Sample], start: float, end: float) -> dict[str, float]:
    """Machine busy % and the process group's CPU (s, and % of one core) over [start, end], between the last sample
    at or before `start` and the first at or after `end` (the nearest ones when the window runs past them)."""
    if len(samples) < 2:
        return {}
    before = [s for s in samples if s.at <= start]
    after = [s for s in samples if s.at >= end]
    a = before[-1] if before else samples[0]
    b = after[0] if after else samples[-1]
    if b.at <= a.at:
        return {}
    wall = b.at - a.at
    return {
        "machine_busy_pct": round(100 * (b.busy - a.busy) / max(b.total - a.total, 1), 1),
        "process_cpu_s": round(b.cpu_s - a.cpu_s, 2),
        "process_cpu_pct": round(100 * (b.cpu_s - a.cpu_s) / wall, 1),
    }


def distribution(values_ms: Sequence[float]) -> dict[str, float]:
    """p50 / p90 / p99 (nearest rank) / max / mean of milliseconds."""
    ordered = sorted(values_ms)
    if not ordered:
        return {"count": 0, "p50_ms": math.nan, "p90_ms": math.nan, "p99_ms": math.nan, "max_ms": math.nan}

    def pct(q: float) -> float:
        return round(float(ordered[min(len(ordered), max(1, math.ceil(q * len(ordered)))) - 1]), 1)

    return {
        "count": len(ordered),
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": round(float(ordered[-1]), 1),
        "mean_ms": round(sum(ordered) / len(ordered), 1),
    }
