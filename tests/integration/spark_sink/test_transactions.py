"""Transaction-consistent mode on a real local[2] Spark and real Kafka: a transaction spanning two tables whose
events and END record arrive in different micro-batches is applied whole or not at all at every batch boundary,
later transactions wait behind it, a worker's re-sent transaction does not block the stream, and a job killed in the
middle of a batch or after writing its state but before Spark committed the batch loses and double-applies nothing;
the cut published after each batch hides a transaction the newest table versions show half-written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import Table, f, tx_record
from tests.integration.spark_sink.support import Kafka, format_settings, run_job, table_rows

pytestmark = [pytest.mark.integration, pytest.mark.spark]

FIELDS = [f("id", "int32", False), f("v", "string")]


class Crash(Exception):
    pass


@pytest.fixture
def tx_setup(tmp_path: Path, unique_name: str, kafka_bootstrap: str, table_format: str) -> dict[str, Any]:
    from spark_sink.config import SinkConfig

    prefix = unique_name
    orders = Table(prefix, "public", "orders", FIELDS, ["id"])
    lines = Table(prefix, "public", "lines", FIELDS, ["id"])
    tx_topic = f"{prefix}.transaction"
    kafka = Kafka(kafka_bootstrap)
    for topic in (orders.topic, lines.topic, tx_topic):
        kafka.create(topic)
    config = SinkConfig(
        bootstrap_servers=kafka_bootstrap,
        # the pattern does not match the transaction topic: the job must subscribe to it as well
        topic_pattern=f"{prefix}\\.public\\..*",
        warehouse=str(tmp_path / "warehouse"),
        checkpoint=str(tmp_path / "checkpoint"),
        table_name_template="{table}",
        query_name=f"q_{prefix}",
        transaction_consistent=True,
        transaction_topic=tx_topic,
        **format_settings(table_format, prefix),
    )
    return {"orders": orders, "lines": lines, "tx_topic": tx_topic, "kafka": kafka, "config": config, "tmp": tmp_path}


def test_split_transaction_is_applied_whole_across_batches_and_restarts(spark: Any, tx_setup: dict[str, Any]) -> None:
    from pyspark.errors import StreamingQueryException

    from spark_sink.batch import BATCH_END

    orders, lines, kafka, config = tx_setup["orders"], tx_setup["lines"], tx_setup["kafka"], tx_setup["config"]
    delta = config.table_format == "delta"

    def send(tbl: Table, op: str, lsn: int, row_id: int, v: str, tx: int | None = None, order: int = 0) -> None:
        row = {"id": row_id, "v": v}
        kafka.send(
            tbl.topic, tbl.key_bytes(row), tbl.value_bytes(op, lsn, row, tx_id=tx or 1, total_order=order or None)
        )

    def marker(status: str, tx: int, lsn: int, counts: dict[str, int] | None = None) -> None:
        kafka.send(tx_setup["tx_topic"], *tx_record(status, tx, lsn, counts))

    def table(tbl: Table) -> dict[int, str]:
        return {r["id"]: r["v"] for r in table_rows(spark, config, tbl.table)}

    def published() -> dict[str, dict[int, str]]:
        """The tables as a reader of the newest published cut sees them (each at its version in the cut)."""
        from spark_sink.delta.published import latest, log_path, read_cut

        cut = latest(spark, log_path(config.warehouse, config.query_name))
        assert cut is not None
        return {t: {r["id"]: r["v"] for r in df.collect()} for t, df in read_cut(spark, cut).items()}

    both = {"public.orders": 1, "public.lines": 1}

    # ---- batch 1: snapshot rows, tx 501 complete, tx 502 without one of its events, tx 503 complete --------------
    send(orders, "r", 100, 1, "o1")  # snapshot reads: no transaction block, applied at once
    send(lines, "r", 100, 1, "l1")
    marker("BEGIN", 501, 200)
    send(orders, "c", 200, 2, "o2", tx=501, order=1)
    send(lines, "c", 210, 2, "l2", tx=501, order=2)
    marker("END", 501, 220, both)
    marker("BEGIN", 502, 300)
    send(orders, "u", 300, 1, "o1@502", tx=502, order=1)
    send(orders, "c", 310, 3, "o3", tx=502, order=2)
    send(lines, "c", 320, 3, "l3", tx=502, order=3)
    send(lines, "c", 320, 3, "l3", tx=502, order=3)  # re-sent by a restarted worker: must not count twice
    # tx 502's fourth event (lines, lsn 330) reaches Kafka only later
    marker("END", 502, 340, {"public.orders": 2, "public.lines": 2})
    marker("BEGIN", 503, 400)
    send(orders, "c", 400, 4, "o4", tx=503, order=1)
    marker("END", 503, 410, {"public.orders": 1})  # complete, but committed after 502: waits behind it
    kafka.flush()
    processor = run_job(spark, config)

    assert table(orders) == {1: "o1", 2: "o2"}  # nothing of 502 (nor 503)
    assert table(lines) == {1: "l1", 2: "l2"}
    assert processor.history[-1].held == 5
    batch1 = {"orders": {1: "o1", 2: "o2"}, "lines": {1: "l1", 2: "l2"}}
    assert published() == batch1

    # ---- batch 2: the missing event of 502 and tx 504 without its END; killed between the two tables' MERGEs ------
    send(lines, "u", 330, 1, "l1@502", tx=502, order=4)
    marker("BEGIN", 504, 500)
    send(orders, "c", 500, 5, "o5", tx=504, order=1)
    send(lines, "c", 510, 5, "l5", tx=504, order=2)
    kafka.flush()

    def kill_before_orders(batch_id: int, name: str) -> None:
        if name == "orders":  # "lines" runs to its end beside it (spark_sink/stage/side_by_side.py)
            raise Crash("killed between the tables of a batch")

    with pytest.raises(StreamingQueryException, match="killed between"):
        run_job(spark, config, fault=kill_before_orders)
    # the newest table versions show half of 502 (its lines without its orders); the published cut does not
    assert table(lines)[3] == "l3" and 3 not in table(orders)
    assert published() == batch1
    processor = run_job(spark, config)  # the batch is replayed from the checkpoint
    # the events of 502 held since batch 1 were not lost with the killed attempt
    assert table(orders) == {1: "o1@502", 2: "o2", 3: "o3", 4: "o4"}
    assert table(lines) == {1: "l1@502", 2: "l2", 3: "l3"}
    assert processor.history[-1].held == 2  # 504 waits for its END
    replay = processor.history[-1].table("lines")
    assert replay is not None
    if delta:  # (Iceberg reports no MERGE counts)
        assert (replay.inserted, replay.updated) == (0, 0)  # applied by the killed attempt
    assert published() == {"orders": table(orders), "lines": table(lines)}

    # ---- batch 3: a re-sent tail of 502 (END included), then 504's END; killed after the state was written ----------
    send(lines, "u", 330, 1, "l1@502", tx=502, order=4)
    marker("END", 502, 340, {"public.orders": 2, "public.lines": 2})  # already released: must not block 504
    marker("END", 504, 520, both)
    kafka.flush()

    def kill_at_batch_end(batch_id: int, name: str) -> None:
        if name == BATCH_END:  # everything written, but Spark has not committed the batch
            raise Crash("killed before the batch commit")

    with pytest.raises(StreamingQueryException, match="killed before the batch commit"):
        run_job(spark, config, fault=kill_at_batch_end)
    assert table(orders)[5] == "o5" and table(lines)[5] == "l5"
    after_504 = {"orders": table(orders), "lines": table(lines)}
    assert published() == after_504  # published before the state: the replay's publication is skipped
    processor = run_job(spark, config)  # replays the batch: nothing left to do, nothing applied twice
    m = processor.history[-1]
    assert m.held == 0
    if delta:
        assert all((t.inserted, t.updated, t.deleted) == (0, 0, 0) for t in m.tables), m.tables
    assert table(orders) == {1: "o1@502", 2: "o2", 3: "o3", 4: "o4", 5: "o5"}
    assert table(lines) == {1: "l1@502", 2: "l2", 3: "l3", 5: "l5"}
    state = spark.read.format("delta").load(str(Path(config.checkpoint) / "sink_tx_state")).collect()
    assert [(r["kind"], r["lsn"]) for r in state] == [("released_through", 520)]
    assert published() == after_504
    from spark_sink.delta.published import cuts, log_path

    log = cuts(spark, log_path(config.warehouse, config.query_name))
    assert [c.released_through for c in log] == [220, 410, 520]  # one cut per finished batch
    raw = spark.read.format("delta").load(log_path(config.warehouse, config.query_name))
    assert raw.count() == sum(len(c.tables) for c in log)  # none twice: cuts() would fold a second append
