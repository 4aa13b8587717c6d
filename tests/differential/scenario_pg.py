"""A fixed PostgreSQL scenario run through the REAL Kafka Connect + Debezium: snapshot, inserts in one transaction,
update, delete (tombstone), primary-key change; with transaction metadata. Shared by the smoke test and by
capture_golden.py, so the golden fixtures are exactly what the test checks.

One token names everything of a run: database, replication slot, publication, topic.prefix and connector name
(`<token>.public.customers`, `<token>.transaction`). Golden fixtures use the token `cwgolden`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import psycopg

from tests.differential.debezium import (
    MASK,
    CapturedRecord,
    ConnectDebezium,
    RestAnswer,
    collect_records,
    drop_replication_slot,
    dumps,
    java_partition,
    loads,
    mask_offset_record,
    mask_record,
    pg_dsn,
    postgres_connector_config,
    read_topic,
    scratch_database,
)

GOLDEN_TOKEN = "cwgolden"
GOLDEN_PG_PORT = 5433  # the PostgreSQL port the golden files were captured with (it shows in REST config maps)
TABLE = "customers"

DDL = (
    "CREATE TABLE public.customers (id int PRIMARY KEY, email text, balance numeric(10,2), created date,"
    " ts timestamptz, tags text[], payload jsonb, amount numeric)"
)
# Row 1 exists before the connector starts: it comes as a snapshot read (op "r").
SNAPSHOT_ROWS = (
    "INSERT INTO public.customers VALUES (1, 'a@x.org', 12.34, '2024-01-02', '2024-01-02 03:04:05.123456+00',"
    " '{a,b}', '{\"k\": 1}', 3.14159)",
)
# Each inner tuple is one transaction, run after the connector is RUNNING and the snapshot record arrived.
TRANSACTIONS: tuple[tuple[str, ...], ...] = (
    (
        "INSERT INTO public.customers VALUES (2, 'b@x.org', -5.50, '1969-12-31', '1970-01-01 00:00:00+00',"
        " '{}', '[1, 2]', 1e-7)",
        "INSERT INTO public.customers VALUES (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    ),
    ("UPDATE public.customers SET email = 'b2@x.org', balance = 0 WHERE id = 2",),
    ("DELETE FROM public.customers WHERE id = 3",),
    ("UPDATE public.customers SET id = 10 WHERE id = 1",),
)
# r1 | c2 c3 | u2 | d3 tombstone3 | d1 tombstone1 c10
EXPECTED_OPS = ["r", "c", "c", "u", "d", None, "d", None, "c"]
# BEGIN/END per streamed transaction; the snapshot has none.
EXPECTED_TX_RECORDS = 2 * len(TRANSACTIONS)

REST_PATHS = (
    "/",
    "/connectors",
    "/connectors/{c}",
    "/connectors/{c}/status",
    "/connectors/{c}/tasks",
    "/connectors/{c}/tasks/0/status",
    "/connectors/{c}/topics",
    "/connectors/{c}/offsets",
    "/connector-plugins",
    "/connector-plugins?connectorsOnly=false",
    "/connectors/nope",
    "/connectors/nope/status",
)


@dataclass
class ScenarioRun:
    token: str
    connector: str
    data_topic: str
    transaction_topic: str
    data: list[CapturedRecord] = field(default_factory=list)
    transaction: list[CapturedRecord] = field(default_factory=list)
    offsets: list[CapturedRecord] = field(default_factory=list)
    rest: list[RestAnswer] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    pg_port: int = GOLDEN_PG_PORT


def connector_config(token: str, pg_port: int) -> dict[str, str]:
    return postgres_connector_config(
        prefix=token,
        dbname=token,
        slot=token,
        publication=token,
        tables=["public." + TABLE],
        pg_port=pg_port,
        **{"provide.transaction.metadata": "true"},
    )


def _offset_key(token: str) -> bytes:
    return ('["' + token + '",{"server":"' + token + '"}]').encode()


def _wait_offset(connect: ConnectDebezium, token: str, done: Any, what: str, timeout: float = 60.0) -> None:
    """Wait until GET /connectors/<token>/offsets shows an offset for which `done(offset)` holds (the worker
    flushes every offset.flush.interval.ms)."""
    deadline = time.monotonic() + timeout
    seen: Any = None
    while time.monotonic() < deadline:
        answer = connect.get(f"/connectors/{token}/offsets")
        if answer.status == 200:
            seen = answer.json()
            if any(done(entry.get("offset") or {}) for entry in seen["offsets"]):
                return
        time.sleep(0.25)
    raise TimeoutError(f"no offset {what} within {timeout} s: {seen}")


def run_customers_scenario(
    connect: ConnectDebezium, *, token: str, pg_port: int = 5433, timeout: float = 120.0
) -> ScenarioRun:
    """Run the scenario end to end; always deletes the connector, its slot, publication and database."""
    bootstrap = connect.kafka_bootstrap
    run = ScenarioRun(
        token=token,
        connector=token,
        data_topic=f"{token}.public.{TABLE}",
        transaction_topic=f"{token}.transaction",
        pg_port=pg_port,
    )
    t0 = time.monotonic()
    connect.note_token(token)
    with scratch_database(token, port=pg_port) as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(DDL)
            for sql in SNAPSHOT_ROWS:
                conn.execute(sql)
        created = False
        try:
            connect.create_connector(token, connector_config(token, pg_port))
            created = True
            connect.wait_running(token, timeout=timeout)
            run.timings["connector_running_s"] = time.monotonic() - t0
            collect_records(bootstrap, {run.data_topic: 1}, timeout=timeout, settle=0)
            run.timings["snapshot_s"] = time.monotonic() - t0
            # the snapshot's own offset record is flushed before any change, so the offsets topic is deterministic
            _wait_offset(connect, token, lambda o: o.get("snapshot_completed") is True, "for the snapshot", timeout)
            with psycopg.connect(dsn) as conn:
                for tx in TRANSACTIONS:
                    with conn.transaction():
                        for sql in tx:
                            conn.execute(sql)
            t1 = time.monotonic()
            records = collect_records(
                bootstrap,
                {run.data_topic: len(EXPECTED_OPS), run.transaction_topic: EXPECTED_TX_RECORDS},
                timeout=timeout,
                settle=1.5,
            )
            run.timings["streaming_s"] = time.monotonic() - t1
            run.data = [r for r in records if r.topic == run.data_topic]
            run.transaction = [r for r in records if r.topic == run.transaction_topic]
            last_lsn = max(int(loads(r.value)["payload"]["source"]["lsn"]) for r in run.data if r.value is not None)
            _wait_offset(
                connect, token, lambda o: int(o.get("lsn_commit") or 0) >= last_lsn, f"past LSN {last_lsn}", timeout
            )
            run.offsets = [r for r in read_topic(bootstrap, connect.offset_topic) if r.key == _offset_key(token)]
            for path in REST_PATHS:
                run.rest.append(connect.get(path.format(c=token)))
        finally:
            # Each step on its own: a dead worker must not keep the slot (then inactive) from being dropped.
            # scratch_database drops the database (and any slot still on it) in any case.
            try:
                if created:
                    connect.delete_connector(token)
            finally:
                drop_replication_slot(pg_dsn("postgres", port=pg_port), token)
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f'DROP PUBLICATION IF EXISTS "{token}"')
    run.timings["total_s"] = time.monotonic() - t0
    return run


# ----------------------------------------------------------------------------------------------------------------
# Golden views: the masked, name-normalised form stored under tests/differential/golden/.


def normaliser(run: ScenarioRun) -> dict[str, str]:
    return {} if run.token == GOLDEN_TOKEN else {run.token: GOLDEN_TOKEN}


def data_rows(run: ScenarioRun) -> list[dict[str, Any]]:
    return [mask_record(r, normalise=normaliser(run)) for r in run.data]


def transaction_rows(run: ScenarioRun) -> list[dict[str, Any]]:
    return [mask_record(r, normalise=normaliser(run)) for r in run.transaction]


def offset_rows(run: ScenarioRun) -> list[dict[str, Any]]:
    """The first (snapshot completed) and the last offsets-topic record of the connector's source partition (how
    many flushes happen in between varies); the worker's run-specific offsets topic is named `connect-offsets`."""
    chosen = run.offsets[:1] + run.offsets[-1:] if len(run.offsets) > 1 else run.offsets
    rows = [mask_offset_record(r, normalise=normaliser(run)) for r in chosen]
    for row in rows:
        row["topic"] = "connect-offsets"
    return rows


_REST_VOLATILE = ("kafka_cluster_id", "worker_id")
_OFFSET_VOLATILE = ("lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec", "transaction_id")


def _mask_rest(doc: Any) -> Any:
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in _REST_VOLATILE and v is not None:
                doc[k] = MASK
            elif k == "offset" and isinstance(v, dict):
                for ok in _OFFSET_VOLATILE:
                    if v.get(ok) is not None:
                        v[ok] = MASK
            else:
                _mask_rest(v)
    elif isinstance(doc, list):
        for v in doc:
            _mask_rest(v)
    return doc


def _golden_port(doc: Any, port: int) -> Any:
    """The run's `database.port` written as the golden files' (a run on another PostgreSQL port, e.g. in CI)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "database.port" and v == str(port):
                doc[k] = str(GOLDEN_PG_PORT)
            else:
                _golden_port(v, port)
    elif isinstance(doc, list):
        for v in doc:
            _golden_port(v, port)
    return doc


def rest_rows(run: ScenarioRun) -> list[dict[str, Any]]:
    """{"request","status","content_type","body"}; body parsed JSON, worker address / cluster id / LSNs masked,
    the run's token and PostgreSQL port replaced by the golden ones. (Config maps come back in Java HashMap
    order: compare parsed.)"""
    rows = []
    for a in run.rest:
        body_text = a.body.decode("utf-8")
        for old, new in normaliser(run).items():
            body_text = body_text.replace(old, new)
        path = a.path
        for old, new in normaliser(run).items():
            path = path.replace(old, new)
        body = _golden_port(_mask_rest(loads(body_text)), run.pg_port) if body_text else None
        rows.append({"request": f"{a.method} {path}", "status": a.status, "content_type": a.content_type, "body": body})
    return rows


def offsets_partition_ok(run: ScenarioRun, partitions: int = 25) -> bool:
    """Every offsets record of the run sits in the partition Java's murmur2 gives for its key bytes."""
    return all(r.key is not None and r.partition == java_partition(r.key, partitions) for r in run.offsets)


def describe(run: ScenarioRun) -> str:
    return dumps({"token": run.token, "timings": {k: round(v, 2) for k, v in run.timings.items()}})
