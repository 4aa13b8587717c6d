"""plugin.name=decoderbufs yields the very records plugin.name=pgoutput yields (the decoderbufs adapter's proof).

Two connectors capture the same tables through the same worker, one per plug-in (own slot, publication and
topic.prefix); the same DML then reaches both. Their topics must hold identical records once the prefix is
renamed and the envelope's processing times (ts_ms/ts_us/ts_ns) are masked: keys, schemas, before/after,
source blocks (lsn, txId, sequence, commit times), headers and transaction-metadata records alike. The differences
are Debezium's own (its decoderbufs path, measured by the dual runs of tests/differential): decoderbufs sends the
BEGIN/COMMIT of a transaction with no captured change (pgoutput nothing), which adds that transaction's BEGIN/END
metadata (event_count 0) and makes its COMMIT the last-commit half of the next event's `sequence`; and its BEGIN
comes at the transaction's first WAL record (pgoutput's at the first published change), the LSN of the
`txId:lsn` transaction id when the transaction's first change is to a table not captured.

A message-level test compares the adapter's tuples with pgoutput's for thousands of float4/float8 and temporal
values taken from the same WAL.
"""

from __future__ import annotations

import contextlib
import os
import random
import struct
from collections.abc import AsyncIterator
from typing import Any

import orjson
import psycopg
import pytest

from connect_worker.kafka.reader import TopicRecord, read_to_end
from connectors.postgres.decoderbufs_adapter import DecoderbufsAdapter
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.protocol.decoderbufs import decode_row_message
from connectors.postgres.value_converters.temporal import parse_timetz
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration

COLUMNS = {
    "c_int2": "smallint",
    "c_int4": "integer",
    "c_int8": "bigint",
    "c_f4": "real",
    "c_f8": "double precision",
    "c_num": "numeric",
    "c_num2": "numeric(10,2)",
    "c_money": "money",
    "c_bool": "boolean",
    "c_char": "char(3)",
    "c_qchar": '"char"',
    "c_vc": "varchar(20)",
    "c_text": "text",
    "c_json": "json",
    "c_jsonb": "jsonb",
    "c_xml": "xml",
    "c_bit": "bit(3)",
    "c_vbit": "varbit",
    "c_uuid": "uuid",
    "c_ts": "timestamp",
    "c_ts3": "timestamp(3)",
    "c_tstz": "timestamptz",
    "c_date": "date",
    "c_time": "time",
    "c_time3": "time(3)",
    "c_timetz": "timetz",
    "c_intv": "interval",
    "c_bytea": "bytea",
    "c_point": "point",
    "c_inet": "inet",
    "c_cidr": "cidr",
    "c_mac": "macaddr",
    "c_arr": "int[]",
    "c_tarr": "text[]",
    "c_oid": "oid",
    "c_name": "name",
    "c_range": "int4range",
    "c_box": "box",
    "c_tsv": "tsvector",
    "c_enum": "{schema}.mood",
    "c_nn": "text NOT NULL DEFAULT 'nn'",
    "c_nn_i": "integer NOT NULL DEFAULT 7",
    "c_big": "text",
}

ROW_FULL = {
    "c_int2": "-32768",
    "c_int4": "2147483647",
    "c_int8": "-9223372036854775808",
    "c_f4": "1.1",
    "c_f8": "0.1",
    "c_num": "123456789012345678901234567890.123456789",
    "c_num2": "-12.30",
    "c_money": "-1234.56",
    "c_bool": "true",
    "c_char": "ab",
    "c_qchar": "x",
    "c_vc": "héllo",
    "c_text": "a\tb\\c",
    "c_json": '{"a": 1}',
    "c_jsonb": '{"b": [1, 2]}',
    "c_xml": "<a>1</a>",
    "c_bit": "101",
    "c_vbit": "1101",
    "c_uuid": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "c_ts": "2024-02-29 12:34:56.789",
    "c_ts3": "0001-01-01 00:00:00.123",
    "c_tstz": "2024-06-01 01:02:03.000004+05:30",
    "c_date": "2024-02-29",
    "c_time": "23:59:59.999999",
    "c_time3": "24:00:00",
    "c_timetz": "23:30:00.5-05",
    "c_intv": "1 year 2 mons 3 days 04:05:06.789",
    "c_bytea": "\\x00ff10",
    "c_point": "(1.5,-2.25)",
    "c_inet": "192.168.0.1/24",
    "c_cidr": "10.0.0.0/8",
    "c_mac": "08:00:2b:01:02:03",
    "c_arr": "{1,NULL,3}",
    "c_tarr": '{"a b",c}',
    "c_oid": "4294967295",
    "c_name": "nm",
    "c_range": "[1,5)",
    "c_box": "(1,1),(0,0)",
    "c_tsv": "a fat cat",
    "c_enum": "happy",
}

ROW_EDGES = {
    "c_f4": "3.4028235e+38",
    "c_f8": "1e15",
    "c_num": "-0.000001",
    "c_money": "92233720368547758.07",
    "c_bool": "false",
    "c_ts": "4713-01-01 00:00:00 BC",
    "c_ts3": "294276-12-31 23:59:59.999",
    "c_tstz": "1900-01-01 00:00:00+00",
    "c_date": "0001-01-01 BC",
    "c_time": "00:00:00",
    "c_timetz": "00:00:00+14",
    "c_intv": "-1 days +02:00:00",
    "c_point": "(0,1e+20)",
}

ROW_SPECIALS = {
    "c_f4": "NaN",
    "c_f8": "-Infinity",
    "c_ts": "infinity",
    "c_tstz": "-infinity",
    "c_date": "infinity",
    "c_ts3": "-infinity",
}


def _columns_ddl(schema: str) -> str:
    return ", ".join(f"{name} {ddl.format(schema=schema)}" for name, ddl in COLUMNS.items())


def _insert(schema: str, table: str, row_id: int, values: dict[str, str]) -> tuple[bytes, list[str]]:
    names = ["id", *values]
    sql = f"INSERT INTO {schema}.{table} ({', '.join(names)}) VALUES ({', '.join(['%s'] * len(names))})"
    return sql.encode(), [str(row_id), *values.values()]


def _big(seed: int) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12000))


@contextlib.asynccontextmanager
async def tables(pg_dsn: str, schema: str) -> AsyncIterator[None]:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA {schema}".encode())
        await conn.execute(f"CREATE TYPE {schema}.mood AS ENUM ('sad', 'happy')".encode())
        for table in ("t_default", "t_full"):
            await conn.execute(f"CREATE TABLE {schema}.{table} (id int PRIMARY KEY, {_columns_ddl(schema)})".encode())
            # out of line and uncompressed, so an update that leaves it alone does not send it
            await conn.execute(f"ALTER TABLE {schema}.{table} ALTER COLUMN c_big SET STORAGE EXTERNAL".encode())
        await conn.execute(f"ALTER TABLE {schema}.t_full REPLICA IDENTITY FULL".encode())
        await conn.execute(f"CREATE TABLE {schema}.ignored (id serial PRIMARY KEY, v text)".encode())
        try:
            yield
        finally:
            for slot in (f"{schema}_p", f"{schema}_d"):
                for _ in range(50):
                    row = await (
                        await conn.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = %s", (slot,))
                    ).fetchone()
                    if row is None:
                        break
                    if row[0] is not None:
                        with contextlib.suppress(psycopg.Error):
                            await conn.execute("SELECT pg_terminate_backend(%s)", (row[0],))
                        await _sleep(0.2)
                        continue
                    with contextlib.suppress(psycopg.Error):
                        await conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
            with contextlib.suppress(psycopg.Error):
                await conn.execute(f"DROP PUBLICATION IF EXISTS {schema}_p".encode())
            await conn.execute(f"DROP SCHEMA {schema} CASCADE".encode())


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def connector_config(schema: str, prefix: str, plugin: str, dbname: str) -> dict[str, str]:
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": os.environ.get("CW_PG_PORT", "5433"),
        "database.user": "postgres",
        "database.dbname": dbname,
        "topic.prefix": prefix,
        "plugin.name": plugin,
        "slot.name": prefix,
        "publication.name": prefix,
        "publication.autocreate.mode": "filtered",
        "schema.include.list": schema,
        "table.exclude.list": f"{schema}.ignored",
        "snapshot.mode": "no_data",
        "provide.transaction.metadata": "true",
        "decimal.handling.mode": "string",
        "interval.handling.mode": "numeric",
    }


async def streaming(pg_dsn: str, slot: str) -> bool:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        row = await (
            await conn.execute(
                "SELECT r.state = 'streaming' FROM pg_replication_slots s JOIN pg_stat_replication r"
                " ON r.pid = s.active_pid WHERE s.slot_name = %s",
                (slot,),
            )
        ).fetchone()
    return bool(row and row[0])


def normalised(record: TopicRecord, rename: tuple[bytes, bytes]) -> dict[str, Any]:
    """The record with the other connector's prefix renamed and the envelope's processing times (and the task's
    run id header) masked."""

    def load(raw: bytes | None) -> Any:
        return None if raw is None else orjson.loads(raw.replace(*rename))

    value = load(record.value)
    if value is not None:
        payload = value["payload"]
        for field in ("ts_ms", "ts_us", "ts_ns"):
            if field in payload and "source" in payload:  # a change event: processing time, not commit time
                payload[field] = "<masked>"
    headers = [
        (k, None if v is None else b"<masked>" if k == "__debezium.context.runId" else v.replace(*rename))
        for k, v in record.headers or []
    ]
    return {
        "key": load(record.key),
        "value": value,
        "headers": headers,
    }


def _xid(tx_id: object) -> str:
    """The txId of a `txId:lsn` transaction id."""
    return str(tx_id).split(":")[0]


def _transaction_ids_by_xid(view: dict[str, Any]) -> str | None:
    """Replace the `txId:lsn` transaction id of a change event or transaction record by its txId; give it back."""
    payload = view["value"]["payload"] if view["value"] else None
    metadata = bool(payload and "status" in payload)  # a transaction record, keyed by its id
    holder = payload if metadata else (payload or {}).get("transaction")
    if not holder:
        return None
    tx_id = str(holder["id"])
    holder["id"] = _xid(tx_id)
    if metadata:
        view["key"]["payload"]["id"] = holder["id"]
    return tx_id


def _without_empty_transactions(views: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Transaction records without the BEGIN/END pairs of transactions with no event (by txId: the `txId:lsn` ids of
    a BEGIN and its END differ); and how many there were."""
    empty = {_xid(v["value"]["payload"]["id"]) for v in views if v["value"]["payload"].get("event_count") == 0}
    return [v for v in views if _xid(v["value"]["payload"]["id"]) not in empty], len(empty)


def _last_commit(view: dict[str, Any]) -> int | None:
    """A change event's last-commit half of `source.sequence`, taken out of it (its own LSN stays)."""
    payload = view["value"]["payload"] if view["value"] else None
    if not payload or "source" not in payload:
        return None
    source = payload["source"]
    last, own = orjson.loads(source["sequence"])
    source["sequence"] = own
    return None if last is None else int(last)


async def test_decoderbufs_records_equal_pgoutput_records(
    worker_props: dict[str, str], kafka_bootstrap: str, own_database: str, unique_name: str
) -> None:
    schema, pg_dsn = unique_name, own_database
    prefix_p, prefix_d = f"{schema}_p", f"{schema}_d"
    worker_props = {**worker_props, "offset.flush.interval.ms": "500"}
    async with tables(pg_dsn, schema), running_worker(worker_props) as (_w, client):
        for prefix, plugin in ((prefix_p, "pgoutput"), (prefix_d, "decoderbufs")):
            r = await client.post(
                "/connectors", json={"name": prefix, "config": connector_config(schema, prefix, plugin, unique_name)}
            )
            assert r.status_code == 201, r.text
        for prefix in (prefix_p, prefix_d):
            await wait_for(lambda p=prefix: streaming(pg_dsn, p), 60)  # type: ignore[misc]

        async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
            for table in ("t_default", "t_full"):
                # a transaction with three rows: every type, only NULLs (and defaults), edge values
                async with conn.transaction():
                    await conn.execute(*_insert(schema, table, 1, {**ROW_FULL, "c_big": _big(1)}))
                    await conn.execute(*_insert(schema, table, 2, {}))
                    await conn.execute(*_insert(schema, table, 3, ROW_EDGES))
                    await conn.execute(*_insert(schema, table, 4, ROW_SPECIALS))
                # an update that leaves the TOASTed value alone: placeholder (DEFAULT) or old value (FULL)
                await conn.execute(
                    f"UPDATE {schema}.{table} SET c_text = 'changed', c_int4 = NULL WHERE id = 1".encode()
                )
                # an update of the TOASTed value itself, and one setting NULLs
                await conn.execute(f"UPDATE {schema}.{table} SET c_big = {_big(2)!r} WHERE id = 1".encode())
                await conn.execute(f"UPDATE {schema}.{table} SET c_f4 = NULL, c_date = NULL WHERE id = 3".encode())
                # a key change (DEFAULT: the old key tuple only), with the TOASTed value unchanged
                await conn.execute(f"UPDATE {schema}.{table} SET id = 10 WHERE id = 1".encode())
                # deletes: a row with a TOASTed value and one with NULLs
                await conn.execute(f"DELETE FROM {schema}.{table} WHERE id = 10".encode())
                await conn.execute(f"DELETE FROM {schema}.{table} WHERE id = 2".encode())
            # a transaction over both tables and a table that is not captured; one that touches only the latter
            async with conn.transaction():
                await conn.execute(f"INSERT INTO {schema}.ignored (v) VALUES ('x')".encode())
                await conn.execute(f"UPDATE {schema}.t_default SET c_vc = 'both' WHERE id = 3".encode())
                await conn.execute(f"INSERT INTO {schema}.ignored (v) VALUES ('y')".encode())
                await conn.execute(f"UPDATE {schema}.t_full SET c_vc = 'both' WHERE id = 3".encode())
            await conn.execute(f"INSERT INTO {schema}.ignored (v) VALUES ('z')".encode())
            await conn.execute(f"INSERT INTO {schema}.t_default (id) VALUES (999)".encode())

        topics = ["t_default", "t_full"]

        async def read(prefix: str, table: str) -> list[TopicRecord]:
            topic = f"{prefix}.transaction" if table == "transaction" else f"{prefix}.{schema}.{table}"
            return await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)

        async def complete(prefix: str) -> bool:
            last = await read(prefix, "t_default")
            return any(r.key is not None and b'"id":999' in r.key for r in last)

        for prefix in (prefix_p, prefix_d):
            await wait_for(lambda p=prefix: complete(p), 90)  # type: ignore[misc]

        async def transactions_settled() -> bool:
            p, d = await read(prefix_p, "transaction"), await read(prefix_d, "transaction")
            # decoderbufs: the BEGIN/END of the transaction with no captured change too
            return len(d) == len(p) + 2 and len(p) > 0 and len(p) % 2 == 0

        await wait_for(transactions_settled, 30)
        rename = (prefix_d.encode(), prefix_p.encode())
        for table in [*topics, "transaction"]:
            want = [normalised(r, (b"", b"")) for r in await read(prefix_p, table)]
            got = [normalised(r, rename) for r in await read(prefix_d, table)]
            if table == "transaction":
                got, empty = _without_empty_transactions(got)
                assert empty == 1  # the transaction that touched only `ignored`
            assert len(got) == len(want), f"{table}: {len(got)} records, pgoutput {len(want)}"
            commits_w, commits_g = [_last_commit(w) for w in want], [_last_commit(g) for g in got]
            ids_w, ids_g = [_transaction_ids_by_xid(w) for w in want], [_transaction_ids_by_xid(g) for g in got]
            for i, (g, w) in enumerate(zip(got, want, strict=True)):
                assert g == w, f"{table} record {i} differs"
            # decoderbufs' BEGIN is at the transaction's first WAL record, pgoutput's at its first published change
            assert [i is None for i in ids_w] == [i is None for i in ids_g]
            for id_w, id_g in zip(ids_w, ids_g, strict=True):
                if id_w is not None and id_g is not None:
                    assert int(id_g.split(":")[1]) <= int(id_w.split(":")[1]), (id_g, id_w)
            if table == "t_default":
                # its last change follows a transaction that touched only `ignored`: decoderbufs sends that one's
                # BEGIN/COMMIT (pgoutput nothing), and that COMMIT is the commit position, as in Debezium
                own = int(want[-1]["value"]["payload"]["source"]["lsn"])
                assert commits_g[:-1] == commits_w[:-1]
                assert commits_w[-1] is not None and commits_g[-1] is not None
                assert commits_w[-1] < commits_g[-1] <= own
            else:
                assert commits_g == commits_w, table
        # sanity: the stream really covered what it should
        default = [normalised(r, (b"", b"")) for r in await read(prefix_p, "t_default")]
        ops = [r["value"]["payload"]["op"] if r["value"] else None for r in default]
        assert ops == ["c", "c", "c", "c", "u", "u", "u", "d", None, "c", "d", None, "d", None, "u", "c"]
        assert default[4]["value"]["payload"]["after"]["c_big"] == "__debezium_unavailable_value"
        full = [normalised(r, (b"", b"")) for r in await read(prefix_p, "t_full")]
        assert full[4]["value"]["payload"]["after"]["c_big"] == _big(1)
        for prefix in (prefix_p, prefix_d):
            assert (await client.delete(f"/connectors/{prefix}")).status_code == 204


# -- message level: the adapter's text against pgoutput's, value by value -------------------------------------


async def test_adapter_text_equals_pgoutput_text(own_database: str, unique_name: str) -> None:
    """decoderbufs has no publication: its slot decodes every table of the database, so another test's insert in
    a shared database would be one more row here."""
    schema, pg_dsn = unique_name, own_database
    rnd = random.Random(7)
    f4 = [struct.unpack("<f", struct.pack("<I", rnd.getrandbits(32)))[0] for _ in range(1500)]
    f8 = [struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0] for _ in range(1500)]
    floats = [(a, b) for a, b in zip(f4, f8, strict=True) if a == a and b == b]
    floats += [(1.1, 0.1), (1e-45, 5e-324), (16777216.0, 1e15), (123456.0, 123456789012345.0), (1e6, 1e-5)]
    instants = [rnd.randint(-210_866_803_200_000_000, 9_224_318_015_999_999_999) for _ in range(500)]
    slot_d, slot_p = f"{schema}_d", f"{schema}_p"
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA {schema}".encode())
        await conn.execute(
            f"CREATE TABLE {schema}.t (id serial PRIMARY KEY, a real, b float8, ts timestamp, tz timestamptz,"
            " d date, tm time, ttz timetz, p point, m money)".encode()
        )
        await conn.execute(f"CREATE PUBLICATION {slot_p} FOR TABLE {schema}.t".encode())
        await conn.execute("SELECT pg_create_logical_replication_slot(%s, 'decoderbufs')", (slot_d,))
        await conn.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (slot_p,))
        try:
            async with conn.cursor() as cur:
                await cur.executemany(f"INSERT INTO {schema}.t (a, b) VALUES (%s, %s)".encode(), floats)
                at = "to_timestamp(%s::float8 / 1e6) AT TIME ZONE 'UTC'"
                await cur.executemany(
                    f"INSERT INTO {schema}.t (ts, tz, d, tm, ttz, p, m) VALUES ({at}, to_timestamp(%s::float8 / 1e6),"
                    f" ({at})::date, ({at})::time, (({at})::time || '+05:30')::timetz, point(%s, %s),"
                    " %s::numeric::money)".encode(),
                    [
                        (us, us, us, us, us, us / 7e5, -us / 3e9, f"{us / 1e12:.2f}")
                        for us in instants
                        if us < 9_223_371_331_199_999_999
                    ],
                )
                await cur.execute(
                    f"INSERT INTO {schema}.t (ts, tz, d, tm, ttz) VALUES"
                    " ('294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', 'infinity', '24:00:00',"
                    " '23:00-01'), ('4713-11-24 00:00:00 BC', '4713-11-24 00:00:00+00 BC', '-infinity', '00:00',"
                    " '00:00+14'), ('infinity', '-infinity', '5874897-12-31', '12:00:00.000001', '12:00+00')".encode()
                )
            frames = await (
                await conn.execute(
                    "SELECT lsn, data FROM pg_logical_slot_get_binary_changes(%s, NULL, NULL)", (slot_d,)
                )
            ).fetchall()
            adapter = DecoderbufsAdapter(captured=lambda _t: True, identity_columns=lambda _t: ("id",))
            got = [
                m.new
                for _, m in adapter.adapt([(Lsn(0), decode_row_message(d)) for _, d in frames])
                if isinstance(m, pg.Insert)
            ]
            decoder = pg.PgOutputDecoder()
            sent = await (
                await conn.execute(
                    "SELECT lsn, data FROM pg_logical_slot_get_binary_changes(%s, NULL, NULL, 'proto_version', '1',"
                    " 'publication_names', %s)",
                    (slot_p, slot_p),
                )
            ).fetchall()
            want = [m.new for m in (decoder.decode(d) for _, d in sent) if isinstance(m, pg.Insert)]
        finally:
            await conn.execute("SELECT pg_drop_replication_slot(%s)", (slot_d,))
            await conn.execute("SELECT pg_drop_replication_slot(%s)", (slot_p,))
            await conn.execute(f"DROP PUBLICATION {slot_p}".encode())
            await conn.execute(f"DROP SCHEMA {schema} CASCADE".encode())
    assert len(got) == len(want) > 1900
    names = ("id", "a", "b", "ts", "tz", "d", "tm", "ttz", "p", "m")
    differences = []
    for g, w in zip(got, want, strict=True):
        for name, x, y in zip(names, g, w, strict=True):
            if name == "ttz" and isinstance(x, str) and isinstance(y, str):
                # the offset is lost: the same UTC time is what the converter makes of both
                x, y = parse_timetz(x), parse_timetz(y)
            if x != y:
                differences.append((name, x, y))
    assert differences == [], differences[:20]
