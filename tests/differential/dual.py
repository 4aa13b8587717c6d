"""One scenario through BOTH the real Debezium 3.6.3 (on the session's Kafka Connect 4.3.1) and this project's worker,
at the same time, on the same database, each with its own slot, publication and topic prefix; then the records of
every topic compared one by one.

The two prefixes have the same length (`dz<hex>` and `cw<hex>`) and are both rewritten to `PFX` before comparing;
everything else a record holds must be equal but the volatile fields debezium.py masks (timestamps, LSNs, txIds,
the run id). Both slots decode the same WAL, so the streamed changes are the same changes in the same order.

A scenario (`Scenario`): DDL and rows before the connectors start (the snapshot), transactions after both
snapshots were read (the stream), the connector options to use. The stream ends with a row in a sentinel table;
once both sides wrote it, the topics are read to their ends until nothing more arrives.

Nothing here imports the project's code: the harness stays independent of what it checks.
"""

from __future__ import annotations

import contextlib
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from connect_worker.kafka.reader import watermarks
from tests import names
from tests.differential.debezium import (
    CapturedRecord,
    ConnectDebezium,
    delete_topics,
    drop_replication_slot,
    dumps,
    loads,
    mask_record,
    pg_dsn,
    postgres_connector_config,
    read_topic,
    scratch_database,
)

SENTINEL_TABLE = "zz_sentinel"
SENTINEL_DDL = f"CREATE TABLE public.{SENTINEL_TABLE} (id int PRIMARY KEY)"
NORMALISED_PREFIX = "PFX"

Statement = str | Callable[[psycopg.Connection[Any]], None]

#: A transaction of its own that waits until both workers wrote everything before it (a sentinel row each time):
#: DDL after it is not yet in the catalog when the workers read the changes before it.
SYNC = "-- sync"


@dataclass(frozen=True)
class KnownDifference:
    """A difference from Debezium this worker keeps on purpose: a value Debezium corrupts or loses. It covers one
    field (by name, in `before` or `after`) with exactly this pair of values, nothing else."""

    field: str
    debezium: Any
    ours: Any
    reason: str

    def covers(self, d: tuple[str, Any, Any]) -> bool:
        path, debezium, ours = d
        return (
            path.rsplit(".", 1)[-1] == self.field
            and (".payload.after." in path or ".payload.before." in path)
            and dumps(debezium) == dumps(self.debezium)
            and dumps(ours) == dumps(self.ours)
        )


@dataclass(frozen=True)
class Scenario:
    """What both connectors see. `tables` are `schema.table` names of the include list (the sentinel is added).
    `setup` runs before the connectors start (DDL and snapshot rows); `snapshot_records` is how many records the
    snapshot gives (both sides wait for that many before the stream starts); each inner sequence of
    `transactions` is one transaction; `config` is added to both connectors' configs."""

    name: str
    tables: Sequence[str]
    setup: Sequence[Statement]
    snapshot_records: int
    transactions: Sequence[Sequence[Statement]] = ()
    config: Mapping[str, str] = field(default_factory=dict)
    #: statements run before the connectors start that must not be in a transaction (CREATE EXTENSION, …)
    setup_autocommit: bool = True
    #: differences kept on purpose (each documented in the README's list of deviations)
    known: tuple[KnownDifference, ...] = ()
    #: config of one side only, by side name ("debezium", "ours"): e.g. each side's own converter class
    side_config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass
class Side:
    """What one worker wrote: every record of every topic under its prefix, by topic (prefix normalised)."""

    prefix: str
    topics: dict[str, list[CapturedRecord]] = field(default_factory=dict)
    status: Any = None
    log_tail: str = ""

    def views(self, topic: str) -> list[dict[str, Any]]:
        return [
            _mask_identity_hashes(mask_record(r, normalise={self.prefix: NORMALISED_PREFIX}))
            for r in self.topics.get(topic, [])
        ]


@dataclass
class DualRun:
    scenario: Scenario
    debezium: Side
    ours: Side
    timings: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    #: the reasons of the known differences this run showed (differences() fills it)
    known_seen: set[str] = field(default_factory=set)

    def topic_names(self) -> list[str]:
        return sorted(set(self.debezium.topics) | set(self.ours.topics))

    def differences(self) -> list[str]:
        """Every difference, as readable lines: missing topics, record counts, and per record the JSON paths whose
        values differ (schema and payload), keys byte for byte, headers in order."""
        out: list[str] = []
        if self.error:
            out.append(f"run failed: {self.error}")
        for topic in self.topic_names():
            expected, actual = self.debezium.views(topic), self.ours.views(topic)
            if topic not in self.ours.topics:
                out.append(f"{topic}: only Debezium wrote it ({len(expected)} records)")
                continue
            if topic not in self.debezium.topics:
                out.append(f"{topic}: only this worker wrote it ({len(actual)} records)")
                continue
            if len(expected) != len(actual):
                out.append(
                    f"{topic}: {len(expected)} records from Debezium, {len(actual)} from this worker; ops "
                    f"{_ops(expected)} vs {_ops(actual)}"
                )
            for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
                where = f"{topic}[{i}]"
                if e["key"] != a["key"]:
                    out.append(f"{where} key:\n    debezium {e['key']}\n    ours     {a['key']}")
                for d in json_diff(e["value"], a["value"]):
                    reason = next((k.reason for k in self.scenario.known if k.covers(d)), None)
                    if reason is None:
                        out.append(f"{where} value{_show(d)}")
                    else:
                        self.known_seen.add(reason)
                if e["headers"] != a["headers"]:
                    out.append(f"{where} headers:\n    debezium {e['headers']}\n    ours     {a['headers']}")
            out.extend(self._wal_position_differences(topic))
        return out

    def _wal_position_differences(self, topic: str) -> list[str]:
        """The masks hide the source block's positions and times, but both slots decode the same WAL: a streamed
        change has the same LSN, txId and commit time on both sides, and `sequence` ([last commit LSN, LSN]) must
        be equal too, whatever other WAL (other scenarios' databases, checkpoints) got written between the
        transactions; so must the `txId:lsn` ids of transaction metadata and their times."""
        if topic.endswith(f".public.{SENTINEL_TABLE}"):
            return []  # the harness's own rows (see run_dual: the first one's last commit may differ)
        out = []
        pairs = zip(self.debezium.topics[topic], self.ours.topics[topic], strict=False)
        for i, (e, a) in enumerate(pairs):
            expected, actual = _wal_position(e), _wal_position(a)
            if expected is not None and expected != actual:
                out.append(f"{topic}[{i}] WAL-derived fields: debezium {expected}\n    ours     {actual}")
        return out


#: what a streamed change's source block takes from the WAL (masked in the record comparison as volatile)
WAL_FIELDS = ("lsn", "sequence", "txId", "ts_ms", "ts_us", "ts_ns")


def _wal_position(rec: CapturedRecord) -> tuple[Any, ...] | None:
    """The WAL-derived values the masks hide, of a streamed change event in JSON (its WAL_FIELDS and its
    transaction block's `txId:lsn` id) or of a transaction-metadata record (its id and time), else None
    (snapshot reads, heartbeats, tombstones, Avro records, …)."""
    try:
        value = rec.value_json()
    except ValueError:  # not JSON (an Avro scenario)
        return None
    payload = value.get("payload") if isinstance(value, dict) else None
    if not isinstance(payload, dict):
        return None
    if payload.get("status") in ("BEGIN", "END"):
        return payload.get("id"), payload.get("ts_ms")
    source = payload.get("source")
    if not isinstance(source, dict) or source.get("snapshot") != "false":
        return None
    transaction = payload.get("transaction")
    tx_id = transaction.get("id") if isinstance(transaction, dict) else None
    return (*(source.get(f) for f in WAL_FIELDS), tx_id)


_IDENTITY_HASH = re.compile(r"(LogicalDecodingMessageId)@[0-9a-f]+")


def _mask_identity_hashes(view: dict[str, Any]) -> dict[str, Any]:
    """A logical decoding message's `data_collection` in the transaction metadata is a Java object's toString, which
    ends in its identity hash code (a different one in every JVM run): the hash is masked, the rest compared."""
    value = view.get("value")
    payload = value.get("payload") if isinstance(value, dict) else None
    if isinstance(payload, dict) and isinstance(payload.get("data_collections"), list):
        for entry in payload["data_collections"]:
            if isinstance(entry, dict) and isinstance(entry.get("data_collection"), str):
                entry["data_collection"] = _IDENTITY_HASH.sub(r"\1@<masked>", entry["data_collection"])
    return view


def _ops(views: Sequence[Mapping[str, Any]]) -> str:
    ops = []
    for v in views:
        value = v["value"]
        payload = value.get("payload") if isinstance(value, dict) and "payload" in value else value
        ops.append("-" if payload is None else str(payload.get("op", "?")) if isinstance(payload, dict) else "?")
    return "".join(ops)


Difference = tuple[str, Any, Any]  # (JSON path, Debezium's value, ours); the values are None for a key-order line


def json_diff(expected: Any, actual: Any, path: str = "") -> list[Difference]:
    """The paths at which two parsed JSON documents differ (key order included)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found: list[Difference] = []
        if list(expected) != list(actual):
            found.append((f"{path} keys", list(expected), list(actual)))
        for k in expected:
            if k in actual:
                found.extend(json_diff(expected[k], actual[k], f"{path}.{k}"))
        return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        found = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found.extend(json_diff(e, a, f"{path}[{i}]"))
        return found
    if dumps(expected) != dumps(actual) or type(expected) is not type(actual):
        return [(path, expected, actual)]
    return []


def _show(d: Difference) -> str:
    return f"{d[0]}: debezium {dumps(d[1])[:400]}\n    ours     {dumps(d[2])[:400]}"


def _run_statements(conn: psycopg.Connection[Any], statements: Sequence[Statement]) -> None:
    for s in statements:
        if callable(s):
            s(conn)
        else:
            conn.execute(s)


def _topics_with_prefix(bootstrap: str, prefix: str) -> list[str]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    return sorted(t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix + "."))


def _count(bootstrap: str, topic: str) -> int:
    """Records in `topic` (the sum of its partitions' high watermarks: the harness's topics are never compacted
    or written transactionally)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "dual-count-" + uuid.uuid4().hex[:8]})
    try:
        md = consumer.list_topics(topic=topic, timeout=5).topics.get(topic)
        if md is None or md.error is not None:
            return 0
        return sum(watermarks(consumer, TopicPartition(topic, p), 5)[1] for p in md.partitions)
    finally:
        consumer.close()


def _wait(what: str, done: Callable[[], bool], timeout: float, on_timeout: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done():
            return
        time.sleep(0.3)
    raise TimeoutError(f"{what} within {timeout} s: {on_timeout()}")


def _read_all(bootstrap: str, prefix: str) -> dict[str, list[CapturedRecord]]:
    return {
        t.replace(prefix, NORMALISED_PREFIX, 1): read_topic(bootstrap, t, timeout=30)
        for t in _topics_with_prefix(bootstrap, prefix)
    }


def run_dual(
    scenario: Scenario,
    *,
    debezium: ConnectDebezium,
    ours: ConnectDebezium,
    pg_port: int,
    timeout: float = 120.0,
) -> DualRun:
    """Run `scenario` through both workers; always removes both connectors, their slots, publications, topics and
    the database. A failure of either side is recorded in the result (with its status and log tail)."""
    hex_ = names.unique("", 10)
    dbname = "db" + hex_
    sides = {"debezium": (debezium, Side("dz" + hex_)), "ours": (ours, Side("cw" + hex_))}
    bootstrap = debezium.kafka_bootstrap
    run = DualRun(scenario, sides["debezium"][1], sides["ours"][1])
    t0 = time.monotonic()
    for worker, side in sides.values():
        worker.note_token(dbname)
        worker.note_token(side.prefix)
    tables = [*scenario.tables, f"public.{SENTINEL_TABLE}"]
    created: list[tuple[ConnectDebezium, Side]] = []
    with scratch_database(dbname, port=pg_port) as dsn:
        try:
            with psycopg.connect(dsn, autocommit=scenario.setup_autocommit) as conn:
                _run_statements(conn, [*scenario.setup, SENTINEL_DDL])
                if not scenario.setup_autocommit:
                    conn.commit()
            for side_name, (worker, side) in sides.items():
                own = {**scenario.config, **scenario.side_config.get(side_name, {})}
                config = postgres_connector_config(
                    prefix=side.prefix,
                    dbname=dbname,
                    slot=side.prefix,
                    publication=side.prefix,
                    tables=tables,
                    pg_port=pg_port,
                    # `{prefix}` in a value is the side's own prefix (a topic name of its own)
                    **{k: v.replace("{prefix}", side.prefix) for k, v in own.items()},
                )
                worker.create_connector(side.prefix, config)
                created.append((worker, side))
            for worker, side in sides.values():
                worker.wait_running(side.prefix, timeout=timeout)
            run.timings["running_s"] = time.monotonic() - t0

            def snapshots_read() -> bool:
                return all(
                    sum(_count(bootstrap, t) for t in _topics_with_prefix(bootstrap, side.prefix))
                    >= scenario.snapshot_records
                    for _, side in sides.values()
                )

            _wait("snapshot records", snapshots_read, timeout, lambda: _status(sides))
            run.timings["snapshot_s"] = time.monotonic() - t0
            sentinels = 0

            def sync(conn: psycopg.Connection[Any]) -> None:
                nonlocal sentinels
                sentinels += 1
                conn.execute(f"INSERT INTO public.{SENTINEL_TABLE} VALUES ({sentinels})")
                conn.commit()
                for _, side in sides.values():
                    topic = f"{side.prefix}.public.{SENTINEL_TABLE}"

                    def written(topic: str = topic) -> bool:
                        return _count(bootstrap, topic) >= sentinels

                    _wait(f"{side.prefix}: sentinel row {sentinels}", written, timeout, lambda: _status(sides))

            with psycopg.connect(dsn) as conn:
                # A slot decodes no transaction that was running when it was created: the second slot, whose
                # creation waited for the first side's snapshot transaction to end, never sees that commit, which
                # the first side takes as its last commit. A sentinel first makes one commit, after both snapshots,
                # the last commit before the scenario on both sides (the sentinel topic's own WAL positions are
                # not compared).
                sync(conn)
                for tx in scenario.transactions:
                    if list(tx) == [SYNC]:
                        sync(conn)
                        continue
                    with conn.transaction():
                        _run_statements(conn, tx)
                sync(conn)
            # read until two reads in a row (a second apart) give the same counts: records of other topics may be
            # acknowledged after the sentinel's
            previous: dict[str, dict[str, int]] = {}
            while True:
                current = {}
                for name, (_, side) in sides.items():
                    side.topics = _read_all(bootstrap, side.prefix)
                    current[name] = {t: len(rs) for t, rs in side.topics.items()}
                if current == previous:
                    break
                previous = current
                time.sleep(1.0)
            run.timings["stream_s"] = time.monotonic() - t0
        except Exception as e:  # noqa: BLE001 - recorded in the result with both sides' state
            run.error = f"{type(e).__name__}: {e}"
            for worker, side in sides.values():
                with contextlib.suppress(Exception):
                    side.status = worker.get(f"/connectors/{side.prefix}/status").json()
                side.log_tail = worker.log_tail(60)
        finally:
            for worker, side in created:
                with contextlib.suppress(Exception):
                    worker.delete_connector(side.prefix)
            for _, side in sides.values():
                with contextlib.suppress(Exception):
                    drop_replication_slot(pg_dsn("postgres", port=pg_port), side.prefix)
                with contextlib.suppress(Exception), psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f'DROP PUBLICATION IF EXISTS "{side.prefix}"')
    for _, side in sides.values():
        with contextlib.suppress(Exception):
            delete_topics(bootstrap, _topics_with_prefix(bootstrap, side.prefix))
    run.timings["total_s"] = time.monotonic() - t0
    return run


def _status(sides: Mapping[str, tuple[ConnectDebezium, Side]]) -> str:
    parts = []
    for name, (worker, side) in sides.items():
        try:
            status = worker.get(f"/connectors/{side.prefix}/status").json()
        except Exception as e:  # noqa: BLE001
            status = repr(e)
        parts.append(f"{name}: {dumps(status)}")
    return "; ".join(parts)


def describe(run: DualRun) -> str:
    return dumps(
        {
            "scenario": run.scenario.name,
            "timings": {k: round(v, 1) for k, v in run.timings.items()},
            "records": {
                t: (len(run.debezium.topics.get(t, [])), len(run.ours.topics.get(t, []))) for t in run.topic_names()
            },
            "known_differences": sorted(run.known_seen),
        }
    )


__all__ = ["SYNC", "DualRun", "KnownDifference", "Scenario", "Side", "describe", "json_diff", "loads", "run_dual"]
