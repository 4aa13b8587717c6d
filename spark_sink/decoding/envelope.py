"""The Debezium envelope (kafka-connect.md §4.3, postgresql.md §5): payload + optional Connect schema →
ChangeEvent / Skipped / TxMarker. Converters are built once per distinct row schema and cached. Pure."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from spark_sink.connect_schema import ConnectSchema
from spark_sink.decoding.base import ChangeEvent, Decoded, DecodeFailure, RawRecord, RowSchema, Skipped, TxMarker
from spark_sink.position import position_of
from spark_sink.types import infer
from spark_sink.types.model import SinkType
from spark_sink.types.registry import ConversionError, TypeRegistry

DEFAULT_PLACEHOLDER = "__debezium_unavailable_value"
DATA_OPS = frozenset({"c", "u", "d", "r"})
TX_VALUE = "io.debezium.connector.common.TransactionMetadataValue"
HEARTBEAT = "io.debezium.connector.common.Heartbeat"


@dataclass(frozen=True)
class RowCodec:
    """Converts one row schema's payload objects; knows which raw values are the TOAST placeholder."""

    schema: RowSchema
    converters: tuple[tuple[str, Callable[[Any], Any], Callable[[Any], bool]], ...]

    def convert(self, row: Mapping[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
        out: dict[str, Any] = {}
        unavailable = []
        for name, convert, is_placeholder in self.converters:
            raw = row.get(name)
            if raw is not None and is_placeholder(raw):
                out[name] = None
                unavailable.append(name)
                continue
            try:
                out[name] = convert(raw)
            except ConversionError as e:
                raise ConversionError(f"column {name!r}: {e}") from None
        return out, frozenset(unavailable)


def placeholder_test(schema: ConnectSchema, placeholder: str) -> Callable[[Any], bool]:
    """postgresql.md §6.8: the placeholder is a string for text columns, its bytes for binary ones, an array holding
    it for arrays. Bytes arrive as base64 text from JSON and as bytes from Avro."""
    raw = placeholder.encode()
    b64 = base64.b64encode(raw).decode()
    if schema.type == "string":
        return lambda v: v == placeholder
    if schema.type == "bytes":
        return lambda v: v in (b64, placeholder, raw)
    if schema.type == "array":
        return lambda v: isinstance(v, list) and len(v) == 1 and v[0] in (placeholder, b64, raw)
    return lambda v: False


class EnvelopeReader:
    def __init__(self, registry: TypeRegistry, placeholder: str = DEFAULT_PLACEHOLDER) -> None:
        self.registry = registry
        self.placeholder = placeholder
        self._codecs: dict[ConnectSchema, RowCodec] = {}
        self._key_codecs: dict[ConnectSchema, RowCodec] = {}

    # -- codecs ------------------------------------------------------------------------------------------
    def row_codec(self, schema: ConnectSchema, cache: dict[ConnectSchema, RowCodec] | None = None) -> RowCodec:
        cache = self._codecs if cache is None else cache
        codec = cache.get(schema)
        if codec is None:
            if schema.type != "struct":
                raise ConversionError(f"a row schema must be a struct, got {schema.type}")
            cols: list[tuple[str, SinkType]] = []
            convs = []
            for f in schema.fields:
                mapping = self.registry.mapping_for(f.schema)
                cols.append((f.name, mapping.sink_type))
                convs.append(
                    (f.name, self.registry.converter_for(f.schema), placeholder_test(f.schema, self.placeholder))
                )
            codec = RowCodec(RowSchema(tuple(cols), schema.name), tuple(convs))
            cache[schema] = codec
        return codec

    # -- records ------------------------------------------------------------------------------------------
    def read(
        self,
        raw: RawRecord,
        value_schema: ConnectSchema | None,
        payload: Any,
        key_schema: ConnectSchema | None,
        key_payload: Any,
    ) -> Decoded:
        if payload is None:
            return Skipped(raw, "tombstone")
        if not isinstance(payload, Mapping):
            return DecodeFailure(raw, f"the value payload is a {type(payload).__name__}, not a Debezium envelope")
        name = value_schema.name if value_schema else None
        if name == TX_VALUE or (name is None and payload.get("status") in ("BEGIN", "END") and "id" in payload):
            return self._tx_marker(raw, payload)
        if name == HEARTBEAT or (name is None and "op" not in payload and set(payload) <= {"ts_ms"}):
            return Skipped(raw, "heartbeat")
        op = payload.get("op")
        if op == "m":
            return Skipped(raw, "logical decoding message")
        if op == "t":
            return self._event(
                raw, "t", None, None, RowSchema(()), frozenset(), payload, typed=value_schema is not None
            )
        if op not in DATA_OPS:
            return DecodeFailure(raw, f"not a Debezium change event (op={op!r})")
        row_field = "before" if op == "d" else "after"
        row_payload = payload.get(row_field)
        if op != "d" and not isinstance(row_payload, Mapping):
            return DecodeFailure(raw, f"op {op!r} without an '{row_field}' row")
        key = self._key(key_schema, key_payload)
        if key is None:
            return DecodeFailure(raw, "the record has no key (table without a primary key): cannot be merged")
        if value_schema is not None:
            row_schema = value_schema.field("after") or value_schema.field("before")
            if row_schema is None:
                return DecodeFailure(raw, "the envelope schema has no 'after'/'before' field")
            codec = self.row_codec(row_schema)
            row, unavailable = codec.convert(row_payload) if isinstance(row_payload, Mapping) else ({}, frozenset())
            if op == "d":  # before may be partial (REPLICA IDENTITY DEFAULT): nothing but the key is trusted
                unavailable = frozenset()
            schema = codec.schema
            typed = True
        else:
            row, unavailable, schema = self._schemaless_row(row_payload if isinstance(row_payload, Mapping) else {})
            typed = False
        for k, v in key.items():
            row[k] = v
        if key_schema is None:
            schema = _with_key_columns(schema, key)
        return self._event(raw, op, key, row, schema, unavailable, payload, typed=typed)

    def _key(self, key_schema: ConnectSchema | None, key_payload: Any) -> dict[str, Any] | None:
        if not isinstance(key_payload, Mapping) or not key_payload:
            return None
        if key_schema is None:
            return {str(k): v for k, v in key_payload.items()}
        codec = self.row_codec(key_schema, self._key_codecs)
        values, _ = codec.convert(key_payload)
        return values

    def _schemaless_row(self, row: Mapping[str, Any]) -> tuple[dict[str, Any], frozenset[str], RowSchema]:
        unavailable = frozenset(
            n for n, v in row.items() if v == self.placeholder or (isinstance(v, list) and v == [self.placeholder])
        )
        cols: list[tuple[str, SinkType]] = []
        out: dict[str, Any] = {}
        for n, v in row.items():
            t = infer.infer(None if n in unavailable else v)
            if t is not None:
                cols.append((n, t))
                out[n] = infer.coerce(v, t)
            else:
                out[n] = None
        for n in unavailable:
            out[n] = None
        return out, unavailable, RowSchema(tuple(cols))

    def _event(
        self,
        raw: RawRecord,
        op: str,
        key: Mapping[str, Any] | None,
        row: Mapping[str, Any] | None,
        schema: RowSchema,
        unavailable: frozenset[str],
        payload: Mapping[str, Any],
        *,
        typed: bool,
    ) -> ChangeEvent:
        source = payload.get("source") if isinstance(payload.get("source"), Mapping) else None
        transaction = payload.get("transaction") if isinstance(payload.get("transaction"), Mapping) else None
        ts = source.get("ts_ms") if source else None
        table = f"{source.get('schema')}.{source.get('table')}" if source and source.get("table") else None
        # only the transaction block ties an event to an END record; `source.txId` alone (snapshot reads, metadata
        # disabled) never gets one, so such events must not wait for it
        tx_id = str(transaction["id"]).split(":", 1)[0] if transaction and transaction.get("id") else None
        return ChangeEvent(
            raw=raw,
            op=op,
            key=key,
            row=row,
            schema=schema,
            position=position_of(source, transaction),
            unavailable=unavailable,
            source_ts_ms=int(ts) if isinstance(ts, int | float) and not isinstance(ts, bool) else None,
            source_table=table,
            tx_id=tx_id,
            typed=typed,
        )

    def _tx_marker(self, raw: RawRecord, payload: Mapping[str, Any]) -> TxMarker:
        collections: dict[str, int] = {}
        for entry in payload.get("data_collections") or ():
            if isinstance(entry, Mapping) and entry.get("data_collection"):
                collections[str(entry["data_collection"])] = int(entry.get("event_count") or 0)
        count = payload.get("event_count")
        tx_id, _, lsn = str(payload["id"]).partition(":")
        return TxMarker(
            raw=raw,
            status=str(payload["status"]),
            tx_id=tx_id,
            event_count=int(count) if isinstance(count, int) else None,
            data_collections=collections,
            commit_lsn=int(lsn) if lsn.isdigit() else None,
        )


def _with_key_columns(schema: RowSchema, key: Mapping[str, Any]) -> RowSchema:
    missing = [(k, infer.infer(v)) for k, v in key.items() if k not in schema.names]
    extra = tuple((k, t) for k, t in missing if t is not None)
    return RowSchema(schema.columns + extra, schema.name) if extra else schema
