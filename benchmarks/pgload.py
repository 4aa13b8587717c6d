"""The benchmark table and its load: realistic ~330 B rows (bigint, text, numeric, timestamptz, jsonb, bool)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import psycopg
from psycopg import sql
from psycopg.rows import TupleRow

from benchmarks.settings import LATENCY_TICK_S, PG_HOST, PG_PORT

PgConn = psycopg.Connection[TupleRow]

COLUMNS = """
    id bigint PRIMARY KEY,
    account bigint NOT NULL,
    name text,
    email text,
    amount numeric(12,2),
    created timestamptz,
    doc jsonb,
    active bool,
    note text
"""

# One generated row per g: ~330 B on the heap, ~560 B as a schemaless Debezium value.
ROWS_SELECT = """
SELECT g,
       g %% 100000,
       'customer-' || g,
       md5(g::text) || '@example.com',
       (g %% 100000) / 100.0,
       now() - (g %% 86400) * interval '1 second',
       jsonb_build_object('sku', 'SKU-' || (g %% 5000), 'qty', g %% 17, 'price', (g %% 1000) / 10.0,
                          'tags', jsonb_build_array('red', 'large', md5((g + 1)::text))),
       g %% 2 = 0,
       repeat(md5((g * 7)::text), 3)
FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS g
"""


def dsn(dbname: str) -> str:
    return f"host={PG_HOST} port={PG_PORT} user=postgres dbname={dbname}"


def connect(dbname: str) -> PgConn:
    return psycopg.connect(dsn(dbname), autocommit=True)


def create_table(conn: PgConn, table: str) -> None:
    conn.execute(sql.SQL("CREATE TABLE {} (" + COLUMNS + ")").format(sql.Identifier(table)))
    # pgoutput sends unchanged TOASTed values as 'u'; inserts only here, so the default identity is fine.


def insert_range(conn: PgConn, table: str, first: int, count: int) -> None:
    """One transaction inserting ids first .. first+count-1 (autocommit: the statement is the transaction)."""
    query = sql.SQL("INSERT INTO {} " + ROWS_SELECT).format(sql.Identifier(table))
    conn.execute(query, {"first": first, "last": first + count - 1})


@dataclasses.dataclass
class IdSource:
    """Hands out id ranges so that no phase inserts an id twice."""

    next_id: int = 1

    def take(self, count: int) -> int:
        first = self.next_id
        self.next_id += count
        return first


def load(conn: PgConn, table: str, ids: IdSource, rows: int, txn_rows: int) -> float:
    """Insert `rows` rows in transactions of `txn_rows`; returns the wall time in seconds."""
    start = time.perf_counter()
    left = rows
    while left > 0:
        n = min(txn_rows, left)
        insert_range(conn, table, ids.take(n), n)
        left -= n
    return time.perf_counter() - start


@dataclasses.dataclass(frozen=True)
class RateRun:
    rate: int
    seconds: float
    rows: int
    elapsed_s: float
    late_ticks: int  # ticks that started more than one tick late (the inserter could not keep the rate)

    @property
    def achieved_rate(self) -> float:
        return self.rows / self.elapsed_s if self.elapsed_s > 0 else 0.0


class Pace:
    """`rate` rows/s for `seconds` as an absolute schedule of ticks of `per_tick` rows each: iterating sleeps until
    each tick is due (the tick's index) and counts the ticks that came more than a tick late."""

    def __init__(self, rate: int, seconds: float, tick_s: float) -> None:
        self.rate, self.seconds = rate, seconds
        self.per_tick = max(1, round(rate * tick_s))
        self.tick = self.per_tick / rate
        self.ticks = max(1, round(seconds / self.tick))
        self.late = 0
        self.start = time.perf_counter()

    def __iter__(self) -> Iterator[int]:
        self.start = time.perf_counter()
        for i in range(self.ticks):
            due = self.start + i * self.tick
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
            elif now - due > self.tick:
                self.late += 1
            yield i

    def run(self) -> RateRun:
        """What the schedule achieved (call after iterating)."""
        return RateRun(self.rate, self.seconds, self.ticks * self.per_tick, time.perf_counter() - self.start, self.late)


def insert_at_rate(conn: PgConn, table: str, ids: IdSource, rate: int, seconds: float) -> RateRun:
    """Insert `rate` rows/s for `seconds`: one transaction of rate*tick rows every tick, on an absolute schedule."""
    pace = Pace(rate, seconds, LATENCY_TICK_S)
    for _ in pace:
        insert_range(conn, table, ids.take(pace.per_tick), pace.per_tick)
    return pace.run()


def drop_publication_and_slot(conn: PgConn, publication: str, slot: str) -> None:
    conn.execute(sql.SQL("DROP PUBLICATION IF EXISTS {}").format(sql.Identifier(publication)))
    drop_slot(conn, slot)


def drop_slot(conn: PgConn, slot: str, timeout: float = 30.0) -> None:
    """Drop `slot` once inactive; terminate its walsender when it is still active after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        row = conn.execute(
            "SELECT active, active_pid FROM pg_replication_slots WHERE slot_name = %s", (slot,)
        ).fetchone()
        if row is None:
            return
        active, pid = row
        if not active:
            try:
                conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
                return
            except psycopg.errors.ObjectInUse:
                pass
        elif time.monotonic() > deadline and pid is not None:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
        time.sleep(0.25)


def current_lsn(conn: PgConn) -> tuple[str, int]:
    """pg_current_wal_lsn() as text and as bytes from 0/0."""
    row = conn.execute("SELECT pg_current_wal_lsn()::text, pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()
    assert row is not None
    return str(row[0]), int(str(row[1]))


def slot_streaming(conn: PgConn, slot: str) -> bool:
    """The slot's walsender runs START_REPLICATION (a signal inserted now reaches the connector)."""
    row = conn.execute(
        "SELECT r.state = 'streaming' FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid"
        " WHERE s.slot_name = %s",
        (slot,),
    ).fetchone()
    conn.commit()
    return bool(row and row[0])
