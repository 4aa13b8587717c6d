"""Records written by Kafka Connect's JsonConverter (kafka-connect.md §3.1), with `schemas.enable=true`
(`{"schema":…,"payload":…}`) or false (the bare payload); `schemas="auto"` tells them apart per record.
Floats are read as Decimal so `decimal.format=NUMERIC` stays exact. Connect schemas are parsed once per distinct
schema text. Pure."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Literal

from spark_sink.connect_schema import ConnectSchema, SchemaError, parse_schema
from spark_sink.decoding.base import Decoded, DecodeFailure, RawRecord
from spark_sink.decoding.envelope import EnvelopeReader
from spark_sink.types.registry import ConversionError

SchemasMode = Literal["auto", "true", "false"]
_ENVELOPE_KEYS = frozenset({"schema", "payload"})
_SCHEMA_AT, _PAYLOAD_AT = '{"schema":', ',"payload":'
_JSON = json.JSONDecoder(parse_float=Decimal)


class JsonDecoder:
    """The envelope's schema is most of a record's bytes and the same for every record of a topic while the table
    keeps its columns: per topic and side (key, value) the decoder remembers the bytes an envelope starts with,
    `{"schema":<schema>,"payload":`, with the parsed schema, and a record that starts with exactly them has its
    payload parsed alone. (A JSON value ends where it ends, so a record starting with those bytes holds that schema;
    anything else after the payload than the closing brace fails the short parse and takes the whole one.)"""

    def __init__(self, reader: EnvelopeReader, schemas: SchemasMode = "auto") -> None:
        self.reader = reader
        self.schemas = schemas
        self._schemas: dict[str, ConnectSchema] = {}
        self._heads: dict[tuple[str, bool], tuple[bytes, ConnectSchema | None]] = {}

    def decode(self, record: RawRecord) -> Decoded:
        try:
            if record.value is None:
                return self.reader.read(record, None, None, None, None)
            value_schema, payload = self._envelope(record.topic, False, record.value)
            key_schema, key_payload = (None, None)
            if record.key is not None:
                key_schema, key_payload = self._envelope(record.topic, True, record.key)
            return self.reader.read(record, value_schema, payload, key_schema, key_payload)
        except (ValueError, SchemaError, ConversionError, TypeError, KeyError) as e:
            return DecodeFailure(record, f"{type(e).__name__}: {e}")

    def _envelope(self, topic: str, is_key: bool, data: bytes) -> tuple[ConnectSchema | None, Any]:
        head = self._heads.get((topic, is_key)) if self.schemas != "false" else None
        if head is not None and data.startswith(head[0]) and data.endswith(b"}"):
            try:
                # the one decoder, not json.loads' new one per call; bytes that start with the (ASCII) head are UTF-8
                return head[1], _JSON.decode(data[len(head[0]) : -1].decode("utf-8", "surrogatepass"))
            except ValueError:
                pass  # not the bare envelope after all: the whole parse below says what it is
        obj = _loads(data, "key" if is_key else "value")
        schema, payload = self._split(obj)
        if payload is not obj:  # read as an envelope: remember how it starts
            start = _head(data)
            if start is not None:
                self._heads[(topic, is_key)] = (start, schema)
        return schema, payload

    def _split(self, obj: Any) -> tuple[ConnectSchema | None, Any]:
        """(schema, payload) of an envelope; (None, obj) for anything read as a bare payload."""
        enveloped = isinstance(obj, dict) and obj.keys() == _ENVELOPE_KEYS
        if self.schemas == "true" and not enveloped:
            raise ValueError('JsonConverter with schemas.enable requires "schema" and "payload" fields')
        if not enveloped or self.schemas == "false":
            return None, obj
        raw_schema = obj["schema"]
        if raw_schema is None:
            return None, obj["payload"]
        cache_key = json.dumps(raw_schema, sort_keys=True)
        schema = self._schemas.get(cache_key)
        if schema is None:
            schema = parse_schema(raw_schema)
            self._schemas[cache_key] = schema
        return schema, obj["payload"]


def _head(data: bytes) -> bytes | None:
    """The bytes `{"schema":<schema>,"payload":` an enveloped record starts with, None if it does not."""
    if not data.startswith(_SCHEMA_AT.encode()):
        return None
    text = data.decode("utf-8")
    try:
        _, end = _JSON.raw_decode(text, len(_SCHEMA_AT))
    except ValueError:
        return None
    return text[: end + len(_PAYLOAD_AT)].encode("utf-8") if text.startswith(_PAYLOAD_AT, end) else None


def _loads(data: bytes, what: str) -> Any:
    try:
        return json.loads(data, parse_float=Decimal)
    except ValueError as e:
        raise ValueError(f"the {what} is not JSON: {e}") from None
