"""What the Spark sink's integration tests share: a Kafka producer on the real broker, reading a table back (Delta or
Iceberg), running the job once (available-now) on the test session's SparkSession."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import confluent_kafka
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.spark_sink.debezium_records import Table, f


class Kafka:
    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})

    def create(self, topic: str, partitions: int = 1) -> None:
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        futures = admin.create_topics([NewTopic(topic, partitions, 1)])
        for fut in futures.values():
            fut.result(15)

    def send(self, topic: str, key: bytes | None, value: bytes | None, partition: int = 0) -> None:
        self.producer.produce(topic, key=key, value=value, partition=partition)

    def flush(self) -> None:
        assert self.producer.flush(15) == 0


def topic_sink(bootstrap: str, topic: str, folder: Path, query_name: str, **extra: Any) -> Any:
    """A fail-fast job on one topic, tables named after the source table, two records per micro-batch (so a
    transaction's changes land in different batches), warehouse and checkpoint in `folder`."""
    from spark_sink.config import SinkConfig

    settings: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "topics": (topic,),
        "warehouse": str(folder / "wh"),
        "checkpoint": str(folder / "cp"),
        "table_name_template": "{table}",
        "max_offsets_per_trigger": 2,
        "fail_fast": True,
        "query_name": query_name,
    }
    return SinkConfig(**(settings | extra))


async def change_events(bootstrap: str, topic: str, at_least: int, timeout: float = 40) -> list[Any]:
    """The topic's records once it holds `at_least` change events (tombstones not counted)."""
    from connect_worker.kafka.reader import read_to_end
    from tests.worker_support import wait_for

    async def enough() -> list[Any]:
        got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
        return got if sum(1 for r in got if r.value is not None) >= at_least else []

    try:
        result: list[Any] = await wait_for(enough, timeout)
    except AssertionError:
        got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
        raise AssertionError(f"fewer than {at_least} change events in {topic}: {len(got)} records") from None
    return result


def rows(spark: Any, path: str, order: str = "id") -> list[dict[str, Any]]:
    return [r.asDict() for r in spark.read.format("delta").load(path).orderBy(order).collect()]


def ledger_items(spark: Any, warehouse: Any, table: str, *, stored: bool = False) -> list[tuple[Any, int, str]]:
    """The delete ledger of `table` as (key id or None for a truncate, position, kind `d`/`c`/`t`), by position:
    what guards the table now (the newest item per key, the newest truncate), or with `stored` every item it holds.
    Keys are the ledger's JSON text of the key columns: the single key column's value is returned."""
    import json

    from spark_sink.delta import deletes

    path = str(Path(warehouse) / "_cdc_ledger")
    if stored:
        got = [
            (r[deletes.KEY], (r["_cdc_epoch"], r["_cdc_pos"], r["_cdc_seq"]), r[deletes.KIND])
            for r in spark.read.format("delta").load(path).where(f"{deletes.TABLE} = '{table}'").collect()
        ]
    else:
        got = deletes.effective(spark, path, table)
    out = [(None if k is None else next(iter(json.loads(k).values())), pos[1], kind) for k, pos, kind in got]
    return sorted(out, key=lambda r: (r[1], r[2]))


def format_settings(table_format: str, name: str) -> dict[str, Any]:
    """The SinkConfig settings of a table format. Iceberg tables get an Iceberg catalog of their own per test: the
    tests share one session, which keeps a catalog once loaded (with its warehouse)."""
    if table_format == "delta":
        return {}
    return {"table_format": table_format, "catalog": "ice_" + re.sub(r"\W", "_", name)}


def deleted_column(config: Any) -> str:
    """The soft-delete flag column of the config's table format (`_deleted`; Iceberg reserves it: `_cdc_deleted`)."""
    from spark_sink.table_format import for_config

    return for_config(config).soft_delete.deleted


def table_frame(spark: Any, config: Any, table: str) -> Any:
    """The sink's table `table` as a DataFrame, in the config's table format."""
    from spark_sink.table_format import for_config

    fmt = for_config(config)
    fmt.prepare_session(spark)
    return fmt.read(spark, fmt.ref(table))


def table_rows(spark: Any, config: Any, table: str, order: str = "id") -> list[dict[str, Any]]:
    return [r.asDict() for r in table_frame(spark, config, table).orderBy(order).collect()]


ID_V_FIELDS = [f("id", "int32", False), f("v", "string")]  # the (id key, v) table most of these tests use


def send_change(
    kafka: Kafka,
    tbl: Table,
    op: str,
    lsn: int,
    row_id: int,
    v: str | None = None,
    *,
    ts_ms: int | None = None,
    tombstone: bool = False,
) -> None:
    """One change event of row `row_id` of an ID_V_FIELDS table (`v` by default "v<lsn>"); a delete carries the key
    as its before image, and a tombstone after it with `tombstone`."""
    row = {"id": row_id, "v": f"v{lsn}" if v is None else v}
    after, before = (None, {"id": row_id}) if op == "d" else (row, None)
    value = tbl.value_bytes(op, lsn, after, before) if ts_ms is None else tbl.value_bytes(op, lsn, after, before, ts_ms)
    kafka.send(tbl.topic, tbl.key_bytes(row), value)
    if op == "d" and tombstone:
        kafka.send(tbl.topic, tbl.key_bytes(row), None)


@dataclass
class OneTable:
    """A topic of one ID_V_FIELDS table and a job config reading it into `warehouse` (one_table)."""

    table: Table
    kafka: Kafka
    warehouse: Path
    config: Any

    def send(self, op: str, lsn: int, row_id: int, v: str | None = None, *, ts_ms: int | None = None) -> None:
        send_change(self.kafka, self.table, op, lsn, row_id, v, ts_ms=ts_ms)


def one_table(name: str, tmp_path: Path, unique_name: str, kafka_bootstrap: str, **settings: Any) -> OneTable:
    """Table `name`'s topic (created) and a job config reading it into tmp_path/warehouse, `settings` added."""
    from spark_sink.config import SinkConfig

    tbl = Table(unique_name, "public", name, ID_V_FIELDS, ["id"])
    kafka = Kafka(kafka_bootstrap)
    kafka.create(tbl.topic)
    wh = tmp_path / "warehouse"
    config = SinkConfig(
        bootstrap_servers=kafka_bootstrap,
        topics=(tbl.topic,),
        warehouse=str(wh),
        checkpoint=str(tmp_path / "checkpoint"),
        table_name_template="{table}",
        query_name=f"{name}_{unique_name}",
        **settings,
    )
    return OneTable(tbl, kafka, wh, config)


def run_job(spark: Any, config: Any, fault: Any = None, clock: Any = None, processor: Any = None) -> Any:
    """One available-now run of the query (a job start: a restart when the checkpoint already exists); with
    `processor` (one an earlier run returned), the batches of a job that keeps running."""
    from spark_sink.job import make_processor, start

    processor = processor or make_processor(spark, config)
    processor.fault = fault
    if clock is not None:
        processor.clock = clock
    query = start(spark, config, processor)
    assert query.awaitTermination(120), "the available-now query did not finish in 120 s"
    if query.exception() is not None:
        raise RuntimeError(str(query.exception()))
    return processor
