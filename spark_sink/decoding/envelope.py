"""The Debezium envelope (kafka-connect.md §4.3, postgresql.md §5): payload + optional Connect schema →
ChangeEvent / Skipped / TxMarker. Converters are built once per distinct row schema and cached. Pure.

YugabyteDB's yboutput wraps every column of the key and of the rows in a cell, a struct `{value, set}`
(yugabytedb.md §1.3). The reader unwraps them: `{value: v, set: true}` is `v`; a cell with `set = false`, and a
null cell in an update (a column the update did not send, replica identity CHANGE or unchanged TOAST), leave the
table's value as it is, as YugabyteDB's own YBExtractNewRecordState leaves such columns out. A null cell in an
insert or a snapshot read is SQL NULL. An update that sets a column to NULL also arrives as a null cell (the
connector cannot tell the two apart): the table keeps the old value, as it does behind YugabyteDB's transform."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from spark_sink.connect_schema import ConnectSchema
from spark_sink.decoding.base import ChangeEvent, Decoded, DecodeFailure, RawRecord, RowSchema, Skipped, TxMarker
from spark_sink.position import PositionError, position_of, transaction_id
from spark_sink.types import infer
from spark_sink.types.model import SinkType
from spark_sink.types.registry import ConversionError, TypeRegistry

DEFAULT_PLACEHOLDER = "__debezium_unavailable_value"
_NO_OLD_ROW = (
    "a change of a table without a primary key needs the whole old row (REPLICA IDENTITY FULL), but the event "
    "has no 'before' image"
)
DATA_OPS = frozenset({"c", "u", "d", "r"})
TX_VALUE = "io.debezium.connector.common.TransactionMetadataValue"
HEARTBEAT = "io.debezium.connector.common.Heartbeat"


@dataclass(frozen=True)
class RowCodec:
    """Converts one row schema's payload objects; knows which raw values are the TOAST placeholder and which
    columns are yboutput cells."""

    schema: RowSchema
    converters: tuple[tuple[str, Callable[[Any], Any], Callable[[Any], bool]], ...]
    cells: frozenset[str] = frozenset()

    def convert(
        self, row: Mapping[str, Any], absent_is_unchanged: bool = False
    ) -> tuple[dict[str, Any], frozenset[str]]:
        """`absent_is_unchanged`: a null cell means "not sent" (updates), not SQL NULL."""
        out: dict[str, Any] = {}
        unavailable = []
        for name, convert, is_placeholder in self.converters:
            raw = row.get(name)
            if name in self.cells:
                not_sent = raw is None and absent_is_unchanged
                if not_sent or (isinstance(raw, Mapping) and raw.get("set") is False):
                    out[name] = None
                    unavailable.append(name)
                    continue
                raw = unwrap_cell(raw, name)
            if raw is not None and is_placeholder(raw):
                out[name] = None
                unavailable.append(name)
                continue
            try:
                out[name] = convert(raw)
            except ConversionError as e:
                raise ConversionError(f"column {name!r}: {e}") from None
        return out, frozenset(unavailable)


def is_cell(schema: ConnectSchema) -> bool:
    """A yboutput cell: a struct of exactly `value` and a boolean `set`."""
    names = schema.field_names if schema.type == "struct" else ()
    flag = schema.field("set") if names == ("value", "set") else None
    return flag is not None and flag.type == "boolean"


def unwrap_cell(cell: Any, name: str) -> Any:
    if cell is None:
        return None
    if not isinstance(cell, Mapping) or "value" not in cell:
        raise ConversionError(f"column {name!r}: a yboutput cell must be {{value, set}}, got {type(cell).__name__}")
    return cell["value"]


def schemaless_cells(row: Mapping[str, Any]) -> bool:
    """Schemaless JSON: a row is made of yboutput cells when every non-null column is a `{value, set}` object."""
    values = [v for v in row.values() if v is not None]
    return bool(values) and all(isinstance(v, Mapping) and set(v) == {"value", "set"} for v in values)


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
            cells = set()
            for f in schema.fields:
                column = f.schema
                if is_cell(column):
                    cells.add(f.name)
                    column = column.field("value") or column
                mapping = self.registry.mapping_for(column)
                cols.append((f.name, mapping.sink_type))
                convs.append((f.name, self.registry.converter_for(column), placeholder_test(column, self.placeholder)))
            codec = RowCodec(RowSchema(tuple(cols), schema.name), tuple(convs), frozenset(cells))
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
        row_schema = None if value_schema is None else value_schema.field("after") or value_schema.field("before")
        if value_schema is not None and row_schema is None:
            return DecodeFailure(raw, "the envelope schema has no 'after'/'before' field")
        row, unavailable, schema, typed = self._row(row_schema, row_payload, op)
        if key is None:
            return self._keyless(raw, op, row, unavailable, schema, payload, row_schema, typed=typed)
        if op == "d":  # before may be partial (REPLICA IDENTITY DEFAULT): nothing but the key is trusted
            unavailable = frozenset()
        for k, v in key.items():
            row[k] = v
        if key_schema is None:
            schema = _with_key_columns(schema, key)
        return self._event(raw, op, key, row, schema, unavailable, payload, typed=typed)

    def _row(
        self, row_schema: ConnectSchema | None, row_payload: Any, op: str
    ) -> tuple[dict[str, Any], frozenset[str], RowSchema, bool]:
        """A `before`/`after` image converted with the envelope's row schema (None: schemaless, types inferred):
        values, unavailable columns, the row schema, typed or inferred."""
        image = row_payload if isinstance(row_payload, Mapping) else {}
        if row_schema is None:
            row, unavailable, schema = self._schemaless_row(image, absent_is_unchanged=op == "u")
            return row, unavailable, schema, False
        codec = self.row_codec(row_schema)
        row, unavailable = codec.convert(image, absent_is_unchanged=op == "u") if image else ({}, frozenset())
        return row, unavailable, codec.schema, True

    def _keyless(
        self,
        raw: RawRecord,
        op: str,
        row: dict[str, Any],
        unavailable: frozenset[str],
        schema: RowSchema,
        payload: Mapping[str, Any],
        row_schema: ConnectSchema | None,
        *,
        typed: bool,
    ) -> Decoded:
        """A change of a table without a primary key (null record key): the whole row identifies it, so an update
        or delete needs the whole old row (REPLICA IDENTITY FULL), and no column may be left unsent."""
        before: dict[str, Any] | None = None
        if op == "u":
            if not isinstance(payload.get("before"), Mapping):
                return DecodeFailure(raw, _NO_OLD_ROW)
            before, before_unavailable, _, _ = self._row(row_schema, payload["before"], "r")
            filled = {c for c in unavailable if c in before and c not in before_unavailable}
            row.update({c: before[c] for c in filled})
            unavailable = (unavailable - filled) | before_unavailable
        elif op == "d" and not isinstance(payload.get("before"), Mapping):
            return DecodeFailure(raw, _NO_OLD_ROW)
        if unavailable:
            return DecodeFailure(
                raw,
                f"a table without a primary key is identified by whole rows, but {sorted(unavailable)} carry no "
                "value (unchanged TOAST or not sent): the row cannot be found",
            )
        return self._event(raw, op, None, row, schema, frozenset(), payload, typed=typed, before=before)

    def _key(self, key_schema: ConnectSchema | None, key_payload: Any) -> dict[str, Any] | None:
        if not isinstance(key_payload, Mapping) or not key_payload:
            return None
        if key_schema is None:
            if schemaless_cells(key_payload):
                return {str(k): unwrap_cell(v, str(k)) for k, v in key_payload.items()}
            return {str(k): v for k, v in key_payload.items()}
        codec = self.row_codec(key_schema, self._key_codecs)
        values, _ = codec.convert(key_payload)
        return values

    def _schemaless_row(
        self, row: Mapping[str, Any], absent_is_unchanged: bool = False
    ) -> tuple[dict[str, Any], frozenset[str], RowSchema]:
        unchanged = set()
        if schemaless_cells(row):
            unchanged = {
                n for n, v in row.items() if (v is None and absent_is_unchanged) or (v is not None and not v["set"])
            }
            row = {n: None if n in unchanged else unwrap_cell(v, n) for n, v in row.items()}
        unavailable = frozenset(
            n
            for n, v in row.items()
            if n in unchanged or v == self.placeholder or (isinstance(v, list) and v == [self.placeholder])
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
        before: Mapping[str, Any] | None = None,
    ) -> ChangeEvent | DecodeFailure:
        source = payload.get("source") if isinstance(payload.get("source"), Mapping) else None
        transaction = payload.get("transaction") if isinstance(payload.get("transaction"), Mapping) else None
        ts = source.get("ts_ms") if source else None
        table = f"{source.get('schema')}.{source.get('table')}" if source and source.get("table") else None
        # only the transaction block ties an event to an END record; `source.txId` alone (snapshot reads, metadata
        # disabled) never gets one, so such events must not wait for it
        tx_id = transaction_id(transaction["id"])[0] if transaction and transaction.get("id") else None
        try:
            position = position_of(source, transaction)
        except PositionError as e:
            return DecodeFailure(raw, f"no source position: {e}")
        return ChangeEvent(
            raw=raw,
            op=op,
            key=key,
            row=row,
            schema=schema,
            position=position,
            unavailable=unavailable,
            source_ts_ms=int(ts) if isinstance(ts, int | float) and not isinstance(ts, bool) else None,
            source_table=table,
            tx_id=tx_id,
            typed=typed,
            before=before,
            snapshot=None if not source or source.get("snapshot") is None else str(source["snapshot"]),
        )

    def _tx_marker(self, raw: RawRecord, payload: Mapping[str, Any]) -> TxMarker:
        collections: dict[str, int] = {}
        for entry in payload.get("data_collections") or ():
            if isinstance(entry, Mapping) and entry.get("data_collection"):
                collections[str(entry["data_collection"])] = int(entry.get("event_count") or 0)
        count = payload.get("event_count")
        tx_id, commit_lsn = transaction_id(payload["id"])
        return TxMarker(
            raw=raw,
            status=str(payload["status"]),
            tx_id=tx_id,
            event_count=int(count) if isinstance(count, int) else None,
            data_collections=collections,
            commit_lsn=commit_lsn,
        )


def _with_key_columns(schema: RowSchema, key: Mapping[str, Any]) -> RowSchema:
    missing = [(k, infer.infer(v)) for k, v in key.items() if k not in schema.names]
    extra = tuple((k, t) for k, t in missing if t is not None)
    return RowSchema(schema.columns + extra, schema.name) if extra else schema
