"""Differential: the same scenario through this worker, compared with what the REAL Debezium 3.6.3 on Kafka
Connect 4.3.1 produced (golden/, regenerated from the real system by capture_golden.py): change events,
transaction records, offsets and REST answers, with only volatile fields (timestamps, LSNs, txIds) masked."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.differential import scenario_pg
from tests.differential.debezium import compare_records, read_jsonl, unique_token
from tests.differential.ours import OurWorker
from tests.differential.scenario_pg import ScenarioRun

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="module")
def our_run(kafka_bootstrap: str, pg_port: int) -> Iterator[ScenarioRun]:
    worker = OurWorker(kafka_bootstrap=kafka_bootstrap, name=unique_token("cw"), pg_port=pg_port)
    worker.start()
    try:
        yield scenario_pg.run_customers_scenario(worker, token=unique_token("cwrun"), pg_port=pg_port)
    finally:
        worker.stop()
        worker.delete_internal_topics()


def test_change_events_equal_debeziums(our_run: ScenarioRun) -> None:
    diffs = compare_records(read_jsonl(GOLDEN / "pg_customers.data.jsonl"), scenario_pg.data_rows(our_run))
    assert diffs == [], "\n".join(diffs)


def test_transaction_records_equal_debeziums(our_run: ScenarioRun) -> None:
    diffs = compare_records(
        read_jsonl(GOLDEN / "pg_customers.transaction.jsonl"), scenario_pg.transaction_rows(our_run)
    )
    assert diffs == [], "\n".join(diffs)


def test_offsets_equal_debeziums(our_run: ScenarioRun) -> None:
    diffs = compare_records(
        # partitions differ with the connector's name (the key bytes); offsets_partition_ok checks murmur2 placement
        read_jsonl(GOLDEN / "pg_customers.offsets.jsonl"),
        scenario_pg.offset_rows(our_run),
        ordered_values=True,
        check_partition=False,
    )
    assert diffs == [], "\n".join(diffs)
    assert scenario_pg.offsets_partition_ok(our_run)


def _rest_by_request(rows: list[dict[str, object]]) -> dict[object, dict[str, object]]:
    return {r["request"]: r for r in rows}


def test_rest_answers_equal_debeziums(our_run: ScenarioRun) -> None:
    """Status codes, content types and bodies of the same requests. Differences that are not ours to match:
    the build's commit id, the plugin lists (this worker ships other plugins than a bare Connect + Debezium
    install) and config maps, which a distributed worker returns in Java HashMap order (compared parsed)."""
    expected = _rest_by_request(read_jsonl(GOLDEN / "rest.jsonl"))
    actual = _rest_by_request(scenario_pg.rest_rows(our_run))
    assert expected.keys() == actual.keys()
    for request, e in expected.items():
        a = actual[request]
        assert (a["status"], a["content_type"]) == (e["status"], e["content_type"]), request
        if request == "GET /":  # the commit id names the build that answers: ours, not Kafka's
            assert isinstance(a["body"], dict) and isinstance(e["body"], dict)
            assert list(a["body"]) == list(e["body"]) and a["body"]["version"] == e["body"]["version"]
            continue
        if str(request).endswith("/topics"):  # a java.util.HashSet: its order depends on the topic names
            assert isinstance(a["body"], dict) and isinstance(e["body"], dict)
            assert {k: sorted(v["topics"]) for k, v in a["body"].items()} == {
                k: sorted(v["topics"]) for k, v in e["body"].items()
            }
            continue
        if "connector-plugins" in str(request):
            assert {
                "class": "io.debezium.connector.postgresql.PostgresConnector",
                "type": "source",
                "version": "3.6.3.Final",
            } in a["body"]  # type: ignore[operator]
            continue
        assert a["body"] == e["body"], f"{request}\n expected {e['body']}\n actual   {a['body']}"


def test_source_sequence_follows_debeziums_rule(our_run: ScenarioRun) -> None:
    """`source.sequence` is masked in the golden files (it holds LSNs). Real Debezium 3.6.3, run on this very
    scenario, wrote [null,"<lsn>"] for the snapshot record and the first streamed transaction, then
    ["<last commit lsn>","<lsn>"] for every later one. The last commit's LSN is the end of the previous
    transaction's commit record: in the recorded run it was each event's own LSN (nothing was written to the WAL
    between the transactions); with other WAL between (another database's transactions, a checkpoint) it lies
    after the previous transaction's events and before this one's. The dual runs (test_broad_pg) compare the
    exact values with Debezium's on the same WAL."""
    events = []  # (txId, last commit LSN, LSN), in order
    for record in our_run.data:
        value = record.value_json()
        if value is None:
            continue
        source = value["payload"]["source"]
        last_commit, lsn = orjson.loads(source["sequence"])
        assert int(lsn) == source["lsn"]
        events.append((source["txId"], None if last_commit is None else int(last_commit), int(lsn)))
    snapshot, first, *later = [list(g) for _, g in itertools.groupby(events, key=lambda e: e[0])]
    assert all(commit is None for _, commit, _ in snapshot + first)
    assert len(later) > 1  # transactions after the first were checked
    for previous, tx in zip([first, *later], later, strict=False):
        after, first_lsn = max(lsn for *_, lsn in previous), min(lsn for *_, lsn in tx)
        for tx_id, commit, _ in tx:
            assert commit is not None and after < commit <= first_lsn, (tx_id, commit)
