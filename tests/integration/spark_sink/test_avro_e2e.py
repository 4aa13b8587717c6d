"""Avro end to end through the Spark job: real PostgreSQL 15 → this worker with two connectors on one table (every
type of tests/integration/postgres/test_type_mapping.py, edge values included, plus out-of-line TOAST text and
bytea) — one with JsonConverter, one with io.confluent.connect.avro.AvroConverter for keys and values (schemas in
the real registry, Apicurio 3.3.3's Confluent API) — then the Spark job once over each topic, into Delta and into
Iceberg. After a snapshot, inserts, updates (some leaving TOAST values unchanged) and deletes, the JSON and the Avro
table of each format must be equal (the same Spark schema and the same rows), and the Iceberg tables hold the Delta
tables' rows. The Avro run reads each writer schema from the registry once."""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from connect_worker.kafka.reader import read_to_end
from spark_sink.decoding import DecodeFailure, RawRecord, decoder_for
from spark_sink.decoding.schema_registry import RegistryClient, UnknownSchema
from spark_sink.delta.order import EPOCH, POS, SEQ
from spark_sink.delta.tables import OP, SOURCE_TS
from tests.integration.postgres.test_connector_e2e import connector_config
from tests.integration.postgres.test_type_mapping import COLUMNS
from tests.integration.spark_sink.support import deleted_column, format_settings, run_job, table_frame
from tests.worker_support import create_json_and_avro_twins, running_worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]

PLACEHOLDER = "__debezium_unavailable_value"
# the position columns of a snapshot read are each connector's own (its slot's LSN); a streamed change has the
# WAL position both connectors read
SNAPSHOT_OWN = (EPOCH, POS, SEQ, SOURCE_TS)


def _big(seed: int) -> str:
    rnd = random.Random(seed)  # incompressible, > 8 kB: stored out of line (TOAST)
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12000))


async def _create(conn: psycopg.AsyncConnection[Any], schema: str) -> None:
    s = sql.Identifier(schema)
    for ext in ("hstore", "ltree", "citext", "isn"):
        await conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
    await conn.execute(sql.SQL("CREATE SCHEMA {}").format(s))
    await conn.execute(sql.SQL("CREATE TYPE {}.mood AS ENUM ('happy', 'sad', 'zen')").format(s))
    await conn.execute(sql.SQL("CREATE DOMAIN {}.amount AS numeric(8,2)").format(s))
    await conn.execute(sql.SQL("CREATE DOMAIN {}.amount2 AS {}.amount").format(s, s))
    decls = [f"{name} {decl.format(schema=schema)}" for name, decl, _, _ in COLUMNS]
    await conn.execute(
        f"CREATE TABLE {schema}.types (id int PRIMARY KEY, {', '.join(decls)}, c_big text, c_big_bin bytea)"
    )
    await conn.execute(f"ALTER TABLE {schema}.types ALTER COLUMN c_big SET STORAGE EXTERNAL")
    await conn.execute(f"ALTER TABLE {schema}.types ALTER COLUMN c_big_bin SET STORAGE EXTERNAL")


async def _insert(conn: psycopg.AsyncConnection[Any], schema: str, first_id: int) -> None:
    names = [c[0] for c in COLUMNS]
    for row in range(3):
        values = [c[2][row] for c in COLUMNS]
        big = _big(first_id + row)
        await conn.execute(
            f"INSERT INTO {schema}.types (id, {', '.join(names)}, c_big, c_big_bin)"
            f" VALUES ({first_id + row}, {', '.join(values)}, '{big}', convert_to('{big}', 'UTF8'))"
        )


async def _topic_count(bootstrap: str, topic: str, count: int) -> None:
    async def enough() -> bool:
        return len(await read_to_end({"bootstrap.servers": bootstrap}, topic)) >= count

    await wait_for(enough, 60)


def _comparable(value: Any) -> Any:
    """Row values as comparable data: NaN equal to itself, nested rows as dicts."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


def _table(spark: Any, config: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The table's schema and rows. Columns holding timestamps are compared as Spark prints them (UTC): pyspark
    turns an instant into a local-time datetime, which fails for 0001-01-01 (PostgreSQL's BC values clamp there)."""
    from pyspark.sql import functions as F

    df = table_frame(spark, config, "types")
    columns = [
        F.col(f.name).cast("string").alias(f.name) if "timestamp" in f.dataType.simpleString() else F.col(f.name)
        for f in df.schema.fields
    ]
    rows = [_comparable(r.asDict(recursive=True)) for r in df.select(*columns).orderBy("id").collect()]
    for r in rows:
        if r[OP] == "r":
            for column in SNAPSHOT_OWN:
                r.pop(column)
    return df.schema, rows


async def test_avro_and_json_topics_make_the_same_table_in_delta_and_in_iceberg(
    spark: Any,
    tmp_path: Path,
    worker_props: dict[str, str],
    kafka_bootstrap: str,
    pg_dsn: str,
    unique_name: str,
    registry_url: str,
) -> None:
    from spark_sink.config import SinkConfig

    schema = unique_name
    json_pfx, avro_pfx = f"j{schema}", f"a{schema}"
    topics = {"json": f"{json_pfx}.{schema}.types", "avro": f"{avro_pfx}.{schema}.types"}
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await _create(conn, schema)
        try:
            await _insert(conn, schema, 1)
            async with running_worker(worker_props) as (_w, client):
                await create_json_and_avro_twins(client, connector_config(schema), registry_url, json_pfx, avro_pfx)
                for topic in topics.values():
                    await _topic_count(kafka_bootstrap, topic, 3)
                await _insert(conn, schema, 11)
                t = f"{schema}.types"
                for statement in (
                    f"UPDATE {t} SET c_text = 'changed', c_int_arr = '{{7}}' WHERE id = 11",  # c_big* unchanged: TOAST
                    f"UPDATE {t} SET c_big = 'small now', c_big_bin = '\\x00ff' WHERE id = 2",
                    # c_num has a default: Connect's converters write it for the NULL (both twins alike)
                    f"UPDATE {t} SET c_num = NULL, c_num_p = NULL, c_float8 = 'NaN', c_bytea = '\\xdead' WHERE id = 1",
                    f"DELETE FROM {t} WHERE id = 12",
                    f"DELETE FROM {t} WHERE id = 3",
                    f"INSERT INTO {t} (id, c_varchar) VALUES (99, 'last')",
                ):
                    await conn.execute(statement)
                expected = 3 + 3 + 3 + 2 * 2 + 1  # snapshot, inserts, updates, deletes + tombstones, insert
                for topic in topics.values():
                    await _topic_count(kafka_bootstrap, topic, expected)
                for name in topics:
                    status = (await client.get(f"/connectors/{name}/status")).json()
                    assert status["tasks"][0]["state"] == "RUNNING", status
                    assert (await client.delete(f"/connectors/{name}")).status_code == 204
            cur = await conn.execute(f"SELECT id FROM {schema}.types ORDER BY id")
            source_ids = [r[0] for r in await cur.fetchall()]
        finally:
            for pfx in (json_pfx, avro_pfx):
                with contextlib.suppress(psycopg.Error):
                    await conn.execute("SELECT pg_drop_replication_slot(%s)", (f"slot_{pfx}",))
                await conn.execute(f"DROP PUBLICATION IF EXISTS pub_{pfx}")
            await conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))

    tables = {}
    processors = {}
    deleted = {}
    for table_format in ("delta", "iceberg"):
        for fmt, topic in topics.items():
            run = f"{table_format}_{fmt}"
            sink = SinkConfig(
                bootstrap_servers=kafka_bootstrap,
                topics=(topic,),
                format=fmt,
                schema_registry_url=registry_url if fmt == "avro" else None,
                warehouse=str(tmp_path / run),
                checkpoint=str(tmp_path / f"{run}_checkpoint"),
                table_name_template="{table}",
                query_name=f"avro_e2e_{run}_{schema}",
                fail_fast=True,
                **format_settings(table_format, f"{run}_{schema}"),
            )
            processors[run] = await asyncio.to_thread(run_job, spark, sink)
            tables[run] = _table(spark, sink)
            deleted[table_format] = deleted_column(sink)

    for table_format in ("delta", "iceberg"):
        json_schema, json_rows = tables[f"{table_format}_json"]
        avro_schema, avro_rows = tables[f"{table_format}_avro"]
        assert avro_schema == json_schema, table_format
        assert [r["id"] for r in avro_rows] == [r["id"] for r in json_rows] == source_ids, table_format
        for j, a in zip(json_rows, avro_rows, strict=True):
            assert a == j, f"{table_format}: row {j['id']} differs: " + ", ".join(k for k in j if a.get(k) != j[k])
        by_id = {r["id"]: r for r in avro_rows}
        assert by_id[11]["c_text"] == "changed" and by_id[11]["c_big"] == _big(11)  # the TOAST value kept
        assert bytes(by_id[11]["c_big_bin"]) == _big(11).encode() and bytes(by_id[2]["c_big_bin"]) == b"\x00\xff"
        assert by_id[1]["c_float8"] == "NaN" and by_id[1]["c_num_p"] is None
        assert bytes(by_id[1]["c_bytea"]) == b"\xde\xad"
        assert by_id[1]["c_num"] == Decimal("1.50")  # the column default, not NULL: Connect's replace.null.with.default
    # the same rows in both formats (Iceberg names the soft-delete flag otherwise: it reserves `_deleted`)
    renamed = {deleted["iceberg"]: deleted["delta"]}
    for d, i in zip(tables["delta_avro"][1], tables["iceberg_avro"][1], strict=True):
        i = {renamed.get(k, k): v for k, v in i.items()}
        assert i == d, f"row {d['id']} differs in Iceberg: " + ", ".join(k for k in d if i.get(k) != d[k])
    for run, processor in processors.items():
        assert sum(m.dead_letters for m in processor.history) == 0, run
        assert sum(m.records for m in processor.history) == expected, run
    # the executors decode (spark_sink/stage), each Python worker with its own decoder and writer-schema cache
    # (tests/unit/spark_sink/test_avro_decoder.py); the driver holds no decoder
    print(
        "avro e2e: " + "; ".join(f"{fmt}: {[m.line() for m in p.history]}" for fmt, p in processors.items()),
    )


def test_the_real_registry_unknown_ids_and_user_info(registry_url: str) -> None:
    client = RegistryClient.from_config(registry_url.replace("http://", "http://someone:secret@"))
    assert client.user_info == "someone:secret" and client.urls == (registry_url.rstrip("/"),)
    unknown = 2_000_000_000
    with pytest.raises(UnknownSchema, match=f"schema id {unknown} is not in the registry"):
        client.schema_text(unknown)
    decoder = decoder_for("avro", placeholder=PLACEHOLDER, registry=client)
    frame = b"\x00" + struct.pack(">I", unknown) + b"\x02"
    for offset in range(3):
        result = decoder.decode(RawRecord("t", 0, offset, frame, frame))
        assert isinstance(result, DecodeFailure) and "not in the registry" in result.reason
    assert client.calls == 2  # the direct call, then one for the decoder however many records name the id
