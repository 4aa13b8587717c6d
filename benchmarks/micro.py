"""Per-event CPU cost of the worker's hot path, stage by stage, without a database or a broker.

    .venv/bin/python -m benchmarks.micro [events]

Rows look like the benchmark table's (benchmarks/pgload.py) in PostgreSQL's text format, as pgoutput sends
them. Stages: row conversion (text → Connect values, key and value), record building (source block,
envelope), JsonConverter for key and value (schemas off and on), header conversion. Deterministic and
repeatable: use it to compare a change against its parent commit (numbers are µs per event, best of 3).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from typing import Any

from connectors.postgres.source_info import SOURCE_SCHEMA, SourceInfo
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational import metadata_schemas as md
from connectors.relational.emitter import RecordFactory, context_headers
from connectors.relational.schema_builder import SchemaBuilderSettings, TableSchema
from connectors.relational.table import Column, ColumnType, Table, TableId
from converters.json import JsonConverter
from converters.simple_header import SimpleHeaderConverter


def _table() -> Table:
    def col(name: str, pos: int, oid: int, tname: str, cat: str, **kw: Any) -> Column:
        return Column(name, pos, ColumnType(oid, tname, cat), **kw)

    return Table(
        TableId("public", "bench"),
        (
            col("id", 1, 20, "int8", "N", optional=False),
            col("account", 2, 20, "int8", "N", optional=False),
            col("name", 3, 25, "text", "S"),
            col("email", 4, 25, "text", "S"),
            col("amount", 5, 1700, "numeric", "N", typmod=(12 << 16 | 2) + 4, length=12, scale=2),
            col("created", 6, 1184, "timestamptz", "D", scale=6),
            col("doc", 7, 3802, "jsonb", "U"),
            col("active", 8, 16, "bool", "B"),
            col("note", 9, 25, "text", "S"),
        ),
        primary_key=("id",),
    )


def _rows(n: int) -> list[tuple[str, ...]]:
    return [
        (
            str(g),
            str(g % 100000),
            f"customer-{g}",
            f"{g:032x}@example.com",
            f"{(g % 100000) / 100:.2f}",
            f"2026-11-2{g % 10} 1{g % 10}:2{g % 10}:3{g % 10}.{g % 1000000:06d}+00",
            f'{{"qty": {g % 17}, "sku": "SKU-{g % 5000}", "tags": ["red", "large", "{g:032x}"], '
            f'"price": {g % 1000}.{g % 10}}}',
            "t" if g % 2 else "f",
            f"{g:032x}" * 3,
        )
        for g in range(n)
    ]


def _best(fn: Callable[[], None], n: int) -> float:
    times = []
    for _ in range(3):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) / n * 1e6


def main(n: int = 20000) -> None:
    table = _table()
    options = TypeOptions()
    settings = SchemaBuilderSettings(
        topic_prefix="bench",
        converter_for=lambda c: converter_for(c, options),
        mapper_for=lambda t, c: None,
        key_columns_for=lambda t: None,
        column_included=lambda t, c: True,
        adjust_schema_name=lambda s: s,
        adjust_field_name=lambda s: s,
        source_schema=SOURCE_SCHEMA,
        transaction_schema=md.EVENT_BLOCK_SCHEMA,
    )
    schema = TableSchema(table, settings)
    key_fn, value_fn = schema.row_converter([c.name for c in table.columns])
    assert key_fn is not None
    rows = _rows(n)
    source = SourceInfo("bench", "bench")
    factory = RecordFactory(
        partition={"server": "bench"},
        headers=context_headers("bench", "0", "postgresql", "01a2006e-d30d-7598-a193-f892913d984e"),
        tombstones_on_delete=True,
    )
    topic = "bench.public.bench"
    values = [value_fn(r) for r in rows]
    keys = [key_fn(r) for r in rows]

    key_of = schema.key_from_value
    assert key_of is not None

    def convert() -> None:
        for r in rows:
            key_of(value_fn(r))

    records: list[Any] = []

    def build() -> None:
        records.clear()
        for i, (k, v) in enumerate(zip(keys, values, strict=True)):
            src = source.struct(
                ts_us=1795303602364902 + i // 10_000,  # streaming: the commit time of a 10k-row transaction
                schema="public",
                table="bench",
                tx_id=729,
                lsn=22182192 + i,
                last_commit_lsn=22182100,
            )
            off = {
                "lsn_proc": 22182192 + i,
                "messageType": "INSERT",
                "lsn_commit": 22182100,
                "lsn": 22182192 + i,
                "txId": 729,
                "ts_usec": 1795303602364902,
            }
            records.append(factory.read_or_create(schema, topic, "c", k, v, src, None, off))

    build()
    results = {"row conversion (key+value)": _best(convert, n), "record building": _best(build, n)}
    for schemas in (False, True):
        kc, vc = JsonConverter(), JsonConverter()
        kc.configure({"schemas.enable": str(schemas).lower()}, True)
        vc.configure({"schemas.enable": str(schemas).lower()}, False)

        def encode(kc: JsonConverter = kc, vc: JsonConverter = vc) -> None:
            for rec in records:
                kc.from_connect_data(topic, rec.key_schema, rec.key)
                vc.from_connect_data(topic, rec.value_schema, rec.value)

        results[f"JsonConverter key+value, schemas {'on' if schemas else 'off'}"] = _best(encode, n)
    hc = SimpleHeaderConverter()
    hc.configure({})
    headers = records[0].headers

    def header() -> None:
        for _ in range(n):
            [(h.key, hc.from_connect_header(topic, h.key, h.schema, h.value)) for h in headers]

    results["headers (4 context headers)"] = _best(header, n)
    sample = JsonConverter()
    sample.configure({"schemas.enable": "false"}, False)
    encoded = sample.from_connect_data(topic, records[0].value_schema, records[0].value) or b""
    print(f"{n} events; value without schemas: {len(encoded)} bytes")
    for name, us in results.items():
        print(f"  {name:<45} {us:7.2f} µs/event")
    total = (
        results["row conversion (key+value)"]
        + results["record building"]
        + results["JsonConverter key+value, schemas off"]
        + results["headers (4 context headers)"]
    )
    print(f"  {'total (schemas off)':<45} {total:7.2f} µs/event = {1e6 / total:,.0f} events/s per core")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
