"""The physical ceiling: pg_recvlogical (pgoutput proto 1) draining the same workload, no Kafka, no conversion.

Two slots see the same WAL (both created before the inserts):
* live: pg_recvlogical streams while the rows are inserted (exactly what the workers face); its stdout goes
  through a pipe that is only counted, and the span is first to last byte received;
* backlog: after the inserts, `pg_recvlogical --endpos=<lsn> -f /dev/null` drains the other slot
  (the method of peers-and-performance.md, Appendix): the walsender's decode rate without insert contention.
"""

from __future__ import annotations

import dataclasses
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

from psycopg import sql

from benchmarks import pgload
from benchmarks.settings import PG_BIN, PG_HOST, PG_PORT, TXN_ROWS


@dataclasses.dataclass(frozen=True)
class CeilingResult:
    rows: int
    insert_s: float  # wall time of the inserts (live slot streaming meanwhile)
    live_s: float
    live_bytes: int  # pgoutput bytes pg_recvlogical wrote (with its newline separators)
    backlog_s: float
    wal_bytes: int

    def as_dict(self) -> dict[str, float | int]:
        return {
            "rows": self.rows,
            "insert_s": round(self.insert_s, 3),
            "insert_rows_per_s": round(self.rows / self.insert_s, 1),
            "live_s": round(self.live_s, 3),
            "live_events_per_s": round(self.rows / self.live_s, 1),
            "live_pgoutput_mb_per_s": round(self.live_bytes / self.live_s / 1e6, 2),
            "backlog_s": round(self.backlog_s, 3),
            "events_per_s": round(self.rows / self.backlog_s, 1),
            "wal_mb_per_s": round(self.wal_bytes / self.backlog_s / 1e6, 2),
            "wal_bytes_per_row": round(self.wal_bytes / self.rows, 1),
        }


def _recvlogical(dbname: str, slot: str, publication: str, *extra: str) -> list[str]:
    return [
        str(Path(PG_BIN) / "pg_recvlogical"),
        "-h", PG_HOST, "-p", str(PG_PORT), "-U", "postgres", "-d", dbname,
        "-S", slot, "--start", "--no-loop", "-F", "0",
        "-o", "proto_version=1", "-o", f"publication_names={publication}",
        *extra,
    ]  # fmt: skip


class _Counter:
    """Reads a pipe to its end, counting bytes and stamping the first and last read."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.bytes = 0
        self.first = 0.0
        self.last = 0.0
        self._stream = stream
        self._thread = threading.Thread(target=self._run, name="recvlogical-reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        read = self._stream.read1 if hasattr(self._stream, "read1") else self._stream.read
        while True:
            chunk = read(1 << 20)
            if not chunk:
                return
            now = time.monotonic()
            if not self.bytes:
                self.first = now
            self.bytes += len(chunk)
            self.last = now

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


def measure(dbname: str, token: str, rows: int, *, timeout: float = 600.0) -> CeilingResult:
    table, publication = f"{token}_ceil", f"{token}_ceil_pub"
    live_slot, backlog_slot = f"{token}_ceil_live", f"{token}_ceil_backlog"
    ids = pgload.IdSource()
    with pgload.connect(dbname) as conn:
        pgload.create_table(conn, table)
        conn.execute(
            sql.SQL("CREATE PUBLICATION {} FOR TABLE {}").format(sql.Identifier(publication), sql.Identifier(table))
        )
        for slot in (live_slot, backlog_slot):
            conn.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (slot,))
        live: subprocess.Popen[bytes] | None = None
        try:
            live = subprocess.Popen(_recvlogical(dbname, live_slot, publication, "-f", "-"), stdout=subprocess.PIPE)
            assert live.stdout is not None
            counter = _Counter(live.stdout)
            time.sleep(0.5)  # let it connect and start streaming
            _, start_lsn = pgload.current_lsn(conn)
            insert_s = pgload.load(conn, table, ids, rows, TXN_ROWS)
            end_text, end_lsn = pgload.current_lsn(conn)
            # live: wait until nothing more arrives for 1 s (all committed changes were sent)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if live.poll() is not None:
                    raise RuntimeError(f"pg_recvlogical (live) exited with {live.returncode}")
                if counter.bytes and time.monotonic() - counter.last > 1.0:
                    break
                time.sleep(0.1)
            live.terminate()
            live.wait(30)
            counter.join(10)
            live_s = max(counter.last - counter.first, 1e-3)

            began = time.monotonic()
            subprocess.run(
                _recvlogical(dbname, backlog_slot, publication, f"--endpos={end_text}", "-f", "/dev/null"),
                check=True,
                timeout=timeout,
            )
            backlog_s = time.monotonic() - began
        finally:
            if live is not None and live.poll() is None:
                live.kill()
                live.wait(10)
            for slot in (live_slot, backlog_slot):
                pgload.drop_slot(conn, slot)
            conn.execute(sql.SQL("DROP PUBLICATION IF EXISTS {}").format(sql.Identifier(publication)))
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
    return CeilingResult(rows, insert_s, live_s, counter.bytes, backlog_s, end_lsn - start_lsn)
