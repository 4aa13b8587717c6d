"""Smoke test of the differential harness: the REAL Kafka Connect 4.3.1 + Debezium 3.6.3.Final PostgresConnector
runs on loopback, its change events, transaction records, offsets and REST answers are collected, and their shape
is checked against the spec's literal captures (kafka-connect.md §1.2, §2.1, §4.3, App. A) and against the golden
fixtures in golden/ (which capture_golden.py regenerates from the same scenario).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.differential import scenario_pg
from tests.differential.debezium import (
    MASK,
    POSTGRES_CONNECTOR,
    ConnectDebezium,
    compare_records,
    pg_dsn,
    read_jsonl,
)
from tests.differential.scenario_pg import ScenarioRun

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]

GOLDEN = Path(__file__).resolve().parent / "golden"

ENVELOPE_FIELDS = ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"]
SOURCE_FIELDS = [
    "version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "ts_us", "ts_ns",
    "schema", "table", "txId", "lsn", "xmin", "origin", "origin_lsn",
]  # fmt: skip
ROW_FIELDS = ["id", "email", "balance", "created", "ts", "tags", "payload", "amount"]
CONTEXT_HEADERS = [
    "__debezium.context.connectorLogicalName",
    "__debezium.context.taskId",
    "__debezium.context.connectorName",
    "__debezium.context.runId",
]


def _values(run: ScenarioRun) -> list[Any]:
    return [r.value_json() for r in run.data]


def test_worker_root_and_plugins(debezium_connect: ConnectDebezium) -> None:
    root = debezium_connect.get("/")
    assert root.status == 200
    assert root.content_type == "application/json"
    body = root.json()
    assert list(body) == ["version", "commit", "kafka_cluster_id"]
    assert body["version"] == "4.3.1"
    assert re.fullmatch(r"[0-9a-f]{16}", body["commit"])
    plugins = debezium_connect.get("/connector-plugins").json()
    assert {"class": POSTGRES_CONNECTOR, "type": "source", "version": "3.6.3.Final"} in plugins
    health = debezium_connect.get("/health")
    assert health.status == 200
    assert health.json()["status"] == "healthy"


def test_change_events_ops_and_tombstones(customers_run: ScenarioRun) -> None:
    values = _values(customers_run)
    assert [None if v is None else v["payload"]["op"] for v in values] == scenario_pg.EXPECTED_OPS
    keys = [r.key_json()["payload"] for r in customers_run.data]
    assert keys == [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 2}, {"id": 3}, {"id": 3}, {"id": 1}, {"id": 1}, {"id": 10}]
    # a tombstone follows each delete, on the same key bytes
    for i, v in enumerate(values):
        if v is None:
            assert values[i - 1]["payload"]["op"] == "d"
            assert customers_run.data[i].key == customers_run.data[i - 1].key
    assert all(r.partition == 0 for r in customers_run.data)


def test_envelope_shape_matches_the_spec(customers_run: ScenarioRun) -> None:
    prefix = customers_run.token
    for v in _values(customers_run):
        if v is None:
            continue
        assert list(v) == ["schema", "payload"]
        schema, payload = v["schema"], v["payload"]
        assert schema["name"] == f"{prefix}.public.customers.Envelope"
        assert schema["version"] == 2
        assert [f["field"] for f in schema["fields"]] == ENVELOPE_FIELDS
        assert list(payload) == ENVELOPE_FIELDS
        source_schema = schema["fields"][2]
        assert source_schema["name"] == "io.debezium.connector.postgresql.Source"
        assert [f["field"] for f in source_schema["fields"]] == SOURCE_FIELDS
        assert list(payload["source"]) == SOURCE_FIELDS
        for row in (payload["before"], payload["after"]):
            if row is not None:
                assert list(row) == ROW_FIELDS
        src = payload["source"]
        assert (src["version"], src["connector"], src["name"], src["db"]) == (
            "3.6.3.Final",
            "postgresql",
            prefix,
            prefix,
        )
        assert (src["schema"], src["table"]) == ("public", "customers")
        assert isinstance(src["lsn"], int) and isinstance(src["txId"], int)
        assert re.fullmatch(r'\[(null|"\d+"),"\d+"\]', src["sequence"])
        assert payload["ts_us"] // 1000 == payload["ts_ms"] and payload["ts_ns"] // 1000 == payload["ts_us"]
        if payload["op"] == "r":
            assert src["snapshot"] in ("first", "true", "last", "first_in_data_collection", "last_in_data_collection")
            assert payload["transaction"] is None
        else:
            assert src["snapshot"] == "false"
            tx = payload["transaction"]
            assert list(tx) == ["id", "total_order", "data_collection_order"]
            assert tx["id"].startswith(f"{src['txId']}:")
    first = _values(customers_run)[0]
    # spec App. A payload encodings
    assert first["payload"]["after"] == {
        "id": 1, "email": "a@x.org", "balance": "BNI=", "created": 19724, "ts": "2024-01-02T03:04:05.123456Z",
        "tags": ["a", "b"], "payload": '{"k": 1}', "amount": {"scale": 5, "value": "BMsv"},
    }  # fmt: skip


def test_key_schema_and_bytes(customers_run: ScenarioRun) -> None:
    prefix = customers_run.token
    key = customers_run.data[1].key
    assert (
        key
        == (
            '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],'
            f'"optional":false,"name":"{prefix}.public.customers.Key"}},"payload":{{"id":2}}}}'
        ).encode()
    )


def test_context_and_key_change_headers(customers_run: ScenarioRun) -> None:
    run_ids = set()
    for rec in customers_run.data:
        names = [k for k, _ in rec.headers]
        assert names[-4:] == CONTEXT_HEADERS
        assert rec.header("__debezium.context.connectorLogicalName") == customers_run.token.encode()
        assert rec.header("__debezium.context.taskId") == b"0"
        assert rec.header("__debezium.context.connectorName") == b"postgresql"
        run_ids.add(rec.header("__debezium.context.runId"))
    assert len(run_ids) == 1
    assert re.fullmatch(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", run_ids.pop() or b"")
    # PK change: d + tombstone on the old key with __debezium.newkey, c on the new key with __debezium.oldkey
    d, tomb, c = customers_run.data[-3:]
    assert d.headers[0] == ("__debezium.newkey", b'{"id":10}')
    assert tomb.headers[0] == ("__debezium.newkey", b'{"id":10}')
    assert c.headers[0] == ("__debezium.oldkey", b'{"id":1}')


def test_transaction_topic(customers_run: ScenarioRun) -> None:
    payloads = [r.value_json()["payload"] for r in customers_run.transaction]
    assert [p["status"] for p in payloads] == ["BEGIN", "END"] * len(scenario_pg.TRANSACTIONS)
    assert [p["event_count"] for p in payloads if p["status"] == "END"] == [2, 1, 1, 2]
    for p in payloads:
        assert list(p) == ["status", "id", "event_count", "data_collections", "ts_ms"]
        assert re.fullmatch(r"\d+:\d+", p["id"])
    keys = [r.key_json() for r in customers_run.transaction]
    assert all(k["schema"]["name"] == "io.debezium.connector.common.TransactionMetadataKey" for k in keys)
    assert all(not r.headers for r in customers_run.transaction)
    # BEGIN/END and the events of one transaction share the txId prefix (the LSN suffix may differ, spec §4.4)
    event_tx = [v["payload"]["source"]["txId"] for v in _values(customers_run)[1:] if v is not None]
    tx_ids = sorted({int(p["id"].split(":")[0]) for p in payloads})
    assert sorted(set(event_tx)) == tx_ids


def test_offsets_topic_record(customers_run: ScenarioRun, debezium_connect: ConnectDebezium) -> None:
    token = customers_run.token
    assert customers_run.offsets, "no offsets record for the connector"
    key = f'["{token}",{{"server":"{token}"}}]'.encode()
    assert all(r.key == key for r in customers_run.offsets)
    assert scenario_pg.offsets_partition_ok(customers_run)
    first = customers_run.offsets[0].value_json()
    assert first["snapshot"] == "INITIAL" and first["snapshot_completed"] is True
    last = customers_run.offsets[-1].value_json()
    assert last["messageType"] == "COMMIT"
    for k in ("lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec"):
        assert isinstance(last[k], int), k


def test_rest_answers(customers_run: ScenarioRun, debezium_connect: ConnectDebezium) -> None:
    answers = {a.path: a for a in customers_run.rest}
    token = customers_run.token
    status = answers[f"/connectors/{token}/status"].json()
    worker = debezium_connect.worker_id
    assert status == {
        "name": token,
        "connector": {"state": "RUNNING", "worker_id": worker, "version": "3.6.3.Final"},
        "tasks": [{"id": 0, "state": "RUNNING", "worker_id": worker, "version": "3.6.3.Final"}],
        "type": "source",
    }
    assert list(status) == ["name", "connector", "tasks", "type"]
    tasks = answers[f"/connectors/{token}/tasks"].json()
    assert tasks[0]["config"]["task.class"] == "io.debezium.connector.postgresql.PostgresConnectorTask"
    offsets = answers[f"/connectors/{token}/offsets"].json()
    assert offsets["offsets"][0]["partition"] == {"server": token}
    nope = answers["/connectors/nope/status"]
    assert (nope.status, nope.json()) == (404, {"error_code": 404, "message": "No status found for connector nope"})


def test_cleanup_left_no_slot_or_database(customers_run: ScenarioRun, pg_port: int) -> None:
    with psycopg.connect(pg_dsn("postgres", port=pg_port), autocommit=True) as conn:
        slots = conn.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (customers_run.token,))
        assert slots.fetchone() is None
        dbs = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (customers_run.token,))
        assert dbs.fetchone() is None


@pytest.mark.parametrize(
    ("fixture", "view", "ordered"),
    [
        ("pg_customers.data.jsonl", scenario_pg.data_rows, True),
        ("pg_customers.transaction.jsonl", scenario_pg.transaction_rows, True),
        # HashMap order; the partition (of 25) follows the key bytes, which hold this run's names
        ("pg_customers.offsets.jsonl", scenario_pg.offset_rows, False),
    ],
)
def test_matches_golden_fixtures(customers_run: ScenarioRun, fixture: str, view: Any, ordered: bool) -> None:
    """A second real run (other names) gives the same masked records as the stored golden run: the masking removes
    exactly the run-dependent fields, and the fixtures are current."""
    expected = read_jsonl(GOLDEN / fixture)
    actual = view(customers_run)
    diffs = compare_records(expected, actual, ordered_values=ordered, check_partition=ordered)
    assert not diffs, "\n".join(diffs)


def _without_port(body: Any) -> Any:
    """Connector configs carry the machine's PostgreSQL port; drop it before comparing (dicts: order-free)."""
    if isinstance(body, dict):
        return {k: _without_port(v) for k, v in body.items() if k != "database.port"}
    if isinstance(body, list):
        return [_without_port(v) for v in body]
    return body


def test_rest_matches_golden(customers_run: ScenarioRun) -> None:
    """Status, content type and parsed body of each recorded REST answer equal the golden run's (worker address,
    cluster id and LSNs masked; config maps compared as maps since distributed mode returns HashMap order)."""
    expected = {r["request"]: r for r in read_jsonl(GOLDEN / "rest.jsonl")}
    actual = {r["request"]: r for r in scenario_pg.rest_rows(customers_run)}
    assert set(expected) == set(actual)
    for request, want in expected.items():
        got = actual[request]
        assert (got["status"], got["content_type"]) == (want["status"], want["content_type"]), request
        if request.endswith("/topics"):  # a set on the Java side
            want_topics = {k: sorted(v["topics"]) for k, v in want["body"].items()}
            assert {k: sorted(v["topics"]) for k, v in got["body"].items()} == want_topics
            continue
        assert _without_port(got["body"]) == _without_port(want["body"]), request
    assert expected["GET /"]["body"]["kafka_cluster_id"] == MASK
