"""Decoding on the executors: Spark's `mapInArrow` hands each task its Kafka records as Arrow batches; the job's
decoders (spark_sink/decoding, JSON or Avro) turn every record into one row of a fixed shape (`SCHEMA`): what it is
(a change event, a transaction boundary, something to skip, a failure), where it goes, its source position, and its
row as JSON text (spark_sink/stage/rowjson.py) with the row schema's id. A row schema itself travels once per task
(the first row that has it), so the driver learns every schema from a few rows. Decoders, their converter caches
and the registry client are built once per Python worker process and kept across micro-batches."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from spark_sink.config import SinkConfig
from spark_sink.decoding.base import ChangeEvent, Decoded, DecodeFailure, Decoder, RawRecord, RowSchema, TxMarker
from spark_sink.stage import rowjson
from spark_sink.types import codec

INPUT_COLUMNS = ("topic", "partition", "offset", "key", "value", "timestamp_ms")
EVENT, MARKER, SKIP, FAILURE = "event", "marker", "skip", "failure"
_TYPES = {
    "string": "StringType", "int": "IntegerType", "bigint": "LongType", "binary": "BinaryType",
    "boolean": "BooleanType",
}  # fmt: skip
COLUMNS: tuple[tuple[str, str], ...] = (
    ("topic", "string"), ("partition", "int"), ("offset", "bigint"), ("key", "binary"), ("value", "binary"),
    ("timestamp_ms", "bigint"), ("kind", "string"), ("reason", "string"), ("tbl", "string"), ("op", "string"),
    ("epoch", "bigint"), ("pos", "bigint"), ("seq", "bigint"), ("source_ts", "bigint"), ("source_table", "string"),
    ("tx_id", "string"), ("typed", "boolean"), ("keyless", "boolean"), ("key_names", "array<string>"),
    ("schema_id", "string"), ("schema", "string"), ("row", "string"), ("before", "string"),
    ("unavailable", "array<string>"), ("snapshot", "string"), ("status", "string"), ("event_count", "bigint"),
    ("collections", "map<string,bigint>"), ("commit_lsn", "bigint"),
)  # fmt: skip


def spark_schema() -> Any:
    """The decoded rows' Spark schema, built without a JVM (the executors' Python workers have none)."""
    from pyspark.sql import types as T

    def of(name: str) -> Any:
        if name == "array<string>":
            return T.ArrayType(T.StringType(), True)
        if name == "map<string,bigint>":
            return T.MapType(T.StringType(), T.LongType(), True)
        return getattr(T, _TYPES[name])()

    return T.StructType([T.StructField(n, of(t), True) for n, t in COLUMNS])


FIELDS = tuple(n for n, _ in COLUMNS)


def schema_text(schema: RowSchema) -> str:
    return json.dumps({"name": schema.name, "columns": [[n, codec.encode(t)] for n, t in schema.columns]})


def schema_from_text(text: str) -> RowSchema:
    obj = json.loads(text)
    return RowSchema(tuple((str(n), codec.decode(t)) for n, t in obj["columns"]), obj.get("name"))


def schema_id(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


class Rows:
    """A task's decoded rows as column lists, taken one Arrow batch at a time (pure: the Arrow conversion is the
    caller's). Row schemas sent, their JSON encoders and the table of each topic are kept for the whole task."""

    def __init__(self, table_name: Callable[[str], str]) -> None:
        self.table_name = table_name
        self.sent: dict[RowSchema, tuple[str, rowjson.RowEncoder]] = {}  # schemas sent by this task → id, encoder
        self.tables: dict[str, str] = {}
        self.columns: dict[str, list[Any]] = {f: [] for f in FIELDS}

    def take(self) -> dict[str, list[Any]]:
        """The columns added since the last take."""
        columns, self.columns = self.columns, {f: [] for f in FIELDS}
        return columns

    def add(self, raw: RawRecord, decoded: Decoded) -> None:
        row: dict[str, Any] = dict.fromkeys(FIELDS)
        row.update(
            topic=raw.topic,
            partition=raw.partition,
            offset=raw.offset,
            key=raw.key,
            value=raw.value,
            timestamp_ms=raw.timestamp_ms,
        )
        if isinstance(decoded, ChangeEvent):
            self._event(row, decoded)
        elif isinstance(decoded, TxMarker):
            row.update(
                kind=MARKER,
                status=decoded.status,
                tx_id=decoded.tx_id,
                event_count=decoded.event_count,
                collections=list(decoded.data_collections.items()),
                commit_lsn=decoded.commit_lsn,
            )
        elif isinstance(decoded, DecodeFailure):  # its table, from the topic: where the dead letter says it belongs
            row.update(kind=FAILURE, reason=decoded.reason, tbl=self._table(raw.topic))
        else:
            row.update(kind=SKIP, reason=decoded.reason)
        for name, value in row.items():
            self.columns[name].append(value)

    def _table(self, topic: str) -> str:
        table = self.tables.get(topic)
        if table is None:
            table = self.tables[topic] = self.table_name(topic)
        return table

    def _event(self, row: dict[str, Any], e: ChangeEvent) -> None:
        known = self.sent.get(e.schema)
        text = None
        if known is None:  # the first row with this schema carries its text
            text = schema_text(e.schema)
            known = self.sent[e.schema] = (schema_id(text), rowjson.RowEncoder(e.schema))
        sid, encoder = known
        row.update(
            kind=EVENT,
            tbl=self._table(e.raw.topic),
            op=e.op,
            epoch=e.position.epoch,
            pos=e.position.major,
            seq=e.position.seq,
            source_ts=e.source_ts_ms,
            source_table=e.source_table,
            tx_id=e.tx_id,
            typed=e.typed,
            keyless=e.keyless,
            key_names=None if e.key is None else list(e.key),
            schema_id=sid,
            schema=text,
            row=encoder.dumps(e.row),
            before=encoder.dumps(e.before),
            unavailable=sorted(e.unavailable) or None,
            snapshot=e.snapshot,
        )


@dataclass(frozen=True)
class DecodeStage:
    """What an executor needs to decode a micro-batch (pickled into the Spark tasks)."""

    config: SinkConfig

    def decoder(self) -> Decoder:
        c = self.config
        key = (c.format, c.schemas, c.unavailable_value_placeholder, c.variable_scale, c.schema_registry_url,
               c.schema_registry_user_info)  # fmt: skip
        cached = _DECODERS.get(key)
        if cached is None:
            cached = _DECODERS[key] = build_decoder(self.config)
        return cached

    def __call__(self, batches: Iterable[Any]) -> Iterator[Any]:
        import pyarrow as pa  # type: ignore[import-untyped]

        decoder = self.decoder()
        schema = _arrow_schema()
        rows = Rows(self.config.table_name)
        for batch in batches:
            cols = batch.to_pydict()
            for topic, partition, offset, key, value, ts in zip(*(cols[c] for c in INPUT_COLUMNS), strict=True):
                raw = RawRecord(topic, int(partition), int(offset), key, value, ts)
                rows.add(raw, decoder.decode(raw))
            yield pa.RecordBatch.from_pydict(rows.take(), schema=schema)


_DECODERS: dict[tuple[Any, ...], Decoder] = {}
_ARROW: list[Any] = []


def _arrow_schema() -> Any:
    if not _ARROW:
        from pyspark.sql.pandas.types import to_arrow_schema

        _ARROW.append(to_arrow_schema(spark_schema()))
    return _ARROW[0]


def build_decoder(config: SinkConfig) -> Decoder:
    from spark_sink.decoding import decoder_for
    from spark_sink.decoding.schema_registry import RegistryClient
    from spark_sink.types import TypeOptions

    registry = None
    if config.schema_registry_url:
        registry = RegistryClient.from_config(config.schema_registry_url, config.schema_registry_user_info)
    return decoder_for(
        config.format,
        schemas=config.schemas,
        placeholder=config.unavailable_value_placeholder,
        options=TypeOptions(variable_scale=config.variable_scale),
        registry=registry,
    )
