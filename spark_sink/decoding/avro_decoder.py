"""Records written by Confluent's AvroConverter (io.confluent.connect.avro.AvroConverter, and this project's
converters/avro.py): byte 0 = 0 (magic), bytes 1-4 = the writer schema's id (big-endian), then the Avro binary
datum; a top-level non-optional `bytes` schema carries the raw bytes themselves, as Confluent's serializer writes
them.

Per schema id, once per process (the first record that names it): the writer schema from the registry, its
Connect schema (`avro_schema.to_connect_schema`), fastavro's parsed form with every `logicalType` stripped, and a
payload shaper. A record is then one fastavro read: the datum comes out in the raw forms the JSON payload has
(decimal as unscaled bytes, Date as days, Timestamp as millis, Debezium's time types as their ints), and the
shaper only touches what Avro writes differently from JsonConverter: maps with non-string keys (arrays of
{key, value} records → [key, value] pairs) and general unions (→ the Connect union struct). Bytes stay bytes,
where JSON has base64 text: the type registry's converters take both. Keys, values and tombstones then go through
the shared EnvelopeReader, so the same sink types and values come out as for the JSON twin.

An unframed record, an id the registry does not know, or a body that does not read with its schema is a
DecodeFailure naming the side (key/value), the id and the reason; an unreachable registry raises RegistryError
(the batch fails and is replayed, nothing is dead-lettered for it).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import fastavro

from spark_sink.connect_schema import ConnectSchema, SchemaError
from spark_sink.decoding.avro_schema import UNION_NAME, to_connect_schema
from spark_sink.decoding.base import Decoded, DecodeFailure, RawRecord
from spark_sink.decoding.envelope import EnvelopeReader
from spark_sink.decoding.schema_registry import SchemaSource, UnknownSchema
from spark_sink.types.registry import ConversionError

MAGIC = 0
Shape = Callable[[Any], Any]


class AvroRecordError(ValueError):
    """Bytes that are not a readable Confluent Avro record."""


@dataclass(frozen=True)
class WriterSchema:
    """Everything about one schema id."""

    schema_id: int
    connect: ConnectSchema
    parsed: Any  # fastavro's parsed schema, logical types stripped
    shape: Shape | None  # datum → payload, None when the datum already is the payload
    raw_bytes: bool  # top-level non-optional bytes: the body is the value


def strip_logical(avro: Any) -> Any:
    """The schema without any `logicalType`: fastavro then reads the raw int/long/bytes forms."""
    if isinstance(avro, dict):
        return {k: strip_logical(v) for k, v in avro.items() if k != "logicalType"}
    if isinstance(avro, list):
        return [strip_logical(v) for v in avro]
    return avro


def writer_schema(schema_id: int, text: str) -> WriterSchema:
    """Compiles a registry schema text; SchemaError when it is not an Avro schema with a Connect form."""
    try:
        avro = json.loads(text)
    except ValueError as e:
        raise SchemaError(f"the schema text is not JSON: {e}") from None
    connect = to_connect_schema(avro)
    try:
        parsed = fastavro.parse_schema(strip_logical(avro), _ignore_default_error=True)
    except Exception as e:  # noqa: BLE001 - fastavro: SchemaParseException, UnknownType, KeyError … all mean "invalid"
        raise SchemaError(f"fastavro cannot parse it: {type(e).__name__}: {e}") from None
    raw = avro == "bytes" or (isinstance(avro, dict) and avro.get("type") == "bytes")
    return WriterSchema(schema_id, connect, parsed, payload_shape(connect), raw)


# -- datum → payload ---------------------------------------------------------------------------------------------
def payload_shape(schema: ConnectSchema) -> Shape | None:
    """The conversion of a fastavro datum (logical types raw) into the JsonConverter payload form the type registry
    reads; None where they already agree (the common case: a Debezium row needs nothing)."""
    if schema.type == "struct":
        if schema.name == UNION_NAME:
            return _union_shape(schema)
        shapes = [(f.name, s) for f in schema.fields if (s := payload_shape(f.schema)) is not None]
        if not shapes:
            return None

        def struct(v: Any) -> Any:
            for name, shape in shapes:
                x = v.get(name)
                if x is not None:
                    v[name] = shape(x)
            return v

        return struct
    if schema.type == "array":
        assert schema.items is not None
        elem = payload_shape(schema.items)
        if elem is None:
            return None
        return lambda v: [None if x is None else elem(x) for x in v]
    if schema.type == "map":
        assert schema.keys is not None and schema.values is not None
        key, val = payload_shape(schema.keys) or _same, payload_shape(schema.values) or _same

        def entries(v: Any) -> Any:
            if isinstance(v, list):  # an array of MapEntry records: JsonConverter's [[key, value], …]
                return [(_opt(key, e["key"]), _opt(val, e["value"])) for e in v]
            return {k: _opt(val, x) for k, x in v.items()}

        return entries
    return None


def _same(v: Any) -> Any:
    return v


def _opt(shape: Shape, v: Any) -> Any:
    return None if v is None else shape(v)


def _union_shape(schema: ConnectSchema) -> Shape:
    """A general union's datum → {member field: value} with the one member set (Connect's union struct). A named
    member comes as (full name, value) when the union has several (fastavro's return_named_type); other members
    are told apart by their Python type."""
    members = [(f.name, f.schema, payload_shape(f.schema) or _same) for f in schema.fields]

    def union(v: Any) -> Any:
        if isinstance(v, tuple):
            short = str(v[0]).rpartition(".")[2]
            for name, _, shape in members:
                if name in (short, v[0]):
                    return {name: shape(v[1])}
            raise ConversionError(f"union member {v[0]!r} is not in the schema")
        for name, member, shape in members:
            if _matches(member, v):
                return {name: shape(v)}
        raise ConversionError(f"no union member holds a {type(v).__name__}")

    return union


def _matches(schema: ConnectSchema, v: Any) -> bool:
    t = schema.type
    if t == "boolean":
        return isinstance(v, bool)
    if t in ("int8", "int16", "int32", "int64"):
        return isinstance(v, int) and not isinstance(v, bool)
    if t in ("float", "double"):
        return isinstance(v, float)
    if t == "string":
        return isinstance(v, str)
    if t == "bytes":
        return isinstance(v, bytes)
    if t == "array" or (t == "map" and isinstance(v, list)):
        return isinstance(v, list)
    return isinstance(v, dict)


# -- the decoder ---------------------------------------------------------------------------------------------------
class AvroDecoder:
    def __init__(self, reader: EnvelopeReader, schemas: SchemaSource) -> None:
        self.reader = reader
        self.schemas = schemas
        self._by_id: dict[int, WriterSchema | str] = {}  # schema id → compiled schema, or why it is unusable

    def decode(self, record: RawRecord) -> Decoded:
        try:
            if record.value is None:
                return self.reader.read(record, None, None, None, None)
            value_schema, payload = self._read(record.value, "value")
            key_schema, key_payload = (None, None) if record.key is None else self._read(record.key, "key")
            return self.reader.read(record, value_schema, payload, key_schema, key_payload)
        except (AvroRecordError, SchemaError, ConversionError, TypeError, KeyError, ValueError) as e:
            return DecodeFailure(record, f"{type(e).__name__}: {e}")

    def writer(self, schema_id: int) -> WriterSchema | str:
        """The compiled writer schema of an id, or the reason it has none; one registry call per id."""
        found = self._by_id.get(schema_id)
        if found is None:
            try:
                found = writer_schema(schema_id, self.schemas.schema_text(schema_id))
            except UnknownSchema as e:
                found = str(e)
            except SchemaError as e:
                found = f"schema id {schema_id} has no Connect form: {e}"
            self._by_id[schema_id] = found
        return found

    def _read(self, data: bytes, side: str) -> tuple[ConnectSchema, Any]:
        if len(data) < 5 or data[0] != MAGIC:
            raise AvroRecordError(
                f"the {side} is not Confluent Avro (magic byte {data[:1].hex() or 'missing'}, expected 00"
                f"{'' if len(data) >= 5 else f'; {len(data)} bytes, the header alone is 5'})"
            )
        schema_id = int.from_bytes(data[1:5], "big")
        writer = self.writer(schema_id)
        if isinstance(writer, str):
            raise AvroRecordError(f"the {side}: {writer}")
        body = memoryview(data)[5:]
        if writer.raw_bytes:
            return writer.connect, bytes(body)
        try:
            datum = fastavro.schemaless_reader(
                io.BytesIO(body), writer.parsed, None, return_named_type=True, return_named_type_override=True
            )
        except Exception as e:  # noqa: BLE001 - fastavro: EOFError, UnicodeDecodeError, IndexError … on a bad body
            raise AvroRecordError(
                f"the {side} does not read with its schema id {schema_id}: {type(e).__name__}: {e}"
            ) from None
        if datum is not None and writer.shape is not None:
            datum = writer.shape(datum)
        return writer.connect, datum
