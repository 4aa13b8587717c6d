"""The Spark sink phase's source workload: SINK_TABLES tables, a mix of inserts, updates of existing keys and deletes,
applied in PostgreSQL so that this worker turns them into real change events; per-table checksums to compare the
Delta tables with.

The plan is pure (`plan_rounds`): ids are handed out per table in order, deletes take the oldest live ids and updates
a seeded random sample of the live ones, so the live ids of a table are always the range [low, next) and every
statement changes exactly as many rows as it plans (one change event each).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation

from psycopg import sql

from benchmarks.pgload import Pace, PgConn, RateRun

#: one table: exact types for the sink (numeric, timestamptz, jsonb, bool, text); `ins_ms` is the client-independent
#: commit-time stamp the lag figure uses (clock_timestamp() in ms when the row is written, in its transaction)
COLUMNS = """
    id bigint PRIMARY KEY,
    account bigint NOT NULL,
    name text NOT NULL,
    amount numeric(12,2) NOT NULL,
    version int NOT NULL,
    active bool,
    created timestamptz,
    updated timestamptz,
    doc jsonb,
    ins_ms bigint NOT NULL
"""
NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

INSERT = (
    "INSERT INTO {} SELECT g, g %% 1000, 'customer-' || g, (g %% 100000) / 100.0, 0, g %% 2 = 0,"
    " now() - (g %% 86400) * interval '1 second', clock_timestamp(),"
    " jsonb_build_object('sku', 'SKU-' || (g %% 5000), 'qty', g %% 17), " + NOW_MS + ""
    " FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS g"
)
UPDATE = (
    "UPDATE {} SET version = version + 1, amount = amount + 1.01, name = 'customer-' || id || '-v' || (version + 1),"
    " updated = clock_timestamp(), ins_ms = " + NOW_MS + " WHERE id = ANY(%(ids)s::bigint[])"
)
DELETE = "DELETE FROM {} WHERE id BETWEEN %(first)s AND %(last)s"

#: per table: row count, sum of ids, of versions, of amounts, and of a 32-bit hash of the name (the first 8 hex digits
#: of its md5); benchmarks/sinkspark.py computes the same over a Delta table
CHECKSUM = (
    "SELECT count(*), coalesce(sum(id), 0), coalesce(sum(version), 0), coalesce(sum(amount), 0),"
    " coalesce(sum(('x' || substr(md5(name), 1, 8))::bit(32)::bigint), 0) FROM {}"
)
CHECKSUM_FIELDS = ("rows", "sum_id", "sum_version", "sum_amount", "sum_name_hash")


@dataclasses.dataclass(frozen=True)
class Mix:
    """Shares of inserts, updates and deletes in the change events (deletes take what is left)."""

    insert: float = 0.6
    update: float = 0.3

    def split(self, events: int) -> tuple[int, int, int]:
        ins = round(events * self.insert)
        upd = min(round(events * self.update), ins)
        return ins, upd, max(0, events - ins - upd)


@dataclasses.dataclass
class Keyspace:
    """The live ids of one table: [low, next)."""

    low: int = 1
    next: int = 1

    @property
    def live(self) -> int:
        return self.next - self.low


@dataclasses.dataclass(frozen=True)
class Op:
    table: int
    kind: str  # insert | update | delete
    first: int = 0  # insert / delete: the id range [first, first + count)
    count: int = 0
    ids: tuple[int, ...] = ()  # update: the ids, sorted

    @property
    def events(self) -> int:
        return len(self.ids) if self.kind == "update" else self.count


def split_evenly(total: int, parts: int) -> list[int]:
    """`total` in `parts` integers that differ by at most one (the first ones larger)."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def plan_rounds(
    keys: Sequence[Keyspace], events: int, *, per_round: int, mix: Mix = Mix(), seed: int = 18
) -> Iterator[list[Op]]:
    """The workload as rounds (one transaction each): per table `per_round` events (the last round what is left),
    inserts first, then updates of random live ids (rows inserted before, this round's included), then deletes of the
    oldest live ids. `keys` is advanced as the rounds are generated. Exactly `events` events in all."""
    rng = random.Random(seed)
    left = split_evenly(events, len(keys))
    while any(left):
        ops: list[Op] = []
        for t, ks in enumerate(keys):
            n = min(per_round, left[t])
            if n == 0:
                continue
            left[t] -= n
            ins, upd, dele = mix.split(n)
            ops.append(Op(t, "insert", ks.next, ins))
            ks.next += ins
            if upd:
                ops.append(Op(t, "update", ids=tuple(sorted(rng.sample(range(ks.low, ks.next), upd)))))
            if dele:
                ops.append(Op(t, "delete", ks.low, dele))
                ks.low += dele
        yield ops


def create_tables(conn: PgConn, tables: Sequence[str]) -> None:
    for table in tables:
        conn.execute(sql.SQL("CREATE TABLE {} (" + COLUMNS + ")").format(sql.Identifier(table)))


def apply(conn: PgConn, tables: Sequence[str], ops: Sequence[Op]) -> None:
    """One round in one transaction; fails when a statement changes another number of rows than planned."""
    with conn.transaction():
        for op in ops:
            name = sql.Identifier(tables[op.table])
            if op.kind == "insert":
                cur = conn.execute(sql.SQL(INSERT).format(name), {"first": op.first, "last": op.first + op.count - 1})
            elif op.kind == "update":
                cur = conn.execute(sql.SQL(UPDATE).format(name), {"ids": list(op.ids)})
            else:
                cur = conn.execute(sql.SQL(DELETE).format(name), {"first": op.first, "last": op.first + op.count - 1})
            if cur.rowcount != op.events:
                raise RuntimeError(f"{tables[op.table]}: {op.kind} changed {cur.rowcount} rows, planned {op.events}")


def insert_at_rate(
    conn: PgConn, tables: Sequence[str], keys: Sequence[Keyspace], rate: int, seconds: float, tick_s: float = 0.1
) -> tuple[RateRun, list[tuple[int, int, int]]]:
    """Insert `rate` rows/s for `seconds`, spread over the tables: one transaction every `tick_s` inserting
    rate * tick_s rows (round-robin over the tables), on an absolute schedule. Returns the run and the id ranges
    inserted, (table, first, last)."""
    pace = Pace(rate, seconds, tick_s)
    shares = split_evenly(pace.per_tick, len(tables))
    ranges: dict[int, list[int]] = {}
    for i in pace:
        rotated = shares[i % len(shares) :] + shares[: i % len(shares)]
        ops = []
        for t, n in enumerate(rotated):
            if n:
                ops.append(Op(t, "insert", keys[t].next, n))
                ranges.setdefault(t, [keys[t].next, keys[t].next + n - 1])[1] = keys[t].next + n - 1
                keys[t].next += n
        apply(conn, tables, ops)
    return pace.run(), [(t, first, last) for t, (first, last) in sorted(ranges.items())]


def checksums(conn: PgConn, tables: Sequence[str]) -> dict[str, dict[str, str]]:
    """Per table the CHECKSUM_FIELDS, as strings (exact: numeric sums included)."""
    out = {}
    for table in tables:
        row = conn.execute(sql.SQL(CHECKSUM).format(sql.Identifier(table))).fetchone()
        assert row is not None
        out[table] = {k: normalise(v) for k, v in zip(CHECKSUM_FIELDS, row, strict=True)}
    return out


def normalise(value: object) -> str:
    """A checksum figure as text that PostgreSQL's and Spark's answers share: integers and decimals without
    trailing zeros (numeric 12.50 and Spark's Decimal('12.5') are one figure); anything else as it is."""
    try:
        d = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")
